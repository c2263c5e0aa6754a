"""Rule-based players for Unrest (``unrest_v0``): one for the Rebel, one for the
Empire. Both decode only their own observation (named layout blocks) and the mask;
card, mission and action tables come from the game's static data.

Rebel: it knows every card it played (face-down types are in its own view). It
scores the board as the best sum, over districts matched to *distinct* available
missions, of progress cubed (1 when satisfied; partial credit for sums, counts and
suits; poison cards such as Intel for Street Riots count against; cubing makes
finishing one district worth more than spreading). It picks the area where three
of its hand cards add most, plays the three cards that add most there (Decoys
early: they must be played some time and soak up the Empire's tokens; the least
useful suit card face up), assigns each pending card where it adds most, and
liberates with the least general mission first (Revolution last).

Empire: it sees only face-up cards. In rounds where it chooses its tokens it
removes two cards from the area (Destroy the most valuable known card, then
Redirect another where it helps least); otherwise it surveils a face-down card and
blockades the area district that looks closest to a mission.

Scores (``action_scores``): 8 units per unit of mission progress (a district's
progress runs from 0 to 1, 1 = satisfied). Rebel: 8 x the value the plan compares
(the board value, progress cubed summed over districts, after the area's best three
cards / the play's greedy placement, with the face-up card's -0.01 per value and
+0.3 per Decoy / the card's placement); liberating for a specific mission 1 against
Revolution 0. Empire: its tiers (Destroy, Redirect, Surveillance, Blockade) stacked
one unit apart, each scored 8 x the value it compares (the card's threat, the
redirect's harm, the district's progress), Surveillance targets equal. Moves drawn
uniformly score 0. ``act`` plays the first best (or draws among equal Surveillance
targets); the values are the ones it compares, scaled by a power of two, so exactly.

Speed (issue 11: the heuristic is the self-play league's evaluation target). One
pass of numpy calls decodes a whole batch of observations (``act_batch``) through
slices precomputed from the layout. A district is scored from the bit set of the
suit cards in it (each suit type is one physical card; Decoys and unknown cards
score nothing): its progress towards the available missions is tabulated once per
bit set, the board value is memoised on the tuple of its districts' bit sets and
its subset DP per prefix of districts; plays that place the same cards in the same
order share one greedy placement, and the area step searches its candidates by
branch and bound. The floating-point arithmetic is the same, term by term and in
the same order, as the straightforward version kept in
``tests/agents/_unrest_heuristic_reference.py``; ``test_unrest_heuristic_speed.py``
holds every decision (and every draw from the rng) identical to it.
"""

from __future__ import annotations

import numpy as np

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest import rules as R

from ..policy import BasePolicy, check_mask, masked_scores

_SUIT_SLOTS = 20
_EMPTY = -1
#: card type (0-19 suit cards, 20 Decoy, -1 unknown) -> its bit in a district's suit
#: set; Decoys and unknowns have none (index -1 reads the last entry, a 0)
_BIT = tuple(1 << c for c in range(_SUIT_SLOTS)) + (0, 0)
#: entries a reader's memos hold before they are cleared (bounded memory, some MB)
_MEMO_LIMIT = 60_000
#: score units per unit of mission progress (a power of two: scaling changes no comparison)
SCORE_SCALE = 8.0
#: the value of a move the plan never takes
_NEVER = -9.0


def _summary(cards):
    return D.summarize([c for c in cards if 0 <= c < _SUIT_SLOTS])


