"""Rules of Unrest / "Rebelia kontra Imperium" (rules file ``rules/unrest.md``): the
state (public part and hidden part kept in separate objects), the decision automaton
of §7, every transition of §3-§4 and the variant flags of §8. It imports only
``data``; the observation encoding (``observe.py``), hidden-state resampling
(``resample.py``), invariants (``invariants.py``) and text and pictures
(``render.py``) build on it, and ``game.py`` joins them into the Game contract.

Decision decomposition (§7). PLAY is the **30-way** flat action of §7.1 (face-up hand
slot × face-down pair), not the 3-step alternative: one decision per round keeps the
episode short (at most 50 decisions), the choice of what to show and what to hide is
one simultaneous act at the table (a sub-step split would let the agent's observation
carry a half-made play with no rule meaning), and C20's duplicate-Decoy masking is
exact on whole plays. The cost -- an index whose meaning depends on the sorted hand --
is covered by the Rebel's observation, which shows the hand in the same canonical
order the index uses.

Action spaces (one flat ``Discrete`` shared by both roles, read per role):
rebel 0-59 as §7.1; empire 0-25 as §7.2, or 0-172 as §7.5 when
``empire_can_target_area_district_cards`` is on.
"""

from __future__ import annotations

import numpy as np

from spyenvs.core.info import Payoff

from . import data as D

REBEL, EMPIRE = 0, 1

# phases (§7.4)
AREA, PLAY, EMPIRE_1, EMPIRE_2, ASSIGN, LIBERATE, OVER = range(7)
PHASE_NAMES = (
    "choose_area",
    "play_cards",
    "empire_action_1",
    "empire_action_2",
    "assign_card",
    "liberate",
    "game_over",
)

# rebel action layout (§7.1)
A_AREA, A_PLAY, A_PLAY_ALL_HIDDEN, A_ASSIGN, A_LIBERATE = 0, 4, 34, 35, 40
REBEL_ACTIONS = 60
# the face-down pair k of §7.1 as positions within `rest`
PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def _play_table(hand_len: int) -> list[tuple[int, int, int, int]]:
    """(action, face-up slot, face-down slot 1, face-down slot 2) for a hand of this size."""
    out = []
    for r in range(hand_len):
        rest = [i for i in range(hand_len) if i != r]
        for k, (i, j) in enumerate(PAIRS):
            if j < len(rest):
                out.append((A_PLAY + 6 * r + k, r, rest[i], rest[j]))
    return out


PLAY_TABLES = {n: _play_table(n) for n in range(3, 6)}
#: memoised legal masks keyed by the facts they depend on (see _mask_key)
_MASK_MEMO: dict[tuple, np.ndarray] = {}

# location codes of a handle (public): pending slot 0-2, district d -> 3 + d, destroyed
LOC_NONE, LOC_DISTRICT, LOC_DESTROYED = -1, 3, 8


class PublicState:
    """Everything both players see (§5.1, §5.3)."""

    __slots__ = (
        "round",
        "final",
        "phase",
        "area",
        "blockade",
        "row",
        "lib",
        "lib_mission",
        "lib_round",
        "tok_avail",
        "tok_used",
        "missions",
        "mission_avail",
        "hloc",
        "hup",
        "htype",
        "pending",
        "dist",
        "destroyed",
        "n_played",
        "hand_size",
        "deck_size",
        "final_all_hidden",
        "check_log",
        "emp_log",
        "winner",
        "tok_uses",
        "obuf",
        "up_decoys",
        "unseen_emp",
    )

    def copy(self) -> "PublicState":
        n = PublicState.__new__(PublicState)
        n.round = self.round
        n.final = self.final
        n.phase = self.phase
        n.area = self.area
        n.blockade = self.blockade
        n.row = list(self.row)
        n.lib = list(self.lib)
        n.lib_mission = list(self.lib_mission)
        n.lib_round = list(self.lib_round)
        n.tok_avail = list(self.tok_avail)
        n.tok_used = list(self.tok_used)
        n.tok_uses = list(self.tok_uses)
        n.missions = self.missions
        n.mission_avail = list(self.mission_avail)
        n.hloc = list(self.hloc)
        n.hup = list(self.hup)
        n.htype = list(self.htype)
        n.pending = list(self.pending)
        n.dist = [list(x) for x in self.dist]
        n.destroyed = list(self.destroyed)
        n.n_played = self.n_played
        n.hand_size = self.hand_size
        n.deck_size = self.deck_size
        n.final_all_hidden = self.final_all_hidden
        n.check_log = list(self.check_log)
        n.emp_log = list(self.emp_log)
        n.winner = self.winner
        n.obuf = self.obuf.copy()
        n.unseen_emp = self.unseen_emp.copy()
        n.up_decoys = self.up_decoys
        return n


