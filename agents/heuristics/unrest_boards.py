"""Batched board arithmetic for the Unrest Rebel heuristic (``unrest.py``): a
district's progress towards every mission kind, a board's best total over distinct
missions, and the card-by-card placement searches the Rebel's plan compares, each
for many boards in a few numpy calls.

A board is up to 5 districts, each a suit set (bit ``c`` set for suit card ``c``;
Decoys and unknown cards score nothing), and up to 4 available missions (kinds, in
slot order; :data:`NO_MISSION` pads). The floats are the reference's
(``tests/agents/_unrest_heuristic_reference.py``) term by term: progress is the same
operations elementwise, cubing is Python's ``**`` (numpy's ``power`` rounds
differently), and a board's total is the best left-to-right sum in district order
over the assignments of distinct missions. The subset DP below finds that maximum:
rounding is monotone, so the best sum per set of used missions extends to the best
sums after it, and a mission used on a district it cannot help adds an exact 0.0,
which changes no total.
"""

from __future__ import annotations

import numpy as np

from spyenvs.games.unrest import data as D

SUIT_CARDS = 20
NUM_DISTRICTS = 5
MAX_MISSIONS = 4
#: the padding mission kind: its column of the progress tables is 0.0
NO_MISSION = D.NUM_MISSION_KINDS
_COLUMNS = D.NUM_MISSION_KINDS + 1
POWER = 3.0  # convex: finishing one district beats spreading progress

