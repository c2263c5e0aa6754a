"""Rules file 6 (observation): the encoder keeps one vector per viewer and rewrites
only what changed; these tests check it against a from-scratch build while clones,
resamples and pickled copies share or rebuild the encoder."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from spyenvs.games.the_agents.game import TheAgentsGame


def _same_as_fresh(g):
    for v in range(g.N):
        fast = g.observe(v)
        fresh = g.encoder.encode(g, v, cached=False)
        assert np.array_equal(fast, fresh), f"viewer {v} at decision {len(g.actions)}"


def _random_step(g, pick):
    legal = np.flatnonzero(g.legal_mask())
    g.step(int(legal[pick.randrange(len(legal))]))


@pytest.mark.parametrize("n", [2, 5])
def test_6_incremental_observation_matches_fresh_build_while_clones_interleave(n):
    g = TheAgentsGame(num_players=n)
    g.reset(11)
    pick = random.Random(n)
    rng = np.random.default_rng(n)
    for k in range(400):
        if g.is_over:
            break
        _same_as_fresh(g)
        if k % 25 == 0:
            # a clone and a resample share the encoder: play them on, then come back
            side = g.clone() if k % 50 else g.resample_hidden(g.current_player, rng)
            for _ in range(6):
                if side.is_over:
                    break
                _random_step(side, pick)
                _same_as_fresh(side)
            _same_as_fresh(g)
        _random_step(g, pick)
    assert k > 50


def test_6_unpickled_state_observes_like_the_original():
    g = TheAgentsGame(num_players=3)
    g.reset(4)
    pick = random.Random(4)
    for _ in range(60):
        _random_step(g, pick)
    before = [g.observe(v) for v in range(3)]
    copy = pickle.loads(pickle.dumps(g))
    for v in range(3):
        assert np.array_equal(copy.observe(v), before[v])
    _random_step(copy, pick)
    _same_as_fresh(copy)


def test_6_state_unpickled_in_a_fresh_process_never_reuses_its_version_stamps(monkeypatch):
    import itertools

    from spyenvs.games.the_agents import rules

    g = TheAgentsGame(num_players=3)
    g.reset(5)
    pick = random.Random(5)
    for _ in range(60):
        _random_step(g, pick)
    blob = pickle.dumps(g)
    # a fresh process: its counter starts again at 1, far below the stamps in blob
    monkeypatch.setattr(rules, "VERSIONS", itertools.count(1))
    h = pickle.loads(blob)
    stamps = [h.bv, h.cv, h.av, h.mv]
    for _ in range(200):
        if h.is_over:
            break
        _random_step(h, pick)
        _same_as_fresh(h)
        assert all(next_stamp > max(stamps) for next_stamp in [h.bv, h.cv, h.av, h.mv] if next_stamp not in stamps)
