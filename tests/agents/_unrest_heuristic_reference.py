"""The Unrest heuristic as it was before the speed rewrite (issue 11), kept verbatim
as the reference that ``test_unrest_heuristic_speed.py`` holds the fast
:mod:`spyenvs.agents.heuristics.unrest` to: every decision must be identical.
Do not "fix" or speed up this file; change both only together, on purpose.

Original module docstring:
Rule-based players for Unrest (``unrest_v0``): one for the Rebel, one for the
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
"""

from __future__ import annotations


import numpy as np

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest import rules as R

from spyenvs.agents.policy import BasePolicy

_SUIT_SLOTS = 20
_EMPTY = -1


def _summary(cards):
    return D.summarize([c for c in cards if 0 <= c < _SUIT_SLOTS])


def progress(m: int, cards, thr: int) -> float:
    """How close the cards are to mission ``m`` (1.0 exactly when satisfied)."""
    sums, counts, vals = _summary(cards)
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


class _Reader:
    """Decodes the public board from an observation."""

    def __init__(self, layout, config):
        self.L = layout
        self.thr = config.get("revolution_threshold", 21)
        self._cache: dict = {}
        self.power = 3.0  # convex: finishing one district beats spreading progress

    def view(self, obs, name):
        return self.L.view(obs, name)

    def row(self, obs):
        """District ids by row position."""
        row = self.view(obs, "row")
        return [int(np.argmax(r)) for r in row if r.max() > 0.5]

    def missions(self, obs):
        kinds = self.view(obs, "missions")
        avail = self.view(obs, "mission_available")
        return [(slot, int(np.argmax(kinds[slot]))) for slot in range(4) if avail[slot] > 0.5 and kinds[slot].max() > 0.5]

    def handles(self, obs, own_types: bool):
        """(location column, card type or -1 unknown) per played handle."""
        played = self.view(obs, "handle_played")
        loc = self.view(obs, "handle_location")
        up = self.view(obs, "handle_face_up")
        typ = self.view(obs, "handle_type")
        mine = self.view(obs, "my_facedown_types") if own_types else None
        out = []
        for h in range(24):
            if played[h] < 0.5 or loc[h].max() < 0.5:
                continue
            t = _EMPTY
            if up[h] > 0.5:
                t = int(np.argmax(typ[h]))
            elif mine is not None and mine[h].max() > 0.5:
                t = int(np.argmax(mine[h]))
            out.append((int(np.argmax(loc[h])), t, h))
        return out

    def districts(self, obs, own_types: bool):
        """district id -> known card types in it (unknown face-down cards as -1)."""
        liberated = self.view(obs, "liberated")
        cards = {d: [] for d in range(5) if liberated[d] < 0.5}
        pending = {}
        for col, t, _h in self.handles(obs, own_types):
            if 3 <= col < 8 and (col - 3) in cards:
                cards[col - 3].append(t)
            elif col < 3:
                pending[col] = t
        return cards, pending

    def value(self, cards, missions):
        return max((progress(m, cards, self.thr) for _, m in missions), default=0.0)

    def board_value(self, board, missions):
        """Best total progress of the districts towards *distinct* missions (each
        mission liberates one district): a small DP over subsets of missions."""
        ms = [m for _, m in missions]
        if not ms:
            return 0.0
        f = {0: 0.0}
        for cards in board.values():
            key = tuple(sorted(cards))
            prog = [self._prog(m, key) for m in ms]
            g = dict(f)
            for used, v in f.items():
                for i, p in enumerate(prog):
                    bit = 1 << i
                    if not used & bit and p > 0:
                        nv = v + p
                        if nv > g.get(used | bit, -1.0):
                            g[used | bit] = nv
            f = g
        return max(f.values())

    def _prog(self, m, key):
        k = (m, key)
        v = self._cache.get(k)
        if v is None:
            if len(self._cache) > 50_000:
                self._cache.clear()
            v = self._cache[k] = progress(m, key, self.thr) ** self.power
        return v


