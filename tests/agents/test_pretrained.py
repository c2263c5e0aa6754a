"""The pretrained opponents shipped in the package: one per game, loadable by name
without torch or pickled code, playing legal moves to the end of a game."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from spyenvs.agents import make_policy
from spyenvs.agents.checkpoint import CheckpointError
from spyenvs.agents.pretrained import available, pretrained_path
from spyenvs.registry import ENV_IDS, make_game


def test_every_game_ships_a_small_pretrained_policy():
    assert available() == sorted(ENV_IDS)
    for env_id in ENV_IDS:
        size = os.path.getsize(pretrained_path(env_id))
        assert size < 4 * 2**20, f"{env_id}: {size} bytes"
        with np.load(pretrained_path(env_id), allow_pickle=False) as z:  # weights only: no code
            meta = json.loads(str(z["__meta__"]))
        assert meta["env_id"] == env_id


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_pretrained_plays_legal_moves_to_the_end_of_a_game(env_id):
    game = make_game(env_id)
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
    game = make_game("the_agents_v0", num_players=4)
    game.reset(0)
    with pytest.raises(CheckpointError, match="trained on"):
        make_policy("pretrained").bind(game, 0)
