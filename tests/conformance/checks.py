"""The conformance checks every env must pass, written once over the game contract
and the AEC adapter. ``tests/test_conformance.py`` runs them for every registered
env id and test config; the core tests run them on a toy game."""

from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from spyenvs.core import GameStateError, IllegalActionError, RecordError, SpyAECEnv
from spyenvs.core.envfactory import env_functions
from spyenvs.core.records import load_record, replay, save_record

#: seeds of random play per config; SPYENVS_FUZZ_SEEDS raises it for long fuzzing
FUZZ_SEEDS = int(os.environ.get("SPYENVS_FUZZ_SEEDS", "50"))
#: a game longer than this many decisions under random play is reported as a hang
MAX_DECISIONS = 20000
#: random games the leak test samples states from (12 states each); raise for long runs
LEAK_SEEDS = int(os.environ.get("SPYENVS_LEAK_SEEDS", "8"))


def random_playout(game, rng, check=True, limit=MAX_DECISIONS):
    """Play uniformly random legal moves to the end, checking the contract each step."""
    n = 0
    while not game.is_over:
        mask = game.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
        legal = np.flatnonzero(mask)
        assert legal.size > 0, f"empty mask at decision {game.decision_name()}"
        assert 0 <= game.current_player < game.num_players
        game.step(int(rng.choice(legal)))
        if check:
            game.check_invariants()
        n += 1
        assert n < limit, f"no end after {limit} decisions"
    out = game.outcome()
    assert len(out) == game.num_players and all(-1 <= r <= 1 for r in out)
    return n


def check_observation(game, p):
    obs = game.observe(p)
    assert obs.dtype == np.float32 and obs.shape == (game.observation_size,)
    low, high = game.layout.bounds()
    assert np.all(obs >= low) and np.all(obs <= high), (
        f"observation out of declared bounds in blocks "
        f"{[b.name for b in game.layout.blocks.values() if np.any((obs[b.slice] < b.low) | (obs[b.slice] > b.high))]}"
    )
    return obs


def run_api_test(game_cls, config):
    env, _ = env_functions(game_cls)
    api_test(env(**config), num_cycles=200)


def run_seed_test(game_cls, config):
    env, _ = env_functions(game_cls)
    seed_test(lambda: env(**config), num_cycles=100)


def run_random_play(game_cls, config, seeds=None):
    seeds = FUZZ_SEEDS if seeds is None else seeds
    lengths = []
    for seed in range(seeds):
        game = game_cls(**config)
        game.reset(seed)
        game.check_invariants()
        rng = np.random.default_rng(10_000 + seed)
        lengths.append(random_playout(game, rng))
        for p in range(game.num_players):
            check_observation(game, p)
    return lengths


def sample_states(game_cls, config, seeds=8, per_game=12):
    """Random reachable states: ``per_game`` decision points spread evenly over each
    of ``seeds`` random games (and the final state), so long games cost no more
    test time than short ones."""
    for seed in range(seeds):
        game = game_cls(**config)
        game.reset(seed)
        rng = np.random.default_rng(seed + 99)
        random_playout(game, rng, check=False)
        actions = list(game.actions)
        stops = set(np.linspace(0, max(len(actions) - 1, 0), per_game).astype(int).tolist())
        game = game_cls(**config)
        game.reset(seed)
        for k, a in enumerate(actions):
            if k in stops:
                yield game
            game.step(a)
        yield game


def random_steps(game, rng, limit):
    """Up to ``limit`` random legal decisions with invariants checked each step."""
    for _ in range(limit):
        if game.is_over:
            return
        legal = np.flatnonzero(game.legal_mask())
        assert legal.size > 0, f"empty mask at decision {game.decision_name()}"
        game.step(int(rng.choice(legal)))
        game.check_invariants()


