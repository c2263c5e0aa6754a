"""Spy Games state and transitions (rules/spy_games.md §3-§6, §9.2, §9.4-§9.6): the
rules engine :class:`SpyGamesRules`; the contract glue (config, masks, observation,
clone, resampling, text) is in game.py, which mixes it into the Game subclass.

The game is a state machine of small decisions: ``stage`` names the pending
decision and ``decider`` who owns it. Every chance event draws from ``self.rng``.
Public state lives on the game object; everything some player may not see (hands,
deck, face-down discards, plans under spies, an unrevealed face-down addition,
unrevealed allocations and each player's private pins) lives in ``self.h``
(:class:`Hidden`), so the encoder in observe.py reads it only for the viewer.
"""

from __future__ import annotations

from array import array

import numpy as np

from spyenvs.core.info import Payoff

from . import data as D
from .data import (
    A_A1, A_ACCEPT, A_ALLOC, A_DEMAND, A_DRAW_EMPTY, A_EXPOSE, A_FIRST, A_FIXER, A_INFIL, A_KOMP, A_MISSION,
    A_NO_CARD, A_OFFER_NONE, A_PASS, A_PAY_FROM, A_PICK_AGENT, A_PICK_CARD, A_PURGE, A_RAID, A_RECALL,
    A_REF_ACCEPT_D, A_REF_ACCEPT_I, A_REF_FREE, A_REF_OFFER, A_REJECT, A_RESP, A_STANDDOWN, A_STRENGTHEN,
    A_TAKE_CARD, A_TIE_D, A_TIE_I, A_WITHDRAW, D_EXPOSE, D_INFIL, D_MISSION, KIND_PIPS, KIND_SCOUT, KIND_SUIT,
    KIND_TYPE, NUM_ACTIONS, NUM_KINDS, O_DEMAND, O_STANDDOWN, O_WITHDRAW, S_A1, S_A2, S_A3, S_A4, S_ADD_CARD,
    S_ALLOC, S_BUY_OFFER, S_BUY_REPLY, S_FIRST, S_FIXER, S_INFIL_AGENT, S_INFIL_PLAN, S_KOMP, S_MAIN, S_OVER,
    S_PURGE, S_RAID, S_REF_CHOICE, S_REF_OFFER, S_STRENGTHEN, S_TIE,
)

SAB_MIN = D.SABOTEUR_MIN_MISSION
PH_ALLOC, PH_DRAW, PH_SPY, PH_STRENGTHEN, PH_UPKEEP, PH_OVER = range(6)

#: _PAY_OFFSETS[s][m]: payment offsets 7*(a-1)+s of source s holding m (capped at 3) units
_PAY_OFFSETS = tuple(tuple(7 * i + s for i in range(m)) for s in range(D.NUM_SOURCES) for m in range(4))
_PAY_OFFSETS = tuple(_PAY_OFFSETS[4 * s:4 * s + 4] for s in range(D.NUM_SOURCES))


def _pay_table(base: int) -> tuple:
    """[s][m]: the payment actions base + offset of source s holding m (capped) units."""
    return tuple(tuple(tuple(base + x for x in offs) for offs in row) for row in _PAY_OFFSETS)


_BASES_MISSION = (_pay_table(A_STANDDOWN), _pay_table(A_WITHDRAW))
_BASES_OTHER = (_pay_table(A_STANDDOWN),)
_BASES_REF = (_pay_table(A_REF_OFFER), _pay_table(A_REF_OFFER + 21))

#: _INFIL_T[o][zones]: infiltration actions at seat offset o for a bitset of non-empty zones
_INFIL_T = tuple(tuple(tuple(A_INFIL + 3 * (o - 1) + k for k in range(3) if o and z >> k & 1) for z in range(8))
                 for o in range(D.MAX_PLAYERS))

_MASKS: dict[tuple, np.ndarray] = {}


def _mask_of(legal: list[int]) -> np.ndarray:
    """Read-only int8 mask of a legal-action list, memoised (the same few hundred sets
    recur all game; callers copy masks and never write them)."""
    key = tuple(legal)
    m = _MASKS.get(key)
    if m is None:
        if len(_MASKS) > 100_000:
            _MASKS.clear()
        buf = bytearray(NUM_ACTIONS)
        for a in legal:
            buf[a] = 1
        m = np.frombuffer(bytes(buf), np.int8)  # immutable bytes: a read-only array
        _MASKS[key] = m
    return m


class Hidden:
    """State that some player may not see. Only the viewer's own parts are encoded."""

    def __init__(self, n: int):
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        # float32 mirror of each hand for the encoder (kept in step by _hand_add)
        self.hf = [array("f", bytes(4 * NUM_KINDS)) for _ in range(n)]
        self.deck: list[int] = []  # top = end
        self.disc_down: list[int] = []  # recalled plans, face down [C25]
        self.plans = [[-1] * D.AGENTS for _ in range(n)]
        self.add = [-1, -1]  # face-down additions of I and D until the reveal
        self.alloc = [-1] * n  # chosen but unrevealed permutations
        # pins[v][p] = {kind: copies} that v knows to be in p's hand (§9.5)
        self.pins = [[{} for _ in range(n)] for _ in range(n)]

    def clone(self) -> "Hidden":
        new = object.__new__(Hidden)
        new.hands = [h[:] for h in self.hands]
        new.hf = [a[:] for a in self.hf]
        new.deck = self.deck[:]
        new.disc_down = self.disc_down[:]
        new.plans = [p[:] for p in self.plans]
        new.add = self.add[:]
        new.alloc = self.alloc[:]
        new.pins = [[d.copy() if d else {} for d in pv] for pv in self.pins]
        return new