def _progress_of(m: int, sums, counts, vals, thr: int) -> float:
    """:func:`progress` from a district summary."""
    if D.mission_satisfied(m, sums, counts, vals, thr):
        return 1.0
    i, r, c, s = sums
    if m == 0:
        p = sum(sums) / thr
    elif m == 1:
        p = 0.5 * min(c, 3) / 3 + 0.5 * (1.0 if i > c else i / (c + 1))
    elif m == 2:
        p = 0.5 * min(i, 4) / 4 + 0.5 * min(r, 4) / 4
    elif m == 3:
        p = sum(1 for k in counts if k) / 4
    elif m == 4:
        p = max(vals) / 3
    elif m == 5:
        p = 0.0 if counts[D.INTEL] else min(r, 8) / 8
    elif m == 6:
        p = 0.5 * min(r, 4) / 4 + 0.5 * min(s, 4) / 4
    elif m == 7:
        p = 0.5 * min(r, 3) / 3 + 0.5 * (1.0 if s > r else s / (r + 1))
    elif m == 8:
        p = 0.0 if counts[D.COUP] else min(s, 8) / 8
    elif m == 9:
        p = 0.5 * min(c, 4) / 4 + 0.5 * min(s, 4) / 4
    elif m == 10:
        p = max(counts) / 3
    else:
        run = best = 0
        for v in range(2, 7):
            run = run + 1 if vals[v] else 0
            best = max(best, run)
        p = best / 4
    return min(p, 0.9)


def progress(m: int, cards, thr: int) -> float:
    """How close the cards are to mission ``m`` (1.0 exactly when satisfied)."""
    return _progress_of(m, *_summary(cards), thr)


def suit_set(cards) -> int:
    """The bit set of the suit cards among card types ``cards`` (Decoys, unknowns dropped)."""
    bits = 0
    for t in cards:
        bits |= _BIT[t]
    return bits


def _summary_of(bits: int):
    """The district summary (suit sums, suit counts, value counts) of a suit set."""
    return D.summarize([c for c in range(_SUIT_SLOTS) if bits >> c & 1])


#: the start state of the DP over used-mission subsets, per number of missions:
#: only "none used" is reachable, at 0.0 (-1.0 marks unreachable)
_DP_START = {k: [0.0] + [-1.0] * ((1 << k) - 1) for k in range(5)}
#: per number of missions, per mission bit: the (used, used + bit) of the sets without it
_LACKING = {
    k: {1 << i: tuple((u, u | 1 << i) for u in range(1 << k) if not u >> i & 1) for i in range(k)}
    for k in range(5)
}


class _View:
    """What one observation shows the heuristic (decoded as the reference's
    ``layout.view`` + argmax calls would: one-hot rows count where their max
    exceeds 0.5, handle presence and locations at 0.5 or more)."""

    __slots__ = ("phase", "missions", "board", "pending", "handles", "row", "hand", "area", "assign_slot")


def _rows(block):
    """Per one-hot row of a (B, rows, width) block: argmax, or -1 where the max is
    not above 0.5; as nested lists."""
    arg = block.argmax(axis=2)
    arg[~(block.max(axis=2) > 0.5)] = -1
    return arg.tolist()