_CARDS = np.arange(SUIT_CARDS)
_SUIT_VALUE = np.zeros((SUIT_CARDS, 4), np.int64)
_SUIT_COUNT = np.zeros((SUIT_CARDS, 4), np.int64)
_VALUE_COUNT = np.zeros((SUIT_CARDS, 7), np.int64)
_SUIT_VALUE[_CARDS, _CARDS // 5] = _CARDS % 5 + 2
_SUIT_COUNT[_CARDS, _CARDS // 5] = 1
_VALUE_COUNT[_CARDS, _CARDS % 5 + 2] = 1


def district_progress(bits: np.ndarray, thr: int) -> tuple[np.ndarray, np.ndarray]:
    """(raw, cubed): float64 ``bits.shape + (13,)``, each district's progress towards
    each mission kind (1.0 exactly when satisfied, else at most 0.9), and that cubed;
    column :data:`NO_MISSION` is 0.0."""
    flat = np.asarray(bits, dtype=np.int64).ravel()
    sets, where = np.unique(flat, return_inverse=True)
    raw, cubed = _progress_of_sets(sets, thr)
    shape = np.shape(bits) + (_COLUMNS,)
    return raw[where].reshape(shape), cubed[where].reshape(shape)


def _progress_of_sets(sets: np.ndarray, thr: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`district_progress` of distinct suit sets (K,): (K, 13) each."""
    has = (sets[:, None] >> _CARDS) & 1
    sums, counts, vals = has @ _SUIT_VALUE, has @ _SUIT_COUNT, has @ _VALUE_COUNT
    i, r, c, s = sums.T
    p = np.zeros((len(sets), _COLUMNS))
    p[:, 0] = (i + r + c + s) / thr
    p[:, 1] = 0.5 * np.minimum(c, 3) / 3 + 0.5 * np.where(i > c, 1.0, i / (c + 1))
    p[:, 2] = 0.5 * np.minimum(i, 4) / 4 + 0.5 * np.minimum(r, 4) / 4
    p[:, 3] = (counts > 0).sum(axis=1) / 4
    p[:, 4] = vals.max(axis=1) / 3
    p[:, 5] = np.where(counts[:, D.INTEL] > 0, 0.0, np.minimum(r, 8) / 8)
    p[:, 6] = 0.5 * np.minimum(r, 4) / 4 + 0.5 * np.minimum(s, 4) / 4
    p[:, 7] = 0.5 * np.minimum(r, 3) / 3 + 0.5 * np.where(s > r, 1.0, s / (r + 1))
    p[:, 8] = np.where(counts[:, D.COUP] > 0, 0.0, np.minimum(s, 8) / 8)
    p[:, 9] = 0.5 * np.minimum(c, 4) / 4 + 0.5 * np.minimum(s, 4) / 4
    p[:, 10] = counts.max(axis=1) / 3
    run = best = np.zeros(len(sets), np.int64)
    for v in range(2, 7):
        run = np.where(vals[:, v] > 0, run + 1, 0)
        best = np.maximum(best, run)
    p[:, 11] = best / 4
    p[:, :12] = np.minimum(p[:, :12], 0.9)
    satisfied = np.stack([
        i + r + c + s >= thr,
        (i > c) & (c >= 3),
        (i >= 4) & (r >= 4),
        (counts > 0).all(axis=1),
        vals.max(axis=1) >= 3,
        (r >= 8) & (counts[:, D.INTEL] == 0),
        (r >= 4) & (s >= 4),
        (s > r) & (r >= 3),
        (s >= 8) & (counts[:, D.COUP] == 0),
        (c >= 4) & (s >= 4),
        counts.max(axis=1) >= 3,
        (vals[:, 3] > 0) & (vals[:, 4] > 0) & (vals[:, 5] > 0) & ((vals[:, 2] > 0) | (vals[:, 6] > 0)),
    ], axis=1)
    p[:, :12][satisfied] = 1.0
    levels, level_of = np.unique(p, return_inverse=True)
    cubed = np.array([x**POWER for x in levels.tolist()])[level_of].reshape(p.shape)
    return p, cubed


class ProgressTable:
    """Progress cubed (:func:`district_progress`) of every suit set met so far, looked
    up by a dense index over all 2**20 suit sets (4 MB), so that a batch's lookup is
    one gather; sets not met before are computed in one call. One per revolution
    threshold, which is at least 1: an empty district is then worth 0.0 towards every
    mission, as an absent one (a liberated district's position holds the empty set)."""

    #: rows kept before the table starts afresh (bounded memory, some 15 MB)
    LIMIT = 150_000

    def __init__(self, thr: int):
        if thr < 1:
            raise ValueError(f"revolution threshold must be at least 1, got {thr}")
        self.thr = thr
        self._row = np.full(1 << SUIT_CARDS, -1, np.int32)
        self.n = 0
        self.cubed = np.zeros(1024 * _COLUMNS)  # row-major (rows, 13), flat for np.take

    def start(self) -> None:
        """Start afresh when full: between searches, never while one holds rows."""
        if self.n > self.LIMIT:
            self._row[:] = -1
            self.n = 0

    def rows(self, bits: np.ndarray) -> np.ndarray:
        """The table rows of the suit sets ``bits`` (any shape)."""
        rows = self._row[bits]
        if rows.size and rows.min() < 0:
            new = np.unique(bits[rows < 0])
            end = self.n + len(new)
            if end * _COLUMNS > len(self.cubed):  # grow by doubling: appends cost O(1) a row
                self.cubed = np.resize(self.cubed, max(2 * len(self.cubed), end * _COLUMNS))
            self.cubed[self.n * _COLUMNS : end * _COLUMNS] = _progress_of_sets(new, self.thr)[1].ravel()
            self._row[new] = np.arange(self.n, end, dtype=np.int32)
            self.n = end
            rows = self._row[bits]
        return rows

    def values(self, bits: np.ndarray, missions: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """:func:`best_totals` of boards (suit sets ``bits`` (N, 5) in board order,
        ``missions`` (N, 4); ``rows``: their :meth:`rows` where the caller has them),
        each distinct board (by :func:`board_keys`) once: the candidates of a batch
        repeat (areas share districts, plays share their first cards). Not kept across
        calls: fewer than a third of a training batch's boards were met in earlier
        batches, and looking them up cost more than it saved."""
        first, where = np.unique(board_keys(bits, missions), return_index=True, return_inverse=True)[1:]
        rows = self.rows(bits[first]) if rows is None else rows[first]
        return best_totals(np.take(self.cubed, rows.T[:, None, :] * _COLUMNS + missions[first].T[None, :, :]))[where]


#: a board's key: each suit card c on it adds (its district's position + 1) * 6**c, a
#: sum below 6**20 (the cards of a board are distinct), and the set of its missions
#: (which slot holds which changes no value) counts in units of 6**20; below 2**64
_BOARD_SPAN = 6**SUIT_CARDS
_SIXES_LOW = np.array([sum(6**c for c in range(10) if b >> c & 1) for b in range(1024)], np.uint64)
_SIXES_HIGH = np.array([sum(6 ** (c + 10) for c in range(10) if b >> c & 1) for b in range(1024)], np.uint64)
_POSITION = np.arange(1, NUM_DISTRICTS + 1, dtype=np.uint64)
_MISSION_UNITS = np.array([(1 << m) * _BOARD_SPAN for m in range(D.NUM_MISSION_KINDS)] + [0], np.uint64)


def board_keys(bits: np.ndarray, missions: np.ndarray) -> np.ndarray:
    """One uint64 per board (suit sets ``bits`` (N, 5), ``missions`` (N, 4)) that
    tells boards of different values apart: the position of each suit card, and the
    set of missions (absent districts and empty ones are both worth 0.0, as the
    revolution threshold is at least 1)."""
    sixes = _SIXES_LOW[bits & 1023] + _SIXES_HIGH[bits >> 10]
    return (sixes * _POSITION).sum(axis=1, dtype=np.uint64) + _MISSION_UNITS[missions].sum(axis=1, dtype=np.uint64)


_TABLES: dict[int, ProgressTable] = {}


def progress_table(thr: int) -> ProgressTable:
    """The process's :class:`ProgressTable` for revolution threshold ``thr``."""
    table = _TABLES.get(thr)
    if table is None:
        table = _TABLES[thr] = ProgressTable(thr)
    return table


#: per mission slot j, the views of a (2, 2, 2, 2, N) array of used-mission sets (axis
#: j: slot j used or not; boards last, so that each view is runs of N floats) without
#: and with j
_WITHOUT = [tuple(0 if a == j else slice(None) for a in range(MAX_MISSIONS)) for j in range(MAX_MISSIONS)]
_WITH = [tuple(1 if a == j else slice(None) for a in range(MAX_MISSIONS)) for j in range(MAX_MISSIONS)]


def best_totals(terms: np.ndarray) -> np.ndarray:
    """Per board, the best left-to-right sum of ``terms`` (districts, 4, N: each
    district's progress cubed per mission slot) over assignments of distinct missions
    to districts (a district may go without): a DP over the sets of used missions,
    one axis of size 2 per mission slot (-inf: unreachable)."""
    n = terms.shape[2]
    f = np.full((2,) * MAX_MISSIONS + (n,), -np.inf)
    f[(0,) * MAX_MISSIONS] = 0.0
    for d in range(terms.shape[0]):
        g = f.copy()
        for j in range(MAX_MISSIONS):
            used = g[_WITH[j]]
            np.maximum(used, f[_WITHOUT[j]] + terms[d, j], out=used)
        f = g
    return f.reshape(-1, n).max(axis=0)


def place_cards(bits: np.ndarray, missions: np.ndarray, cards: np.ndarray,
                card_ok: np.ndarray, targets: np.ndarray, free_choice: np.ndarray, thr: int) -> np.ndarray:
    """The board value after a placement search, per instance (K rows): up to 3
    steps, each placing one card on the target district (``targets``, positions in
    the board, -1 pads) where the board's value is largest, the first in (card,
    target) order among equals. ``free_choice`` rows pick any unplaced card of
    ``cards`` (bits; ``card_ok`` marks real ones) each step (the Rebel's best three
    of a hand); the others place card ``s`` at step ``s`` (a play's greedy
    placement). Instances with nothing to place keep the board's own value."""
    bits = bits.copy()
    table = progress_table(thr)
    table.start()
    rows = table.rows(bits)
    value = table.values(bits, missions, rows)
    left = card_ok.copy()
    aimed = targets >= 0
    column = np.arange(cards.shape[1])
    for step in range(3):
        pick = left & (free_choice[:, None] | (column == step))
        k, i, t = np.nonzero(pick[:, :, None] & aimed[:, None, :])
        if k.size == 0:
            break
        where = targets[k, t]
        new = bits[k, where] | cards[k, i]
        candidate, candidate_rows = bits[k], rows[k]
        candidate[np.arange(k.size), where] = new
        candidate_rows[np.arange(k.size), where] = new_rows = table.rows(new)
        v = table.values(candidate, missions[k], candidate_rows)
        # k ascends: each instance's candidates are one run, its first best the first
        # candidate equal to the run's maximum
        first = np.empty(k.size, bool)
        first[0] = True
        np.not_equal(k[1:], k[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        top = np.maximum.reduceat(v, starts)
        best = np.flatnonzero(v == top[np.cumsum(first) - 1])
        kb = k[best]
        chosen = best[np.concatenate(([True], kb[1:] != kb[:-1]))]
        kk = k[chosen]
        value[kk] = v[chosen]
        bits[kk, where[chosen]] = new[chosen]
        rows[kk, where[chosen]] = new_rows[chosen]
        left[kk, i[chosen]] = False
    return value
