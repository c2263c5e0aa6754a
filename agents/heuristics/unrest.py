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

Speed (issue 11: the heuristic is the self-play league's evaluation target; issue
22: the Rebel's scores are the prior of every learner decision). One pass of numpy
calls decodes a whole batch of observations through slices precomputed from the
layout. The Rebel's plan then queues every placement search of the batch (each
area's best three, each play's greedy placement, each assignment; plays that place
the same cards in the same order share one) and runs them together in
``unrest_boards.place_cards``, a few numpy calls a step over all candidate boards
(see that module). The Empire's district values are memoised per suit set. The
floating-point arithmetic is the same, term by term and in the same order, as the
straightforward version kept in ``tests/agents/_unrest_heuristic_reference.py``;
``test_unrest_heuristic_speed.py`` holds every decision (and every draw from the rng)
identical to it.
"""

from __future__ import annotations

import numpy as np

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest import rules as R

from ..policy import BasePolicy, check_mask, masked_scores
from . import unrest_boards as B

_SUIT_SLOTS = B.SUIT_CARDS
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
        self._blocks = {
            n: (layout.blocks[n].slice, layout.blocks[n].shape)
            for n in (
                "phase", "row", "missions", "mission_available", "handle_played", "handle_location",
                "handle_face_up", "handle_type", "my_facedown_types", "liberated", "my_hand",
                "area_districts", "assign_slot",
            )
        }
        # per tuple of available mission kinds (``ms``, in slot order): suit set -> value
        self._districts: dict[tuple, dict[int, float]] = {}
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

    def value_of(self, bits: int, ms: tuple) -> float:
        """The best raw progress of one district (suit set ``bits``) over missions
        ``ms`` (0.0 with none), memoised."""
        table = self._districts.get(ms)
        if table is None:
            table = self._districts[ms] = {}
        value = table.get(bits)
        if value is None:
            if self._n_memo > _MEMO_LIMIT:
                self._districts.clear()
                self._n_memo = 0
                table = self._districts[ms] = {}
            summary, thr = _summary_of(bits), self.thr
            value = table[bits] = max((_progress_of(m, *summary, thr) for m in ms), default=0.0)
            self._n_memo += 1
        return value


class RebelHeuristic(BasePolicy):
    name = "heuristic"
    decoy_bonus = 0.3  # Decoys must be played some time; early ones soak up Empire tokens

    def __init__(self, layout, config, rng):
        self.r = _Reader(layout, config)
        self.rng = rng

    def act(self, obs, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        return int(self.act_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def act_batch(self, observations, masks):
        """``act`` per row, in order (so the same rng draws), with one decoding pass
        and one batched placement search."""
        views = self.r.decode(observations, own_types=True)
        legals = [np.flatnonzero(mask) for mask in masks]
        values = self._values_batch(views, legals)
        out = np.empty(len(views), dtype=np.int64)
        for b, (legal, vals) in enumerate(zip(legals, values)):
            if legal.size == 1:
                out[b] = legal[0]
            elif vals is None:
                out[b] = legal[self.rng.integers(legal.size)]
            else:
                out[b] = legal[int(np.argmax(vals))]  # the first best, as the plan compares
        return out

    def action_scores(self, obs, mask):
        return self.action_scores_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0]

    def action_scores_batch(self, observations, masks):
        """``action_scores`` per row, with one decoding pass; draws nothing from the rng."""
        views = self.r.decode(observations, own_types=True)
        legals = [check_mask(mask) for mask in masks]
        out = np.empty(np.shape(masks), dtype=np.float64)
        for b, (v, mask, legal, values) in enumerate(zip(views, masks, legals, self._values_batch(views, legals))):
            if values is not None and v.phase != 5:
                values = SCORE_SCALE * np.asarray(values)
            out[b] = masked_scores(mask, legal, 0.0 if values is None else values)
        return out

    def _values_batch(self, views: list[_View], legals) -> list[list[float] | None]:
        """Per row, the plan's value of each legal action (in ``legal``'s order; the
        first best is its move), or None where it draws uniformly or has one move.
        Every placement search of the batch runs in one :func:`unrest_boards.place_cards`."""
        r = self.r
        out: list[list[float] | None] = [None] * len(views)
        jobs = _Placements(len(views))
        finish = []  # (row, phase, where its values come from)
        for b, (v, legal) in enumerate(zip(views, legals)):
            phase, missions = v.phase, v.missions
            if legal.size <= 1 or phase not in (0, 1, 4, 5):
                continue
            if phase == 5:  # liberate: keep the general missions (Revolution) for later
                kinds = dict(missions)
                out[b] = [float(kinds.get((int(a) - R.A_LIBERATE) % 4, 0) != D.REVOLUTION) for a in legal]
                continue
            board, row, hand = v.board, v.row, v.hand
            pos = {d: i for i, d in enumerate(board)}  # district id -> index in the board's order
            sets = [suit_set(c) for c in board.values()]
            jobs.board(b, sets, [m for _, m in missions])
            if phase == 0:  # area: where can the hand do most?
                hand_bits = [_BIT[t] for t in hand]
                first = jobs.n
                for a in legal.tolist():
                    jobs.add(b, hand_bits, (pos[row[a - R.A_AREA]], pos[row[a - R.A_AREA + 1]]), True)
                finish.append((b, phase, np.arange(first, jobs.n)))
            elif phase == 1:  # play: the three cards that help the area most
                tpos = tuple(pos[d] for d in v.area or list(board))
                finish.append((b, phase, self._plays(jobs, b, hand, legal, tpos)))
            else:  # phase 4: assign the current pending card where the board gains most
                bit = _BIT[v.pending.get(v.assign_slot, _EMPTY)]
                ms = tuple(m for _, m in missions)
                olds = []
                for a in legal.tolist():
                    i = pos[row[a - R.A_ASSIGN]]
                    jobs.add(b, (bit,), (i,), False)
                    olds.append(r.value_of(sets[i], ms))
                finish.append((b, phase, (jobs.n - len(olds), olds)))
        placed = jobs.run(r.thr)
        for b, phase, parts in finish:
            if phase == 0:
                out[b] = placed[parts].tolist()
            elif phase == 1:
                jobs_of, up_value, decoys = parts
                values = placed[np.maximum(jobs_of, 0)]
                # show the card whose loss costs least: small face-up value preferred
                values -= 0.01 * up_value
                values += self.decoy_bonus * decoys
                values[jobs_of < 0] = _NEVER  # all hidden: only legal with an all-Decoy hand, then the only play
                out[b] = values.tolist()
            else:
                start, olds = parts
                out[b] = [v + 0.001 * old for v, old in zip(placed[start : start + len(olds)].tolist(), olds)]
        return out

    @staticmethod
    def _plays(jobs: _Placements, b: int, hand: list[int], legal: np.ndarray, tpos: tuple):
        """Queue the greedy placement of each legal play's three cards (plays that place
        the same cards in the same order share one); per play its job (-1: the
        all-hidden play), its face-up card's value and its number of Decoys."""
        table = _PLAY_SLOTS.get(len(hand))
        jobs_of = np.full(legal.size, -1, np.int64)
        up_value = np.zeros(legal.size)
        decoys = np.zeros(legal.size)
        real = np.flatnonzero(legal != R.A_PLAY_ALL_HIDDEN)
        if real.size:
            cards = np.asarray(hand)[table[legal[real] - R.A_PLAY]]  # (plays, 3): face-up first
            # the order the greedy placement takes them in: high values first (stable), Decoys last
            order = np.take_along_axis(cards, np.argsort(_PLACE_KEY[cards], axis=1, kind="stable"), axis=1)
            first_of, which = np.unique(order @ _ORDER_DIGITS, return_index=True, return_inverse=True)[1:]
            first = jobs.n
            for placing in _BITS[order[first_of]].tolist():
                jobs.add(b, placing, tpos, False)
            jobs_of[real] = first + which
            up_value[real] = cards[:, 0] % 5
            decoys[real] = (cards >= _SUIT_SLOTS).sum(axis=1)
        return jobs_of, up_value, decoys