class _Reader:
    """Decodes the public board from observations and scores boards, memoised."""

    def __init__(self, layout, config):
        self.L = layout
        self.thr = config.get("revolution_threshold", 21)
        self.power = 3.0  # convex: finishing one district beats spreading progress
        self._blocks = {
            n: (layout.blocks[n].slice, layout.blocks[n].shape)
            for n in (
                "phase", "row", "missions", "mission_available", "handle_played", "handle_location",
                "handle_face_up", "handle_type", "my_facedown_types", "liberated", "my_hand",
                "area_districts", "assign_slot",
            )
        }
        # all memos are per tuple of available mission kinds (``ms``, in slot order)
        self._districts: dict[tuple, dict[int, tuple]] = {}  # ms -> suit set -> (value, moves)
        self._board_values: dict[tuple, dict[tuple, float]] = {}  # ms -> suit sets -> value
        self._dp_states: dict[tuple, dict[tuple, list[float]]] = {}  # ms -> prefix -> DP state
        self._n_memo = 0

    def view(self, obs, name):
        return self.L.view(obs, name)

    def decode(self, obs, own_types: bool) -> list[_View]:
        """One :class:`_View` per row of ``obs`` (B, D): a few numpy calls for the
        whole batch, then plain Python per row."""
        obs = np.asarray(obs)
        n = obs.shape[0]

        def block(name):
            sl, shape = self._blocks[name]
            return obs[:, sl].reshape((n,) + shape)

        phase = block("phase").argmax(axis=1).tolist()
        kinds = _rows(block("missions"))
        avail = (block("mission_available") > 0.5).tolist()
        loc = block("handle_location")
        present = (~(block("handle_played") < 0.5) & ~(loc.max(axis=2) < 0.5)).tolist()
        loc = loc.argmax(axis=2).tolist()
        up = (block("handle_face_up") > 0.5).tolist()
        typ = block("handle_type").argmax(axis=2).tolist()
        mine = _rows(block("my_facedown_types")) if own_types else None
        free = (block("liberated") < 0.5).tolist()
        rows = _rows(block("row"))
        hands = _rows(block("my_hand")) if own_types else [[]] * n
        areas = (block("area_districts") > 0.5).tolist()
        slots = block("assign_slot").argmax(axis=1).tolist()
        out = []
        for b in range(n):
            v = _View()
            v.phase = phase[b]
            k, av = kinds[b], avail[b]
            v.missions = [(slot, k[slot]) for slot in range(4) if av[slot] and k[slot] >= 0]
            handles = []
            pb, lb, ub, tb = present[b], loc[b], up[b], typ[b]
            mb = mine[b] if own_types else None
            for h in range(24):
                if pb[h]:
                    if ub[h]:
                        t = tb[h]
                    elif mb is not None and mb[h] >= 0:
                        t = mb[h]
                    else:
                        t = _EMPTY
                    handles.append((lb[h], t, h))
            fb = free[b]
            board = {d: [] for d in range(5) if fb[d]}
            pending = {}
            for col, t, _h in handles:
                if 3 <= col < 8 and (col - 3) in board:
                    board[col - 3].append(t)
                elif col < 3:
                    pending[col] = t
            v.handles, v.board, v.pending = handles, board, pending
            v.row = [d for d in rows[b] if d >= 0]
            v.hand = [t for t in hands[b] if t >= 0]
            v.area = [d for d in range(5) if areas[b][d]]
            v.assign_slot = slots[b]
            out.append(v)
        return out

    def _district(self, bits: int, ms: tuple) -> tuple:
        """(value, moves, best move) of a district with suit set ``bits`` under
        missions ``ms``: its best raw progress (0.0 with no mission); for the DP the
        missions it can use, as (mission bit, progress cubed) where that is > 0 (the
        reference's condition); the largest of those (0.0 if none). Memoised."""
        table = self._districts.get(ms)
        if table is None:
            table = self._districts[ms] = {}
        entry = table.get(bits)
        if entry is None:
            summary, thr, power = _summary_of(bits), self.thr, self.power
            raw = [_progress_of(m, *summary, thr) for m in ms]
            cubed = [p**power for p in raw]
            moves = tuple((1 << i, c) for i, c in enumerate(cubed) if c > 0)
            entry = table[bits] = (max(raw, default=0.0), moves, max((c for _, c in moves), default=0.0))
            self._n_memo += 1
        return entry

    def district_max(self, bits: int, ms: tuple) -> float:
        """The largest progress cubed a district with suit set ``bits`` adds to a board
        value (0.0 when no mission can use it)."""
        entry = self._district(bits, ms)
        return entry[2]

    def value_of(self, bits: int, ms: tuple) -> float:
        """The best raw progress of one district (suit set ``bits``) over missions ``ms``."""
        return self._district(bits, ms)[0]

    def value(self, cards, missions):
        return self.value_of(suit_set(cards), tuple(m for _, m in missions))

    def board_value_of(self, sets: tuple, ms: tuple) -> float:
        """Best total progress cubed of districts (suit sets in district order) towards
        *distinct* missions ``ms`` (each liberates one district), memoised."""
        memo = self._board_values.get(ms)
        if memo is None:
            memo = self._board_values[ms] = {}
        v = memo.get(sets)
        if v is None:
            if self._n_memo > _MEMO_LIMIT:
                self._districts.clear()
                self._board_values.clear()
                self._dp_states.clear()
                self._n_memo = 0
                memo = self._board_values[ms] = {}
            self._n_memo += 1
            v = memo[sets] = max(self._dp_state(sets, ms)) if ms else 0.0
        return v

    def _dp_state(self, sets: tuple, ms: tuple) -> list[float]:
        """The reference's DP over subsets of missions after the districts ``sets``:
        best total per set of used missions (-1.0: unreachable). The same additions
        in the same (district) order as the reference, so the same floats. States are
        memoised per prefix of districts: boards that differ only from some district
        on (the candidates of one decision) share the work before it."""
        states = self._dp_states.get(ms)
        if states is None:
            states = self._dp_states[ms] = {}
        j = len(sets) - 1  # the whole board is not there: board_value_of missed it
        while j > 0 and sets[:j] not in states:
            j -= 1
        f = states[sets[:j]] if j > 0 else _DP_START[len(ms)]
        j = max(j, 0)
        table, lacking = self._districts.get(ms), _LACKING[len(ms)]
        for k in range(j, len(sets)):
            entry = table.get(sets[k]) if table is not None else None
            if entry is None:
                entry = self._district(sets[k], ms)
                table = self._districts[ms]
            moves = entry[1]
            if moves:  # else no mission can use this district: f stays
                g = list(f)
                for bit, p in moves:
                    for used, nxt in lacking[bit]:
                        v = f[used]
                        if v >= 0.0:  # reachable
                            nv = v + p
                            if nv > g[nxt]:
                                g[nxt] = nv
                f = g
            states[sets[: k + 1]] = f
        self._n_memo += len(sets) - j
        return f

    def board_value(self, board, missions):
        """Best total progress of the districts towards *distinct* missions (each
        mission liberates one district): a small DP over subsets of missions."""
        return self.board_value_of(tuple(suit_set(c) for c in board.values()), tuple(m for _, m in missions))


