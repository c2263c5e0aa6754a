"""The fast Specter Ops heuristics (agents/heuristics/specter_ops.py) take exactly the
decisions of the frozen reference (tests/agents/_specter_ops_reference.py: the code
before the speed rewrite of issue 11).

Games of the default config (padded agent turns) are played in lockstep: every seat's
heuristic exists twice, fast and reference, each set with its own equally seeded
random stream (shared by the seats, as HeuristicPolicy.bind shares it), and at every
decision of a heuristic seat both must choose the same action from the same
observation and mask; their memories (the agent's stall count, a hunter's ride plan)
and random streams therefore evolve alike. Some seats are random players, for states
the heuristics would not reach among themselves. When a heuristic is meant to play
differently, change the reference with it.

SPYENVS_HEURISTIC_EQUIVALENCE_GAMES=N plays N more whole games per player count.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import spyenvs
from spyenvs.agents.heuristics import specter_ops as FAST
from spyenvs.games.specter_ops.data import DECISIONS
from tests.agents import _specter_ops_reference as REF


def _policies(module, game, seed):
    rng = np.random.default_rng(seed)
    pols = [module.make(game.layout, game.config, role, rng) for role in game.roles]
    return pols


def play_lockstep(players: int, seed: int, random_seats=(), max_decisions: int | None = None, **config) -> dict:
    """One game in lockstep (``config``: more game options); returns the numbers of real
    (more than one legal action) heuristic decisions compared per role kind. Fails at
    the first that differs."""
    game = spyenvs.make_game("specter_ops_v0", num_players=players, **config)
    game.reset(seed)
    fast, ref = _policies(FAST, game, seed), _policies(REF, game, seed)
    other = np.random.default_rng([seed, 1])
    compared = {"agent": 0, "hunter": 0}
    steps = 0
    while not game.is_over and (max_decisions is None or sum(compared.values()) < max_decisions):
        seat = game.current_player
        obs, mask = game.observe(seat), game.legal_mask()
        legal = np.flatnonzero(mask)
        if seat in random_seats:
            action = int(legal[other.integers(legal.size)])
        else:
            expected = ref[seat].act(obs.copy(), mask.copy())
            action = fast[seat].act(obs, mask)
            decision = DECISIONS[int(np.argmax(game.layout.view(obs, "decision")))]
            assert action == expected, (f"{players}p seed {seed}, step {steps}, seat {seat} ({game.roles[seat]}), "
                                        f"{decision}: fast {action}, reference {expected}")
            compared["agent" if seat == 0 else "hunter"] += legal.size > 1
        game.step(action)
        steps += 1
    return compared


# (players, seed, random seats): about 1,000 agent and 1,000 hunter decisions in all, both
# roles at 2p, 4p and 5p (the traitor); a random hunter or agent for other states
CASES = [
    (2, 0, ()),
    (2, 2, ()),
    (2, 3, (1,)),
    (2, 2, (0,)),
    (4, 0, ()),
    (5, 0, ()),
]


@pytest.mark.parametrize("players,seed,random_seats", CASES)
def test_fast_heuristics_decide_as_the_reference(players, seed, random_seats):
    compared = play_lockstep(players, seed, random_seats)
    for kind in ("agent", "hunter"):
        played = kind == "agent" and 0 not in random_seats or kind == "hunter" and len(random_seats) < players - 1
        assert compared[kind] > 20 or not played, compared


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_fast_heuristics_decide_as_the_reference_long(players):
    games = int(os.environ.get("SPYENVS_HEURISTIC_EQUIVALENCE_GAMES", "0"))
    if not games:
        pytest.skip("set SPYENVS_HEURISTIC_EQUIVALENCE_GAMES=N for N more games per player count")
    for k in range(games):
        seed = 1000 + k
        pick = np.random.default_rng([seed, 2])
        randoms = tuple(s for s in range(players) if pick.random() < 0.2)
        play_lockstep(players, seed, randoms)


# ------------------------------------------------------------ the path searches alone
def _map_graph():
    from spyenvs.games.specter_ops import board as B

    free = np.asarray(B.to_plane(B.OPEN), bool).reshape(32, FAST.W)
    return FAST._neighbours(free), free.ravel()


@pytest.mark.parametrize("tie_heavy", [False, True])
def test_search_and_turn_walk_match_the_reference_on_random_costs(tie_heavy):
    # the agent's two searches, from random cells and costs: integer costs (many ties)
    # and costs halved by the fear (5p, stalled turns); the resumable search asked
    # for a few cells first and then for all of them agrees with the full search
    neigh, free = _map_graph()
    open_cells = np.flatnonzero(free)
    rng = np.random.default_rng(3 if tie_heavy else 4)
    for _ in range(15):
        fear = 1.0 if tie_heavy else 0.5 ** int(rng.integers(0, 12))
        cost = 1.0 + fear * 100.0 * (rng.random(FAST.CELLS) < 0.2)
        for h in rng.choice(open_cells, 2):
            for y in FAST._ring(int(h), 2):
                cost[y] += fear * 8.0
        sources = sorted(rng.choice(open_cells, 6, replace=False).tolist())
        expected = REF._dijkstra(neigh, sources, cost)
        search = FAST._Search(neigh, sources, cost, None)
        here = int(rng.choice(open_cells))
        some = [here] + neigh[here]
        assert np.array_equal(search.upto(some)[some], expected[some])
        assert np.array_equal(search.upto(range(FAST.CELLS)), expected)
        blocked = set(rng.choice(open_cells, 2).tolist()) - {here}
        danger = (rng.integers(0, 3, FAST.CELLS) * (fear * 12.0)).astype(np.float32)
        steps = int(rng.integers(1, 7))
        end, parent = FAST._bounded_walk(neigh, here, steps, cost, blocked, expected + danger, expected)
        ref_end, ref_parent = REF._bounded_walk(neigh, here, steps, cost, blocked, expected + danger, expected)
        assert end == ref_end and parent == ref_parent


def test_belief_spread_on_bitsets_matches_the_plane_steps():
    _, free = _map_graph()
    rng = np.random.default_rng(5)
    for k in (1, 3, 40):
        cells = np.zeros(FAST.CELLS, bool)
        cells[rng.choice(np.flatnonzero(free), k, replace=False)] = True
        cells[[0, 22, 735 - 22, 735]] = True  # corners: no wrap across the edges
        expected = cells.copy()
        for _ in range(4):
            expected = expected | (FAST.HunterHeuristic._step(expected) & free)
        assert np.array_equal(FAST._spread(cells, 4), expected)


@pytest.mark.parametrize("players,seed", [(2, 0), (2, 5), (5, 1)])
def test_scoring_while_playing_equals_scoring_then_playing(players, seed):
    """The prior of a heuristic that remembers its game scores each decision and
    then lets it play the decision: ``action_scores_advance_batch`` does both in one
    pass of the plan. Along whole games (the heuristics playing every seat, the
    traitor at 5p) it gives the scores that ``action_scores`` then ``act`` give, and
    leaves the same memory and random stream (so every later score agrees too)."""
    game = spyenvs.make_game("specter_ops_v0", num_players=players)
    game.reset(seed)
    driver = _policies(FAST, game, seed)
    two_pass, one_pass = _policies(FAST, game, seed + 1), _policies(FAST, game, seed + 1)
    compared = 0
    while not game.is_over:
        seat = game.current_player
        obs, mask = game.observe(seat), game.legal_mask()
        expected = two_pass[seat].action_scores(obs, mask)
        two_pass[seat].act(obs, mask)
        got = one_pass[seat].action_scores_advance_batch(obs[None], mask[None])[0]
        assert np.array_equal(got, expected), (players, seed, seat, DECISIONS[int(np.argmax(game.layout.view(obs, "decision")))])
        assert one_pass[seat].rng.bit_generator.state == two_pass[seat].rng.bit_generator.state
        compared += int(mask.sum() > 1)
        game.step(driver[seat].act(obs, mask))
    assert compared > 100