class SpyGamesRules:
    """The rules engine: state, legal actions and transitions. It writes the public
    observation segment through ``self._starts`` (block offsets), which game.py's
    ``_setup`` provides from observe.py's layout."""

    def _new_game(self):
        n = self.n
        self.h = h = Hidden(n)
        deck = list(D.FULL_DECK)
        self.rng.shuffle(deck)
        h.deck = deck
        self.round = 0
        self.phase = PH_ALLOC
        self.first = 0
        self.t = 0  # phase-2 slots used this round
        self.active = 0  # P: owner of the current turn / strengthen actions
        self.stage = S_ALLOC
        self.decider = 0
        self.zone = [[0, 0, 0] for _ in range(n)]
        self.init = [[0, 0, 0] for _ in range(n)]
        self.alloc_done = False
        self.alloc_chosen = [False] * n
        self.base = [[0] * n for _ in range(n)]
        self.removed = [0] * n
        self.hsize = [0] * n
        self.disc_up = [0] * NUM_KINDS
        self.spy_loc = [[-1] * D.AGENTS for _ in range(n)]  # zone owner * 3 + k, or -1 in reserve
        self.spy_c = [[0] * D.AGENTS for _ in range(n)]
        self.spy_str = [[False] * D.AGENTS for _ in range(n)]
        self.spy_ks = [[False] * D.AGENTS for _ in range(n)]  # public known-Scout flag
        self.komp = [False] * n
        self.komp_supply = D.KOMPROMAT_CARDS
        self.immune = [False] * n
        self.queue: list[int] = []  # owners still to answer an ability / fixer stage
        # declaration and buyout
        self.decl = 0
        self.decl_target = -1
        self.decl_k = -1
        self.decl_j = -1
        self.decl_owner = -1  # spy owner for MISSION/EXPOSE
        self.offer = None  # (kind, a, s) on the table
        # confrontation
        self.cf_on = False
        self.cf_kind = 0
        self.cf_I = self.cf_D = self.cf_ref = -1
        self.cf_zo = self.cf_k = -1
        self.cf_fix = 0  # 0 none, 1 non-participant referee take-over, 2 defender take-over
        self.cf_cands = (-1, -1)
        self.cf_trump2 = -1
        self.cf_up = [-1, -1]
        self.cf_added = [False, False]
        self.cf_addrev = [-1, -1]
        self.cf_revealed = False
        self.cf_total = [0, 0]
        self.cf_a1 = [0, 0]
        self.cf_kplay = [False, False]
        self.cf_offer = [None, None]  # (cand, a, s)
        self.cf_pledge = -1  # 0 = I, 1 = D
        self.cf_turn = 0
        # mission / exposure resolution
        self.res_on = False
        self.res_kind = 0
        self.res_A = self.res_B = self.res_k = self.res_j = -1
        self.res_plan = -1
        self.res_level = 0
        self.res_ops: tuple = ()
        self.res_i = 0
        self.res_left = 0  # RAID picks left
        self.res_escape = False
        self.res_selfd = False
        # strengthen
        self.s_idx = 0
        self.s_used = 0
        self.s_j = -1
        self.s_block = False
        self.upkeep_F = -1
        self.vp_final = None
        self._mask = None
        # public per-player / per-agent blocks in absolute seat order, kept up to date by
        # _wp/_ws at every mutation (observe.py gathers them egocentrically)
        self.pub = array("f", bytes(4 * (self._starts.seg_end - self._starts.seg_start + 1)))
        self.pub[self._starts.r_neg] = 1.0 if self.structured else 0.0
        self.pub[self._starts.r_ksup] = self.komp_supply / 2.0
        self._w_deck()
        if self.config["allocation"] == "fixed":
            for p in range(n):
                self.init[p] = list(D.ALLOCS[D.FIXED_ALLOC])
                self.zone[p] = list(D.ALLOCS[D.FIXED_ALLOC])
                self.alloc_chosen[p] = True
            self.alloc_done = True
            self._wp_all()
            self._deal_and_start()
        self._settle()

    def _settle(self):
        """Build the next mask; with auto_forced, play single-option decisions whose
        being forced is public (§9.2 Amendment), or every one with auto_forced_hidden."""
        while self.stage != S_OVER:
            legal = self._legal_list()
            if not (self.auto_forced and len(legal) == 1 and (self.auto_forced_hidden or self._forced_publicly())):
                self._mask = _mask_of(legal)
                return
            self._do(legal[0])
        self._mask = _mask_of([])

    def _forced_publicly(self) -> bool:
        """Whether every player can tell that the pending decision (which has one legal
        action) is forced, so skipping it shows nothing through the public acting
        sequence (§9.2 Amendment). Only the plan pick depends on hidden state: the
        kinds in the infiltrator's hand, public only when it holds one card. Every other
        legal set is built from public state alone: MAIN has PASS plus a RECALL for any
        spy in play (so a hidden MISSION legality never decides forcedness), ADD_CARD
        has NO_CARD plus a card when the (public) hand size is non-zero, payments are
        masked by zones, bases and hand sizes, and the remaining stages by public
        spies, cases, offers and counts."""
        return self.stage != S_INFIL_PLAN or self.hsize[self.decider] == 1

    def _build_mask(self):
        return _mask_of(self._legal_list() if self.stage != S_OVER else [])

    # ------------------------------------------------- public segment writes
    def _wp(self, p: int) -> None:
        """Rewrite player p's entries of the public segment."""
        pub, R = self.pub, self._starts
        z0, z1, z2 = self.zone[p]
        pub[R.r_alloc + p] = 1.0 if self.alloc_chosen[p] else 0.0
        b = R.r_zones + 3 * p
        pub[b] = z0 / 10.0
        pub[b + 1] = z1 / 10.0
        pub[b + 2] = z2 / 10.0
        pen = 0
        if self.alloc_done:
            i0, i1, i2 = self.init[p]
            b = R.r_init + 3 * p
            pub[b] = i0 / 10.0
            pub[b + 1] = i1 / 10.0
            pub[b + 2] = i2 / 10.0
            PEN = D.PENALTY
            pen = PEN[i0][z0] + PEN[i1][z1] + PEN[i2][z2]
        pub[R.r_pen + p] = pen / 48.0
        bq = self.base[p]
        b = R.r_base + 4 * p
        for x in bq:
            pub[b] = x / 24.0
            b += 1
        pub[R.r_rem + p] = self.removed[p] / 24.0
        pub[R.r_hand + p] = self.hsize[p] / 72.0
        pub[R.r_komp + p] = 1.0 if self.komp[p] else 0.0
        pub[R.r_imm + p] = 1.0 if self.immune[p] else 0.0
        pub[R.r_vp + p] = (z0 + z1 + z2 + 3 * sum(bq) - 2 * bq[p] - pen) / 100.0

    def _w_score(self, p: int) -> None:
        """Rewrite p's penalty and VP entries (after a zone or base change written by the caller)."""
        pub, R = self.pub, self._starts
        z0, z1, z2 = self.zone[p]
        pen = 0
        if self.alloc_done:
            i0, i1, i2 = self.init[p]
            PEN = D.PENALTY
            pen = PEN[i0][z0] + PEN[i1][z1] + PEN[i2][z2]
        pub[R.r_pen + p] = pen / 48.0
        bq = self.base[p]
        pub[R.r_vp + p] = (z0 + z1 + z2 + 3 * sum(bq) - 2 * bq[p] - pen) / 100.0

    def _w_zone(self, p: int, k: int) -> None:
        """p's zone k changed: its entry, penalty and VP (cheaper than _wp on hot paths)."""
        self.pub[self._starts.r_zones + 3 * p + k] = self.zone[p][k] / 10.0
        self._w_score(p)

    def _w_base(self, p: int, c: int) -> None:
        """p's base count of colour c changed: its entry and VP."""
        self.pub[self._starts.r_base + 4 * p + c] = self.base[p][c] / 24.0
        self._w_score(p)

    def _wp_all(self) -> None:
        for p in range(self.n):
            self._wp(p)

    def _w_deck(self) -> None:
        """Rewrite deck size and face-down discard count."""
        self.pub[self._starts.r_deck] = len(self.h.deck) / 72.0
        self.pub[self._starts.r_down] = len(self.h.disc_down) / 72.0

    def _w_disc(self, kind: int) -> None:
        self.pub[self._starts.r_disc + kind] = float(self.disc_up[kind])

    def _w_slots(self) -> None:
        """Rewrite every player's slots-left entry (slots_left, inlined: once per turn)."""
        pub, b, n = self.pub, self._starts.r_slots, self.n
        if self.phase != PH_SPY:
            for p in range(n):
                pub[b + p] = 0.0
            return
        done, extra = divmod(self.t, n)
        left = D.SLOTS_PER_ROUND[self.round] - done
        first = self.first
        for p in range(n):
            pub[b + p] = (left - 1 if (p - first) % n < extra else left) / 5.0

    def _clear_immune(self) -> None:
        """End every buyout immunity (the public entries too); usually none is set."""
        if True in self.immune:
            self.immune = [False] * self.n
            pub, b = self.pub, self._starts.r_imm
            for p in range(self.n):
                pub[b + p] = 0.0

    def _w_flags(self) -> None:
        """Rewrite kompromat supply and the kompromat and immunity entries of every player."""
        pub, R = self.pub, self._starts
        pub[R.r_ksup] = self.komp_supply / 2.0
        for p in range(self.n):
            pub[R.r_komp + p] = 1.0 if self.komp[p] else 0.0
            pub[R.r_imm + p] = 1.0 if self.immune[p] else 0.0

    def _ws(self, p: int, j: int) -> None:
        """Rewrite the public entries of agent pair j of player p."""
        pub, R = self.pub, self._starts
        aj = 5 * p + j
        loc = self.spy_loc[p][j]
        bo = R.r_aowner + 4 * aj
        bz = R.r_azone + 3 * aj
        pub[bo] = pub[bo + 1] = pub[bo + 2] = pub[bo + 3] = 0.0
        pub[bz] = pub[bz + 1] = pub[bz + 2] = 0.0
        if loc >= 0:
            pub[R.r_aplay + aj] = 1.0
            pub[bo + loc // 3] = 1.0
            pub[bz + loc % 3] = 1.0
        else:
            pub[R.r_aplay + aj] = 0.0
        pub[R.r_acases + aj] = self.spy_c[p][j] / 4.0
        pub[R.r_astr + aj] = 1.0 if self.spy_str[p][j] else 0.0
        pub[R.r_aks + aj] = 1.0 if self.spy_ks[p][j] else 0.0

    def _resync(self) -> None:
        """Rebuild every mirror (public segment, hand floats, mask) from the state, for
        tests and tools that set state fields directly."""
        h = self.h
        h.hf = [array("f", [float(c) for c in hand]) for hand in h.hands]
        self.hsize = [sum(hand) for hand in h.hands]
        self.pub = array("f", bytes(4 * (self._starts.seg_end - self._starts.seg_start + 1)))
        self.pub[self._starts.r_neg] = 1.0 if self.structured else 0.0
        self._w_deck()
        for k in range(NUM_KINDS):
            self._w_disc(k)
        self._w_slots()
        self._w_flags()
        self._wp_all()
        for p in range(self.n):
            for j in range(D.AGENTS):
                self._ws(p, j)
        self._mask = None

    # ----------------------------------------------------------------- helpers
    def _hand_add(self, p: int, kind: int, d: int) -> None:
        """Change p's count of a kind by d, keeping hand size and mirrors in step."""
        h = self.h
        c = h.hands[p][kind] + d
        h.hands[p][kind] = c
        h.hf[p][kind] = c
        self.hsize[p] += d
        self.pub[self._starts.r_hand + p] = self.hsize[p] / 72.0

    def _draw(self, p: int, n: int) -> int:
        """Draw up to n cards into p's hand, reshuffling the discard when needed (hand
        mirrors and public counts written once at the end)."""
        h = self.h
        hand, hf = h.hands[p], h.hf[p]
        got = 0
        for _ in range(n):
            if not h.deck and not self._reshuffle():
                break
            k = h.deck.pop()
            c = hand[k] + 1
            hand[k] = c
            hf[k] = c
            got += 1
        if got:
            self.hsize[p] += got
            self.pub[self._starts.r_hand + p] = self.hsize[p] / 72.0
            self._w_deck()
        return got

    def _draw_one(self) -> int:
        """One card off the deck (face-up confrontation card), or -1 [C33]."""
        h = self.h
        if not h.deck and not self._reshuffle():
            return -1
        kind = h.deck.pop()
        self._w_deck()
        return kind

    def _reshuffle(self) -> bool:
        h = self.h
        pile = h.disc_down
        up = self.disc_up
        for k in range(NUM_KINDS):
            if up[k]:
                pile.extend([k] * up[k])
                up[k] = 0
        if not pile:
            return False
        self.rng.shuffle(pile)
        h.deck = pile
        h.disc_down = []
        for k in range(NUM_KINDS):
            self._w_disc(k)
        self._w_deck()
        return True

    def _deck_or_discard(self) -> bool:
        return bool(self.h.deck) or bool(self.h.disc_down) or any(self.disc_up)

    def _random_card(self, p: int) -> int:
        """Remove and return a uniformly random card of p's hand (hsize[p] > 0)."""
        hand = self.h.hands[p]
        r = int(self.rng.integers(self.hsize[p]))
        for k in range(NUM_KINDS):
            c = hand[k]
            if r < c:
                self._hand_add(p, k, -1)
                return k
            r -= c
        raise AssertionError("hand size out of sync")

    def _pins_seen(self, p: int, kind: int):
        """Everyone saw p give up a card of this kind."""
        for pv in self.h.pins:
            d = pv[p]
            c = d.get(kind)
            if c:
                if c == 1:
                    del d[kind]
                else:
                    d[kind] = c - 1

    def _pins_unseen(self, p: int, except_=()):
        """p lost a card the others (but those in except_) did not see."""
        pins = self.h.pins
        for v in range(self.n):
            if v != p and v not in except_ and pins[v][p]:
                pins[v][p] = {}

    def _card_transfer(self, src: int, dst: int, n: int):
        """n random cards of src's hand to dst's hand; only the two learn which."""
        pins = self.h.pins
        moved = False
        for _ in range(n):
            if not self.hsize[src]:
                break
            k = self._random_card(src)
            self._hand_add(dst, k, 1)
            d = pins[src][dst]
            d[k] = d.get(k, 0) + 1
            d = pins[dst][src]
            c = d.get(k)
            if c:
                if c == 1:
                    del d[k]
                else:
                    d[k] = c - 1
            moved = True
        if moved:
            self._pins_unseen(src, (dst,))

    def _discard_revealed(self, p: int, kind: int):
        self.disc_up[kind] += 1
        self._w_disc(kind)
        self._pins_seen(p, kind)

    def source_amount(self, p: int, s: int) -> int:
        """How much payment source s (§5) of payer p holds."""
        if s < 3:
            return self.zone[p][s]
        if s < 6:
            off = s - 2
            return self.base[p][(p + off) % self.n] if off < self.n else 0
        return self.hsize[p]

    def _payable(self, p: int, tables: tuple) -> list[int]:
        """Actions base + 7*(a-1)+s, for each base's table (_pay_table), of the payments
        (amount a, source s) p can make now (§5)."""
        n = self.n
        bp = self.base[p]
        z = self.zone[p]
        out = []
        for s, have in enumerate((z[0], z[1], z[2], bp[(p + 1) % n], bp[(p + 2) % n] if n > 2 else 0,
                                  bp[(p + 3) % n] if n > 3 else 0, self.hsize[p])):
            if have:
                m = have if have < 3 else 3
                for table in tables:
                    out += table[s][m]
        return out

    def _pay(self, payer: int, recv: int, a: int, s: int):
        # only the changed entries are rewritten (card transfers keep hand sizes in step)
        if s < 3:
            self.zone[payer][s] -= a
            self.base[recv][payer] += a
            self._w_zone(payer, s)
            self._w_base(recv, payer)
        elif s < 6:
            c = (payer + s - 2) % self.n
            self.base[payer][c] -= a
            self.base[recv][c] += a
            self._w_base(payer, c)
            self._w_base(recv, c)
        else:
            self._card_transfer(payer, recv, a)

    def _remove_spy(self, p: int, j: int):
        self.spy_loc[p][j] = -1
        self.spy_c[p][j] = 0
        self.h.plans[p][j] = -1
        self.spy_str[p][j] = False
        self.spy_ks[p][j] = False
        self._ws(p, j)

    def _recall(self, p: int, j: int):
        """Free recall [S, C24]: cases home, plan discarded face down [C25]."""
        self.base[p][p] += self.spy_c[p][j]
        self.h.disc_down.append(self.h.plans[p][j])
        self._w_deck()
        self._remove_spy(p, j)
        self._w_base(p, p)

    def _owners_in(self, loc: int, agent: int, start: int, exclude: int) -> list[int]:
        """Owners (seat order from start) with agent number `agent` at loc, except one."""
        out = []
        n = self.n
        for i in range(n):
            w = (start + i) % n
            if w != exclude and self.spy_loc[w][agent] == loc:
                out.append(w)
        return out

    def _others_spies_in(self, loc: int, A: int) -> list[tuple[int, int]]:
        out = []
        for i in range(1, self.n):
            w = (A + i) % self.n
            for j in range(D.AGENTS):
                if self.spy_loc[w][j] == loc:
                    out.append((w, j))
        return out

    def tokens(self, p: int) -> int:
        return sum(self.spy_c[p][j] for j in range(D.AGENTS) if self.spy_loc[p][j] >= 0)

    def penalty(self, p: int) -> int:
        if not self.alloc_done:
            return 0
        return sum(D.PENALTY[self.init[p][k]][self.zone[p][k]] for k in range(3))

    def foreign(self, p: int) -> int:
        return sum(self.base[p]) - self.base[p][p]

    def vp(self, p: int) -> int:
        """VP(p) from public state [C27]."""
        return sum(self.zone[p]) + self.base[p][p] + 3 * self.foreign(p) - self.penalty(p)

    # -------------------------------------------------------------- flow
    def _deal_and_start(self):
        for p in range(self.n):
            self._draw(p, D.START_HAND)
        self.first = int(self.rng.integers(self.n))  # "last watched a spy film" [C40]
        self._start_round()

    def _start_round(self):
        n = self.n
        self.phase = PH_DRAW
        for i in range(n):
            self._draw((self.first + i) % n, D.DRAW_PHASE_CARDS)
        self.phase = PH_SPY
        self.t = 0
        self._start_turn()

    def _slots(self) -> int:
        return D.SLOTS_PER_ROUND[self.round]

    def slots_left(self, p: int) -> int:
        """Phase-2 slots p still has this round."""
        if self.phase != PH_SPY:
            return 0
        pos = (p - self.first) % self.n
        used = self.t // self.n + (1 if pos < self.t % self.n else 0)
        return self._slots() - used

    def _start_turn(self):
        self.active = (self.first + self.t) % self.n
        self._w_slots()
        self._clear_immune()
        self._clear_decl()
        self.stage = S_MAIN
        self.decider = self.active

    def _clear_decl(self):
        self.decl = 0
        self.decl_target = self.decl_k = self.decl_j = self.decl_owner = -1
        self.offer = None

    def _end_slot(self):
        self.t += 1
        if self.t >= self.n * D.SLOTS_PER_ROUND[self.round]:
            self._clear_immune()
            self._clear_decl()
            self._start_strengthen()
        else:
            self._start_turn()  # clears immunity and the declaration itself

    def _start_strengthen(self):
        self.phase = PH_STRENGTHEN
        self._w_slots()
        self.spy_str = [[False] * D.AGENTS for _ in range(self.n)]
        for p in range(self.n):
            for j in range(D.AGENTS):
                self._ws(p, j)
        self.s_idx = 0
        self.s_used = 0
        self.active = self.first
        self.stage = S_STRENGTHEN
        self.decider = self.active

    def _end_strengthen_action(self):
        self.s_j = -1
        self.s_block = False
        self.s_used += 1
        if self.s_used >= D.STRENGTHEN_ACTIONS:
            self.s_used = 0
            self.s_idx += 1
            if self.s_idx >= self.n:
                self._end_round()
                return
            self.active = (self.first + self.s_idx) % self.n
        self.stage = S_STRENGTHEN
        self.decider = self.active

    def _end_round(self):
        if self.round == D.ROUNDS - 1:
            self._end_game()
            return
        n = self.n
        self.phase = PH_UPKEEP
        toks = [self.tokens(p) for p in range(n)]
        low = min(toks)
        F = [(self.first + i) % n for i in range(n) if toks[(self.first + i) % n] == low][-1]  # [C22]
        if not self.komp[F]:
            if self.komp_supply:
                self.komp_supply -= 1
            else:  # take from the holder with most tokens, tie nearest clockwise [C21]
                best = -1
                for i in range(1, n):
                    w = (F + i) % n
                    if self.komp[w] and (best < 0 or toks[w] > toks[best]):
                        best = w
                self.komp[best] = False
            self.komp[F] = True
        self._w_flags()
        self.upkeep_F = F
        self.active = F
        self.stage = S_FIRST
        self.decider = F

    def _end_game(self):
        """§6: simultaneous end-game discards, spies home, score."""
        n = self.n
        self.phase = PH_OVER
        owed = [[0, 0, 0] for _ in range(n)]
        for p in range(n):
            for j in range(D.AGENTS):
                loc = self.spy_loc[p][j]
                if loc >= 0:
                    owed[loc // 3][loc % 3] += self.spy_c[p][j]
        for b in range(n):
            for k in range(3):
                m = min(owed[b][k], self.zone[b][k])
                self.zone[b][k] -= m
                self.removed[b] += m
        for p in range(n):
            for j in range(D.AGENTS):
                if self.spy_loc[p][j] >= 0:
                    self.base[p][p] += self.spy_c[p][j]
                    self.disc_up[self.h.plans[p][j]] += 1
                    self._w_disc(self.h.plans[p][j])
                    self._remove_spy(p, j)
        self._wp_all()
        self.vp_final = [self.vp(p) for p in range(n)]
        self.stage = S_OVER
        self.decider = 0
        self.active = 0

    # ------------------------------------------------------- legal actions
    def _legal_list(self) -> list[int]:
        st = self.stage
        n = self.n
        P = self.decider
        out = []
        if st == S_MAIN:
            out.append(A_PASS)
            hs = self.hsize[P]
            if hs == 0 and self._deck_or_discard():
                out.append(A_DRAW_EMPTY)
            locs = self.spy_loc[P]
            immune = self.immune
            plans = self.h.plans[P]
            cases = self.spy_c[P]
            reserve = False
            for j, loc in enumerate(locs):
                if loc >= 0:
                    out.append(A_RECALL + j)
                    if not immune[loc // 3] and (KIND_SCOUT[plans[j]] or cases[j] >= SAB_MIN):
                        out.append(A_MISSION + j)
                else:
                    reserve = True
            zp = self.zone[P]
            if hs > 0 and reserve:
                zones = (1 if zp[0] else 0) | (2 if zp[1] else 0) | (4 if zp[2] else 0)
                if zones:
                    for o in range(1, n):
                        if not immune[(P + o) % n]:
                            out += _INFIL_T[o][zones]
            spy_loc = self.spy_loc
            z0 = 3 * P
            for o in range(1, n):
                w = (P + o) % n
                lw = spy_loc[w]
                # the membership tests (C loops) usually find no spy of w in P's zones
                if not immune[w] and (z0 in lw or z0 + 1 in lw or z0 + 2 in lw):
                    b = A_EXPOSE + 5 * (o - 1)
                    for j, loc in enumerate(lw):
                        if loc // 3 == P:  # -1 // 3 == -1: reserve never matches
                            out.append(b + j)
        elif st == S_STRENGTHEN:
            locs = self.spy_loc[P]
            for j in range(D.AGENTS):
                if locs[j] >= 0:
                    out.append(A_RECALL + j)
            strong = False
            for j in range(D.AGENTS):
                if locs[j] >= 0 and not self.spy_str[P][j] and self.zone[P][locs[j] % 3]:
                    out.append(A_STRENGTHEN + j)
                    strong = True
            if self._deck_or_discard():
                out.append(A_TAKE_CARD)
            elif not strong:
                out.append(A_PASS)  # [C39]
        elif st == S_BUY_OFFER:
            out.append(A_OFFER_NONE)
            out += self._payable(P, _BASES_MISSION if self.decl == D_MISSION else _BASES_OTHER)
            if self.decl == D_EXPOSE:
                out.extend((A_DEMAND, A_DEMAND + 1, A_DEMAND + 2))
        elif st == S_BUY_REPLY:
            out.append(A_REJECT)
            kind, a, _s = self.offer
            if kind == O_DEMAND:
                for s in range(D.NUM_SOURCES):
                    if self.source_amount(P, s) >= a:
                        out.append(A_PAY_FROM + s)
            else:
                out.append(A_ACCEPT)
        elif st == S_INFIL_AGENT:
            for j in range(D.AGENTS):
                if self.spy_loc[P][j] < 0:
                    out.append(A_PICK_AGENT + j)
        elif st == S_INFIL_PLAN or st == S_ADD_CARD:
            out = [A_PICK_CARD + k for k, c in enumerate(self.h.hands[P]) if c]
            if st == S_ADD_CARD:
                out.append(A_NO_CARD)
        elif st in (S_A2, S_A3, S_A4):
            out.extend((A_RESP, A_RESP + 1, A_RESP + 2))
        elif st == S_FIXER:
            out.extend((A_FIXER, A_FIXER + 1))
        elif st == S_REF_OFFER:
            out.append(A_OFFER_NONE)
            out += self._payable(P, _BASES_REF)
        elif st == S_REF_CHOICE:
            if self.cf_fix != 2:
                if self.cf_offer[0] is not None:
                    out.append(A_REF_ACCEPT_I)
                if self.cf_offer[1] is not None:
                    out.append(A_REF_ACCEPT_D)
            out.extend((A_REF_FREE, A_REF_FREE + 1))
        elif st == S_A1:
            out.extend(range(A_A1, A_A1 + 5))
        elif st == S_KOMP:
            out.extend((A_KOMP, A_KOMP + 1))
        elif st == S_TIE:
            out.extend((A_TIE_I, A_TIE_D))
        elif st == S_RAID:
            bb = self.base[self.res_B]
            for off in range(n):
                if bb[(P + off) % n]:
                    out.append(A_RAID + off)
        elif st == S_PURGE:
            for w, j in self._others_spies_in(self.res_B * 3 + self.res_k, P):
                out.append(A_PURGE + 5 * ((w - P) % n - 1) + j)
        elif st == S_FIRST:
            out.extend(range(A_FIRST, A_FIRST + n))
        elif st == S_ALLOC:
            out.extend(range(A_ALLOC, A_ALLOC + 6))
        return out

    # ------------------------------------------------------------ transitions
    def _do(self, a: int) -> None:
        st = self.stage
        P = self.decider
        n = self.n
        if st == S_MAIN:
            if a == A_PASS:
                self._end_slot()
            elif a == A_DRAW_EMPTY:
                self._draw(P, D.DRAW_EMPTY_CARDS)
                self._end_slot()
            elif a < A_INFIL:
                self._recall(P, a - A_RECALL)
            elif a < A_MISSION:
                o, k = divmod(a - A_INFIL, 3)
                self.decl, self.decl_target, self.decl_k = D_INFIL, (P + o + 1) % n, k
                self._declare()
            elif a < A_EXPOSE:
                j = a - A_MISSION
                loc = self.spy_loc[P][j]
                if self.spy_c[P][j] <= 2:
                    self.spy_ks[P][j] = True  # a c<=2 mission shows a Scout (§4.2)
                    self._ws(P, j)
                self.decl, self.decl_target, self.decl_k, self.decl_j, self.decl_owner = (
                    D_MISSION, loc // 3, loc % 3, j, P)
                self._declare()
            else:
                o, j = divmod(a - A_EXPOSE, 5)
                w = (P + o + 1) % n
                self.decl, self.decl_target, self.decl_k, self.decl_j, self.decl_owner = (
                    D_EXPOSE, w, self.spy_loc[w][j] % 3, j, w)
                self._declare()
        elif st == S_STRENGTHEN:
            if a == A_TAKE_CARD:
                self._draw(P, 1)
                self._end_strengthen_action()
            elif a == A_PASS:
                self._end_strengthen_action()
            elif a < A_INFIL:
                self._recall(P, a - A_RECALL)
            else:
                j = a - A_STRENGTHEN
                self.s_j = j
                self.s_block = False
                loc = self.spy_loc[P][j]
                self.queue = self._owners_in(loc, D.LIAISON, P, P)
                if self.queue:
                    self.stage = S_A3
                    self.decider = self.queue.pop(0)
                else:
                    self._do_strengthen()
        elif st == S_A3:
            r = a - A_RESP
            if r == 1:
                self._draw(self.active, 1)
            elif r == 2:
                self.s_block = True
            if self.queue:
                self.decider = self.queue.pop(0)
            else:
                self._do_strengthen()
        elif st == S_BUY_OFFER:
            if a == A_OFFER_NONE:
                self._resolve_decl()
            else:
                if a < A_WITHDRAW:
                    kind, x = O_STANDDOWN, a - A_STANDDOWN
                    amt, s = x // 7 + 1, x % 7
                elif a < A_DEMAND:
                    kind, x = O_WITHDRAW, a - A_WITHDRAW
                    amt, s = x // 7 + 1, x % 7
                else:
                    kind, amt, s = O_DEMAND, a - A_DEMAND + 1, -1
                self.offer = (kind, amt, s)
                self.stage = S_BUY_REPLY
                self.decider = self.active
        elif st == S_BUY_REPLY:
            if a == A_REJECT:
                self._resolve_decl()
            else:
                T = self.decl_target
                kind, amt, s = self.offer
                if kind == O_DEMAND:
                    self._pay(P, T, amt, a - A_PAY_FROM)
                    self._recall(T, self.decl_j)
                else:
                    self._pay(T, P, amt, s)
                    if kind == O_WITHDRAW:
                        self._recall(P, self.decl_j)
                self.immune[T] = True
                self.pub[self._starts.r_imm + T] = 1.0
                self._clear_decl()
                self.stage = S_MAIN
                self.decider = self.active
        elif st == S_INFIL_AGENT:
            self.decl_j = a - A_PICK_AGENT
            self.stage = S_INFIL_PLAN
        elif st == S_INFIL_PLAN:
            kind = a - A_PICK_CARD
            j, T, k = self.decl_j, self.decl_target, self.decl_k
            self._hand_add(P, kind, -1)
            self._pins_unseen(P)
            self.h.plans[P][j] = kind
            loc = T * 3 + k
            self.spy_loc[P][j] = loc
            self.spy_c[P][j] = 1
            self.spy_str[P][j] = False
            self.spy_ks[P][j] = False
            self.zone[P][k] -= 1
            self._w_zone(P, k)
            self._ws(P, j)
            self.queue = self._owners_in(loc, D.GATEKEEPER, P, P)
            if self.queue:
                self.stage = S_A2
                self.decider = self.queue.pop(0)
            else:
                self._end_slot()
        elif st == S_A2:
            r = a - A_RESP
            X = self.active
            if r == 1:
                self._draw(X, 1)
            elif r == 2 and self.hsize[X]:
                self._discard_revealed(X, self._random_card(X))
            if self.queue:
                self.decider = self.queue.pop(0)
            else:
                self._end_slot()
        elif st == S_FIXER:
            if a == A_FIXER + 1:
                self.queue = []
                if P == self.cf_D:
                    self.cf_fix = 2
                else:
                    self.cf_fix = 1
                    self.cf_ref = P
                self._conf_trumps()
            elif self.queue:
                self.decider = self.queue.pop(0)
            else:
                self._conf_trumps()
        elif st == S_REF_OFFER:
            if a != A_OFFER_NONE:
                x = a - A_REF_OFFER
                self.cf_offer[self.cf_turn] = (x // 21, (x % 21) // 7 + 1, x % 7)
            if self.cf_turn == 0:
                self.cf_turn = 1
                self.decider = self.cf_D
            else:
                self._conf_choice()
        elif st == S_REF_CHOICE:
            if a == A_REF_ACCEPT_I or a == A_REF_ACCEPT_D:
                idx = a - A_REF_ACCEPT_I
                cand, amt, s = self.cf_offer[idx]
                payer = self.cf_I if idx == 0 else self.cf_D
                self._pay(payer, P, amt, s)
                self.cf_trump2 = self.cf_cands[cand]
                self.cf_pledge = idx
            else:
                self.cf_trump2 = self.cf_cands[a - A_REF_FREE]
            self._conf_add()
        elif st == S_ADD_CARD:
            idx = self.cf_turn
            if a != A_NO_CARD:
                kind = a - A_PICK_CARD
                self._hand_add(P, kind, -1)
                self.h.add[idx] = kind
                self.cf_added[idx] = True
            if idx == 0:
                self.cf_turn = 1
                self.decider = self.cf_D
            else:
                self._conf_reveal()
        elif st == S_A1:
            dI, dD = D.A1_DELTAS[a - A_A1]
            self.cf_a1[0] += dI
            self.cf_a1[1] += dD
            self.cf_total[0] += dI
            self.cf_total[1] += dD
            if self.queue:
                self.decider = self.queue.pop(0)
            else:
                self._conf_komp(0)
        elif st == S_KOMP:
            idx = 0 if P == self.cf_I else 1
            if a == A_KOMP + 1:
                self.cf_kplay[idx] = True
                self.komp[P] = False
                self.komp_supply += 1
                self._w_flags()
            self._conf_komp(idx + 1)
        elif st == S_TIE:
            self._conf_end(0 if a == A_TIE_I else 1)
        elif st == S_A4:
            r = a - A_RESP
            if r == 1:
                self.res_level += 1
            elif r == 2:
                self.res_level -= 1
            if self.queue:
                self.decider = self.queue.pop(0)
            else:
                self._start_ops()
        elif st == S_RAID:
            c = (P + a - A_RAID) % n
            B = self.res_B
            self.base[B][c] -= 1
            self.base[P][c] += 1
            self._w_base(B, c)
            self._w_base(P, c)
            self.res_left -= 1
            if self.res_left > 0 and sum(self.base[B]):
                return
            self.res_left = 0
            self._run_ops()
        elif st == S_PURGE:
            o, j = divmod(a - A_PURGE, 5)
            self._purge((P + o + 1) % n, j)
            self._run_ops()
        elif st == S_FIRST:
            self.first = (P + a - A_FIRST) % n
            self.upkeep_F = -1
            self.round += 1
            self._start_round()
        elif st == S_ALLOC:
            self.h.alloc[P] = a - A_ALLOC
            self.alloc_chosen[P] = True
            self._wp(P)
            if P + 1 < n:
                self.decider = P + 1
            else:  # all chosen: reveal together [C02]
                for p in range(n):
                    al = D.ALLOCS[self.h.alloc[p]]
                    self.init[p] = list(al)
                    self.zone[p] = list(al)
                    self.h.alloc[p] = -1
                self.alloc_done = True
                self._wp_all()
                self._deal_and_start()
        else:  # pragma: no cover
            raise AssertionError(f"no transition for stage {st}")

    def _do_strengthen(self):
        P, j = self.active, self.s_j
        if not self.s_block:
            k = self.spy_loc[P][j] % 3
            self.zone[P][k] -= 1
            self.spy_c[P][j] += 1
            self._w_zone(P, k)
        self.spy_str[P][j] = True
        self._ws(P, j)
        self._end_strengthen_action()

    # ---------------------------------------------------------- declarations
    def _declare(self):
        if self.structured:
            self.stage = S_BUY_OFFER
            self.decider = self.decl_target
        else:
            self._resolve_decl()

    def _resolve_decl(self):
        self.offer = None
        P = self.active
        if self.decl == D_INFIL:
            self.stage = S_INFIL_AGENT
            self.decider = P
        elif self.decl == D_MISSION:
            self._start_conf(D_MISSION, P, self.decl_target, self.decl_target, self.decl_k)
        else:
            self._start_conf(D_EXPOSE, P, self.decl_owner, P, self.decl_k)

    # ---------------------------------------------------------- confrontation
    def _start_conf(self, kind, ini, Dp, zo, k):
        n = self.n
        self.cf_on = True
        self.cf_kind = kind
        self.cf_I, self.cf_D, self.cf_zo, self.cf_k = ini, Dp, zo, k
        ref = -1
        if n > 2:
            for i in range(1, n):
                w = (ini + i) % n
                if w != Dp:
                    ref = w
                    break
        self.cf_ref = ref
        self.cf_fix = 0
        self.cf_cands = tuple(s for s in range(3) if s != k)
        self.cf_trump2 = -1
        self.cf_up = [-1, -1]
        self.cf_added = [False, False]
        self.cf_addrev = [-1, -1]
        self.h.add = [-1, -1]
        self.cf_revealed = False
        self.cf_total = [0, 0]
        self.cf_a1 = [0, 0]
        self.cf_kplay = [False, False]
        self.cf_offer = [None, None]
        self.cf_pledge = -1
        self.cf_turn = 0
        loc = zo * 3 + k
        self.queue = [w for w in self._owners_in(loc, D.FIXER, ini, ini) if w != ref]
        if self.queue:
            self.stage = S_FIXER
            self.decider = self.queue.pop(0)
        else:
            self._conf_trumps()

    def _conf_trumps(self):
        self.cf_up[0] = self._draw_one()
        self.cf_up[1] = self._draw_one()
        if self.structured and self.cf_ref >= 0 and self.cf_fix != 2:
            self.cf_turn = 0
            self.stage = S_REF_OFFER
            self.decider = self.cf_I
        else:
            self._conf_choice()

    def _conf_choice(self):
        if self.cf_fix == 2:
            self.stage = S_REF_CHOICE
            self.decider = self.cf_D
        elif self.cf_ref >= 0:
            self.stage = S_REF_CHOICE
            self.decider = self.cf_ref
        else:
            self.cf_trump2 = self.cf_cands[int(self.rng.integers(2))]  # 2 players: coin [S]
            self._conf_add()

    def _conf_add(self):
        self.cf_turn = 0
        self.stage = S_ADD_CARD
        self.decider = self.cf_I

    def _card_points(self, kind: int) -> int:
        if kind < 0:
            return 0
        s = KIND_SUIT[kind]
        return KIND_PIPS[kind] if (s == self.cf_k or s == self.cf_trump2) else 0

    def _conf_reveal(self):
        self.cf_revealed = True
        parts = (self.cf_I, self.cf_D)
        for idx in range(2):
            kind = self.h.add[idx]
            if kind >= 0:
                self.cf_addrev[idx] = kind
                self._pins_seen(parts[idx], kind)
            self.h.add[idx] = -1
            self.cf_total[idx] = self._card_points(self.cf_up[idx]) + self._card_points(self.cf_addrev[idx])
        self.queue = self._owners_in(self.cf_zo * 3 + self.cf_k, D.INFORMANT, self.cf_I, self.cf_I)
        if self.queue:
            self.stage = S_A1
            self.decider = self.queue.pop(0)
        else:
            self._conf_komp(0)

    def _conf_komp(self, idx: int):
        if idx == 0 and self.komp[self.cf_I]:
            self.stage = S_KOMP
            self.decider = self.cf_I
        elif idx <= 1 and self.komp[self.cf_D]:
            self.stage = S_KOMP
            self.decider = self.cf_D
        else:
            self._conf_compare()

    def _conf_compare(self):
        kI, kD = self.cf_kplay
        if kI != kD:
            self._conf_end(0 if kI else 1)
            return
        tI, tD = self.cf_total
        if tI != tD:
            self._conf_end(0 if tI > tD else 1)
        elif self.cf_pledge >= 0:
            self._conf_end(self.cf_pledge)
        elif self.cf_ref >= 0:
            self.stage = S_TIE
            self.decider = self.cf_ref
        else:
            self._conf_end(int(self.rng.integers(2)))  # 2 players: coin [C31]

    def _conf_end(self, winner: int):
        for kind in (self.cf_up[0], self.cf_up[1], self.cf_addrev[0], self.cf_addrev[1]):
            if kind >= 0:
                self.disc_up[kind] += 1  # [C37]
                self._w_disc(kind)
        self.cf_on = False
        kind = self.cf_kind
        ini, Dp, zo, k = self.cf_I, self.cf_D, self.cf_zo, self.cf_k
        self.cf_kind = 0
        self.cf_I = self.cf_D = self.cf_ref = self.cf_zo = self.cf_k = -1
        self.cf_up = [-1, -1]
        self.cf_addrev = [-1, -1]
        self.cf_added = [False, False]
        self.cf_revealed = False
        self.cf_total = [0, 0]
        self.cf_a1 = [0, 0]
        self.cf_kplay = [False, False]
        self.cf_offer = [None, None]
        self.cf_pledge = -1
        self.cf_fix = 0
        self.cf_cands = (-1, -1)
        self.cf_trump2 = -1
        if winner != 0:
            self._end_slot()  # [S, C36]
        elif kind == D_MISSION:
            self._start_res(D_MISSION, ini, zo, k, self.decl_j, ini)
        else:
            self._start_res(D_EXPOSE, Dp, zo, k, self.decl_j, zo)

    # ------------------------------------------------------------ resolution
    def _start_res(self, kind, A, B, k, j, start):
        self.res_on = True
        self.res_kind = kind
        self.res_A, self.res_B, self.res_k, self.res_j = A, B, k, j
        self.res_plan = self.h.plans[A][j]  # revealed (public)
        self.res_level = self.spy_c[A][j]
        self.res_escape = self.res_selfd = False
        self.res_ops = ()
        self.res_i = 0
        self.res_left = 0
        exclude = A if kind == D_MISSION else B
        self.queue = self._owners_in(B * 3 + k, D.ANALYST, start, exclude)
        if self.queue:
            self.stage = S_A4
            self.decider = self.queue.pop(0)
        else:
            self._start_ops()

    def _start_ops(self):
        L = min(max(self.res_level, 0), D.MAX_LEVEL)
        self.res_level = L
        t = KIND_TYPE[self.res_plan]
        if self.res_kind == D_MISSION:
            row = D.MISSION[t][L]
            fb = D.MISSION_FALLBACK[t][L]
            if fb is not None and not self._others_spies_in(self.res_B * 3 + self.res_k, self.res_A):
                row = fb
        else:
            row = D.REACTION[t][L]
        self.res_ops = row
        self.res_i = 0
        self._run_ops()

    def _run_ops(self):
        A, B, k = self.res_A, self.res_B, self.res_k
        ops = self.res_ops
        while self.res_i < len(ops):
            op, amt = ops[self.res_i]
            self.res_i += 1
            if op == D.STEAL or op == D.COUNTER_STEAL:
                m = min(amt, self.zone[B][k])
                self.zone[B][k] -= m
                self.base[A][B] += m
                self._wp(A)
                self._wp(B)
            elif op == D.DESTROY:
                m = min(amt, self.zone[B][k])
                self.zone[B][k] -= m
                self.removed[B] += m
                self._wp(B)
            elif op == D.RAID:
                m = min(amt, sum(self.base[B]))
                if m:
                    self.res_left = m
                    self.stage = S_RAID
                    self.decider = A
                    return
            elif op == D.SNATCH:
                self._card_transfer(B, A, amt)
            elif op == D.FORCE_DISCARD:
                for _ in range(amt):
                    if not self.hsize[B]:
                        break
                    self._discard_revealed(B, self._random_card(B))
            elif op == D.DRAW:
                self._draw(A, amt)
            elif op == D.SEIZE_K:
                if self.komp[B]:
                    self.komp[B] = False
                    if self.komp[A]:
                        self.komp_supply += 1
                    else:
                        self.komp[A] = True
                    self._w_flags()
            elif op == D.PURGE1:
                if self._others_spies_in(B * 3 + k, A):
                    self.stage = S_PURGE
                    self.decider = A
                    return
            elif op == D.PURGE_ALL:
                for w, j in self._others_spies_in(B * 3 + k, A):
                    self._purge(w, j)
            elif op == D.ESCAPE:
                self.res_escape = True
            elif op == D.SELF_DESTRUCT:
                self.res_selfd = True
        self._finish_res()

    def _purge(self, w: int, j: int):
        self.base[self.res_A][w] += self.spy_c[w][j]
        self.disc_up[self.h.plans[w][j]] += 1
        self._w_disc(self.h.plans[w][j])
        self._remove_spy(w, j)
        self._wp(self.res_A)

    def _finish_res(self):
        A, B, j = self.res_A, self.res_B, self.res_j
        c = self.spy_c[A][j]
        if self.res_kind == D_MISSION or self.res_escape:
            self.base[A][A] += c  # [C10] / ESCAPE
        elif self.res_selfd:
            self.removed[A] += c
        else:
            self.base[B][A] += c  # CAPTURE [C09]
        self.disc_up[self.res_plan] += 1
        self._w_disc(self.res_plan)
        self._remove_spy(A, j)
        self._wp(A)
        self._wp(B)
        self.res_on = False
        self.res_kind = 0
        self.res_A = self.res_B = self.res_k = self.res_j = -1
        self.res_plan = -1
        self.res_level = 0
        self.res_ops = ()
        self.res_i = 0
        self.res_left = 0
        self.res_escape = self.res_selfd = False
        self._end_slot()

    # ---------------------------------------------------------------- outcome
    def final_scores(self) -> list[int]:
        return self.vp_final if self.vp_final is not None else [self.vp(p) for p in range(self.n)]

    def outcome(self) -> list[float]:
        n = self.n
        vp = self.final_scores()
        key = [(vp[p], self.foreign(p), -self.penalty(p)) for p in range(n)]  # [C28]
        mode = self.config["reward"]
        if mode == "raw":
            return [float(v) for v in vp]
        if mode == "relative":
            tot = sum(vp)
            return [vp[p] - (tot - vp[p]) / (n - 1) for p in range(n)]
        if mode == "rank":
            vals = [1.0 - 2.0 * i / (n - 1) for i in range(n)]
            order = sorted(range(n), key=lambda p: key[p], reverse=True)
            out = [0.0] * n
            i = 0
            while i < n:
                jj = i
                while jj + 1 < n and key[order[jj + 1]] == key[order[i]]:
                    jj += 1
                v = sum(vals[i:jj + 1]) / (jj - i + 1)
                for q in order[i:jj + 1]:
                    out[q] = v
                i = jj + 1
            return out
        best = max(key)
        winners = [p for p in range(n) if key[p] == best]
        if len(winners) == 1:
            return [1.0 if p == winners[0] else -1.0 for p in range(n)]
        return [0.0 if p in winners else -1.0 for p in range(n)]

    def payoff(self) -> Payoff:
        n, mode = self.n, self.config["reward"]
        if mode == "rank":  # the rank values are symmetric around 0, ties share them
            return Payoff(True, -1.0, 1.0)
        if mode == "win_loss":  # one winner +1, the rest -1; a shared win pays 0
            return Payoff(n == 2, -1.0, 1.0)
        # VP: own cases count 1, foreign cases 3 (every opponent's whole colour at
        # most), minus at most the worst penalty in each of the 3 zones
        worst_penalty = max(max(row) for row in D.PENALTY.values())
        vp_max = D.CASES_PER_COLOUR + 3 * D.CASES_PER_COLOUR * (n - 1)
        vp_min = -D.ZONES * worst_penalty
        if mode == "relative":  # VP minus the others' mean VP: sums to 0
            return Payoff(True, float(vp_min - vp_max), float(vp_max - vp_min))
        return Payoff(False, float(min(vp_min, 0)), float(vp_max))