#: more than the rounding error of any board value (at most 4 additions of terms <= 1)
_BOUND_SLACK = 1e-9


def _upper_bound(without: float, district_max: float) -> float:
    """An upper bound on the value of a board from the value of the same board
    without one district and that district's best progress cubed: an assignment of
    missions either leaves the district out (worth at most ``without``, the same
    sums) or adds at most ``district_max`` to such a sum; the slack covers that the
    sum's rounding depends on where the district's term falls. A candidate whose
    bound is below the best value found cannot be (or tie) the best."""
    return without + district_max + _BOUND_SLACK


def _greedy_order(cards):
    """The order :meth:`RebelHeuristic._greedy` places cards in: high values first
    (a stable sort, so equal values keep the play's order), Decoys last."""
    return tuple(sorted(cards, key=lambda c: -(c % 5) if c < _SUIT_SLOTS else 1))


def _decode_play(a: int, n: int):
    """(face-up hand slot, face-down hand slots) of PLAY index ``a`` with ``n`` cards."""
    k = a - R.A_PLAY
    up, pair = divmod(k, 6)
    rest = [i for i in range(n) if i != up]
    i, j = R.PAIRS[pair]
    return up, (rest[i], rest[j])


#: hand size -> PLAY action -> (face-up slot, face-down slots), from the rules' table
_PLAYS = {n: {a: (up, (d1, d2)) for a, up, d1, d2 in table} for n, table in R.PLAY_TABLES.items()}


