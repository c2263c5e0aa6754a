"""The conformance checks every env must pass, written once over the game contract
and the AEC adapter. ``tests/conformance/test_conformance.py`` runs them for every
registered env id and test config; the core tests run them on a toy game (and on
leaky toy variants, to show each check can fail).

Hidden information is checked through every channel: observation and mask under
``resample_hidden`` (``run_leak_test``), who acts when (``run_sequence_leak_test``)
and the resample itself (``run_resample_distribution_test``). Budgets for longer
runs: SPYENVS_FUZZ_SEEDS (or pytest --fuzz-seeds N), SPYENVS_LEAK_SEEDS,
SPYENVS_SEQUENCE_SEEDS, SPYENVS_SEQUENCE_CONTINUATIONS, SPYENVS_RESAMPLE_SEEDS and
SPYENVS_RESAMPLE_DRAWS."""

from __future__ import annotations

import copy
import json
import math
import os
import pickle
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from spyenvs.core import GameStateError, IllegalActionError, RecordError, SpyAECEnv
from spyenvs.core.envfactory import env_functions
from spyenvs.core.game import role_kind
from spyenvs.core.records import load_record, save_record
from spyenvs.registry import replay

#: seeds of random play per config; SPYENVS_FUZZ_SEEDS raises it for long fuzzing
FUZZ_SEEDS = int(os.environ.get("SPYENVS_FUZZ_SEEDS", "50"))
#: a game longer than this many decisions under random play is reported as a hang
MAX_DECISIONS = 20000
#: random games the leak test samples states from (12 states each); raise for long runs
LEAK_SEEDS = int(os.environ.get("SPYENVS_LEAK_SEEDS", "8"))
#: random games the sequence-leak test takes start states from (3 per role each)
SEQUENCE_SEEDS = int(os.environ.get("SPYENVS_SEQUENCE_SEEDS", "4"))
#: continuations played from each start state of the sequence-leak test
SEQUENCE_CONTINUATIONS = int(os.environ.get("SPYENVS_SEQUENCE_CONTINUATIONS", "16"))
#: decisions a continuation may take before the viewer's next one (longer ones are dropped)
SEQUENCE_CAP = 400
#: random games the resample-distribution test takes start states from (2 per role each)
RESAMPLE_SEEDS = int(os.environ.get("SPYENVS_RESAMPLE_SEEDS", "5"))
#: resamples drawn per state by the resample-distribution test (two states per check)
RESAMPLE_DRAWS = int(os.environ.get("SPYENVS_RESAMPLE_DRAWS", "30"))
#: a truth-favouring count this unlikely for a correct sampler fails the resample test
RESAMPLE_ALPHA = 1e-6


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
    """``seeds`` random games to the end with invariants checked every step; every
    failing seed is reported (with its count), not only the first."""
    seeds = FUZZ_SEEDS if seeds is None else seeds
    lengths, crashes = [], []
    for seed in range(seeds):
        game = game_cls(**config)
        try:
            game.reset(seed)
            game.check_invariants()
            rng = np.random.default_rng(10_000 + seed)
            lengths.append(random_playout(game, rng))
            for p in range(game.num_players):
                check_observation(game, p)
        except Exception as e:  # a fuzz run counts every kind of crash
            where = f"after {len(game.actions)} decisions" if game.actions else "at set-up"
            crashes.append(f"seed {seed} {where}: {type(e).__name__}: {str(e)[:300]}")
    assert not crashes, (
        f"{game_cls.env_id} {config}: {len(crashes)} of {seeds} seeds of random play failed "
        f"(each replays with reset(seed) and moves from default_rng(10000 + seed)):\n  "
        + "\n  ".join(crashes[:20])
    )
    return lengths


def run_constant_inputs_test(game_cls, config, seeds=12, per_game=16):
    """Entries outside ``varying_inputs()`` hold one value in every observation of
    every viewer (learners drop them from their input). Returns how many states were
    checked, or None when the game declares every entry as varying."""
    probe = game_cls(**config)
    varying = probe.varying_inputs()
    if varying is None:
        return None
    constant = np.ones(probe.observation_size, bool)
    constant[varying] = False
    reference, checked = None, 0
    for game in sample_states(game_cls, config, seeds=seeds, per_game=per_game):
        for p in range(game.num_players):
            obs = game.observe(p)[constant]
            if reference is None:
                reference = obs.copy()
            bad = np.flatnonzero(obs != reference)
            assert not bad.size, (
                f"{game_cls.env_id} {config}: observation entries {np.flatnonzero(constant)[bad][:10].tolist()} "
                f"changed for viewer {p} after {len(game.actions)} decisions, but varying_inputs() calls them constant")
        checked += 1
    return checked


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