class RebelHeuristic(BasePolicy):
    name = "heuristic"
    decoy_bonus = 0.3  # Decoys must be played some time; early ones soak up Empire tokens

    def __init__(self, layout, config, rng):
        self.r = _Reader(layout, config)
        self.rng = rng

    def _greedy(self, cards_to_place, targets, board, missions):
        """Place cards one by one where each adds most; the board's value after."""
        board = {d: list(v) for d, v in board.items()}
        for t in sorted(cards_to_place, key=lambda c: -(c % 5) if c < _SUIT_SLOTS else 1):
            best_d, best_v = targets[0], -9.0
            for d in targets:
                board[d].append(t)
                v = self.r.board_value(board, missions)
                board[d].pop()
                if v > best_v:
                    best_d, best_v = d, v
            board[best_d].append(t)
        return self.r.board_value(board, missions)

    def _best_three(self, hand, targets, board, missions):
        """Board value after placing the 3 hand cards that add most, one at a time."""
        board = {d: list(v) for d, v in board.items()}
        left = list(hand)
        v = self.r.board_value(board, missions)
        for _ in range(min(3, len(left))):
            best = None
            for i, t in enumerate(left):
                for d in targets:
                    board[d].append(t)
                    nv = self.r.board_value(board, missions)
                    board[d].pop()
                    if best is None or nv > best[0]:
                        best = (nv, i, d)
            v, i, d = best
            board[d].append(left.pop(i))
        return v

    def act(self, obs, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        r = self.r
        phase = int(np.argmax(r.view(obs, "phase")))
        missions = r.missions(obs)
        board, pending = r.districts(obs, own_types=True)
        row = r.row(obs)
        hand = [int(np.argmax(x)) for x in r.view(obs, "my_hand") if x.max() > 0.5]
        base = {d: r.value(board[d], missions) for d in board}
        if phase == 0:  # area: where can the hand do most?
            best, best_v = int(legal[0]), -1.0
            for a in legal:
                g = int(a) - R.A_AREA
                targets = [row[g], row[g + 1]]
                v = self._best_three(hand, targets, board, missions)
                if v > best_v:
                    best, best_v = int(a), v
            return best
        if phase == 1:  # play: the three cards that help the area most
            area = [d for d in range(5) if r.view(obs, "area_districts")[d] > 0.5] or [d for d in board]
            n = len(hand)
            best, best_v = int(legal[0]), -9.0
            for a in legal:
                a = int(a)
                if a == R.A_PLAY_ALL_HIDDEN:
                    continue  # only legal with an all-Decoy hand, then it is the only play
                up, down = _decode_play(a, n)
                cards = [hand[up]] + [hand[k] for k in down]
                v = self._greedy(cards, area, board, missions)
                # show the card whose loss costs least: small face-up value preferred
                v -= 0.01 * (hand[up] % 5)
                v += self.decoy_bonus * sum(1 for c in cards if c >= _SUIT_SLOTS)
                if v > best_v:
                    best, best_v = a, v
            return best
        if phase == 4:  # assign the current pending card
            slot = int(np.argmax(r.view(obs, "assign_slot")))
            t = pending.get(slot, _EMPTY)
            best, best_v = int(legal[0]), -9.0
            for a in legal:
                d = row[int(a) - R.A_ASSIGN]
                board[d].append(t)
                v = r.board_value(board, missions) + 0.001 * base[d]
                board[d].pop()
                if v > best_v:
                    best, best_v = int(a), v
            return best
        if phase == 5:  # liberate: keep the general missions (Revolution) for later
            kinds = dict(missions)
            return int(max(legal, key=lambda a: (kinds.get((int(a) - R.A_LIBERATE) % 4, 0) != D.REVOLUTION, -int(a))))
        return int(legal[self.rng.integers(legal.size)])


def _decode_play(a: int, n: int):
    """(face-up hand slot, face-down hand slots) of PLAY index ``a`` with ``n`` cards."""
    k = a - R.A_PLAY
    up, pair = divmod(k, 6)
    rest = [i for i in range(n) if i != up]
    i, j = R.PAIRS[pair]
    return up, (rest[i], rest[j])


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
        if self.variant_c6:
            return self._act_c6(obs, mask)
        return self._act(obs, legal)

    def _act_c6(self, obs, mask):
        """The §7.5 layout keys actions by handle: play the same strategy on the
        pending cards through the §7.2 layout (district-card targets go unused)."""
        slot_handle = {col: h for col, _t, h in self.r.handles(obs, own_types=False) if col < 3}
        to_c6 = {}
        for s, h in slot_handle.items():
            to_c6[s] = h
            to_c6[3 + s] = 24 + h
            for p in range(5):
                to_c6[6 + 5 * s + p] = 48 + 5 * h + p
        for p in range(5):
            to_c6[21 + p] = 168 + p
        legal = np.array(sorted(a for a, b in to_c6.items() if mask[b]), dtype=np.int64)
        if legal.size == 0:
            full = np.flatnonzero(mask)
            return int(full[self.rng.integers(full.size)])
        return to_c6[self._act(obs, legal)]

    def _act(self, obs, legal):
        r = self.r
        missions = r.missions(obs)
        board, pending = r.districts(obs, own_types=False)
        row = r.row(obs)
        known = {d: [t for t in board[d] if t != _EMPTY] for d in board}
        area = [d for d in range(5) if r.view(obs, "area_districts")[d] > 0.5]
        if not area:  # Final Encounter: every district is a target
            area = list(board)

        def gain(card, d):
            if card == _EMPTY:
                return self.UNKNOWN_VALUE
            return r.value(known[d] + [card], missions) - r.value(known[d], missions)

        def card_threat(card):
            return max((gain(card, d) for d in area if d in known), default=0.0)

        def legal_in(lo, hi):
            return [int(a) for a in legal if lo <= a < hi]

        destroy, redirect = legal_in(3, 6), legal_in(6, 21)
        surveil, blockade = legal_in(0, 3), legal_in(21, 26)
        if destroy:
            return max(destroy, key=lambda a: card_threat(pending.get(a - 3, _EMPTY)))
        if redirect:
            def harm(a):
                s, p = divmod(a - 6, 5)
                d = row[p]
                card = pending.get(s, _EMPTY)
                in_area = 1.0 if d in area else 0.0
                # take the most threatening card away to where it adds least
                return card_threat(card) - gain(card, d) - 0.5 * in_area - 0.01 * len(board[d])
            return max(redirect, key=harm)
        if surveil:
            return surveil[int(self.rng.integers(len(surveil)))]
        if blockade:
            return max(blockade, key=lambda a: r.value(known[row[a - 21]], missions) + 0.02 * len(board[row[a - 21]]))
        return int(legal[self.rng.integers(legal.size)])


def make(layout, config, role, rng):
    if role == "rebel":
        return RebelHeuristic(layout, config, rng)
    return EmpireHeuristic(layout, config, rng)