class RebelHeuristic(BasePolicy):
    name = "heuristic"
    decoy_bonus = 0.3  # Decoys must be played some time; early ones soak up Empire tokens

    def __init__(self, layout, config, rng):
        self.r = _Reader(layout, config)
        self.rng = rng

    def _greedy(self, order, tpos, sets, ms):
        """Place cards (in ``order``) one by one on the target district positions
        where each adds most; the board's value after."""
        bv = self.r.board_value_of
        sets = list(sets)
        for t in order:
            bit = _BIT[t]
            best_i, best_v = tpos[0], -9.0
            for i in tpos:
                old = sets[i]
                sets[i] = old | bit
                v = bv(tuple(sets), ms)
                sets[i] = old
                if v > best_v:
                    best_i, best_v = i, v
            sets[best_i] |= bit
        return bv(tuple(sets), ms)

    def _best_three(self, hand, tpos, sets, ms):
        """Board value after placing the 3 hand cards that add most, one at a time:
        each step takes the first (hand card, target) of the largest value, as the
        reference does, but finds it by branch and bound (see :func:`_upper_bound`)."""
        r = self.r
        bv = r.board_value_of
        sets = list(sets)
        left = list(hand)
        v = bv(tuple(sets), ms)
        for _ in range(min(3, len(left))):
            # the board's value without each target district, for the bounds
            without = {p: bv(tuple(sets[:p] + sets[p + 1 :]), ms) for p in tpos}
            candidates = []
            for i, t in enumerate(left):
                bit = _BIT[t]
                for p in tpos:
                    new = sets[p] | bit
                    bound = _upper_bound(without[p], r.district_max(new, ms))
                    candidates.append((bound, len(candidates), i, p, new))
            candidates.sort(key=lambda c: -c[0])  # stable: reference order among equal bounds
            best = None  # (value, reference order, hand index, target)
            for bound, k, i, p, new in candidates:
                if best is not None and bound < best[0]:
                    break  # this and every later candidate is worth less than the best
                old = sets[p]
                sets[p] = new
                nv = bv(tuple(sets), ms)
                sets[p] = old
                if best is None or nv > best[0] or (nv == best[0] and k < best[1]):
                    best = (nv, k, i, p)
            v, _k, i, p = best
            sets[p] |= _BIT[left.pop(i)]
        return v

    def act(self, obs, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        return self._decide(self.r.decode(np.asarray(obs)[None], own_types=True)[0], legal)

    def act_batch(self, observations, masks):
        """``act`` per row, in order (so the same rng draws), with one decoding pass."""
        views = self.r.decode(observations, own_types=True)
        out = np.empty(len(views), dtype=np.int64)
        for b, (v, mask) in enumerate(zip(views, masks)):
            legal = np.flatnonzero(mask)
            out[b] = legal[0] if legal.size == 1 else self._decide(v, legal)
        return out

    def action_scores(self, obs, mask):
        return self.action_scores_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0]

    def action_scores_batch(self, observations, masks):
        """``action_scores`` per row, with one decoding pass; draws nothing from the rng."""
        views = self.r.decode(observations, own_types=True)
        out = np.empty(np.shape(masks), dtype=np.float64)
        for b, (v, mask) in enumerate(zip(views, masks)):
            legal = check_mask(mask)
            values = self._values(v, legal) if legal.size > 1 else None
            if values is not None and v.phase != 5:
                values = SCORE_SCALE * np.asarray(values)
            out[b] = masked_scores(mask, legal, 0.0 if values is None else values)
        return out

    def _decide(self, v: _View, legal) -> int:
        values = self._values(v, legal)
        if values is None:
            return int(legal[self.rng.integers(legal.size)])
        return int(legal[int(np.argmax(values))])  # the first best, as the plan compares

    def _values(self, v: _View, legal) -> list[float] | None:
        """The plan's value of each legal action (in ``legal``'s order; the first best
        is its move), or None where it draws uniformly."""
        r = self.r
        phase, missions = v.phase, v.missions
        if phase == 5:  # liberate: keep the general missions (Revolution) for later
            kinds = dict(missions)
            return [float(kinds.get((int(a) - R.A_LIBERATE) % 4, 0) != D.REVOLUTION) for a in legal]
        if phase not in (0, 1, 4):
            return None
        ms = tuple(m for _, m in missions)
        board, row, hand = v.board, v.row, v.hand
        pos = {d: i for i, d in enumerate(board)}  # district id -> index in the board's order
        sets = tuple(suit_set(c) for c in board.values())
        legal = legal.tolist()
        if phase == 0:  # area: where can the hand do most?
            return [self._best_three(hand, (pos[row[a - R.A_AREA]], pos[row[a - R.A_AREA + 1]]), sets, ms)
                    for a in legal]
        if phase == 1:  # play: the three cards that help the area most
            tpos = tuple(pos[d] for d in v.area or list(board))
            n = len(hand)
            plays = _PLAYS.get(n, {})
            greedy: dict[tuple, float] = {}  # placement order -> board value (plays share them)
            values = []
            for a in legal:
                if a == R.A_PLAY_ALL_HIDDEN:
                    values.append(_NEVER)  # only legal with an all-Decoy hand, then it is the only play
                    continue
                up, down = plays.get(a) or _decode_play(a, n)
                cards = [hand[up]] + [hand[k] for k in down]
                order = _greedy_order(cards)
                val = greedy.get(order)
                if val is None:
                    val = greedy[order] = self._greedy(order, tpos, sets, ms)
                # show the card whose loss costs least: small face-up value preferred
                val -= 0.01 * (hand[up] % 5)
                val += self.decoy_bonus * sum(1 for c in cards if c >= _SUIT_SLOTS)
                values.append(val)
            return values
        # phase 4: assign the current pending card
        bit = _BIT[v.pending.get(v.assign_slot, _EMPTY)]
        work = list(sets)
        values = []
        for a in legal:
            i = pos[row[a - R.A_ASSIGN]]
            old = work[i]
            work[i] = old | bit
            values.append(r.board_value_of(tuple(work), ms) + 0.001 * r.value_of(old, ms))
            work[i] = old
        return values