def run_rebuild_test(game_cls, config):
    """Where the game rebuilds a state from a role's observation (``rebuilds_from``),
    the rebuilt game shows every seat what the true one shows, offers the same moves
    at the same decision, and plays on; None where the game declares no such role."""
    kinds = set(game_cls.rebuilds_from)
    if not kinds:
        return None
    rng = np.random.default_rng(0)
    rebuilt = 0
    for game in sample_states(game_cls, config, seeds=4, per_game=10):
        if game.is_over:
            continue
        for seat in range(game.num_players):
            if role_kind(game.roles[seat]) not in kinds:
                continue
            r = game.from_observation(seat, game.observe(seat), rng)
            for p in range(game.num_players):
                assert np.array_equal(r.observe(p), game.observe(p)), f"seat {p} sees another game"
            assert np.array_equal(r.legal_mask(), game.legal_mask()) and r.decision_name() == game.decision_name()
            random_steps(r, rng, 3)
            rebuilt += 1
    assert rebuilt, "no state to rebuild"
    return rebuilt


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


# ------------------------------------------------------------- who acts when
# AEC's agent_selection is public, so the sequence of acting roles must be a function
# of what each role may know. The test plays many continuations from resamples of one
# state and checks that continuations a role cannot tell apart act in the same order.


def neutral_hidden_key(game, viewer):
    """``hidden_key(viewer)`` without the game's RNG state: future chance is always
    re-drawn by a resample, so it must not make every resample look 'different'."""
    probe = copy.copy(game)
    probe.rng = np.random.default_rng(0)
    return _frozen(probe.hidden_key(viewer))


def _frozen(value):
    """A hashable, ==-comparable copy (lists and arrays become tuples)."""
    if isinstance(value, np.ndarray):
        return tuple(value.tolist())
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(value))
    return value


def visible_label(game, action, viewer, legal):
    """What ``viewer`` is shown of the pending move, or None when every legal move shows
    the same label: such a label (a hidden or a forced move) says only who acts, which
    is what the sequence test checks, so it must not become part of the viewer's key."""
    label = game.action_label_for(action, viewer)
    for other in legal:
        if other != action and game.action_label_for(int(other), viewer) != label:
            return label
    return None


def leaking_options(game_cls, config):
    """The options of ``config`` that opt into a who-acts-when leak the game documents
    (a game lists them as ``SEQUENCE_LEAKING_OPTIONS = {option: leaking value}``)."""
    declared = getattr(game_cls, "SEQUENCE_LEAKING_OPTIONS", {})
    merged = game_cls(**config).config
    return {k: v for k, v in declared.items() if merged.get(k) == v}


@dataclass
class Continuation:
    """One continuation from a start state up to the viewer's next decision."""

    key: tuple  # what the viewer knows then: observation, mask, the moves it was shown
    actors: tuple[int, ...]  # who acted at each decision, ending with the viewer
    decisions: tuple[str, ...]  # decision_name() at each of those decisions
    game: Any  # the state at the viewer's next decision
    history: tuple = ()  # the viewer's observations on the way (when asked for)


def play_to_next_decision(state, viewer, move, rng, cap=SEQUENCE_CAP, history=False):
    """From ``resample_hidden(viewer)`` of ``state`` (where ``viewer`` is to act), play
    ``move`` and then random moves of the others until ``viewer`` is to act again. None
    when the game ends first (no later decision can use what the sequence told) or after
    ``cap`` decisions."""
    game = state.resample_hidden(viewer, rng)
    game.step(move)
    actors, decisions, shown, seen = [], [], [], []
    if history:
        seen.append(game.observe(viewer).tobytes())
    while not game.is_over and game.current_player != viewer:
        if len(actors) >= cap:
            return None
        actors.append(game.current_player)
        decisions.append(game.decision_name())
        legal = np.flatnonzero(game.legal_mask())
        a = int(rng.choice(legal))
        label = visible_label(game, a, viewer, legal)
        if label is not None:
            shown.append(label)
        game.step(a)
        if history:
            obs = game.observe(viewer).tobytes()
            if obs != seen[-1]:
                seen.append(obs)
    if game.is_over:
        return None
    actors.append(viewer)
    decisions.append(game.decision_name())
    key = (game.observe(viewer).tobytes(), game.legal_mask().tobytes(), tuple(shown))
    return Continuation(key, tuple(actors), tuple(decisions), game, tuple(seen))


def _sequence_text(game, c, lo, hi):
    steps = [f"{game.roles[r]}:{d}" for r, d in zip(c.actors[lo:hi], c.decisions[lo:hi])]
    return ("... " if lo else "") + ", ".join(steps) + (" ..." if hi < len(c.actors) else "")


