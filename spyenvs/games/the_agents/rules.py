"""The Agents: game state, legality and transitions (rules file sections 3-8).

State is plain Python ints and lists. Cards carry ids (agent id = type*2 + copy,
mission id = type*2 + copy). Public zones: factions (cards are ``(id, cmd_to)``, with
``cmd_to == -1`` for a dead card), attached missions, retired piles, the transit
stack and the resolution stack. Hidden zones: hands and decks. Per viewer we keep a
tag per card id (``KNOWN`` or the id of an exchangeable pool), from which the pins
K_v(q) (6, C49) and the fast sampler are derived. Every card movement and private view
also appends a compact record to a card-event log (``CardLog``, shared by clones, copy on
write; never part of the observation), which ``belief`` folds into each viewer's exact
knowledge for ``resample_hidden`` (6.1).

The resolution stack (4.8, C44) holds frames (lists, first element the kind):

* ``[CTX, actor, counter, bonus, ops]``: an action context (top level or a Mercenary
  bonus context); ``ops`` counts free mission operations in the current window (C48).
* ``[BUILD, decision, actor, step, card, faction, orient, partner, mission]``: an
  action or free mission operation being chosen (8.2-8.6).
* ``[CMD, decision, executor, ctype, faction, pos, chain, first, target]``: a command
  waiting for its executor's choice (8.7); ``chain`` is a bitset of board slots (C22).
* ``[FIN, card, recipient]``: a Free Agent's steps (2) and (3) (4.3).
* ``[END, player, ops]``: the END WINDOW (8.9). ``[MHG, player, k]``: reveals (8.10).

Termination of a turn (4.1, 4.8): free mission operations cost no action, so ATTACH /
RECALL could loop forever; C48 caps them at ``MAX_FREE_OPS`` = 8 per window (before each
of the two top-level actions, and the END WINDOW), at most 24 in a turn. Every other
STEP spends an action, except the Mercenary, whose plays are bounded by its two copies
per pass through the retired pile; ``max_decisions_per_turn`` (C38) is the safety net.
"""

from __future__ import annotations

import itertools


from . import data as D

KNOWN = -1

#: globally unique version stamps for the observation caches: ``bv`` changes with the
#: factions' cards, ``av`` with attached missions, ``cv`` with agent cards in hands and
#: piles, agent knowledge tags and IP, ``mv`` with mission cards in hands and piles and
#: mission knowledge tags
VERSIONS = itertools.count(1)


def reserve_versions_above(stamp: int) -> None:
    """Make every later stamp larger than ``stamp``: a state unpickled from another
    process carries that process's stamps, which this process's counter could
    otherwise hand out again for different content (a stale cached observation)."""
    global VERSIONS
    VERSIONS = itertools.count(max(next(VERSIONS), stamp + 1))

# action space (rules file 8, "Suggested flat Discrete action space")
A_DONE = 0
A_STEP = 1
A_AGENT = 13
A_MISSION = 31
A_FSLOT = 41
A_GAP = 43
A_ORI = 50
A_SEAT = 52
A_BOARD = 56
A_MSLOT = 91
A_RANDOM = 111
A_COUNT = 112
NUM_ACTIONS = 115

(S_ATTACH, S_RECALL, S_MOVE, S_PFA, S_PFR, S_REACT, S_BUY_AD, S_BUY_AR, S_BUY_MD, S_BUY_MR,
 S_SWAPM, S_EMERG) = range(12)
STEP_NAMES = ("ATTACH", "RECALL", "MOVE", "PLAY_FACTION_AGENT", "PLAY_FREE_AGENT", "REACTIVATE",
              "BUY_AGENT_DECK", "BUY_AGENT_RETIRED", "BUY_MISSION_DECK", "BUY_MISSION_RETIRED",
              "SWAP_MISSION", "EMERGENCY_DRAW")

DECISIONS = ("step", "attach_mission", "attach_faction", "recall_slot", "move_slot",
             "faction_card", "faction_slot", "faction_orientation", "faction_gap",
             "free_card", "free_partner", "free_orientation", "reactivate_source",
             "swap_mission_choice", "command_target", "decoy_first", "decoy_second",
             "activist_first", "activist_second", "medic_target", "medic_orientation",
             "infiltrator_neighbour", "jack_command", "strategist_mission", "tracker_card",
             "interrogator_seat", "interrogator_card", "end_window", "moral_high_ground")
(D_STEP, D_ATT_M, D_ATT_F, D_RECALL, D_MOVE, D_PFA_CARD, D_PFA_FAC, D_PFA_ORI, D_PFA_GAP,
 D_PFR_CARD, D_PFR_PARTNER, D_PFR_ORI, D_REACT, D_SWAPM, D_TARGET, D_DECOY1, D_DECOY2,
 D_ACT1, D_ACT2, D_MEDIC_T, D_MEDIC_ORI, D_INFIL, D_JACK, D_STRAT, D_TRACK, D_INT_SEAT,
 D_INT_CARD, D_END, D_MHG) = range(len(DECISIONS))

CTX, BUILD, CMD, FIN, END, MHG = range(6)

MAX_FREE_OPS = 8  # C48
FA = D.IS_FACTION
FREE_TYPES = D.FREE_TYPES
TARGET_CMDS = (D.MARKSMAN, D.ASSASSIN, D.ABDUCTOR, D.EXTRACTOR, D.HACKER, D.TEMPTRESS,
               D.GUNNER, D.UNDERCOVER)
FIRST_DECISION = {t: D_TARGET for t in TARGET_CMDS}
FIRST_DECISION.update({D.DECOY: D_DECOY1, D.ACTIVIST: D_ACT1, D.MEDIC: D_MEDIC_T,
                       D.INFILTRATOR: D_INFIL, D.JACK: D_JACK, D.STRATEGIST: D_STRAT,
                       D.TRACKER: D_TRACK, D.INTERROGATOR: D_INT_SEAT})


def bit(f, pos):
    return 1 << (f * 7 + pos)


# card-event log (read by ``belief``): one compact record per card movement or view,
# holding the truth; a viewer's fold reads only the parts that viewer saw
(EV_DRAW, EV_RESHUFFLE, EV_ENTER, EV_EXIT, EV_REVEAL, EV_SEARCH, EV_PICK, EV_VIEW,
 EV_TRANSFER) = range(9)
#: card classes in log records
CLS_A, CLS_M = 0, 1