class EmpireHeuristic(BasePolicy):
    name = "heuristic"
    UNKNOWN_VALUE = 0.06  # a face-down card's guessed gain (a Decoy or a small card)

    def __init__(self, layout, config, rng):
        self.r = _Reader(layout, config)
        self.rng = rng
        self.variant_c6 = bool(config.get("empire_can_target_area_district_cards", False))

    def act(self, obs, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        return self._decide(self.r.decode(np.asarray(obs)[None], own_types=False)[0], mask, legal)

    def act_batch(self, observations, masks):
        """``act`` per row, in order (so the same rng draws), with one decoding pass."""
        views = self.r.decode(observations, own_types=False)
        out = np.empty(len(views), dtype=np.int64)
        for b, (v, mask) in enumerate(zip(views, masks)):
            legal = np.flatnonzero(mask)
            out[b] = legal[0] if legal.size == 1 else self._decide(v, mask, legal)
        return out

    def action_scores(self, obs, mask):
        return self.action_scores_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0]

    def action_scores_batch(self, observations, masks):
        """``action_scores`` per row, with one decoding pass; draws nothing from the rng."""
        views = self.r.decode(observations, own_types=False)
        out = np.empty(np.shape(masks), dtype=np.float64)
        for b, (v, mask) in enumerate(zip(views, masks)):
            legal = check_mask(mask)
            out[b] = masked_scores(mask, legal) if legal.size == 1 else self._scores(v, mask, legal)
        return out

    def _decide(self, v: _View, mask, legal) -> int:
        if self.variant_c6:
            return self._act_c6(v, mask)
        return self._act(v, legal)

    def _c6_actions(self, v: _View, mask) -> dict[int, int]:
        """The §7.5 layout keys actions by handle: the strategy plays the pending cards
        through the §7.2 layout (district-card targets go unused). §7.2 action -> §7.5
        action, for the legal ones."""
        slot_handle = {col: h for col, _t, h in v.handles if col < 3}
        to_c6 = {}
        for s, h in slot_handle.items():
            to_c6[s] = h
            to_c6[3 + s] = 24 + h
            for p in range(5):
                to_c6[6 + 5 * s + p] = 48 + 5 * h + p
        for p in range(5):
            to_c6[21 + p] = 168 + p
        return {a: b for a, b in sorted(to_c6.items()) if mask[b]}

    def _act_c6(self, v: _View, mask):
        to_c6 = self._c6_actions(v, mask)
        legal = np.array(list(to_c6), dtype=np.int64)
        if legal.size == 0:
            full = np.flatnonzero(mask)
            return int(full[self.rng.integers(full.size)])
        return to_c6[self._act(v, legal)]

    def _act(self, v: _View, legal):
        for actions, value in self._tiers(v, legal):
            if actions:
                if value is None:
                    return actions[int(self.rng.integers(len(actions)))]
                return max(actions, key=value)  # the first best
        raise AssertionError("the last tier holds every legal action")  # pragma: no cover

    def _scores(self, v: _View, mask, legal) -> np.ndarray:
        if not self.variant_c6:
            return stack_tiers(len(mask), self._tiers(v, legal), SCORE_SCALE)
        to_c6 = self._c6_actions(v, mask)
        if not to_c6:
            return masked_scores(mask, legal)
        inner = stack_tiers(26, self._tiers(v, np.array(list(to_c6), dtype=np.int64)), SCORE_SCALE)
        scores = masked_scores(mask, legal, inner[list(to_c6)].min() - 1.0)  # district-card targets: unused
        scores[list(to_c6.values())] = inner[list(to_c6)]
        return scores

    def _tiers(self, v: _View, legal) -> list[tuple[list[int], object]]:
        """The plan's tiers of legal actions, best first, each with the value it
        compares them by (None: drawn uniformly): destroy the most threatening card,
        else redirect one where it helps least, else surveil, else blockade; the last
        tier holds the legal actions no other does."""
        r = self.r
        ms = tuple(m for _, m in v.missions)
        board, pending, row = v.board, v.pending, v.row
        known = {d: suit_set(board[d]) for d in board}  # face-up cards only: unknowns score nothing
        area = v.area
        if not area:  # Final Encounter: every district is a target
            area = list(board)
        value_of = r.value_of
        values = {d: value_of(bits, ms) for d, bits in known.items()}

        def gain(card, d):
            if card == _EMPTY:
                return self.UNKNOWN_VALUE
            return value_of(known[d] | _BIT[card], ms) - values[d]

        def card_threat(card):
            return max((gain(card, d) for d in area if d in known), default=0.0)

        def harm(a):
            s, p = divmod(a - 6, 5)
            d = row[p]
            card = pending.get(s, _EMPTY)
            in_area = 1.0 if d in area else 0.0
            # take the most threatening card away to where it adds least
            return card_threat(card) - gain(card, d) - 0.5 * in_area - 0.01 * len(board[d])

        legal = legal.tolist()
        return [
            ([a for a in legal if 3 <= a < 6], lambda a: card_threat(pending.get(a - 3, _EMPTY))),
            ([a for a in legal if 6 <= a < 21], harm),
            ([a for a in legal if 0 <= a < 3], None),
            ([a for a in legal if 21 <= a < 26], lambda a: values[row[a - 21]] + 0.02 * len(board[row[a - 21]])),
            ([a for a in legal if not 0 <= a < 26], None),
        ]


def stack_tiers(num_actions: int, tiers, scale: float) -> np.ndarray:
    """Scores from preference tiers (best first; (actions, value or None)): ``scale``
    times each value (0 for None), each tier shifted to end one unit below the tiers
    above it, so that every action of a tier outscores every action of a later one."""
    scores = np.full(num_actions, -np.inf)
    floor = np.inf
    for actions, value in tiers:
        if not actions:
            continue
        tier = np.zeros(len(actions)) if value is None else scale * np.array([value(a) for a in actions])
        if np.isfinite(floor):
            tier += floor - 1.0 - tier.max()
        scores[actions] = tier
        floor = tier.min()
    return scores


def make(layout, config, role, rng):
    if role == "rebel":
        return RebelHeuristic(layout, config, rng)
    return EmpireHeuristic(layout, config, rng)