def sequence_divergence(state, viewer, move, a, b, where=""):
    """The failure message for two continuations ``viewer`` cannot tell apart whose
    acting sequences differ (``viewer``'s next decision ends each sequence)."""
    j = next(i for i in range(min(len(a.actors), len(b.actors))) if a.actors[i] != b.actors[i])
    roles = state.roles
    parted = (
        f"right after {roles[viewer]}'s move" if j == 0
        else f"after decision {a.decisions[j - 1]!r} by {roles[a.actors[j - 1]]} (decision {j} of the continuation)"
    )
    lo, hi = max(0, j - 6), j + 4
    return (
        f"{state.env_id} {state.config}: who acts when leaks hidden information to {roles[viewer]}. "
        f"From {where}decision {state.decision_name()!r}, {roles[viewer]} plays "
        f"{state.action_label(move)!r}; two continuations give {roles[viewer]} the same observation, "
        f"mask and visible moves at its next decision, but their acting sequences part {parted}: "
        f"next comes {roles[a.actors[j]]} at {a.decisions[j]!r} in one, {roles[b.actors[j]]} at "
        f"{b.decisions[j]!r} in the other.\n  one:   {_sequence_text(state, a, lo, hi)}\n"
        f"  other: {_sequence_text(state, b, lo, hi)}"
    )


def check_acting_sequence_from(state, viewer, rng, move=None, continuations=SEQUENCE_CONTINUATIONS,
                               where="", history=False, check=True):
    """The sequence-leak check from one state where ``viewer`` is to act: ``viewer``
    plays one fixed move (``move``, or a random legal one), then ``continuations``
    continuations are played; within each group that ``viewer`` cannot tell apart the
    acting sequences must be identical (unless ``check`` is false). Returns the groups
    (key -> continuations). Game tests can call this on an explicit state."""
    assert state.current_player == viewer and not state.is_over
    if move is None:
        move = int(rng.choice(np.flatnonzero(state.legal_mask())))
    groups: dict[tuple, list[Continuation]] = {}
    for _ in range(continuations):
        c = play_to_next_decision(state, viewer, move, rng, history=history)
        if c is None:
            continue
        group = groups.setdefault(c.key if check else (c.key, c.actors), [])
        if group and group[0].actors != c.actors:
            raise AssertionError(sequence_divergence(state, viewer, move, group[0], c, where))
        group.append(c)
    return groups


def sequence_start_states(game_cls, config, seeds, per_role=3):
    """(state, role, seed, step): for each of ``seeds`` random games, ``per_role``
    decisions of every role spread evenly over the game."""
    for seed in range(seeds):
        game = game_cls(**config)
        game.reset(seed)
        rng = np.random.default_rng(seed + 99)
        actors = []
        while not game.is_over:
            actors.append(game.current_player)
            game.step(int(rng.choice(np.flatnonzero(game.legal_mask()))))
        stops = {}
        for p in range(game.num_players):
            mine = [i for i, q in enumerate(actors) if q == p]
            if mine:
                for k in np.linspace(0, len(mine) - 1, per_role).astype(int):
                    stops[mine[k]] = p
        actions = list(game.actions)
        game = game_cls(**config)
        game.reset(seed)
        for i, a in enumerate(actions):
            if i in stops:
                yield game, stops[i], seed, i
            game.step(a)


def run_sequence_leak_test(game_cls, config, seeds=None, continuations=None):
    """The sequence-leak test over states from random play, for every role; returns the
    number of groups (per role) in which at least two continuations were compared."""
    seeds = SEQUENCE_SEEDS if seeds is None else seeds
    continuations = SEQUENCE_CONTINUATIONS if continuations is None else continuations
    compared = [0] * game_cls(**config).num_players
    for state, p, seed, step in sequence_start_states(game_cls, config, seeds):
        rng = np.random.default_rng(1000 * seed + step)
        groups = check_acting_sequence_from(state, p, rng, continuations=continuations,
                                            where=f"seed {seed}, step {step}, ")
        compared[p] += sum(len(g) > 1 for g in groups.values())
    idle = [game_cls(**config).roles[p] for p, n in enumerate(compared) if not n]
    assert not idle, (
        f"{game_cls.env_id} {config}: the sequence-leak test compared no two continuations for {idle} "
        f"(vacuous there; raise SPYENVS_SEQUENCE_SEEDS or SPYENVS_SEQUENCE_CONTINUATIONS)"
    )
    return compared