def run_leak_test(game_cls, config, seeds=LEAK_SEEDS):
    """observe(p) is unchanged by resample_hidden(p), the resample is a valid state
    (it plays on to the end), and it does change hidden state somewhere."""
    changed = [False] * game_cls(**config).num_players
    rng = np.random.default_rng(7)
    n_states = 0
    for game in sample_states(game_cls, config, seeds):
        n_states += 1
        for p in range(game.num_players):
            before = check_observation(game, p).copy()
            key = game.hidden_key(p)
            snapshot = pickle.dumps(game.__dict__)
            other = game.resample_hidden(p, rng)
            assert pickle.dumps(game.__dict__) == snapshot, "resample_hidden modified the original"
            assert np.array_equal(other.observe(p), before), (
                f"observation of {game.roles[p]} depends on hidden state: blocks "
                f"{[b.name for b in game.layout.blocks.values() if not np.array_equal(other.observe(p)[b.slice], before[b.slice])]}"
                f" at decision {game.decision_name()}"
            )
            assert other.is_over == game.is_over
            if not game.is_over:
                assert other.current_player == game.current_player
                if game.current_player == p:
                    assert np.array_equal(other.legal_mask(), game.legal_mask()), "legal mask leaks hidden state"
            if other.hidden_key(p) != key:
                changed[p] = True
            if n_states % 3 == 0 and not other.is_over:
                # the resample is a real state: it satisfies the invariants and plays on
                other.check_invariants()
                random_steps(other, rng, 200)
    assert all(changed), f"resample_hidden never changed hidden state for roles {[i for i, c in enumerate(changed) if not c]}"


def run_clone_test(game_cls, config):
    rng = np.random.default_rng(3)
    for game in sample_states(game_cls, config, seeds=3, per_game=6):
        if game.is_over:
            continue
        views = [game.observe(p).copy() for p in range(game.num_players)]
        text = game.render_text(None)
        twin = game.clone()
        assert np.array_equal(twin.observe(0), views[0])
        # the clone's RNG is the original's: the same moves give the same game
        twin2 = game.clone()
        moves = []
        while not twin.is_over and len(moves) < 50:
            a = int(rng.choice(np.flatnonzero(twin.legal_mask())))
            moves.append(a)
            twin.step(a)
        for a in moves:
            twin2.step(a)
        assert twin2.render_text(None) == twin.render_text(None)
        assert game.render_text(None) == text, "stepping a clone changed the original"
        assert all(np.array_equal(game.observe(p), v) for p, v in enumerate(views))


def run_replay_test(game_cls, config, tmp_path):
    for seed in range(3):
        game = game_cls(**config)
        game.reset(seed)
        random_playout(game, np.random.default_rng(seed), check=False)
        rec = game.to_record()
        path = tmp_path / f"rec{seed}.json"
        save_record(rec, path)
        again = replay(load_record(path))
        assert again.render_text(None) == game.render_text(None)
        assert again.outcome() == game.outcome()
        for p in range(game.num_players):
            assert np.array_equal(again.observe(p), game.observe(p))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RecordError):
        load_record(bad)
    bad.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(RecordError):
        load_record(bad)
    broken = dict(rec, actions=rec["actions"][:-1] + [10**6])
    with pytest.raises(RecordError):
        replay(broken)


def run_illegal_action_test(game_cls, config):
    for game in sample_states(game_cls, config, seeds=2, per_game=8):
        if game.is_over:
            with pytest.raises(GameStateError):
                game.step(0)
            continue
        mask = game.legal_mask()
        illegal = [-1, game.num_actions, 1.5, "x"] + np.flatnonzero(mask == 0).tolist()[:3]
        snapshot = pickle.dumps(game.__dict__)
        for a in illegal:
            with pytest.raises(IllegalActionError) as info:
                game.step(a)
            assert game.decision_name() in str(info.value)
            assert pickle.dumps(game.__dict__) == snapshot, f"illegal action {a!r} changed the state"
    fresh = game_cls(**config)
    with pytest.raises(GameStateError):
        fresh.step(0)


def run_penalize_test(game_cls, config):
    e = SpyAECEnv(game_cls(**config), illegal_action="penalize")
    e.reset(seed=1)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0]) if (mask == 0).any() else -1
    e.step(bad)
    assert all(e.terminations.values())
    assert e._cumulative_rewards[agent] == -1
    assert all(r == 0 for a, r in e._cumulative_rewards.items() if a != agent)


def run_bad_config_test(game_cls):
    for bad in game_cls.BAD_CONFIGS:
        with pytest.raises(ValueError) as info:
            game_cls(**bad)
        assert "allowed" in str(info.value)


def run_render_test(game_cls, config):
    for mode in ("ansi", "rgb_array"):
        e = SpyAECEnv(game_cls(**config), render_mode=mode)
        e.reset(seed=0)
        out = e.render()
        if mode == "ansi":
            assert isinstance(out, str) and out
        else:
            assert out.dtype == np.uint8 and out.ndim == 3 and out.shape[2] == 3
    game = game_cls(**config)
    game.reset(0)
    for p in list(range(game.num_players)) + [None]:
        assert game.render_text(p)
    for a in np.flatnonzero(game.legal_mask()):
        assert isinstance(game.action_label(int(a)), str)