class CardLog:
    """The card events since a base state, shared by clones (copy on write: a state
    owns ``records[:clog_n]``; appending to a list another state extended forks it).

    ``base`` per class: (hands, deck, tags) as tuples at the log's start; ``folds``
    caches viewers' folded beliefs by (viewer, class) and is never pickled."""

    __slots__ = ("base", "records", "folds")

    def __init__(self, base, records=None):
        self.base = base
        self.records = [] if records is None else records
        self.folds = {}

    def __getstate__(self):
        return (self.base, self.records)

    def __setstate__(self, state):
        self.base, self.records = state
        self.folds = {}

    def fork(self, n):
        new = CardLog(self.base, self.records[:n])
        for key, entries in self.folds.items():
            keep = [e for e in entries if e[0] <= n]
            if keep:
                new.folds[key] = keep
        return new


class TheAgentsRules:
    """Mixin with the whole rules engine; :class:`~.game.TheAgentsGame` adds the
    Game contract around it. Static tables come from ``_setup_tables``."""

    def __setstate__(self, d):
        self.__dict__.update(d)
        reserve_versions_above(max(d.get(k, 0) for k in ("bv", "cv", "av", "mv")))

    # ------------------------------------------------------------ static tables
    def _setup_tables(self):
        cfg = self.config
        n = cfg["num_players"]
        self.N = n
        self.nf = n
        self.cap = 7 if n == 2 else 5
        if n == 2:
            self.members = ((0, 1), (0, 1))
            self.own = ((0, 1), (0, 1))
        else:
            self.members = tuple((i, (i + 1) % n) for i in range(n))
            self.own = tuple((i, (i - 1) % n) for i in range(n))
        # other_fac[p][f] for f one of p's factions; -1 otherwise
        self.other_fac = [[-1] * self.nf for _ in range(n)]
        for p in range(n):
            a, b = self.own[p]
            self.other_fac[p][a] = b
            self.other_fac[p][b] = a
        # member index (0 first, 1 second) of p in f, or -1
        self.mindex = [[(self.members[f].index(p) if p in self.members[f] else -1)
                        for f in range(self.nf)] for p in range(n)]
        self.n_mtypes = 10 if cfg["moral_high_ground"] else 9
        self.n_missions = self.n_mtypes * D.MISSION_COPIES
        self.n_agents = D.NUM_AGENT_TYPES * D.AGENT_COPIES
        self.immediate = cfg["end_rule"] == "immediate"

    # ----------------------------------------------------------------- new game
    def _deal(self):
        n = self.N
        rng = self.rng
        self.deck_a = [int(x) for x in rng.permutation(self.n_agents)]
        self.deck_m = [int(x) for x in rng.permutation(self.n_missions)]
        self.ret_a = []
        self.ret_m = []
        self.hand_a = [[] for _ in range(n)]
        self.hand_m = [[] for _ in range(n)]
        self.cnt_a = [[0] * D.NUM_AGENT_TYPES for _ in range(n)]
        self.na = [0] * n
        self.cnt_m = [[0] * 10 for _ in range(n)]
        self.fac = [[] for _ in range(self.nf)]
        self.att = [[[], []] for _ in range(self.nf)]
        self.ip = [D.START_IP] * n
        self.transit = []  # [card id, recipient]
        self.tag_a = [[0] * self.n_agents for _ in range(n)]
        self.tag_m = [[0] * self.n_missions for _ in range(n)]
        self.next_pool = 1
        self._start_log()
        self.bv = next(VERSIONS)
        self.cv = next(VERSIONS)
        self.av = next(VERSIONS)
        self.mv = next(VERSIONS)
        if self.config["start_player"] == "random":
            self.start = int(rng.integers(n))
        else:
            self.start = 0
        order = [(self.start + i) % n for i in range(n)]
        for _ in range(D.START_AGENTS):
            for p in order:
                self._draw_a(p)
        for _ in range(D.START_MISSIONS):
            for p in order:
                self._draw_m(p)
        self.active = self.start
        self.turns = 0
        self.turn_decisions = 0
        self.barred = 0
        self.mhg_revealed = 0
        self.reached = []  # seats in the order they first reached WIN_IP
        self.over = False
        self.truncated = False
        self.winners = []
        self.stack = [[CTX, self.active, 2, False, 0]]
        self.decision = D_STEP
        self.decider = self.active
        self.legal = []
        self._advance()

    # ------------------------------------------------------------ card-event log
    def _start_log(self):
        """Make the current card layout and knowledge tags the base of a fresh card-event
        log (game setup; a test that lays out a position calls it after doing so). The
        base must be exact: every viewer's tags are its whole knowledge there."""
        self.clog = CardLog((
            (tuple(tuple(h) for h in self.hand_a), tuple(self.deck_a), tuple(tuple(t) for t in self.tag_a)),
            (tuple(tuple(h) for h in self.hand_m), tuple(self.deck_m), tuple(tuple(t) for t in self.tag_m)),
        ))
        self.clog_n = 0
        self.clog_for = None  # None: the log describes this state for every viewer

    def _log(self, rec):
        lg = self.clog
        n = self.clog_n
        if len(lg.records) != n:  # a clone extended the shared list: fork it
            lg = self.clog = lg.fork(n)
        lg.records.append(rec)
        self.clog_n = n + 1

    @staticmethod
    def _type_counts(cards, width):
        out = [0] * width
        for c in cards:
            out[c >> 1] += 1
        return tuple(out)

    # ------------------------------------------------------------ card movement
    def _refill(self):
        """4.7 (C16): an empty draw deck takes its shuffled retired pile at once."""
        if not self.deck_a and self.ret_a:
            self.cv = next(VERSIONS)
            deck = self.ret_a
            self.ret_a = []
            perm = self.rng.permutation(len(deck))
            self.deck_a = [deck[i] for i in perm]
            self._log((EV_RESHUFFLE, CLS_A, self._type_counts(deck, D.NUM_AGENT_TYPES)))
            pool = self.next_pool
            self.next_pool += 1
            for tags in self.tag_a:
                for c in self.deck_a:
                    tags[c] = pool
        if not self.deck_m and self.ret_m:
            self.mv = next(VERSIONS)
            deck = self.ret_m
            self.ret_m = []
            perm = self.rng.permutation(len(deck))
            self.deck_m = [deck[i] for i in perm]
            self._log((EV_RESHUFFLE, CLS_M, self._type_counts(deck, 10)))
            pool = self.next_pool
            self.next_pool += 1
            for tags in self.tag_m:
                for c in self.deck_m:
                    tags[c] = pool

    def _add_a(self, q, c, public):
        self.cv = next(VERSIONS)
        self.hand_a[q].append(c)
        self.cnt_a[q][c >> 1] += 1
        self.na[q] += 1
        if public:
            self._log((EV_ENTER, CLS_A, q, c >> 1))
            for tags in self.tag_a:
                tags[c] = KNOWN
        else:
            self.tag_a[q][c] = KNOWN

    def _add_m(self, q, c, public):
        self.mv = next(VERSIONS)
        self.hand_m[q].append(c)
        self.cnt_m[q][c >> 1] += 1
        if public:
            self._log((EV_ENTER, CLS_M, q, c >> 1))
            for tags in self.tag_m:
                tags[c] = KNOWN
        else:
            self.tag_m[q][c] = KNOWN

    @staticmethod
    def _take_public(hand, cnt, tag_lists, q, t):
        """Remove one card of type t from a hand publicly; pinned copies leave first
        for every viewer (C49 rule 2). Returns the card id."""
        ids = [c for c in hand if c >> 1 == t]
        x = ids[0]
        if len(ids) > 1:
            for v, tags in enumerate(tag_lists):
                if v != q:
                    for y in ids[1:]:
                        if tags[x] != KNOWN and tags[y] == KNOWN:
                            tags[x], tags[y] = tags[y], tags[x]
                            break
        hand.remove(x)
        cnt[t] -= 1
        for tags in tag_lists:
            tags[x] = KNOWN
        return x

    def _take_a(self, q, t):
        self.cv = next(VERSIONS)
        self._log((EV_EXIT, CLS_A, q, t))
        self.na[q] -= 1
        return self._take_public(self.hand_a[q], self.cnt_a[q], self.tag_a, q, t)

    def _take_m(self, q, t):
        self.mv = next(VERSIONS)
        self._log((EV_EXIT, CLS_M, q, t))
        return self._take_public(self.hand_m[q], self.cnt_m[q], self.tag_m, q, t)

    def _draw_a(self, q):
        c = self.deck_a.pop()
        self._log((EV_DRAW, CLS_A, q, c))
        self._add_a(q, c, False)
        self._refill()

    def _draw_m(self, q):
        c = self.deck_m.pop()
        self._log((EV_DRAW, CLS_M, q, c))
        self._add_m(q, c, False)
        self._refill()

    def _private_transfer(self, tag_lists, hand_from, c, E, T):
        """Third-party pin bookkeeping for an unseen hand-to-hand move (C49 4/5):
        viewers other than E and T lose their pins on T's hand of that class; when
        the source cards are not one exchangeable pool for them, the cards involved
        become a pool of their own (sound, see the report)."""
        self.cv = self.mv = next(VERSIONS)
        for v, tags in enumerate(tag_lists):
            if v == E or v == T:
                continue
            pools = {tags[x] for x in hand_from}
            pools.add(tags[c])
            if len(pools) == 1 and KNOWN not in pools:
                continue
            pool = self.next_pool
            self.next_pool += 1
            for x in hand_from:
                tags[x] = pool
            tags[c] = pool

    def _mission_returns(self, f):
        """4.6: a faction that empties sends every attached mission home (public)."""
        self.av = next(VERSIONS)
        for m in (0, 1):
            owner = self.members[f][m]
            for c in self.att[f][m]:
                self._add_m(owner, c, True)
            self.att[f][m] = []

    # ------------------------------------------------------------------ helpers
    def _owns_mission(self, p):
        if self.hand_m[p]:
            return True
        for f in self.own[p]:
            if self.att[f][self.mindex[p][f]]:
                return True
        return False

    def _any_alive(self):
        for row in self.fac:
            for c in row:
                if c[1] >= 0:
                    return True
        return False

    def _attach_ok(self, p, mt, f):
        if not self.fac[f]:
            return False
        lst = self.att[f][self.mindex[p][f]]
        if len(lst) >= 2:
            return False
        for c in lst:
            if c >> 1 == mt:
                return False
        return True

    def _has_action(self, p):
        """4.3: whether p has any legal action (not counting mission operations)."""
        ip = self.ip[p]
        if ip >= 1 and self.deck_a:
            return True
        if ip >= 3 and self.deck_m:
            return True
        if self.deck_m and self._owns_mission(p):
            return True
        na = self.na[p]
        if na == 0:
            return (ip == 0 and bool(self.deck_a)) or bool(self._react_options(p, True))
        cnt = self.cnt_a[p]
        own = self.own[p]
        cap = self.cap
        if len(self.fac[own[0]]) < cap or len(self.fac[own[1]]) < cap:
            for t in D.FACTION_TYPES:
                if cnt[t]:
                    return True
        if self._react_options(p, True):
            return True
        for t in FREE_TYPES:
            if cnt[t] and self._free_options(p, t, True):
                return True
        return False

    def _step_actions(self, p):
        """Legal action types (8.1) for actor p, as step indices 3..11."""
        out = []
        ip = self.ip[p]
        cnt = self.cnt_a[p]
        na = self.na[p]
        own = self.own[p]
        cap = self.cap
        if na:
            if len(self.fac[own[0]]) < cap or len(self.fac[own[1]]) < cap:
                for t in D.FACTION_TYPES:
                    if cnt[t]:
                        out.append(S_PFA)
                        break
            for t in FREE_TYPES:
                if cnt[t] and self._free_options(p, t, True):
                    out.append(S_PFR)
                    break
        if self._react_options(p, True):
            out.append(S_REACT)
        if self.deck_a:
            if ip >= 1:
                out.append(S_BUY_AD)
            if ip >= 2 and self.ret_a:
                out.append(S_BUY_AR)
        if self.deck_m:
            if ip >= 3:
                out.append(S_BUY_MD)
            if ip >= 4 and self.ret_m:
                out.append(S_BUY_MR)
            if self._owns_mission(p):
                out.append(S_SWAPM)
        if na == 0 and ip == 0 and self.deck_a:
            out.append(S_EMERG)
        return out

    def _mission_ops(self, p):
        """Free mission operations open to p (ATTACH, RECALL, MOVE), with
        ``_attach_ok`` inlined (this runs at most decisions): a mission type fits
        one of p's factions when it has cards and p has fewer than two missions
        there, none of that type."""
        fa, fb = self.own[p]
        mi = self.mindex[p]
        la = self.att[fa][mi[fa]]
        lb = self.att[fb][mi[fb]]
        # the type p's mission on the faction blocks (-1: none); None: nothing fits
        xa = (la[0] >> 1 if la else -1) if len(la) < 2 and self.fac[fa] else None
        xb = (lb[0] >> 1 if lb else -1) if len(lb) < 2 and self.fac[fb] else None
        out = []
        if xa is not None or xb is not None:
            for c in self.hand_m[p]:
                t = c >> 1
                if (xa is not None and t != xa) or (xb is not None and t != xb):
                    out.append(S_ATTACH)
                    break
        if la or lb:
            out.append(S_RECALL)
            # MOVE: one of p's missions on one faction fits p's other faction
            if ((xb is not None and any(c >> 1 != xb for c in la))
                    or (xa is not None and any(c >> 1 != xa for c in lb))):
                out.append(S_MOVE)
        return out

    def _recall_slots(self, p):
        out = []
        for f in self.own[p]:
            m = self.mindex[p][f]
            for s in range(len(self.att[f][m])):
                out.append(f * 4 + m * 2 + s)
        return out

    def _move_slots(self, p):
        out = []
        for f in self.own[p]:
            m = self.mindex[p][f]
            g = self.other_fac[p][f]
            for s, c in enumerate(self.att[f][m]):
                if self._attach_ok(p, c >> 1, g):
                    out.append(f * 4 + m * 2 + s)
        return out

    # ------------------------------------------------------------ executability
    def _can_exec(self, t, E, f, pos, chain):
        """4.5: executability of faction command t at (f, pos) for executor E."""
        row = self.fac[f]
        if t == D.MARKSMAN or t == D.HACKER:
            for c in self.fac[self.other_fac[E][f]]:
                if c[1] >= 0:
                    return True
            return False
        if t == D.ASSASSIN or t == D.TEMPTRESS:
            for i, c in enumerate(row):
                if c[1] >= 0 and (i - pos >= 2 or pos - i >= 2):
                    return True
            return False
        if t == D.ABDUCTOR:
            return bool(self.fac[self.other_fac[E][f]])
        if t == D.EXTRACTOR:
            return pos >= 2 or len(row) - 1 - pos >= 2
        if t == D.DECOY:
            return (pos >= 2 or len(row) - 1 - pos >= 2) and bool(self.fac[self.other_fac[E][f]])
        if t == D.ACTIVIST:
            return len(self.fac[self.other_fac[E][f]]) >= 2
        if t == D.MEDIC:
            for g in self.own[E]:
                for c in self.fac[g]:
                    if c[1] < 0:
                        return True
            return False
        if t == D.INFILTRATOR:
            return bool(self._infil_options(E, f, pos, chain, True))
        if t == D.JACK:
            return bool(self._jack_options(E, f, pos, chain, True))
        raise AssertionError(f"not a faction command: {t}")

    def _infil_options(self, E, f, pos, chain, first=False):
        out = []
        row = self.fac[f]
        chain |= bit(f, pos)
        for n in (pos - 1, pos + 1):
            if 0 <= n < len(row):
                c = row[n]
                b = bit(f, n)
                if c[1] >= 0 and not chain & b and self._can_exec(c[0] >> 1, E, f, n, chain | b):
                    out.append(f * 7 + n)
                    if first:
                        return out
        return out

    def _jack_options(self, E, f, pos, chain, first=False):
        out = []
        m = self.members[f]
        opp = m[1] if m[0] == E else m[0]
        chain |= bit(f, pos)
        for i, c in enumerate(self.fac[f]):
            b = bit(f, i)
            if i != pos and c[1] == opp and not chain & b and self._can_exec(c[0] >> 1, E, f, i, chain | b):
                out.append(f * 7 + i)
                if first:
                    return out
        return out

    def _react_options(self, p, first=False):
        out = []
        for f in self.own[p]:
            for i, c in enumerate(self.fac[f]):
                if c[1] == p and self._can_exec(c[0] >> 1, p, f, i, bit(f, i)):
                    out.append(f * 7 + i)
                    if first:
                        return out
        return out

    def _free_exec(self, t, E, T):
        """4.5 executability of Free Agent t (already in transit) for executor E,
        with T the IP recipient."""
        if t == D.GUNNER or t == D.UNDERCOVER:
            return self._any_alive()
        if t == D.RECRUITER or t == D.TRACKER:
            return bool(self.deck_a)
        if t == D.STRATEGIST:
            return self._owns_mission(T)
        if t == D.MERCENARY:
            return not (self.barred >> E) & 1 and self._has_action(E)
        if t == D.INTERROGATOR:
            for q in range(self.N):
                if q != E and self.na[q]:
                    return True
            return False
        raise AssertionError(t)

    def _free_options(self, p, t, first=False, in_transit=False):
        """(partner, orientation) pairs that make Free Agent t executable for actor
        p; tested with the card out of p's hand (C46)."""
        if not in_transit:
            self.cnt_a[p][t] -= 1
            self.na[p] -= 1
        out = []
        try:
            for k in range(1, self.N):
                q = (p + k) % self.N
                for o in (0, 1):
                    E, T = (p, q) if o == 0 else (q, p)
                    if self._free_exec(t, E, T):
                        out.append((q, o))
                        if first:
                            return out
        finally:
            if not in_transit:
                self.cnt_a[p][t] += 1
                self.na[p] += 1
        return out

    # --------------------------------------------------------- command options
    def _cmd_targets(self, t, E, f, pos):
        """Single-target commands (8.7.1-3, 8.7.9): board slots."""
        if t == D.MARKSMAN or t == D.HACKER:
            g = self.other_fac[E][f]
            return [g * 7 + i for i, c in enumerate(self.fac[g]) if c[1] >= 0]
        if t == D.ABDUCTOR:
            g = self.other_fac[E][f]
            return [g * 7 + i for i in range(len(self.fac[g]))]
        if t == D.ASSASSIN or t == D.TEMPTRESS:
            return [f * 7 + i for i, c in enumerate(self.fac[f]) if c[1] >= 0 and abs(i - pos) >= 2]
        if t == D.EXTRACTOR or t == D.DECOY:
            return [f * 7 + i for i in range(len(self.fac[f])) if abs(i - pos) >= 2]
        if t == D.GUNNER or t == D.UNDERCOVER:
            return [g * 7 + i for g, row in enumerate(self.fac) for i, c in enumerate(row) if c[1] >= 0]
        raise AssertionError(t)

    # ------------------------------------------------------------ primitives
    def _kill(self, s):
        self.bv = next(VERSIONS)
        f, i = divmod(s, 7)
        self.fac[f][i] = (self.fac[f][i][0], -1)

    def _turn(self, s):
        self.bv = next(VERSIONS)
        f, i = divmod(s, 7)
        c = self.fac[f][i]
        a, b = self.members[f]
        self.fac[f][i] = (c[0], b if c[1] == a else a)

    def _remove(self, s, E):
        self.bv = next(VERSIONS)
        f, i = divmod(s, 7)
        c = self.fac[f].pop(i)
        self._add_a(E, c[0], True)
        if not self.fac[f]:
            self._mission_returns(f)

    def _swap_cross(self, s1, s2, E):
        """4.6 Decoy swap (C25): orientation kept relative to E."""
        self.bv = next(VERSIONS)
        f1, i1 = divmod(s1, 7)
        f2, i2 = divmod(s2, 7)
        c1 = self.fac[f1][i1]
        c2 = self.fac[f2][i2]
        self.fac[f2][i2] = (c1[0], self._reorient(c1[1], E, f2))
        self.fac[f1][i1] = (c2[0], self._reorient(c2[1], E, f1))

    def _reorient(self, to, E, f):
        if to < 0 or to == E:
            return to
        a, b = self.members[f]
        return b if a == E else a

    # ------------------------------------------------------------ win and turns
    def _gain(self, q, amount):
        if amount <= 0:
            return
        self.cv = next(VERSIONS)
        self.ip[q] += amount
        if self.ip[q] >= D.WIN_IP:
            if q not in self.reached:
                self.reached.append(q)
            if self.immediate:
                self._finish([q])

    def _finish(self, winners, truncated=False):
        self.over = True
        self.truncated = truncated
        self.winners = winners
        self.stack = []
        self.legal = []

    def arrows(self, f):
        """5.1: (points to first member, to second, mixed to first, mixed to second)."""
        row = self.fac[f]
        a, b = self.members[f]
        pa = pb = ma = mb = 0
        HL, HR = D.HALF_L, D.HALF_R
        for j in range(len(row) - 1):
            c1 = row[j]
            c2 = row[j + 1]
            if c1[1] < 0 or c2[1] < 0 or c1[1] != c2[1]:
                continue
            t1 = c1[0] >> 1
            t2 = c2[0] >> 1
            # data faces the member the command does not face
            if c1[1] == b:  # data to a
                same = HR[t1] == HL[t2]
                pa += 2 if same else 1
                ma += 0 if same else 1
            else:
                same = HL[t1] == HR[t2]
                pb += 2 if same else 1
                mb += 0 if same else 1
        return pa, pb, ma, mb

    def arrow_points(self, x, f):
        r = self.arrows(f)
        return r[self.mindex[x][f]]

    def mission_points(self, o, f, mt, arrows):
        """5.3 for owner o, mission type mt attached to f; arrows: per-faction cache."""
        row = self.fac[f]
        g = self.other_fac[o][f]
        mo = self.mindex[o][f]
        if mt == D.BLOODBATH:
            for j in range(len(row) - 1):
                if row[j][1] < 0 and row[j + 1][1] < 0:
                    return 3
            return 0
        if mt == D.CHOSEN_FEW:
            return 1 if len(row) < len(self.fac[g]) else 0
        if mt == D.CODE_BREAKER:
            return arrows[f][2 + mo] + arrows[g][2 + self.mindex[o][g]]
        if mt == D.CODE_OF_HONOR:
            return sum(1 for c in row if c[1] == o)
        if mt == D.MAN_DOWN:
            return sum(1 for c in row if c[1] < 0)
        if mt == D.MEET_YOUR_MATCH:
            return 2 if arrows[f][mo] == arrows[f][1 - mo] else 0
        if mt == D.POOR_MANS_GAME:
            return 3 if arrows[f][mo] == 0 and arrows[g][self.mindex[o][g]] == 0 else 0
        if mt == D.REINFORCEMENTS:
            seen = set()
            for c in row:
                if c[1] == o:
                    t = c[0] >> 1
                    key = (D.VERB[t], D.GROUP[t])
                    if key in seen:
                        return 4
                    seen.add(key)
            return 0
        if mt == D.STAND_UNITED:
            for j in range(len(row) - 1):
                c1, c2 = row[j], row[j + 1]
                if c1[1] >= 0 and c2[1] >= 0 and c1[0] >> 1 == c2[0] >> 1:
                    return 4
            return 0
        if mt == D.MORAL_HIGH_GROUND:
            return self.mhg_revealed
        raise AssertionError(mt)

    def turn_score(self, p):
        """5.2: arrow points in p's two factions plus p's satisfied missions."""
        arrows = {f: self.arrows(f) for f in set(self.own[p])}
        total = 0
        for f in self.own[p]:
            total += arrows[f][self.mindex[p][f]]
        for f in self.own[p]:
            for c in self.att[f][self.mindex[p][f]]:
                total += self.mission_points(p, f, c >> 1, arrows)
        return total

    def _has_mhg(self, p):
        if not self.config["moral_high_ground"]:
            return False
        for f in self.own[p]:
            for c in self.att[f][self.mindex[p][f]]:
                if c >> 1 == D.MORAL_HIGH_GROUND:
                    return True
        return False

    def _end_turn(self, p):
        self._gain(p, self.turn_score(p))
        if self.over:
            return
        n = self.N
        if not self.immediate and self.reached and p == (self.start - 1) % n:
            best = max(self.ip)
            tied = [q for q in range(n) if self.ip[q] == best]
            early = [q for q in self.reached if q in tied]
            self._finish([early[0]] if early else tied)
            return
        self.turns += 1
        mt = self.config["max_turns"]
        if mt is not None and self.turns >= mt:
            self._finish([], truncated=True)
            return
        self.active = (p + 1) % n
        self.turn_decisions = 0
        self.barred = 0
        self.mhg_revealed = 0
        self.stack.append([CTX, self.active, 2, False, 0])

    # ---------------------------------------------------------------- commands
    def _start_cmd(self, t, E, f, pos, chain, T=-1):
        if t == D.RECRUITER:
            for _ in range(2):
                if self.deck_a:
                    self._draw_a(E)
            return
        if t == D.MERCENARY:
            self.stack.append([CTX, E, 1, True, 0])
            return
        if t == D.TRACKER:
            # E looks through the deck: its content becomes an exact pool for E
            self.cv = next(VERSIONS)
            self._log((EV_SEARCH, E, self._type_counts(self.deck_a, D.NUM_AGENT_TYPES)))
            pool = self.next_pool
            self.next_pool += 1
            tags = self.tag_a[E]
            for c in self.deck_a:
                tags[c] = pool
        self.stack.append([CMD, FIRST_DECISION[t], E, t, f, pos, chain, -1, T])

    def _play_faction(self, fr):
        self.bv = next(VERSIONS)
        p, c, f, o, g = fr[2], fr[4], fr[5], fr[6], fr[7]
        a, b = self.members[f]
        other = b if a == p else a
        E = p if o == 0 else other
        self.fac[f].insert(g, (c, E))
        t = c >> 1
        if self._can_exec(t, E, f, g, bit(f, g)):
            self._start_cmd(t, E, f, g, bit(f, g))

    def _finish_free(self, fr):
        c, q = fr[1], fr[2]
        self._gain(q, D.FREE_IP[c >> 1])
        if self.over:
            return
        self.cv = next(VERSIONS)
        entry = self.transit.pop()
        assert entry[0] == c
        self.ret_a.append(c)
        self._refill()

    def _bar(self, p):
        """C45: EMERGENCY_DRAW ends every open context of its actor."""
        self.barred |= 1 << p
        for fr in self.stack:
            if fr[0] == CTX and fr[1] == p:
                fr[2] = 0

    # ---------------------------------------------------------------- advance
    def _advance(self):
        """Resolve automatic steps until a decision is pending (4.1, 4.8)."""
        stack = self.stack
        while not self.over:
            fr = stack[-1]
            k = fr[0]
            if k == CTX:
                actor = fr[1]
                if fr[2] > 0 and not (self.barred >> actor) & 1:
                    legal = self._step_legal(fr)
                    if legal:
                        self.decision = D_STEP
                        self.decider = actor
                        self.legal = legal
                        return
                    fr[2] = 0  # C18: forfeit
                stack.pop()
                if not fr[3]:
                    stack.append([END, actor, 0])
                continue
            if k == FIN:
                stack.pop()
                self._finish_free(fr)
                continue
            if k == END:
                self.decision = D_END
                self.decider = fr[1]
                self.legal = self._end_legal(fr)
                return
            if k == MHG:
                if fr[2] < len(D.MHG_ELIGIBLE):
                    self.decision = D_MHG
                    self.decider = fr[1]
                    self.legal = self._mhg_legal(fr)
                    return
                stack.pop()
                self._end_turn(fr[1])
                continue
            # BUILD or CMD: a decision of its own
            self.decision = fr[1]
            self.decider = fr[2]
            self.legal = self._options(fr)
            return

    def _step_legal(self, fr):
        """STEP options (8.1); empty when the actor has no legal action (C18)."""
        acts = self._step_actions(fr[1])
        if not acts:
            return []
        if not fr[3] and fr[4] < MAX_FREE_OPS:
            acts = self._mission_ops(fr[1]) + acts
        return [A_STEP + s for s in acts]

    def _end_legal(self, fr):
        legal = [A_DONE]
        if fr[2] < MAX_FREE_OPS:
            legal += [A_STEP + s for s in self._mission_ops(fr[1])]
        return legal

    def _mhg_legal(self, fr):
        held = self.cnt_a[fr[1]][D.MHG_ELIGIBLE[fr[2]]]
        return [A_COUNT + i for i in range(min(held, 2) + 1)]

    def _legal_now(self):
        """Options of the pending decision, recomputed without advancing."""
        if self.over:
            return []
        fr = self.stack[-1]
        k = fr[0]
        if k == CTX:
            return self._step_legal(fr)
        if k == END:
            return self._end_legal(fr)
        if k == MHG:
            return self._mhg_legal(fr)
        return self._options(fr)

    def _options(self, fr):
        d = fr[1]
        p = fr[2]
        if fr[0] == BUILD:
            if d == D_ATT_M:
                own = self.own[p]
                return [A_MISSION + mt for mt in range(self.n_mtypes) if self.cnt_m[p][mt]
                        and (self._attach_ok(p, mt, own[0]) or self._attach_ok(p, mt, own[1]))]
            if d == D_ATT_F:
                mt = fr[8] >> 1
                return [A_FSLOT + k for k, f in enumerate(self._own_slots(p)) if self._attach_ok(p, mt, f)]
            if d == D_RECALL:
                return [A_MSLOT + s for s in self._recall_slots(p)]
            if d == D_MOVE:
                return [A_MSLOT + s for s in self._move_slots(p)]
            if d == D_PFA_CARD:
                return [A_AGENT + t for t in D.FACTION_TYPES if self.cnt_a[p][t]]
            if d == D_PFA_FAC:
                return [A_FSLOT + k for k, f in enumerate(self._own_slots(p)) if len(self.fac[f]) < self.cap]
            if d == D_PFA_ORI:
                return [A_ORI, A_ORI + 1]
            if d == D_PFA_GAP:
                n = len(self.fac[fr[5]])
                if fr[4] >> 1 == D.INFILTRATOR:
                    return [A_GAP + g for g in range(n + 1)]
                return [A_GAP] if n == 0 else [A_GAP, A_GAP + n]
            if d == D_PFR_CARD:
                return [A_AGENT + t for t in FREE_TYPES if self.cnt_a[p][t] and self._free_options(p, t, True)]
            if d == D_PFR_PARTNER:
                seen = []
                for q, _o in self._free_options(p, fr[4] >> 1, in_transit=True):
                    a = A_SEAT + (q - p) % self.N - 1
                    if a not in seen:
                        seen.append(a)
                return seen
            if d == D_PFR_ORI:
                q = fr[7]
                return [A_ORI + o for qq, o in self._free_options(p, fr[4] >> 1, in_transit=True) if qq == q]
            if d == D_REACT:
                return [A_BOARD + s for s in self._react_options(p)]
            if d == D_SWAPM:
                return ([A_MISSION + mt for mt in range(self.n_mtypes) if self.cnt_m[p][mt]]
                        + [A_MSLOT + s for s in self._recall_slots(p)])
            raise AssertionError(d)
        # CMD
        t, f, pos, chain = fr[3], fr[4], fr[5], fr[6]
        if d == D_TARGET or d == D_DECOY1:
            return [A_BOARD + s for s in self._cmd_targets(t, p, f, pos)]
        if d == D_DECOY2:
            g = self.other_fac[p][f]
            return [A_BOARD + g * 7 + i for i in range(len(self.fac[g]))]
        if d == D_ACT1:
            g = self.other_fac[p][f]
            return [A_BOARD + g * 7 + i for i in range(len(self.fac[g]))]
        if d == D_ACT2:
            g = self.other_fac[p][f]
            return [A_BOARD + g * 7 + i for i in range(len(self.fac[g])) if g * 7 + i != fr[7]]
        if d == D_MEDIC_T:
            return [A_BOARD + g * 7 + i for g in sorted(set(self.own[p]))
                    for i, c in enumerate(self.fac[g]) if c[1] < 0]
        if d == D_MEDIC_ORI:
            return [A_ORI, A_ORI + 1]
        if d == D_INFIL:
            return [A_BOARD + s for s in self._infil_options(p, f, pos, chain)]
        if d == D_JACK:
            return [A_BOARD + s for s in self._jack_options(p, f, pos, chain)]
        if d == D_STRAT:
            T = fr[8]
            out = []
            for g in self.own[T]:
                m = self.mindex[T][g]
                for s in range(len(self.att[g][m])):
                    out.append(A_MSLOT + g * 4 + m * 2 + s)
            if self.hand_m[T]:
                out.append(A_RANDOM)
            return out
        if d == D_TRACK:
            present = sorted({c >> 1 for c in self.deck_a})
            return [A_AGENT + x for x in present]
        if d == D_INT_SEAT:
            return [A_SEAT + k - 1 for k in range(1, self.N) if self.na[(p + k) % self.N]]
        if d == D_INT_CARD:
            T = fr[7]
            return [A_AGENT + x for x in range(D.NUM_AGENT_TYPES) if self.cnt_a[T][x]]
        raise AssertionError(d)

    def _own_slots(self, p):
        return self.own[p]

    # ------------------------------------------------------------------ apply
    def _apply_action(self, a):
        self.turn_decisions += 1
        fr = self.stack[-1]
        k = fr[0]
        d = self.decision
        p = self.decider
        if k == CTX:
            self._apply_step(fr, p, a - A_STEP)
        elif k == END:
            if a == A_DONE:
                self.stack.pop()
                if self._has_mhg(p):
                    self.stack.append([MHG, p, 0])
                else:
                    self._end_turn(p)
            else:
                fr[2] += 1
                self._begin_mission_op(p, a - A_STEP)
        elif k == MHG:
            n = a - A_COUNT
            t = D.MHG_ELIGIBLE[fr[2]]
            if n:
                self.cv = next(VERSIONS)
                self.mhg_revealed += n
                self._log((EV_REVEAL, p, t, n))
                # C49 rule 3: the reveal raises everyone's pins on p's copies of t
                ids = [c for c in self.hand_a[p] if c >> 1 == t]
                for v, tags in enumerate(self.tag_a):
                    if v == p:
                        continue
                    known = sum(1 for c in ids if tags[c] == KNOWN)
                    for c in ids:
                        if known >= n:
                            break
                        if tags[c] != KNOWN:
                            tags[c] = KNOWN
                            known += 1
            fr[2] += 1
        elif k == BUILD:
            self._apply_build(fr, d, p, a)
        else:
            self._apply_cmd(fr, d, p, a)
        mx = self.config["max_decisions_per_turn"]
        if not self.over and mx is not None and self.turn_decisions > mx:
            self._finish([], truncated=True)
            return
        self._advance()

    def _begin_mission_op(self, p, s):
        if s == S_ATTACH:
            self.stack.append([BUILD, D_ATT_M, p, s, -1, -1, -1, -1, -1])
        elif s == S_RECALL:
            self.stack.append([BUILD, D_RECALL, p, s, -1, -1, -1, -1, -1])
        else:
            self.stack.append([BUILD, D_MOVE, p, s, -1, -1, -1, -1, -1])

    def _apply_step(self, fr, p, s):
        if s >= S_BUY_AD:
            self.cv = next(VERSIONS)
        if s <= S_MOVE:
            fr[4] += 1
            self._begin_mission_op(p, s)
            return
        if not fr[3]:
            fr[4] = 0  # a top-level action closes the free-operation window (C48)
        if s != S_PFR:
            fr[2] -= 1
        if s == S_PFA:
            self.stack.append([BUILD, D_PFA_CARD, p, s, -1, -1, -1, -1, -1])
        elif s == S_PFR:
            self.stack.append([BUILD, D_PFR_CARD, p, s, -1, -1, -1, -1, -1])
        elif s == S_REACT:
            self.stack.append([BUILD, D_REACT, p, s, -1, -1, -1, -1, -1])
        elif s == S_SWAPM:
            self.stack.append([BUILD, D_SWAPM, p, s, -1, -1, -1, -1, -1])
        elif s == S_BUY_AD:
            self.ip[p] -= 1
            self._draw_a(p)
        elif s == S_BUY_AR:
            self.ip[p] -= 2
            self._add_a(p, self.ret_a.pop(), True)
            self._refill()
        elif s == S_BUY_MD:
            self.ip[p] -= 3
            self._draw_m(p)
        elif s == S_BUY_MR:
            self.ip[p] -= 4
            self._add_m(p, self.ret_m.pop(), True)
            self._refill()
        elif s == S_EMERG:
            self._draw_a(p)
            self._bar(p)

    def _apply_build(self, fr, d, p, a):
        stack = self.stack
        if d == D_ATT_M:
            fr[8] = self._take_m(p, a - A_MISSION)
            fr[1] = D_ATT_F
        elif d == D_ATT_F:
            self.av = next(VERSIONS)
            f = self.own[p][a - A_FSLOT]
            self.att[f][self.mindex[p][f]].append(fr[8])
            stack.pop()
        elif d == D_RECALL or d == D_MOVE:
            self.av = next(VERSIONS)
            f, r = divmod(a - A_MSLOT, 4)
            m, s = divmod(r, 2)
            c = self.att[f][m].pop(s)
            if d == D_RECALL:
                self._add_m(p, c, True)
            else:
                g = self.other_fac[p][f]
                self.att[g][self.mindex[p][g]].append(c)
            stack.pop()
        elif d == D_PFA_CARD:
            fr[4] = self._take_a(p, a - A_AGENT)
            fr[1] = D_PFA_FAC
        elif d == D_PFA_FAC:
            fr[5] = self.own[p][a - A_FSLOT]
            fr[1] = D_PFA_ORI
        elif d == D_PFA_ORI:
            fr[6] = a - A_ORI
            fr[1] = D_PFA_GAP
        elif d == D_PFA_GAP:
            fr[7] = a - A_GAP
            stack.pop()
            self._play_faction(fr)
        elif d == D_PFR_CARD:
            t = a - A_AGENT
            c = self._take_a(p, t)
            self.transit.append([c, -1])
            fr[4] = c
            fr[1] = D_PFR_PARTNER
            if t != D.MERCENARY:
                ctx = self._context_below(len(stack) - 1)
                ctx[2] -= 1
        elif d == D_PFR_PARTNER:
            fr[7] = (p + a - A_SEAT + 1) % self.N
            fr[1] = D_PFR_ORI
        elif d == D_PFR_ORI:
            o = a - A_ORI
            q = fr[7]
            E, T = (p, q) if o == 0 else (q, p)
            c = fr[4]
            self.transit[-1][1] = T
            stack.pop()
            stack.append([FIN, c, T])
            self._start_cmd(c >> 1, E, -1, -1, 0, T)
        elif d == D_REACT:
            f, i = divmod(a - A_BOARD, 7)
            stack.pop()
            self._start_cmd(self.fac[f][i][0] >> 1, p, f, i, bit(f, i))
        elif d == D_SWAPM:
            stack.pop()
            if a >= A_MSLOT:
                self.av = next(VERSIONS)
                f, r = divmod(a - A_MSLOT, 4)
                m, s = divmod(r, 2)
                c = self.att[f][m].pop(s)
            else:
                c = self._take_m(p, a - A_MISSION)
            self.ret_m.append(c)
            self._draw_m(p)
        else:
            raise AssertionError(d)

    def _context_below(self, idx):
        for j in range(idx - 1, -1, -1):
            if self.stack[j][0] == CTX:
                return self.stack[j]
        raise AssertionError("no action context")

    def _apply_cmd(self, fr, d, E, a):
        stack = self.stack
        t = fr[3]
        if d == D_TARGET:
            s = a - A_BOARD
            stack.pop()
            if t in (D.MARKSMAN, D.ASSASSIN, D.GUNNER):
                self._kill(s)
            elif t in (D.HACKER, D.TEMPTRESS, D.UNDERCOVER):
                self._turn(s)
            else:
                self._remove(s, E)
        elif d == D_DECOY1:
            fr[7] = a - A_BOARD
            fr[1] = D_DECOY2
        elif d == D_DECOY2:
            stack.pop()
            self._swap_cross(fr[7], a - A_BOARD, E)
        elif d == D_ACT1:
            fr[7] = a - A_BOARD
            fr[1] = D_ACT2
        elif d == D_ACT2:
            self.bv = next(VERSIONS)
            stack.pop()
            g, i = divmod(fr[7], 7)
            j = a - A_BOARD - g * 7
            row = self.fac[g]
            row[i], row[j] = row[j], row[i]
        elif d == D_MEDIC_T:
            fr[7] = a - A_BOARD
            fr[1] = D_MEDIC_ORI
        elif d == D_MEDIC_ORI:
            self.bv = next(VERSIONS)
            stack.pop()
            g, i = divmod(fr[7], 7)
            m = self.members[g]
            other = m[1] if m[0] == E else m[0]
            self.fac[g][i] = (self.fac[g][i][0], E if a == A_ORI else other)
        elif d == D_INFIL or d == D_JACK:
            stack.pop()
            g, i = divmod(a - A_BOARD, 7)
            self._start_cmd(self.fac[g][i][0] >> 1, E, g, i, fr[6] | bit(g, i))
        elif d == D_STRAT:
            stack.pop()
            T = fr[8]
            if a == A_RANDOM:
                hand = self.hand_m[T]
                c = hand[int(self.rng.integers(len(hand)))]
                # E sees only the stolen type: a copy E had pinned in T's hand is taken
                # to leave first (as in C49 rule 2), whichever copy it really was
                tags = self.tag_m[E]
                if tags[c] != KNOWN:
                    for y in hand:
                        if y != c and y >> 1 == c >> 1 and tags[y] == KNOWN:
                            tags[c], tags[y] = tags[y], tags[c]
                            break
                hand.remove(c)
                self.cnt_m[T][c >> 1] -= 1
                self._log((EV_TRANSFER, CLS_M, E, T, c))
                self._private_transfer(self.tag_m, hand, c, E, T)
                self._add_m(E, c, False)
                self.tag_m[T][c] = KNOWN
            else:
                self.av = next(VERSIONS)
                g, r = divmod(a - A_MSLOT, 4)
                m, s = divmod(r, 2)
                self._add_m(E, self.att[g][m].pop(s), True)
        elif d == D_TRACK:
            stack.pop()
            x = a - A_AGENT
            deck = self.deck_a
            for j in range(len(deck) - 1, -1, -1):
                if deck[j] >> 1 == x:
                    c = deck.pop(j)
                    break
            self._log((EV_PICK, E, c))
            self._add_a(E, c, False)
            perm = self.rng.permutation(len(deck))
            self.deck_a = [deck[i] for i in perm]
            self._refill()
        elif d == D_INT_SEAT:
            T = (E + a - A_SEAT + 1) % self.N
            fr[7] = T
            fr[1] = D_INT_CARD
            self.cv = next(VERSIONS)
            self._log((EV_VIEW, E, T, self._type_counts(self.hand_a[T], D.NUM_AGENT_TYPES)))
            tags = self.tag_a[E]  # E looks at T's agent cards (private view)
            for c in self.hand_a[T]:
                tags[c] = KNOWN
        elif d == D_INT_CARD:
            stack.pop()
            T = fr[7]
            x = a - A_AGENT
            hand = self.hand_a[T]
            c = next(c for c in hand if c >> 1 == x)
            hand.remove(c)
            self.cnt_a[T][x] -= 1
            self.na[T] -= 1
            self._log((EV_TRANSFER, CLS_A, E, T, c))
            self._private_transfer(self.tag_a, hand, c, E, T)
            self._add_a(E, c, False)
            self.tag_a[T][c] = KNOWN
        else:
            raise AssertionError(d)