# ------------------------------------------------------------ resample distribution
# A resample must depend only on what the viewer knows. Two states the viewer cannot
# tell apart ("twins", found by the sequence test's continuations) must therefore be
# resampled alike: neither may get back its own hidden state (or any part of it) more
# often than the other does. This is a two-sample test, so it holds for any correct
# sampler, also where hidden_key groups dealt states into keys of unequal weight (a
# bound against a uniform sampler over the keys seen would flag those).


def sign_test_tail(hits, cross):
    """P(X >= hits) for X ~ Binomial(hits + cross, 1/2): how unlikely ``hits`` true-state
    returns are against ``cross`` returns of the twin's state. Under a correct sampler
    the two counts are exchangeable and their difference varies less than this binomial
    allows, so the bound is conservative."""
    n = hits + cross
    return sum(math.comb(n, i) for i in range(hits, n + 1)) / 2**n


def _parts(ka, kb):
    """(name, part of a's key, part of b's key, picker) for the whole key and, when the
    key is a tuple, each of its components that differs between the two states."""
    out = [("hidden state", ka, kb, lambda k: k)]
    if isinstance(ka, tuple) and isinstance(kb, tuple) and len(ka) == len(kb):
        for i in range(len(ka)):
            if ka[i] != kb[i]:
                out.append((f"hidden_key component {i}", ka[i], kb[i], lambda k, i=i: k[i]))
    return out


def check_resample_twins(a, b, viewer, rng, draws=None, where=""):
    """``a`` and ``b`` are states ``viewer`` cannot tell apart, with different hidden
    states. Resampling either must not keep returning its own hidden state (b), nor
    return it, or any differing component of it, significantly more often than the
    twin's resamples do (a)."""
    draws = RESAMPLE_DRAWS if draws is None else draws
    ka, kb = neutral_hidden_key(a, viewer), neutral_hidden_key(b, viewer)
    ra = [neutral_hidden_key(a.resample_hidden(viewer, rng), viewer) for _ in range(draws)]
    rb = [neutral_hidden_key(b.resample_hidden(viewer, rng), viewer) for _ in range(draws)]
    name = (f"{a.env_id} {a.config}: resample_hidden({a.roles[viewer]}) at {where}"
            f"decision {a.decision_name()!r}")
    for own, keys in ((ka, ra), (kb, rb)):
        assert any(k != own for k in keys), (
            f"{name} returned the true hidden state in all {draws} draws, though another state "
            f"that {a.roles[viewer]} cannot tell from it has a different one"
        )
    for part, pa, pb, pick in _parts(ka, kb):
        hits = sum(pick(k) == pa for k in ra) + sum(pick(k) == pb for k in rb)
        cross = sum(pick(k) == pa for k in rb) + sum(pick(k) == pb for k in ra)
        tail = sign_test_tail(hits, cross)
        assert tail >= RESAMPLE_ALPHA, (
            f"{name} favours the truth: two states {a.roles[viewer]} cannot tell apart each got "
            f"their own {part} back {hits} times in {2 * draws} draws, the other's only {cross} "
            f"times (P = {tail:.1e} for a sampler that depends only on what {a.roles[viewer]} knows)"
        )


def resample_twins(game_cls, config, seeds, per_role=2, continuations=12):
    """(a, b, role, where): pairs of states a role cannot tell apart (same observation
    after every step, mask, visible moves and acting sequence since a common start)
    whose hidden states differ."""
    for state, p, seed, step in sequence_start_states(game_cls, config, seeds, per_role=per_role):
        rng = np.random.default_rng(5000 + 1000 * seed + step)
        groups = check_acting_sequence_from(state, p, rng, continuations=continuations, history=True,
                                            check=False)
        by_view: dict[tuple, list[Continuation]] = {}
        for group in groups.values():
            for c in group:
                by_view.setdefault((c.key, c.actors, c.history), []).append(c)
        for twins in by_view.values():
            first = neutral_hidden_key(twins[0].game, p)
            other = next((c for c in twins[1:] if neutral_hidden_key(c.game, p) != first), None)
            if other is not None:
                yield twins[0].game, other.game, p, f"seed {seed}, step {step} (continued), "


def run_resample_distribution_test(game_cls, config, seeds=None):
    """The resample checks for every pair of twins found in ``seeds`` random games;
    returns the number of pairs checked per role."""
    seeds = RESAMPLE_SEEDS if seeds is None else seeds
    rng = np.random.default_rng(11)
    pairs = [0] * game_cls(**config).num_players
    for a, b, p, where in resample_twins(game_cls, config, seeds):
        check_resample_twins(a, b, p, rng, where=where)
        pairs[p] += 1
    assert any(pairs), (
        f"{game_cls.env_id} {config}: no two states that a role cannot tell apart had different hidden "
        f"states: resample_hidden never re-deals (or the test found no such states: raise the budget)"
    )
    return pairs


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