def _play_slots(n: int) -> np.ndarray:
    """PLAY action - A_PLAY -> hand slots (face-up, face-down, face-down) of a hand of
    ``n`` cards (the rules' table; zeros where the action is never legal)."""
    slots = np.zeros((R.A_PLAY_ALL_HIDDEN - R.A_PLAY, 3), np.int64)
    for a, up, d1, d2 in R.PLAY_TABLES[n]:
        slots[a - R.A_PLAY] = (up, d1, d2)
    return slots


#: hand size -> :func:`_play_slots`
_PLAY_SLOTS = {n: _play_slots(n) for n in R.PLAY_TABLES}
#: card type -> its rank in a play's greedy placement order: high values first, Decoys last
_PLACE_KEY = np.array([-(c % 5) for c in range(_SUIT_SLOTS)] + [1])
_BITS = np.array(_BIT[: _SUIT_SLOTS + 1], np.int64)
#: a placement order of 3 card types (0-20) as one number
_ORDER_DIGITS = np.array([21 * 21, 21, 1])


class _Placements:
    """The placement searches of one batch, gathered for one
    :func:`unrest_boards.place_cards` call."""

    def __init__(self, rows: int):
        self._bits = np.zeros((rows, B.NUM_DISTRICTS), np.int64)
        self._missions = np.full((rows, B.MAX_MISSIONS), B.NO_MISSION, np.int64)
        self._rows: list[int] = []
        self._cards: list = []
        self._targets: list = []
        self._free: list[bool] = []

    def board(self, row: int, sets, ms) -> None:
        """Row ``row``'s board (suit sets in board order) and mission kinds."""
        self._bits[row, : len(sets)] = sets
        self._missions[row, : len(ms)] = ms

    def add(self, row: int, cards, targets, free_choice: bool) -> int:
        """Queue one search on row ``row``'s board (card bits, target positions); its
        index in :meth:`run`'s values."""
        self._rows.append(row)
        self._cards.append(cards)
        self._targets.append(targets)
        self._free.append(free_choice)
        return self.n - 1

    @property
    def n(self) -> int:
        """The number of searches queued."""
        return len(self._rows)

    def run(self, thr: int) -> np.ndarray:
        if not self._rows:
            return np.zeros(0)
        width = max(map(len, self._cards))
        cards = np.zeros((self.n, width), np.int64)
        card_ok = np.zeros((self.n, width), bool)
        targets = np.full((self.n, B.NUM_DISTRICTS), -1, np.int64)
        for j, (hand, tpos) in enumerate(zip(self._cards, self._targets)):
            cards[j, : len(hand)] = hand
            card_ok[j, : len(hand)] = True
            targets[j, : len(tpos)] = tpos
        rows = np.array(self._rows)
        return B.place_cards(self._bits[rows], self._missions[rows], cards, card_ok, targets,
                             np.array(self._free), thr)


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
