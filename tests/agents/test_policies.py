"""Random and ISMCTS policies, the policy registry and tournaments on the toy game."""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.agents import HeuristicPolicy, ISMCTS, RandomPolicy, make_policy, role_kind
from spyenvs.agents.arena import play_game
from spyenvs.experiments.evaluate import evaluate_vs, fit_elo, markdown_table, tournament
from spyenvs.core.stats import wilson_interval
from tests.core.toy_game import HighCard


def test_random_policy_only_picks_legal_actions():
    p = RandomPolicy(0)
    mask = np.array([0, 1, 0, 1, 0], np.int8)
    assert {p.act(None, mask) for _ in range(50)} == {1, 3}
    masks = np.array([[1, 0, 0], [0, 0, 1], [0, 1, 1]], np.int8)
    for _ in range(20):
        a = p.act_batch(np.zeros((3, 2)), masks)
        assert all(masks[i, a[i]] for i in range(3))
    with pytest.raises(ValueError, match="no legal action"):
        p.act(None, np.zeros(3, np.int8))


def test_role_kind_groups_numbered_seats():
    assert role_kind("player_3") == "player"
    assert role_kind("hunter_0") == "hunter"
    assert role_kind("rebel") == "rebel"


def test_make_policy_names_and_errors():
    assert isinstance(make_policy("random"), RandomPolicy)
    assert isinstance(make_policy("heuristic"), HeuristicPolicy)
    assert make_policy("ismcts:30").simulations == 30
    with pytest.raises(ValueError, match="allowed"):
        make_policy("nonsense")
    with pytest.raises(ValueError, match="ismcts:SIMS"):
        make_policy("ismcts:many")


class CountingHighCard(HighCard):
    resamples = 0

    def resample_hidden(self, viewer, rng):
        CountingHighCard.resamples += 1
        new = super().resample_hidden(viewer, rng)
        return new

    def clone(self):
        new = super().clone()
        new.__class__ = CountingHighCard
        return new


def test_ismcts_searches_only_on_resampled_states():
    game = CountingHighCard()
    game.reset(3)
    before = game.hidden_key(0), list(game.actions)
    CountingHighCard.resamples = 0
    agent = ISMCTS(simulations=40, seed=0).bind(game, 0)
    a = agent.act(game.observe(0), game.legal_mask())
    assert a in (0, 1)
    assert CountingHighCard.resamples == 41  # one determinization per iteration, one for the win-in-one check
    assert (game.hidden_key(0), list(game.actions)) == before  # the live game is untouched


def test_ismcts_beats_random_on_the_toy_game():
    # with 2 players and a 6-card deck, swapping low cards wins clearly more often
    g = HighCard()
    wins, n = 0, 200
    for i in range(n):
        seat = i % 2
        pols = [RandomPolicy(i)] * 2
        pols[seat] = ISMCTS(simulations=60, seed=i)
        wins += play_game(g, pols, i)[seat] > 0
    assert wilson_interval(wins, n)[0] > 0.5


def test_tournament_rotates_seats_and_ranks_the_better_policy_first():
    res = tournament(HighCard, {"num_players": 3}, {"random": RandomPolicy(0), "heuristic": HeuristicPolicy(0)}, 90)
    m = {(x["candidate"], x["opponent"]): x for x in res["matches"]}
    assert m[("heuristic", "random")]["kinds"]["player"]["games"] == 90
    assert m[("heuristic", "random")]["kinds"]["player"]["rate"] > m[("random", "heuristic")]["kinds"]["player"]["rate"]
    assert res["elo"]["heuristic"] > res["elo"]["random"] == 1000
    text = markdown_table(res)
    assert "| heuristic | random | player | 90 |" in text and "| policy | Elo |" in text


def test_evaluate_vs_counts_roles_and_intervals():
    res = evaluate_vs(HighCard, {}, HeuristicPolicy(1), RandomPolicy(1), 40, seed=5)
    v = res["kinds"]["player"]
    assert v["games"] == 40 and v["low"] <= v["rate"] <= v["high"]


def test_fit_elo_equal_players_stay_equal_and_offsets_multiplayer():
    # in a 4-seat game, winning 1/4 of the time against the rest is par
    elo = fit_elo([("a", "b", 25, 100), ("b", "a", 25, 100)], ["a", "b"], 4)
    assert abs(elo["a"] - elo["b"]) < 5
    elo = fit_elo([("a", "b", 80, 100), ("b", "a", 20, 100)], ["a", "b"], 2)
    assert elo["b"] - elo["a"] < -150


def test_tournament_pair_games_and_workers_give_the_same_games():
    population = {"random": RandomPolicy(1), "ismcts:8": ISMCTS(simulations=8, seed=2)}
    seeds = {"random": 1, "ismcts:8": 2}
    pair_games = lambda a, b: 4 if "ismcts" in (a + b) else 10  # noqa: E731
    one = tournament(HighCard, {}, population, 10, seed=3, policy_seeds=seeds, pair_games=pair_games)
    two = tournament(HighCard, {}, population, 10, seed=3, policy_seeds=seeds, pair_games=pair_games, workers=2)
    assert [m["games"] for m in one["matches"]] == [4, 4]
    assert [m["kinds"] for m in one["matches"]] == [m["kinds"] for m in two["matches"]]
    assert one["elo"] == two["elo"]
