"""The pretrained opponents shipped in the package: one per table (game and player
count), loadable by name without torch or pickled code, playing legal moves to the end
of a game."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from spyenvs.agents import make_policy
from spyenvs.agents.checkpoint import CheckpointError
from spyenvs.agents import pretrained
from spyenvs.agents.pretrained import available, find_table, pretrained_path, table_name
from spyenvs.registry import ENV_IDS, make_game

#: every table, as (env id, player count or None for a game of one count)
TABLES = [(env_id, n if "num_players" in make_game(env_id).CONFIG else None)
          for env_id in ENV_IDS for n in pretrained.player_counts(env_id)]


def _config(n):
    return {} if n is None else {"num_players": n}


def test_every_shipped_file_is_small_weights_only_and_named_after_its_table():
    for table in available():
        size = os.path.getsize(pretrained_path(table))
        assert size < 4 * 2**20, f"{table}: {size} bytes"
        with np.load(pretrained_path(table), allow_pickle=False) as z:  # weights only: no code
            meta = json.loads(str(z["__meta__"]))
        assert table_name(meta["env_id"], meta["config"]) == table


@pytest.mark.parametrize("env_id,players", TABLES)
def test_pretrained_plays_legal_moves_to_the_end_of_a_game(env_id, players):
    if find_table(env_id, _config(players)) is None:
        pytest.skip(f"no policy shipped for {env_id} at {players} players yet")
    game = make_game(env_id, **_config(players))
    game.reset(3)
    template = make_policy("pretrained", seed=0)
    players = [template.bind(game, s) for s in range(game.num_players)]
    n = 0
    while not game.is_over and n < 5000:
        p = game.current_player
        mask = game.legal_mask()
        a = players[p].act(game.observe(p), mask)
        assert mask[a], f"{env_id}: illegal action {a} at {game.decision_name()}"
        game.step(a)
        n += 1
    assert game.is_over


def test_pretrained_refuses_a_config_it_was_not_trained_on():
    game = make_game("the_agents_v0", end_rule="equal_turns")
    game.reset(0)
    with pytest.raises(CheckpointError, match="trained on .*differs in end_rule='equal_turns'"):
        make_policy("pretrained").bind(game, 0)


def test_pretrained_names_the_player_counts_it_ships_for_a_table_without_a_file(monkeypatch):
    monkeypatch.setattr(pretrained, "available", lambda: ["the_agents_v0"])
    game = make_game("the_agents_v0", num_players=4)
    game.reset(0)
    with pytest.raises(CheckpointError, match="no pretrained the_agents_v0 policy at num_players=4; shipped at "
                                              r"num_players 2 \(tables: the_agents_v0\)"):
        make_policy("pretrained").bind(game, 0)


def test_a_table_is_named_by_its_player_count_beside_the_default():
    assert table_name("the_agents_v0") == table_name("the_agents_v0", {"num_players": 2}) == "the_agents_v0"
    assert table_name("the_agents_v0", {"num_players": 5}) == "the_agents_v0-5p"
    assert table_name("spy_games_v0", {"num_players": 4}) == "spy_games_v0"
    assert table_name("unrest_v0") == "unrest_v0"
    assert pretrained.parse_table("spy_games_v0-2p") == ("spy_games_v0", {"num_players": 2})
    for bad in ("spy_games_v0-5p", "chess_v0", "the_agents_v0-p"):
        with pytest.raises(ValueError):
            pretrained.parse_table(bad)
