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
from spyenvs.agents.heuristics import unrest_boards as boards
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
    """A district's progress towards every mission kind, tabulated from its suit set
    in one numpy pass (and cubed), and the Empire's memoised best progress, are the
    reference's floats on every district of up to 2 suit cards and on random larger
    ones, Decoys and unknown cards counting for nothing."""
    import itertools

    rng = np.random.default_rng(3)
    small = itertools.chain.from_iterable(itertools.combinations(range(20), k) for k in range(3))
    large = (tuple(rng.choice(20, size=rng.integers(3, 10), replace=False).tolist()) for _ in range(300))
    districts = [cards + (20, -1) for cards in itertools.chain(small, large)]
    bits = np.array([fast.suit_set(key) for key in districts])
    game = spyenvs.make_game("unrest_v0")
    ms = tuple(range(12))
    for thr in (14, 21):
        raw, cubed = boards.district_progress(bits, thr)
        reader = fast._Reader(game.layout, {"revolution_threshold": thr})
        for key, b, r, c in zip(districts, bits.tolist(), raw, cubed):
            expected = [reference.progress(m, key, thr) for m in ms]
            assert r[:12].tolist() == expected, (key, thr)
            assert c[:12].tolist() == [p**3.0 for p in expected], (key, thr)
            assert r[boards.NO_MISSION] == c[boards.NO_MISSION] == 0.0
            assert reader.value_of(b, ms) == max(expected), (key, thr)
            assert [fast.progress(m, key, thr) for m in ms] == expected


def _random_board(rng):
    cards = rng.permutation(24)[: rng.integers(0, 13)]
    types = [int(c) if c < 20 else 20 for c in cards]
    board = {d: [] for d in sorted(rng.choice(5, size=rng.integers(1, 6), replace=False).tolist())}
    for t in types:
        board[list(board)[rng.integers(len(board))]].append(t)
    missions = [(s, int(m)) for s, m in enumerate(rng.choice(12, size=rng.integers(0, 5), replace=False))]
    return board, missions


def _as_arrays(board, missions):
    bits = np.zeros((1, boards.NUM_DISTRICTS), np.int64)
    bits[0, : len(board)] = [fast.suit_set(c) for c in board.values()]
    kinds = np.full((1, boards.MAX_MISSIONS), boards.NO_MISSION)
    kinds[0, : len(missions)] = [m for _, m in missions]
    return bits, kinds


def test_board_value_equals_the_reference_dp():
    """The batched board value (a DP over used-mission sets, boards on the last axis)
    is the reference DP's float on random boards, whatever slots hold the missions,
    and a liberated district's position (the empty suit set) is worth nothing."""
    rng = np.random.default_rng(7)
    game = spyenvs.make_game("unrest_v0")
    theirs = reference._Reader(game.layout, {})
    table = boards.ProgressTable(21)
    for _ in range(300):
        board, missions = _random_board(rng)
        bits, kinds = _as_arrays(board, missions)
        expected = theirs.board_value(board, missions)
        assert table.values(bits, kinds).tolist() == [expected], (board, missions)
        assert table.values(bits, kinds[:, ::-1].copy()).tolist() == [expected], (board, missions)


def test_board_keys_tell_boards_apart():
    """Two boards have the same key only when each suit card sits at the same
    position and the same missions are available (in any slots): the key stands for
    the board's value when the batch's candidates are deduplicated."""
    rng = np.random.default_rng(11)
    seen = {}
    for _ in range(2000):
        board, missions = _random_board(rng)
        bits, kinds = _as_arrays(board, missions)
        key = int(boards.board_keys(bits, kinds)[0])
        identity = (tuple(bits[0].tolist()), frozenset(m for _, m in missions))
        assert seen.setdefault(key, identity) == identity
        assert int(boards.board_keys(bits, kinds[:, ::-1].copy())[0]) == key


def test_progress_table_starts_afresh_when_full():
    """A table past its limit drops its rows between searches and still answers the
    reference's values (bounded memory, no stale rows)."""
    rng = np.random.default_rng(5)
    game = spyenvs.make_game("unrest_v0")
    theirs = reference._Reader(game.layout, {})
    table = boards.ProgressTable(21)
    table.LIMIT = 8
    for _ in range(50):
        table.start()
        board, missions = _random_board(rng)
        bits, kinds = _as_arrays(board, missions)
        assert table.values(bits, kinds).tolist() == [theirs.board_value(board, missions)]
        assert table.n <= 8 + boards.NUM_DISTRICTS


def test_progress_table_refuses_a_threshold_below_one():
    with pytest.raises(ValueError, match="at least 1"):
        boards.ProgressTable(0)
