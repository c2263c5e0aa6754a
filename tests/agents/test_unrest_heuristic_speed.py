"""The fast Unrest heuristic (issue 11) decides exactly as the reference version
(``_unrest_heuristic_reference.py``, the code before the speed rewrite): the same
action and the same draws from its rng, for both roles, on every test config, over
a few hundred states of heuristic-vs-heuristic games with random detours, through
``act`` and through ``act_batch``. Both
implementations keep one instance per role across all the games, so a memo that
carries a stale value from one decision into another shows up too."""

from __future__ import annotations

import numpy as np
import pytest

import spyenvs
from spyenvs.agents.heuristics import unrest as fast
from spyenvs.games.unrest.game import UnrestGame

from . import _unrest_heuristic_reference as reference

GAMES_PER_CONFIG = 3
DETOUR = 0.25  # chance that a move is random instead of the reference's choice
#: the decisions (with a choice) that the states must contain, so the test cannot
#: pass by never reaching a branch
DECISIONS = {"choose_area", "play_cards", "assign_card", "liberate", "empire_action_1", "empire_action_2"}


@pytest.mark.parametrize("config_index", range(len(UnrestGame.TEST_CONFIGS)))
def test_fast_heuristic_decides_as_the_reference(config_index):
    config = UnrestGame.TEST_CONFIGS[config_index]
    driver = np.random.default_rng(1000 + config_index)
    probe = spyenvs.make_game("unrest_v0", **config)
    pairs = [
        (
            fast.make(probe.layout, probe.config, role, np.random.default_rng(seat)),
            reference.make(probe.layout, probe.config, role, np.random.default_rng(seat)),
        )
        for seat, role in enumerate(probe.roles)
    ]
    decided = {role: 0 for role in probe.roles}
    recorded = [([], [], []) for _ in probe.roles]  # per seat: observations, masks, actions
    seen = set()
    for game_seed in range(GAMES_PER_CONFIG):
        g = spyenvs.make_game("unrest_v0", **config)
        g.reset(seed=100 * config_index + game_seed)
        while not g.is_over:
            p = g.current_player
            obs, mask = g.observe(p), g.legal_mask()
            mine, theirs = pairs[p]
            a_ref = int(theirs.act(obs.copy(), mask.copy()))
            a_fast = int(mine.act(obs.copy(), mask.copy()))
            where = f"config {config}, game {game_seed}, {g.roles[p]} in {g.decision_name()}"
            assert a_fast == a_ref, f"{where}: fast heuristic chose {a_fast}, reference {a_ref}"
            assert mine.rng.bit_generator.state == theirs.rng.bit_generator.state, f"{where}: rng draws differ"
            for column, item in zip(recorded[p], (obs, mask, a_ref)):
                column.append(item)
            if mask.sum() > 1:
                decided[g.roles[p]] += 1
                seen.add(g.decision_name())
            legal = np.flatnonzero(mask)
            g.step(int(legal[driver.integers(legal.size)]) if driver.random() < DETOUR else a_ref)
    assert min(decided.values()) >= 40, decided
    assert seen == DECISIONS, seen
    # act_batch answers a batch as act answers its rows in order (same rng draws)
    for seat, role in enumerate(probe.roles):
        observations, masks, expected = (np.array(c) for c in recorded[seat])
        batched = fast.make(probe.layout, probe.config, role, np.random.default_rng(seat))
        got = np.concatenate([batched.act_batch(observations[i : i + 16], masks[i : i + 16])
                              for i in range(0, len(expected), 16)])
        assert got.dtype == np.int64 and got.tolist() == expected.tolist(), f"{role}: act_batch differs from act"


def test_district_tables_equal_the_reference_progress():
    """A district's tabulated value and DP moves (from its suit set) are the
    reference's progress floats for every mission, on every district of up to 2
    suit cards and on random larger ones, Decoys and unknown cards counting for
    nothing."""
    import itertools

    rng = np.random.default_rng(3)
    small = itertools.chain.from_iterable(itertools.combinations(range(20), k) for k in range(3))
    large = (tuple(rng.choice(20, size=rng.integers(3, 10), replace=False).tolist()) for _ in range(300))
    game = spyenvs.make_game("unrest_v0")
    readers = {thr: fast._Reader(game.layout, {"revolution_threshold": thr}) for thr in (14, 21)}
    ms = tuple(range(12))
    for cards in itertools.chain(small, large):
        key = cards + (20, -1)
        bits = fast.suit_set(key)
        for thr, reader in readers.items():
            expected = [reference.progress(m, key, thr) for m in ms]
            value, moves, best = reader._district(bits, ms)
            assert value == max(expected), (cards, thr)
            cubed = [p**3.0 for p in expected]
            assert moves == tuple((1 << m, c) for m, c in enumerate(cubed) if c > 0), (cards, thr)
            assert best == max(cubed), (cards, thr)
            assert [fast.progress(m, key, thr) for m in ms] == expected


def test_board_value_equals_the_reference_dp():
    """The memoised board value is the reference DP's float on random boards."""
    rng = np.random.default_rng(7)
    game = spyenvs.make_game("unrest_v0")
    mine, theirs = fast._Reader(game.layout, {}), reference._Reader(game.layout, {})
    for _ in range(300):
        cards = rng.permutation(24)[: rng.integers(0, 13)]
        types = [int(c) if c < 20 else 20 for c in cards]
        board = {d: [] for d in sorted(rng.choice(5, size=rng.integers(1, 6), replace=False).tolist())}
        for t in types:
            board[list(board)[rng.integers(len(board))]].append(t)
        missions = [(s, int(m)) for s, m in enumerate(rng.choice(12, size=rng.integers(0, 5), replace=False))]
        assert mine.board_value(board, missions) == theirs.board_value(board, missions), (board, missions)
        assert mine.board_value(board, missions) == theirs.board_value(board, missions)  # memo hit