class HiddenState:
    """What only the Rebel knows (hand, identities of face-down handles) and what
    nobody knows (deck order; the top of the deck is the end of the list)."""

    __slots__ = ("hand", "deck", "hcard", "fdbuf", "handbuf", "deckbuf")

    def copy(self) -> "HiddenState":
        n = HiddenState.__new__(HiddenState)
        n.hand = list(self.hand)
        n.deck = list(self.deck)
        n.hcard = list(self.hcard)
        n.fdbuf = self.fdbuf.copy()
        n.handbuf = self.handbuf.copy()
        n.deckbuf = self.deckbuf.copy()
        return n


class _Cache:
    """Per-decision caches (legal mask). Pickles as empty so that computing a mask
    never changes the pickled state of a game."""

    __slots__ = ("mask",)

    def __init__(self):
        self.mask = None

    def __reduce__(self):
        return (_Cache, ())


class UnrestRules:
    """The rules engine of Unrest: the Rebel liberates 3 of 5 districts through missions
    before the deck runs out; the Empire stops it with two of four power tokens per
    round. ``game.py`` mixes it into the Game contract; the ``_obs_*`` hooks are where
    the observation encoder keeps its incremental buffers in step (no-ops here)."""

    # ---------------------------------------------------------------- set-up
    def _setup_tables(self) -> None:
        """Roles, action-space size and the config-derived constants of the rules."""
        cfg = self.config
        self.roles = ("rebel", "empire")
        self.variant_c6 = cfg["empire_can_target_area_district_cards"]
        self.empire_actions = 173 if self.variant_c6 else 26
        self.num_actions = max(REBEL_ACTIONS, self.empire_actions)
        self.threshold = cfg["revolution_threshold"]
        self.min_cards = 1 if self.threshold <= 6 else 2
        self.pool = D.POOL + ((D.MISSION_12,) if cfg["include_mission_12"] else ())

    # the observation encoder's hooks, called on every change it tracks incrementally
    def _obs_play(self, h: int) -> None:
        """Handle h was just played."""

    def _obs_move(self, h: int, old: int) -> None:
        """Handle h moved from location ``old`` to its current one."""

    def _obs_reveal(self, h: int) -> None:
        """Handle h turned face up."""

    def _obs_event(self, i: int) -> None:
        """Empire action i of ``pub.emp_log`` was logged (C6 variant)."""

    def _obs_sync(self, prev_phase: int, new_round: bool, liberated: bool) -> None:
        """A decision of phase ``prev_phase`` was applied."""

    def _obs_rebuild(self) -> None:
        """The state was replaced wholesale (new game, resample, hand edit)."""

    def _deal(self) -> None:
        """A new game from ``self.rng`` (§3)."""
        rng = self.rng
        pub = PublicState()
        hid = HiddenState()
        pub.row = [int(x) for x in rng.permutation(D.NUM_DISTRICTS)]
        drawn = sorted(int(self.pool[i]) for i in rng.permutation(len(self.pool))[:3])
        pub.missions = (D.REVOLUTION, *drawn)
        pub.mission_avail = [True] * 4
        deck = [int(x) for x in rng.permutation(D.NUM_CARDS)]
        hid.hand = sorted(deck[-5:])
        hid.deck = deck[:-5]
        hid.hcard = [-1] * D.NUM_CARDS
        pub.round = 1
        pub.final = False
        pub.phase = AREA
        pub.area = -1
        pub.blockade = -1
        pub.lib = []
        pub.lib_mission = [-1] * D.NUM_DISTRICTS
        pub.lib_round = [0] * D.NUM_DISTRICTS
        pub.tok_avail = [True] * 4
        pub.tok_used = []
        pub.tok_uses = [0] * 4
        pub.hloc = [LOC_NONE] * D.NUM_CARDS
        pub.hup = [False] * D.NUM_CARDS
        pub.htype = [-1] * D.NUM_CARDS
        pub.pending = [-1, -1, -1]
        pub.dist = [[] for _ in range(D.NUM_DISTRICTS)]
        pub.destroyed = []
        pub.n_played = 0
        pub.hand_size = 5
        pub.deck_size = len(hid.deck)
        pub.final_all_hidden = False
        pub.check_log = []
        pub.emp_log = []
        pub.winner = -1
        self.pub = pub
        self.hid = hid
        self._cache = _Cache()
        self._obs_rebuild()

    # -------------------------------------------------------------- queries
    @property
    def current_player(self) -> int:
        ph = self.pub.phase
        return EMPIRE if ph == EMPIRE_1 or ph == EMPIRE_2 else REBEL

    @property
    def is_over(self) -> bool:
        return self.pub.phase == OVER

    def outcome(self) -> list[float]:
        w = self.pub.winner
        if w < 0:
            return [0.0, 0.0]
        return [1.0, -1.0] if w == REBEL else [-1.0, 1.0]

    def payoff(self) -> Payoff:
        return Payoff(True, -1.0, 1.0)

    def decision_name(self) -> str:
        return PHASE_NAMES[self.pub.phase]

    def _reveal(self, h: int) -> None:
        """Turn handle h face up for good (Surveillance, destroyed Decoy, liberation)."""
        pub = self.pub
        t = D.CARD_TYPE[self.hid.hcard[h]]
        pub.hup[h] = True
        pub.htype[h] = t
        if t == D.DECOY_TYPE:
            pub.up_decoys += 1
        self._obs_reveal(h)

    def area_positions(self) -> tuple[int, ...]:
        a = self.pub.area
        return () if a < 0 else (a, a + 1)

    def district_cards(self, d: int) -> list[int]:
        hc = self.hid.hcard
        return [hc[h] for h in self.pub.dist[d]]

    def satisfies(self, cards, m: int) -> bool:
        sums, counts, vals = D.summarize(cards)
        return D.mission_satisfied(m, sums, counts, vals, self.threshold)

    def qualifying_pairs(self) -> list[tuple[int, int]]:
        """(row position, mission slot) pairs that qualify now (§4.5 5a)."""
        pub = self.pub
        missions = pub.missions
        avail = [(m, missions[m]) for m in range(4) if pub.mission_avail[m]]
        out = []
        if not avail:
            return out
        hc = self.hid.hcard
        sat = D.mission_satisfied
        thr = self.threshold
        for p, d in enumerate(pub.row):
            hs = pub.dist[d]
            if len(hs) < self.min_cards:
                continue  # every mission needs 2+ suit cards (§2.3) unless Revolution's bar is <= 6
            sums, counts, vals = D.summarize([hc[h] for h in hs])
            for m, kind in avail:
                if sat(kind, sums, counts, vals, thr):
                    out.append((p, m))
        return out

    def assign_positions(self) -> list[int]:
        """Row positions the current pending card may be assigned to (§4.4, §4.6)."""
        pub = self.pub
        cand = range(len(pub.row)) if pub.final else self.area_positions()
        return [p for p in cand if pub.row[p] != pub.blockade]

    def empire_targets(self) -> list[int]:
        """Handles Surveillance/Destroy/Redirect may act on (§4.3, C6, C11)."""
        pub = self.pub
        hs = [h for h in pub.pending if h >= 0]
        if self.variant_c6 and not pub.final:
            for p in self.area_positions():
                hs.extend(pub.dist[pub.row[p]])
        return hs

    # ---------------------------------------------------------------- masks
    def legal_mask(self) -> np.ndarray:
        """The legal actions as int8[num_actions]; a shared cached array the caller
        must not modify (masks of public-only decisions are memoised per config)."""
        m = self._cache.mask
        if m is None:
            key = self._mask_key()
            if key is not None:
                m = _MASK_MEMO.get(key)
            if m is None:
                m = np.zeros(self.num_actions, np.int8)
                idx = self._legal_list()
                if idx:
                    m[idx] = 1
                m.flags.writeable = False
                if key is not None:
                    _MASK_MEMO[key] = m
            self._cache.mask = m
        return m

    def _mask_key(self):
        """A memo key for masks that depend on few facts, or None."""
        pub = self.pub
        ph = pub.phase
        if ph == AREA:
            return (self.num_actions, ph, len(pub.row))
        if ph == ASSIGN:
            return (self.num_actions, ph, tuple(self.assign_positions()))
        if ph == PLAY:
            # the hand is sorted with the identical Decoys last, so the legal plays depend
            # only on the hand size and the number of Decoys
            hand = self.hid.hand
            decoys = sum(1 for c in hand if c >= D.DECOY_FIRST)
            return (
                self.num_actions,
                ph,
                pub.final,
                self.config["final_encounter_one_faceup"],
                len(hand),
                decoys,
            )
        if (ph == EMPIRE_1 or ph == EMPIRE_2) and not self.variant_c6:
            hup = pub.hup
            pend = tuple(-1 if h < 0 else hup[h] for h in pub.pending)
            return (self.num_actions, 2, tuple(pub.tok_avail), pend, len(pub.row), pub.final, pub.area)
        return None

    def _legal_list(self) -> list[int]:
        pub = self.pub
        ph = pub.phase
        n = len(pub.row)
        if ph == AREA:
            return list(range(A_AREA, A_AREA + n - 1))
        if ph == PLAY:
            return self._play_legal()
        if ph == EMPIRE_1 or ph == EMPIRE_2:
            return self._empire_legal()
        if ph == ASSIGN:
            return [A_ASSIGN + p for p in self.assign_positions()]
        if ph == LIBERATE:
            return sorted(A_LIBERATE + 4 * p + m for p, m in self.qualifying_pairs())
        return []

    def _play_legal(self) -> list[int]:
        pub = self.pub
        hand = self.hid.hand
        has_suit = hand and hand[0] < D.DECOY_FIRST  # hand is sorted, Decoys last
        if pub.final:
            if not self.config["final_encounter_one_faceup"] or not has_suit:
                return [A_PLAY_ALL_HIDDEN]
        ct = D.CARD_TYPE
        out = []
        seen = set()
        for a, r, i, j in PLAY_TABLES[len(hand)]:
            up = hand[r]
            if up >= D.DECOY_FIRST:
                continue
            play = (up, ct[hand[i]], ct[hand[j]])  # C20: identical Decoys collapse
            if play in seen:
                continue
            seen.add(play)
            out.append(a)
        return out

    def _empire_legal(self) -> list[int]:
        pub = self.pub
        av = pub.tok_avail
        n = len(pub.row)
        out = []
        if self.variant_c6:
            targets = self.empire_targets()
            for h in targets:
                if av[D.SURVEILLANCE] and not pub.hup[h]:
                    out.append(h)
                if av[D.DESTROY]:
                    out.append(24 + h)
                if av[D.REDIRECT]:
                    loc = pub.hloc[h]
                    for p in range(n):
                        if loc >= LOC_DISTRICT and pub.row[p] == loc - LOC_DISTRICT:
                            continue  # C22: a district card must change district
                        out.append(48 + 5 * h + p)
            base_b = 168
        else:
            for s in range(3):
                h = pub.pending[s]
                if h < 0:
                    continue
                if av[D.SURVEILLANCE] and not pub.hup[h]:
                    out.append(s)
                if av[D.DESTROY]:
                    out.append(3 + s)
                if av[D.REDIRECT]:
                    out.extend(range(6 + 5 * s, 6 + 5 * s + n))
            base_b = 21
        if av[D.BLOCKADE]:
            cand = range(n) if pub.final else self.area_positions()
            out.extend(base_b + p for p in cand)
        out.sort()
        return out

    def decode_empire(self, a: int) -> tuple[int, int, int]:
        """(token, handle, row position) of an Empire action (-1 where unused)."""
        pub = self.pub
        if self.variant_c6:
            if a < 24:
                return D.SURVEILLANCE, a, -1
            if a < 48:
                return D.DESTROY, a - 24, -1
            if a < 168:
                h, p = divmod(a - 48, 5)
                return D.REDIRECT, h, p
            return D.BLOCKADE, -1, a - 168
        if a < 3:
            return D.SURVEILLANCE, pub.pending[a], -1
        if a < 6:
            return D.DESTROY, pub.pending[a - 3], -1
        if a < 21:
            s, p = divmod(a - 6, 5)
            return D.REDIRECT, pub.pending[s], p
        return D.BLOCKADE, -1, a - 21

    def decode_play(self, a: int) -> tuple[int, int, int]:
        """(face-up slot, face-down slot, face-down slot) of a PLAY action."""
        t = a - A_PLAY
        r, k = divmod(t, 6)
        rest = [i for i in range(len(self.hid.hand)) if i != r]
        i, j = PAIRS[k]
        return r, rest[i], rest[j]

    # ------------------------------------------------------------ transitions
    def _apply(self, a: int) -> None:
        pub = self.pub
        ph = pub.phase
        r0, l0 = pub.round, len(pub.lib)
        self._cache.mask = None
        self._apply_decision(ph, a)
        self._obs_sync(ph, pub.round != r0 or pub.phase == OVER, len(pub.lib) != l0)

    def _apply_decision(self, ph: int, a: int) -> None:
        if ph == AREA:
            self.pub.area = a - A_AREA
            self.pub.phase = PLAY
        elif ph == PLAY:
            self._apply_play(a)
        elif ph == EMPIRE_1 or ph == EMPIRE_2:
            self._apply_empire(a)
        elif ph == ASSIGN:
            self._assign(a - A_ASSIGN)
            self._continue_assign()
        elif ph == LIBERATE:
            p, m = divmod(a - A_LIBERATE, 4)
            self._liberate(p, m)
            if len(self.pub.lib) >= 3:
                self._finish(REBEL)
            else:
                self._end_of_round()

    def _apply_play(self, a: int) -> None:
        pub, hid = self.pub, self.hid
        hand = hid.hand
        if a == A_PLAY_ALL_HIDDEN:
            cards = list(hand)
            order = self.rng.permutation(len(cards))  # C12: all three slots shuffled
            cards = [cards[int(i)] for i in order]
            faceup = [False] * len(cards)
            pub.final_all_hidden = True
            hid.hand = []
        else:
            r, i, j = self.decode_play(a)
            d1, d2 = hand[i], hand[j]
            if self.rng.random() < 0.5:  # C12: face-down slots in random order
                d1, d2 = d2, d1
            cards = [hand[r], d1, d2]
            faceup = [True, False, False]
            hid.hand = [c for k, c in enumerate(hand) if k != r and k != i and k != j]
        base = 3 * (pub.round - 1)
        for s, c in enumerate(cards):
            h = base + s
            hid.hcard[h] = c
            pub.hloc[h] = s
            pub.hup[h] = faceup[s]
            pub.htype[h] = D.CARD_TYPE[c] if faceup[s] else -1
            pub.pending[s] = h
            self._obs_play(h)
        pub.n_played += len(cards)
        pub.hand_size = len(hid.hand)
        pub.phase = EMPIRE_1

    def _remove_from_location(self, h: int) -> int:
        pub = self.pub
        loc = pub.hloc[h]
        if loc < LOC_DISTRICT:
            pub.pending[loc] = -1
        else:
            pub.dist[loc - LOC_DISTRICT].remove(h)
        return loc

    def _apply_empire(self, a: int) -> None:
        pub, hid = self.pub, self.hid
        tok, h, p = self.decode_empire(a)
        pub.tok_avail[tok] = False
        pub.tok_used.append(tok)
        pub.tok_uses[tok] += 1
        src = pub.hloc[h] if h >= 0 else -1
        if tok == D.SURVEILLANCE:
            self._reveal(h)
        elif tok == D.DESTROY:
            self._remove_from_location(h)
            pub.hloc[h] = LOC_DESTROYED
            pub.destroyed.append(h)
            self._obs_move(h, src)
            if not pub.hup[h] and hid.hcard[h] >= D.DECOY_FIRST:
                self._reveal(h)  # a destroyed Decoy is shown (§4.3)
        elif tok == D.REDIRECT:
            self._remove_from_location(h)
            d = pub.row[p]
            pub.hloc[h] = LOC_DISTRICT + d
            pub.dist[d].append(h)
            self._obs_move(h, src)
        else:
            pub.blockade = pub.row[p]
        pub.emp_log.append((tok, h, src, pub.row[p] if p >= 0 else -1))
        if self.variant_c6:
            self._obs_event(len(pub.emp_log) - 1)
        if pub.phase == EMPIRE_1:
            pub.phase = EMPIRE_2
        else:
            pub.phase = ASSIGN
            self._continue_assign()

    def _assign(self, p: int) -> None:
        pub = self.pub
        for s in range(3):
            h = pub.pending[s]
            if h >= 0:
                break
        d = pub.row[p]
        pub.pending[s] = -1
        pub.hloc[h] = LOC_DISTRICT + d
        pub.dist[d].append(h)
        self._obs_move(h, s)

    def _continue_assign(self) -> None:
        """Auto-apply ASSIGN steps with one legal district (C17), then end the round."""
        pub = self.pub
        while pub.pending[0] >= 0 or pub.pending[1] >= 0 or pub.pending[2] >= 0:
            legal = self.assign_positions()
            if len(legal) != 1:
                return
            self._assign(legal[0])
        self._end_of_round()

    def _liberate(self, p: int, m: int) -> None:
        pub = self.pub
        d = pub.row.pop(p)  # C18: the row closes up and renumbers at once
        pub.area = -1  # the marker's gap no longer names two districts; its job is done
        if self.config["reveal_all_on_liberation"]:
            for h in pub.dist[d]:
                if not pub.hup[h]:
                    self._reveal(h)
        pub.lib.append(d)
        pub.lib_mission[d] = m
        pub.lib_round[d] = pub.round
        if not (m == 0 and self.config["revolution_reusable"]):
            pub.mission_avail[m] = False

    def _finish(self, winner: int) -> None:
        self.pub.winner = winner
        self.pub.phase = OVER

    def _end_of_round(self) -> None:
        """§7.4 end-of-round automaton: liberation check, refresh, draw."""
        pub, hid = self.pub, self.hid
        if len(pub.lib) >= 3:
            self._finish(REBEL)
            return
        if self.qualifying_pairs():
            pub.phase = LIBERATE
            return
        # the check is complete with nothing qualifying: a public fact (R3 of §5.4)
        pub.check_log.append(
            (
                tuple(tuple(pub.dist[d]) for d in pub.row),
                tuple(pub.missions[m] for m in range(4) if pub.mission_avail[m]),
            )
        )
        if pub.final:
            self._finish(EMPIRE)
            return
        pub.blockade = -1
        pub.area = -1
        pub.tok_used = []
        if not any(pub.tok_avail):
            pub.tok_avail = [True] * 4
        if len(hid.deck) >= 3:
            for _ in range(3):
                hid.hand.append(hid.deck.pop())
            pub.phase = AREA
        else:
            hid.hand.extend(hid.deck)
            hid.deck = []
            pub.final = True
            pub.phase = PLAY
        hid.hand.sort()
        pub.round += 1
        pub.hand_size = len(hid.hand)
        pub.deck_size = len(hid.deck)

    # ------------------------------------------------------------------ copy
    def _copy_rules_into(self, new) -> None:
        """Copy the rules' state and config-derived constants into ``new`` (clone)."""
        new.variant_c6 = self.variant_c6
        new.empire_actions = self.empire_actions
        new.threshold = self.threshold
        new.min_cards = self.min_cards
        new.pool = self.pool
        new.pub = self.pub.copy()
        new.hid = self.hid.copy()
        new._cache = _Cache()
