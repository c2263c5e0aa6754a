"""Specter Ops rules engine: state, decisions and transitions (rules §4-§5, §9).

Hidden state lives in :class:`AgentState` objects (``game.ag``) and a few ``_h_``
fields (objective cells in 4-5p, the traitor seat); everything else on the game is
public. The public belief sets (belief.py) are fed only from published events.
Roles: index 0 is ``agent``; hunter seat ``s`` is role ``s + 1`` (``hunter_s``)."""

from __future__ import annotations

import numpy as np

from . import board as B
from .belief import LAST_SEEN, NOTHING, ORTH, SEEN, Belief
from .data import (
    A1, A2, A2T, A3, A4, A5, BEAST, BLUEJAY, CARD0, CHAR0, CHARGES, COBRA, COPIES, DIR0,
    DRIVE, ENTER, EXIT, FISTS, FLASH, GUN, H0, H1, H2, H2V, H3, H4, H5, H6, HOLO, I1, I2,
    NO, NUM_ACTIONS, ORANGUTAN, PAD, PAD_LEN, POSTCOG, PROPHET, PUPPET, REVEAL, REVEALED, ROTATED, S1, S2,
    S3, S4, SEAT0, SENSOR, SMOKE, SPIDER, STEALTH, SURGE, TANGLE, VELOCITY, VISIBILITY, X1,
    X2, YES, usable_by,
)

BALL = B.BALL
#: decisions that open an agent-turn segment (the padding unit, C58)
_SEGMENT_START = frozenset((A1, A2, A3, X1))
#: pad_agent_turn (C58): an agent-turn segment is PAD_LEN slots in fixed phases, so
#: both its length and the moment of every publication in it are public. A decision
#: of a phase is asked only once the segment holds the phase's first slot (forced
#: passes fill the gap): A1 or X1 in slot 1, the before-window (A2, A2t; X2 X2) in
#: slots 2-3, movement in slots 4-9 (the escape check after slot 9), the after-window
#: (A4, A2t) in slots 10-11, the report after slot 11, the Quick Draw's I2 in slot 12,
#: A5 in slot 13. Values: decisions already made when the phase starts.
PHASE_START = {A1: 0, X1: 0, A2: 1, X2: 1, A3: 3, A4: 9, I2: 11, A5: 12}
MOVE_END, REPORT_AT = 9, 11
#: legal-action tuples -> read-only int8 masks (masks repeat a lot: neighbour steps, walks)
_MASKS: dict[tuple, np.ndarray] = {}
SIGHT = B.SIGHT
OPEN = B.OPEN


class AgentState:
    """Hidden state of one A.R.K. agent (the main agent, or the revealed traitor)."""

    __slots__ = (
        "char", "pos", "hp", "maxhp", "hand", "path", "steps", "max_steps", "card_used",
        "stealth", "stealth_path", "velocity", "holo", "holo_used", "in_play", "history",
        "moved3", "pending_card", "window", "role", "spent",
    )

    def __init__(self, pos: int, role: int):
        self.char = -1
        self.pos = pos
        self.hp = self.maxhp = 0
        self.hand: list[list[int]] = []
        self.path = [pos]
        self.steps = 0
        self.max_steps = 4
        self.card_used = False
        self.stealth = False  # Stealth Field active (until the start of her next turn)
        self.stealth_path = False  # ... and it was played before moving
        self.velocity = False
        self.holo = -1  # decoy cell this turn
        self.holo_used = False
        self.in_play = True
        self.history = [pos]
        self.moved3 = False
        self.pending_card = -1
        self.window = 0  # 0 before moving, 1 after
        self.role = role
        self.spent: list[int] = []  # types of her discarded (spent) physical cards

    def copy(self) -> "AgentState":
        new = object.__new__(AgentState)
        for k in AgentState.__slots__:
            setattr(new, k, getattr(self, k))
        new.hand = [list(c) for c in self.hand]
        new.path = list(self.path)
        new.history = list(self.history)
        new.spent = list(self.spent)
        return new

    def physical(self) -> list[int]:
        """Physical cards she took, per type (in hand or spent)."""
        n = [0] * 8
        for c in self.hand:
            n[c[0]] += 1
        for t in self.spent:
            n[t] += 1
        return n

    def count(self, card: int) -> int:
        return sum(1 for c in self.hand if c[0] == card)

    def charges(self, card: int) -> int:
        for c in self.hand:
            if c[0] == card:
                return c[1]
        return 0

    def spend(self, card: int) -> None:
        for i, c in enumerate(self.hand):
            if c[0] == card:
                c[1] -= 1
                if c[1] == 0:
                    del self.hand[i]
                    self.spent.append(card)
                return


class PubAgent:
    """What everybody knows about one agent."""

    __slots__ = (
        "char_known", "damage", "uses", "rotated", "ncards", "sight_cell", "sight_kind",
        "sight_round", "public_now", "in_play", "escaped", "sensor", "close", "active",
    )

    def __init__(self):
        self.char_known = -1
        self.damage = 0  # apparent damage (C40, C66)
        self.uses = [0] * 8  # published uses per card type (revealed cards; Velocity Blade)
        self.rotated: list[tuple[int, int]] = []  # (round, window)
        self.ncards = 0
        self.sight_cell = -1
        self.sight_kind = NOTHING
        self.sight_round = 0
        self.public_now = False  # C49: her current space is already public
        self.in_play = False
        self.escaped = False
        self.sensor = -1  # last sensor answer this phase: 0..8 direction, 9 no motion
        self.close = -1  # last Beast answer this phase: 1 close, 0 not
        self.active = False

    def copy(self) -> "PubAgent":
        new = object.__new__(PubAgent)
        for k in PubAgent.__slots__:
            setattr(new, k, getattr(self, k))
        new.uses = list(self.uses)
        new.rotated = list(self.rotated)
        return new


def roll_attack(rng, dice: int) -> tuple[int, bool]:
    """(total, automatic miss) of ``dice`` exploding d6 (C11, C42)."""
    total = 0
    firsts = []
    for _ in range(dice):
        d = int(rng.integers(1, 7))
        firsts.append(d)
        total += d
        while d == 6:
            d = int(rng.integers(1, 7))
            total += d
    return total, all(f == 1 for f in firsts)


class SpecterOpsRules:
    """Mixin with the whole rules state machine; SpecterOpsGame (game.py) adds the
    contract plumbing (observe, resample, render)."""

    # ------------------------------------------------------------------ setup
    def _new_state(self):
        cfg = self.config
        n = cfg["num_players"]
        self.nh = len(self.roles) - 1
        self.big = n >= 4
        self.escapes = B.ESCAPES + (B.ESCAPE_EXTRA if self.big else [])
        self.escape_bits = B.bits(self.escapes)
        self.round = 0
        self.winner = None  # "agents" / "hunters"
        self.dec = S1
        self.actor = 0
        self.legal = ()
        self.mask = None
        # hunters (public)
        nh = self.nh
        self.hchar = [-1] * nh
        self.hpos = [-1] * nh
        self.riding = [True] * nh
        self.stunned = [False] * nh
        self.blind = [False] * nh
        self.sniper = [-1] * nh
        self.hin = [True] * nh
        self.revoked = [False] * nh
        self.acted = [False] * nh
        self.votes: list[int] = []
        self.vpos = B.VEHICLE_START[4 if self.big else 2]
        self.vused = 0
        self.smoke: list[tuple[int, int, int]] = []  # (token, owner agent, round placed)
        self.flash: list[int] = []
        self.smoke_bits = 0
        # objectives: rolled now; public in 2-3p
        self._h_obj = [B.OBJECTIVES[s][int(self.rng.integers(0, 6))] for s in range(4)]
        self.completed: list[int] = []  # sections, in completion order
        self.precog = False
        self.exposed = False
        self._h_traitor = -1
        self.traitor_role = -1  # public after exposure
        self.postcog_answer = -1
        self.sensor_v = -1
        self.beast_pos = -1
        # agents
        self.ag = [AgentState(B.AGENT_START, 0)]
        self.pa = [PubAgent(), PubAgent()]
        self.pa[0].in_play = True
        self.pa[0].active = True
        self.bel = [Belief(B.AGENT_START, list(range(nh)) if n == 5 else [-1]), None]
        self.ht = None  # current hunter turn context
        self.astage = 0
        self.cur = 0  # agent whose turn it is
        self.tr = None  # public record of the current agent turn
        self.x_return = None
        self.i2_ctx = None
        self.att = None
        self.xmove = False
        self.expose_pending = False
        self._taken = [0] * 8
        self._senses_fewer = cfg["beast_senses"] == "3_or_fewer"
        self._pubver = 0
        self._quiet = False
        # pad_agent_turn (C58): the open agent-turn segment (actor, decisions so far),
        # and while padding: passes left, the padding actor and the decision they delay
        self.pad_on = cfg["pad_agent_turn"]
        self.seg_actor = -1
        self.seg_count = 0
        self.pad_left = 0
        self.pad_actor = -1
        self.pad_saved = None
        self._obs_cache: dict = {}
        self._obs_common = None  # observe._common: (public version, shared sparse part)
        self.events: list[str] = []  # short public log lines (render)
        fixed_h = self._fixed_hunters
        if fixed_h is not None:
            self.hchar = list(fixed_h)
            self._after_hunter_chars()
        else:
            self._set(S1, 1, [CHAR0 + c for c in range(4)])

    def _after_hunter_chars(self):
        if self.config["agent_character"] is not None:
            self._set_agent_char(self._fixed_agent)
            self._ask_card()
        else:
            self._set(S2, 0, [CHAR0 + c for c in range(4)])

    def _set_agent_char(self, c):
        ag = self.ag[0]
        ag.char = c
        base = 6 if c == ORANGUTAN else 4
        if self.config["num_players"] == 4:
            base += 2
        ag.hp = ag.maxhp = base

    def _ncards(self):
        return 5 if self.config["num_players"] == 4 else 3

    def _box_count(self, t):
        """Physical copies of card type t not in any agent's hand (incl. spent ones)."""
        taken = self._taken[t]
        return COPIES[t] - taken

    def _ask_card(self, a=0):
        ag = self.ag[a]
        legal = [CARD0 + t for t in range(8) if self._box_count(t) > 0 and usable_by(t, ag.char)]
        self._set(S3 if a == 0 else X2, ag.role, legal)

    def _set(self, dec, actor, legal):
        self.dec = dec
        self.actor = actor
        key = tuple(legal)
        self.legal = key
        m = _MASKS.get(key)
        if m is None:
            if len(_MASKS) > 20000:
                _MASKS.clear()
            m = np.zeros(NUM_ACTIONS, np.int8)
            m[list(key)] = 1
            m.flags.writeable = False  # shared between states: callers must copy
            _MASKS[key] = m
        self.mask = m

    # ------------------------------------------------------------------ helpers
    def _viewer_kind(self, p):
        if p == 0:
            return "agent"
        if self.exposed and p == self.traitor_role:
            return "second"
        return "hunter"

    def _hspace(self, s):
        return self.vpos if self.riding[s] else self.hpos[s]

    def _sight(self, s):
        """Sight(H) now (blind -> nothing)."""
        if self.blind[s]:
            return 0
        return B.sight(self._hspace(s), self.smoke_bits, self.sniper[s])

    def _es(self, s, a):
        """ES(H) for agent a (§3.5 rule 4)."""
        sg = self._sight(s)
        if self.ag[a].stealth:
            sg &= BALL[2][self._hspace(s)]
        return sg

    def _fig(self):
        f = 0
        for s in range(self.nh):
            if self.hin[s] and not self.riding[s]:
                f |= 1 << self.hpos[s]
        return f

    def _hunters_in_play(self):
        return [s for s in range(self.nh) if self.hin[s]]

    def _has_hunter(self, char):
        for s in range(self.nh):
            if self.hin[s] and self.hchar[s] == char:
                return s
        return -1

    def _agents_in_play(self):
        return [a for a in range(len(self.ag)) if self.ag[a].in_play]

    def _reset_smoke_bits(self):
        b = 0
        for t, _o, _r in self.smoke:
            b |= B.smoke_area(t)
        self.smoke_bits = b

    def _range(self, a=0):
        return 2 if self.ag[a].char == BLUEJAY else 1

    def _eligible_objective(self):
        ag = self.ag[0]
        r = self._range()
        for s in range(4):
            if s not in self.completed and B.dist(ag.pos, self._h_obj[s]) <= r:
                return s
        return -1

    def _log(self, text):
        self.events.append(f"r{self.round}: {text}")
        if len(self.events) > 12:
            del self.events[0]

    def _damage(self, a, real=True):
        self.pa[a].damage += 1
        if real:
            self.ag[a].hp -= 1
            if self.ag[a].hp <= 0:
                self.winner = "hunters"
                self._log(f"{self.roles[self.ag[a].role]} is out of HP: hunters win")

    def _reveal_char(self, a):
        self.pa[a].char_known = self.ag[a].char

    # ------------------------------------------------------------------ apply
    def _apply(self, action):
        if self.seg_actor >= 0:
            self.seg_count += 1
        if self.dec == PAD:
            self.pad_left -= 1
            if self.pad_left:
                return  # a forced pass changes nothing public
            saved = self.pad_saved
            self.pad_saved = None
            self.pad_actor = -1
            if type(saved) is tuple:
                self.dec, self.actor, self.legal, self.mask = saved
            else:  # a deferred step of the rules (the escape check, the report)
                self._quiet = False
                getattr(self, saved)()
                if not self._quiet:
                    self._pubver += 1
        else:
            self._quiet = False
            self._apply_rules(action)
            if not self._quiet:
                # anything but a mid-path step may change public state: observations rebuild
                self._pubver += 1
        if self.pad_on:
            self._pad_check()

    def _pad_check(self):
        """C58 padding after every decision: close a finished segment with forced passes
        up to PAD_LEN, open a new one at an agent turn's first decision, and delay a
        decision of the open segment until its phase's first slot (PHASE_START)."""
        if self.winner is not None:
            self.seg_actor = -1
            return
        dec = self.dec
        if dec == PAD:
            return
        if self.seg_actor >= 0 and self.actor != self.seg_actor:
            if self.seg_count < PAD_LEN:
                self._pad_before(PAD_LEN)
                return
            self.seg_actor = -1
        if self.seg_actor < 0:
            if dec not in _SEGMENT_START:
                return
            self.seg_actor = self.actor
            self.seg_count = 0
        if dec == A2T:
            start = 9 if self.ag[self.cur].window else 1
        else:
            start = PHASE_START.get(dec, 0)
        if self.seg_count < start:
            self._pad_before(start)

    def _pad_before(self, slot):
        """Forced passes by the segment's actor until it holds ``slot`` decisions, then
        the pending decision is asked."""
        self.pad_saved = (self.dec, self.actor, self.legal, self.mask)
        self.pad_left = slot - self.seg_count
        self.pad_actor = self.seg_actor
        self._set(PAD, self.seg_actor, [NO])

    def _seg_slots(self):
        """Decisions the current agent's open padded segment holds (0 if none is open)."""
        if self.pad_on and self.seg_actor >= 0 and self.seg_actor == self.ag[self.cur].role:
            return self.seg_count
        return 0

    def _at_slot(self, slot, step):
        """Run the rules step ``step`` (a method name) now, or under pad_agent_turn only
        once the open segment holds ``slot`` decisions (forced passes until then), so
        that what it publishes comes at the same public moment in every turn."""
        if self.pad_on and self.seg_actor >= 0 and self.seg_actor == self.ag[self.cur].role \
                and self.seg_count < slot:
            self.pad_saved = step
            self.pad_left = slot - self.seg_count
            self.pad_actor = self.seg_actor
            self._set(PAD, self.seg_actor, [NO])
        else:
            getattr(self, step)()

    def _apply_rules(self, action):
        dec = self.dec
        if dec == A3:
            self._a_step(action)
        elif dec in (H2, H2V):
            self._h_action(action)
        elif dec == H3:
            self._h_drive(action)
        elif dec == H4:
            self._h_exit(action)
        elif dec == H6:
            self._h_attack_choice(action)
        elif dec == H5:
            if action != NO:
                self.sniper[self.ht["seat"]] = action - DIR0
            self.ht["stage"] = 7
            self._h_continue()
        elif dec == H1:
            self._start_hunter_turn(action - SEAT0)
        elif dec == H0:
            self._vote(action)
        elif dec in (A2, A4):
            self._a_card(action)
        elif dec == A2T:
            self._a_card_target(action)
        elif dec == A1:
            if action == YES:
                self._complete(self._eligible_objective())
            self._a_before()
        elif dec == A5:
            if action == YES:
                self.precog = True
                self._publish_precog()
            self._end_agent_turn()
        elif dec == I1:
            self._i1(action)
        elif dec == I2:
            self._i2(action)
        elif dec == S1:
            s = self.actor - 1
            self.hchar[s] = action - CHAR0
            if s + 1 < self.nh:
                self._set(S1, s + 2, [CHAR0 + c for c in range(4) if c not in self.hchar])
            else:
                self._after_hunter_chars()
        elif dec == S2:
            self._set_agent_char(action - CHAR0)
            self._ask_card()
        elif dec == S3:
            self._take_card(0, action - CARD0)
            if len(self.ag[0].hand) < self._ncards():
                self._ask_card()
            elif self.config["num_players"] == 5:
                self._set(S4, 0, [SEAT0 + s for s in range(self.nh)])
            else:
                self._begin_play()
        elif dec == S4:
            self._h_traitor = action - SEAT0
            self._begin_play()
        elif dec == X1:
            ag = self.ag[1]
            ag.char = action - CHAR0
            ag.hp = ag.maxhp = 6 if ag.char == ORANGUTAN else 4
            self._ask_card(1)
        elif dec == X2:
            self._take_card(1, action - CARD0)
            if len(self.ag[1].hand) < 2:
                self._ask_card(1)
            else:
                self.pa[1].ncards = 2
                self._start_agent_turn(1, xmove=True)
        else:  # pragma: no cover
            raise AssertionError(dec)

    def _take_card(self, a, t):
        self.ag[a].hand.append([t, CHARGES[t]])
        self._taken[t] += 1

    def _begin_play(self):
        self.pa[0].ncards = len(self.ag[0].hand)
        self.round = 1
        self._start_agent_turn(0)

    # ------------------------------------------------------------------ agent turn (§5.1)
    def _start_agent_turn(self, a, xmove=False):
        ag = self.ag[a]
        ag.stealth = ag.stealth_path = False
        ag.velocity = False
        ag.path = [ag.pos]
        ag.steps = 0
        ag.max_steps = 4
        ag.card_used = False
        ag.holo = -1
        ag.pending_card = -1
        ag.window = 0
        self.cur = a
        self.xmove = xmove
        self.pa[a].sensor = -1
        self.pa[a].close = -1
        # her space stops being public when her turn starts (C49); reset here rather than
        # when she starts moving, whose moment depends on her hidden card window (C58)
        self.pa[a].public_now = False
        self.tr = {
            "turn": self.round, "obj": -1, "bj": False, "pre_mask": B.ALL, "post_mask": B.ALL,
            "rotated": 0, "decoy": -1, "visible_card": False, "done": False,
        }
        if a == 0:
            s = self._eligible_objective()
            if self._has_hunter(PROPHET) >= 0:
                if self.precog and s >= 0:
                    self._complete(s)
                self.precog = False
            elif s >= 0:
                self._set(A1, ag.role, [NO, YES])
                return
        self._a_before()

    def _complete(self, s):
        self.completed.append(s)
        o = self._h_obj[s]
        self.tr["obj"] = o
        self.tr["bj"] = self.pa[0].char_known in (-1, BLUEJAY)
        self._log(f"objective {B.name(o)} completed ({len(self.completed)})")

    def _usable_cards(self, a, window):
        ag = self.ag[a]
        if ag.card_used or self.xmove:
            return []
        out = []
        seen = set()
        for t, ch in ag.hand:
            if t in seen or ch <= 0:
                continue
            seen.add(t)
            if t == VELOCITY or (t == SURGE and window == 1):
                continue
            if t == TANGLE and not self._tangle_targets(a):
                continue
            if t == HOLO and not (BALL[4][self.ag[a].pos] & ~self._fig()):
                continue
            out.append(CARD0 + t)
        return out

    def _tangle_targets(self, a):
        pos = self.ag[a].pos
        return [
            SEAT0 + s for s in range(self.nh)
            if self.hin[s] and not self.riding[s] and not self.blind[s] and (self._sight(s) >> pos) & 1
        ]

    def _holo_targets(self, a):
        return B.cells_of(BALL[4][self.ag[a].pos] & ~self._fig())

    def _a_before(self):
        legal = self._usable_cards(self.cur, 0)
        if legal and self._seg_slots() <= 1:  # padded: the window's two slots must still be free
            self._set(A2, self.ag[self.cur].role, [NO] + legal)
        else:
            self._a_move_start()

    def _a_card(self, action):
        a = self.cur
        ag = self.ag[a]
        if action == NO:
            if self.dec == A2:
                self._a_move_start()
            else:
                self._a_report()
            return
        t = action - CARD0
        ag.pending_card = t
        pos = ag.pos
        if t in (FLASH, SMOKE):
            self._set(A2T, ag.role, B.cells_of(BALL[4][pos]))
        elif t == HOLO:
            self._set(A2T, ag.role, self._holo_targets(a))
        elif t == TANGLE:
            self._set(A2T, ag.role, self._tangle_targets(a))
        else:
            self._use_card(t, -1)

    def _a_card_target(self, action):
        self._use_card(self.ag[self.cur].pending_card, action)

    def _use_card(self, t, target):
        a = self.cur
        ag = self.ag[a]
        pa = self.pa[a]
        before = ag.window == 0
        ag.card_used = True
        ag.pending_card = -1
        ag.spend(t)
        tr = self.tr
        key = "pre_mask" if before else "post_mask"
        vis = VISIBILITY[t]
        if vis == REVEALED:
            tr["visible_card"] = True
            pa.uses[t] += 1
            if t in (TANGLE, VELOCITY, FISTS):
                self._reveal_char(a)
        elif vis == ROTATED:
            tr["visible_card"] = True
            pa.rotated.append((self.round, ag.window))
            tr["rotated"] = 1 if before else 2
        name = ("before" if before else "after") + " moving"
        if t == SURGE:
            ag.max_steps = 6
        elif t == STEALTH:
            ag.stealth = True
            ag.stealth_path = before
        elif t in (FLASH, SMOKE):
            tr[key] &= BALL[4][target]
            if t == SMOKE:
                self.smoke.append((target, a, self.round))
                self._reset_smoke_bits()
                self._log(f"smoke grenade on {B.name(target)} ({name})")
            else:
                self.flash.append(target)
                for s in range(self.nh):
                    if self.hin[s] and not self.blind[s] and (self._sight(s) >> target) & 1:
                        self.blind[s] = True
                self._log(f"flash bang on {B.name(target)} ({name})")
        elif t == TANGLE:
            s = target - SEAT0
            self._placement(a, before)
            if int(self.rng.integers(1, 7)) >= B.dist(ag.pos, self._hspace(s)):
                self.stunned[s] = True
                self._log(f"Tangle Line stuns hunter_{s}")
            else:
                self._log(f"Tangle Line misses hunter_{s}")
        elif t == FISTS:
            self._placement(a, before)
            for s in range(self.nh):
                if self.hin[s] and not self.riding[s] and B.dist(ag.pos, self.hpos[s]) <= 2:
                    self.stunned[s] = True
            self._log("Power Fists")
        elif t == HOLO:
            ag.holo = target
            ag.holo_used = True
        if before:
            if t == SURGE or t == STEALTH:
                self._log(f"a face-down card is used ({name})")
            self._a_move_start()
        else:
            if t == STEALTH:
                self._log(f"a face-down card is used ({name})")
            self._a_report()

    def _placement(self, a, before):
        """Tangle Line / Power Fists put her figure on her space (C23, C24)."""
        ag = self.ag[a]
        pa = self.pa[a]
        self._reveal_char(a)
        pa.sight_cell = ag.pos
        pa.sight_kind = SEEN
        pa.sight_round = self.round
        self.tr["pre_mask" if before else "post_mask"] &= 1 << ag.pos
        if not before:
            pa.public_now = True
        self._log(f"{self.roles[ag.role]} placed on {B.name(ag.pos)} by a card")
        if a == 0 and self._h_traitor >= 0 and not self.exposed:
            t = self._h_traitor
            if self.hin[t] and (self._es(t, 0) >> ag.pos) & 1:
                self.expose_pending = True
            elif not self.expose_pending:
                # a certainly real placement outside the traitor's sight: every seat
                # that could see it is loyal (§6.1 traitor-branch pruning)
                hs = tuple((j, self._hspace(j), self._sight(j)) for j in range(self.nh) if self.hin[j])
                self.bel[0].add(("prune", ag.pos, hs))

    def _a_move_start(self):
        a = self.cur
        ag = self.ag[a]
        ag.window = 0
        tr = self.tr
        if "hunters" not in tr:  # a re-dealt turn (resample) keeps the real snapshot
            hs = []
            for s in range(self.nh):
                if self.hin[s]:
                    hs.append((s, self._hspace(s), self._sight(s)))
            tr["hunters"] = tuple(hs)
            tr["fig"] = self._fig()
            g = self._has_hunter(GUN)
            tr["gun"] = None
            if g >= 0 and not self.riding[g] and not self.stunned[g]:
                tr["gun"] = (g, self._hspace(g), self._sight(g))
        self._a_ask_step()

    def _a_ask_step(self):
        ag = self.ag[self.cur]
        if ag.steps >= ag.max_steps or self._seg_slots() >= MOVE_END:
            self._at_slot(MOVE_END, "_a_after_move")
            return
        fig = self.tr["fig"]
        legal = [c for c in B.NEIGH[ag.pos] if not (fig >> c) & 1]
        legal.append(NO)
        self._set(A3, ag.role, legal)

    def _a_step(self, action):
        if action == NO:
            self._at_slot(MOVE_END, "_a_after_move")
            return
        ag = self.ag[self.cur]
        ag.pos = action
        ag.path.append(action)
        ag.steps += 1
        self._quiet = ag.steps < ag.max_steps  # only her private path changed
        self._a_ask_step()

    def _a_after_move(self):
        a = self.cur
        ag = self.ag[a]
        ag.window = 1
        ag.moved3 = ag.steps >= 3
        if len(self.completed) >= 3 and (self.escape_bits >> ag.pos) & 1:
            self._escape(a)
            return
        legal = self._usable_cards(a, 1)
        if legal and self._seg_slots() <= MOVE_END:
            self._set(A4, ag.role, [NO] + legal)
        else:
            self._a_report()

    def _escape(self, a):
        ag = self.ag[a]
        ag.in_play = False
        self.pa[a].in_play = False
        self.pa[a].escaped = True
        self.smoke = [s for s in self.smoke if s[1] != a]
        self._reset_smoke_bits()
        self.tr["done"] = True
        self._log(f"{self.roles[ag.role]} escapes at {B.name(ag.pos)}")
        if not self._agents_in_play():
            self.winner = "agents"
            return
        self._end_agent_turn(escaped=True)

    def _a_report(self):
        self._at_slot(REPORT_AT, "_a_report_now")

    def _a_report_now(self):
        """Sighting report, exposure test and the Gun's abilities (§5.1 steps 7-8)."""
        a = self.cur
        ag = self.ag[a]
        pa = self.pa[a]
        tr = self.tr
        hs = tr["hunters"]
        st = ag.stealth_path
        traitor = self._h_traitor if not self.exposed else -1
        vis = 0
        for s, pos, sg in hs:
            if s != traitor:
                vis |= (sg & BALL[2][pos]) if st else sg
        path = ag.path
        decoy = ag.holo
        if decoy >= 0:
            kind, c = LAST_SEEN, decoy
        elif (vis >> path[-1]) & 1:
            kind, c = SEEN, path[-1]
        else:
            kind, c = NOTHING, -1
            for cell in reversed(path):
                if (vis >> cell) & 1:
                    kind, c = LAST_SEEN, cell
                    break
        exposure = False
        if kind != NOTHING:
            self._reveal_char(a)
            pa.sight_cell = c
            pa.sight_kind = kind
            pa.sight_round = self.round
            if kind == SEEN:
                pa.public_now = True
            self._log(f"{self.roles[ag.role]} {'seen' if kind == SEEN else 'last seen'} at {B.name(c)}")
            if decoy < 0 and a == 0 and traitor >= 0:
                for s, pos, sg in hs:
                    if s == traitor:
                        es = (sg & BALL[2][pos]) if st else sg
                        exposure = bool((es >> c) & 1)
        else:
            self._log(f"{self.roles[ag.role]} moves unseen")
        if exposure:
            self.expose_pending = True
        tr["done"] = True
        # the Gun (C9, C10, C46): recorded as she started moving, but a Gun stunned since
        # (Tangle Line or Power Fists after moving) no longer acts, and is left out of
        # the published event so that the belief reads nothing into her silence
        gun = tr["gun"]
        if gun is not None and self.stunned[gun[0]]:
            gun = None
        spotted = False
        if gun is not None and gun[0] != traitor:
            es = (gun[2] & BALL[2][gun[1]]) if st else gun[2]
            if decoy >= 0:
                spotted = bool((es >> decoy) & 1)
            else:
                spotted = any((es >> x) & 1 for x in path)
        # public turn event for the belief
        decoy_branch = -1
        if (
            kind == LAST_SEEN and pa.char_known == BLUEJAY and not tr["visible_card"]
        ):
            decoy_branch = c
        ev = {
            "turn": self.round if a == 0 else -self.round, "obj": tr["obj"], "bj": tr["bj"],
            "pre_mask": tr["pre_mask"], "post_mask": tr["post_mask"], "rotated": tr["rotated"],
            "decoy": decoy_branch, "fig": tr["fig"], "hunters": hs, "gun": gun,
            "report": (kind, c), "gflag": spotted,
            "prune": traitor >= 0 and not self.expose_pending,
        }
        self.bel[a].add(ev)
        self.att = None
        if spotted:
            qd = True
            if self.sniper[gun[0]] >= 0 and not self.config["sniper_stacks_with_quick_draw"]:
                qd = False
            self.astage = 1 if qd else 2
            self.gun_target = c
            self._log("the Gun spotted her")
        else:
            self.astage = 3
        self._a_continue()

    def _a_continue(self):
        a = self.cur
        ag = self.ag[a]
        real = ag.holo < 0
        if self.astage == 1:  # Quick Draw
            self.astage = 2
            d = B.dist(self._hspace(self._has_hunter(GUN)), self.gun_target)
            # at distance 0 it hits without a roll (C12): no Velocity Blade offer, as in attacks
            if d > 0 and self._offer_velocity(a, self.gun_target, "quickdraw"):
                return
            self._quick_draw()
            if self.winner:
                return
        if self.astage == 2:  # Sniper Shot damage
            self.astage = 3
            g = self._has_hunter(GUN)
            if g >= 0 and self.sniper[g] >= 0 and not self.stunned[g] and not self.riding[g]:
                self._log("Sniper Shot hits")
                self._damage(a, real)
                if self.winner:
                    return
        if self.astage == 3:
            self.astage = 4
            if a == 0 and not self.xmove and self._has_hunter(PROPHET) >= 0:
                # padded: asked whenever the Prophet plays (a forced NO out of range, C58)
                legal = self._a5_legal()
                if self.pad_on or len(legal) == 2:
                    self._set(A5, ag.role, legal)
                    return
        self._end_agent_turn()

    def _quick_draw(self):
        a = self.cur
        g = self._has_hunter(GUN)
        d = B.dist(self._hspace(g), self.gun_target)
        if d == 0:
            hit = True  # like an attack at distance 0 (C12): no roll
        else:
            total, miss = roll_attack(self.rng, 1)
            total += self._defence(a, d)
            hit = not miss and total >= d
        self._log(f"Quick Draw {'hits' if hit else 'misses'}")
        if hit:
            self._damage(a, self.ag[a].holo < 0)

    def _defence(self, a, d):
        ag = self.ag[a]
        m = 0
        if ag.char == SPIDER and d <= 3:
            m -= 2
        if ag.velocity:
            m -= 3
        return m

    def _offer_velocity(self, a, target_cell, ctx):
        ag = self.ag[a]
        if ag.char == COBRA and not ag.velocity and ag.charges(VELOCITY) > 0:
            self.i2_ctx = ctx
            self._set(I2, ag.role, [NO, YES])
            return True
        if self.pad_on:  # C58: asked before every roll, a forced pass when she cannot
            self.i2_ctx = ctx
            self._set(I2, ag.role, [NO])
            return True
        return False

    def _a5_legal(self):
        """A5's mask from the state: YES only within completion range (C22)."""
        return [NO, YES] if self._eligible_objective() >= 0 else [NO]

    def _i2_legal(self):
        """I2's mask from the state (after a re-deal under pad_agent_turn)."""
        ag = self.ag[self.i2_a if self.i2_ctx == "attack" else self.cur]
        ok = ag.char == COBRA and not ag.velocity and ag.charges(VELOCITY) > 0
        return [NO, YES] if ok else [NO]

    def _i1_legal(self):
        """I1's mask from the state (after a re-deal under pad_agent_turn)."""
        s = self.ht["seat"]
        ag = self.ag[self.i1_a]
        traitor = self._h_traitor if not self.exposed else -1
        hp = self.hpos[s]
        ok = ag.char == COBRA and s != traitor and hp != ag.pos and (ORTH[ag.pos] >> hp) & 1
        return [NO, YES] if ok else [NO]

    def _i2(self, action):
        a = self.i2_a if self.i2_ctx == "attack" else self.cur
        ag = self.ag[a]
        if action == YES:
            ag.spend(VELOCITY)
            ag.velocity = True
            self.pa[a].uses[VELOCITY] += 1
            self._reveal_char(a)
            self._log("Velocity Blade revealed")
        if self.i2_ctx == "quickdraw":
            self._quick_draw()
            if self.winner:
                return
            self._a_continue()
        else:
            self._resolve_attack()
            if self.winner:
                return
            self._h_continue()

    def _publish_precog(self):
        rng = 2 if self.pa[0].char_known in (-1, BLUEJAY) else 1
        m = 0
        for s in range(4):
            if s in self.completed:
                continue
            cells = [self._h_obj[s]] if not self.big else B.OBJECTIVES[s]
            for o in cells:
                m |= BALL[rng][o]
        self.bel[0].add(("keep", m, -2))
        self._log("Pre-Cognition: she will complete an objective next round")

    def _end_agent_turn(self, escaped=False):
        a = self.cur
        ag = self.ag[a]
        if a == 0:
            ag.history.append(ag.pos)
        # smoke this agent placed in her previous turn disappears (C25)
        old = len(self.smoke)
        self.smoke = [s for s in self.smoke if not (s[1] == a and s[2] < self.round)]
        if len(self.smoke) != old:
            self._reset_smoke_bits()
        self.xmove = False
        if self.expose_pending:
            self.expose_pending = False
            self._expose("agents_phase")
            return
        if a == 0 and len(self.ag) > 1 and self.ag[1].in_play and self.x_return is None:
            self._start_agent_turn(1)
            return
        if self.x_return is not None:
            ret = self.x_return
            self.x_return = None
            if ret == "resume":
                self._h_continue()
                return
            if ret == "next_hunter":
                self._next_hunter()
                return
        self._end_agents_phase()

    def _end_agents_phase(self):
        if self.round >= self.config["max_rounds"]:
            self.winner = "hunters"
            self._log("round limit reached: hunters win")
            return
        self._start_hunters_phase()

    # ------------------------------------------------------------------ traitor (C60)
    def _expose(self, ret):
        t = self._h_traitor
        self.exposed = True
        self.traitor_role = t + 1
        start = self._hspace(t)
        self.hin[t] = False
        self.riding[t] = False
        self.hpos[t] = -1
        self.stunned[t] = False
        self.blind[t] = False
        self.sniper[t] = -1
        self.bel[0].add(("expose", t))
        ag = AgentState(start, t + 1)
        self.ag.append(ag)
        self.pa[1].in_play = True
        self.pa[1].active = True
        self.bel[1] = Belief(start, [-1])
        self.x_return = {"agents_phase": "hunters", "hunter_phase": "resume", "reveal": "next_hunter"}[ret]
        self._log(f"hunter_{t} is the traitor and becomes an agent")
        self._set(X1, t + 1, [CHAR0 + c for c in range(4) if c != self.ag[0].char])

    # ------------------------------------------------------------------ hunters' phase (§5.2)
    def _start_hunters_phase(self):
        self.acted = [False] * self.nh
        for p in self.pa:
            p.sensor = -1
            p.close = -1
        if self._h_traitor >= 0 and not self.exposed:
            self.votes = []
            self._ask_vote()
        else:
            self._next_hunter()

    def _ask_vote(self):
        s = len(self.votes)
        self._set(H0, s + 1, [NO] + [SEAT0 + j for j in range(self.nh) if self.hin[j] and not self.revoked[j]])

    def _vote(self, action):
        self.votes.append(action)
        if len(self.votes) < self.nh:
            self._quiet = True  # votes are tallied (and shown) only when all are in
            self._ask_vote()
            return
        n = len(self._hunters_in_play())
        for j in range(self.nh):
            if sum(1 for v in self.votes if v == SEAT0 + j) * 2 > n:
                self.revoked[j] = True
                self._log(f"hunter_{j} loses vehicle access")
        self._next_hunter()

    def _next_hunter(self):
        if self.winner:
            return
        rem = [s for s in range(self.nh) if self.hin[s] and not self.acted[s]]
        if not rem:
            self._end_round()
            return
        if self.config["hunter_order"] == "choose" and len(rem) > 1:
            self._set(H1, rem[0] + 1, [SEAT0 + s for s in rem])
        else:
            self._start_hunter_turn(rem[0])

    def _end_round(self):
        self.vused = 0
        self.flash = []
        self.round += 1
        for a in (0, 1):
            if a < len(self.ag) and self.ag[a].in_play:
                self._start_agent_turn(a)
                return
        self.winner = "agents"  # unreachable: escapes end the game

    def _start_hunter_turn(self, s):
        self.acted[s] = True
        self.ht = {"seat": s, "moved": 0, "walk5": False, "stage": 0, "ag": 0, "rode": self.riding[s]}
        self.sniper[s] = -1
        if self.blind[s]:
            self.blind[s] = False
            self.ht["stage"] = 0
            self._check(s, recovery=True)
            if self.expose_pending:
                self.expose_pending = False
                self.ht["stage"] = 1
                self._expose("hunter_phase")
                return
        self.ht["stage"] = 1
        self._h_continue()

    def _ask_main(self, s):
        legal = []
        pos = self._hspace(s)
        budget = 2 if self.stunned[s] else (5 if self.hchar[s] == BEAST else 4)
        revoked = self.revoked[s]
        if self.riding[s]:
            if not revoked:
                if self.vused < 10:
                    legal.append(DRIVE)
                legal.append(SENSOR)
            legal += [EXIT, NO]
        else:
            legal += B.walk_cells(budget, pos)
            if not revoked:
                if (B.WALK[budget][pos] >> self.vpos) & 1:
                    legal.append(ENTER)
                if self.hchar[s] == PUPPET:
                    if self.vused < 10:
                        legal.append(DRIVE)
                    legal.append(SENSOR)
        # C21/C63: she answers for her turn r-2; once the main agent has escaped (5p, the
        # second agent plays on) she has left play and there is no one to answer
        if self.hchar[s] == PROPHET and self.round >= 2 and self.ag[0].in_play:
            legal.append(POSTCOG)
        if s == self._h_traitor and not self.exposed:
            legal.append(REVEAL)
        legal.sort()
        self._set(H2V if self.riding[s] else H2, s + 1, legal)

    def _h_action(self, action):
        ht = self.ht
        s = ht["seat"]
        if action < 736:
            d = B.walk_distance(self.hpos[s], action)
            self.hpos[s] = action
            ht["moved"] = d
            ht["walk5"] = d == 5
            self._h_end_move()
        elif action == ENTER:
            d = B.walk_distance(self.hpos[s], self.vpos)
            self.hpos[s] = -1
            self.riding[s] = True
            ht["moved"] = d
            self._log(f"hunter_{s} boards the vehicle")
            self._h_end_move()
        elif action == DRIVE:
            ht["relay"] = not self.riding[s]
            rem = 10 - self.vused
            if ht["relay"] and self.stunned[s]:
                rem = min(rem, 2)
            self._set(H3, s + 1, B.road_cells(rem, self.vpos))
        elif action == SENSOR:
            self._fire_sensor(s)
            if self.riding[s]:
                self._ask_exit(s, stay=True)
            else:
                self._h_end_move()
        elif action == EXIT:
            self._ask_exit(s, stay=False)
        elif action == NO:
            self._h_end_move()
        elif action == POSTCOG:
            t = self.round - 2
            c = self.ag[0].history[t]
            self.postcog_answer = c
            self._log(f"Post-Cognition: she stood on {B.name(c)} after turn {t}")
            if t >= 1:
                self.bel[0].learn_position(t, c)
            self._h_end_move()
        elif action == REVEAL:
            self._log(f"hunter_{s} reveals himself as the traitor")
            self._expose("reveal")

    def _ask_exit(self, s, stay):
        legal = B.NEIGH[self.vpos][:]
        if stay:
            legal.append(NO)
        self._set(H4, s + 1, sorted(legal))

    def _h_drive(self, action):
        ht = self.ht
        s = ht["seat"]
        d = B.road_distance(self.vpos, action)
        self.vpos = action
        self.vused += d
        self._log(f"vehicle driven to {B.name(action)}")
        if not ht["relay"] or self.riding[s]:
            ht["moved"] = d
        if self.riding[s]:
            self._ask_exit(s, stay=True)
        else:
            self._h_end_move()

    def _h_exit(self, action):
        ht = self.ht
        s = ht["seat"]
        if action != NO:
            self.riding[s] = False
            self.hpos[s] = action
            ht["moved"] += 1
            self._log(f"hunter_{s} exits to {B.name(action)}")
        self._h_end_move()

    def _fire_sensor(self, s):
        v = self.vpos
        self.sensor_v = v
        for a in self._agents_in_play():
            ag = self.ag[a]
            if ag.moved3:
                d = B.sensor_direction(v, ag.pos)
                self.pa[a].sensor = d
                self.bel[a].add(("sensor", v, d))
                self._log(f"sensor: {self.roles[ag.role]} {B.SENSOR_DIRS[d]} of {B.name(v)}")
            else:
                self.pa[a].sensor = 9
                self.bel[a].add(("sensor", v, -1))
                self._log(f"sensor: {self.roles[ag.role]} no motion")

    def _check(self, s, recovery=False):
        """End-of-move (or flash-recovery) visibility check of hunter s (§5.2 step 4)."""
        traitor = self._h_traitor if not self.exposed else -1
        hs = None
        for a in self._agents_in_play():
            pa = self.pa[a]
            if pa.public_now:
                continue  # C49
            ag = self.ag[a]
            sg = self._sight(s)
            hpos = self._hspace(s)
            es = (sg & BALL[2][hpos]) if ag.stealth else sg
            seen = -1
            if s != traitor and (es >> ag.pos) & 1:
                seen = ag.pos
            if hs is None:
                # every hunter's sight is needed only to prune traitor hypotheses (5p)
                hs = tuple((j, self._hspace(j), self._sight(j)) for j in range(self.nh) if self.hin[j]) if traitor >= 0 else ()
            prune = False
            if seen >= 0:
                self._reveal_char(a)
                pa.sight_cell = seen
                pa.sight_kind = SEEN
                pa.sight_round = self.round
                pa.public_now = True
                self._log(f"hunter_{s} sees {self.roles[ag.role]} at {B.name(seen)}")
                if a == 0 and traitor >= 0:
                    if self.hin[traitor] and (self._es(traitor, 0) >> seen) & 1:
                        self.expose_pending = True
                    else:
                        prune = True
            self.bel[a].add(("check", s, hpos, sg, seen, hs, prune))

    def _h_end_move(self):
        s = self.ht["seat"]
        self._check(s)
        if self.expose_pending:
            self.expose_pending = False
            self.ht["stage"] = 3
            self._expose("hunter_phase")
            return
        self.ht["stage"] = 3
        self._h_continue()

    def _visible_to(self, s):
        """Agents hunter s may attack now (§5.2 step 7, C61)."""
        if self.stunned[s] or self.riding[s]:
            return []
        traitor = self._h_traitor if not self.exposed else -1
        pos = self.hpos[s]
        out = []
        for a in self._agents_in_play():
            ag = self.ag[a]
            if s == traitor:
                ok = self.pa[a].public_now and (self._es(s, a) >> ag.pos) & 1
            else:
                ok = (self._es(s, a) >> ag.pos) & 1
            if ok and (not self.ht["walk5"] or ag.pos == pos):
                out.append(a)
        return out

    def _h_continue(self):
        ht = self.ht
        s = ht["seat"]
        traitor = self._h_traitor if not self.exposed else -1
        if ht["stage"] == 1:
            ht["stage"] = 2
            self._ask_main(s)
            return
        if not self.hin[s]:
            self._next_hunter()  # the acting hunter was revealed as the traitor
            return
        if ht["stage"] == 3:  # Beast's Enhanced Senses (C15, C44)
            ht["stage"] = 4
            ht["amb"] = 0
            moved = ht["moved"]
            if self.hchar[s] == BEAST and (moved <= 3 if self._senses_fewer else moved >= 3):
                bp = self._hspace(s)
                for a in self._agents_in_play():
                    close = B.dist(bp, self.ag[a].pos) <= 4
                    self.pa[a].close = int(close)
                    self.beast_pos = bp
                    z = BALL[4][bp]
                    self.bel[a].add(("keep", z if close else B.ALL & ~z, -2))
                    self._log(f"Beast senses: {self.roles[self.ag[a].role]} {'close' if close else 'not close'}")
        while ht["stage"] == 4:  # Cobra's Ambush (C31, C61)
            agents = self._agents_in_play()
            if ht["amb"] >= len(agents):
                ht["stage"] = 5
                break
            a = agents[ht["amb"]]
            ht["amb"] += 1
            ag = self.ag[a]
            if self.riding[s]:
                continue
            if ag.char == COBRA and s != traitor:
                hp = self.hpos[s]
                if hp == ag.pos:
                    self.stunned[s] = True
                    self._reveal_char(a)
                    self.bel[a].add(("keep", 1 << hp, s))
                    self._log(f"Cobra's Ambush stuns hunter_{s}")
                elif (ORTH[ag.pos] >> hp) & 1:
                    self.i1_a = a
                    self._set(I1, ag.role, [NO, YES])
                    return
            if self.pad_on:  # C58: every agent is asked after every move on foot
                self.i1_a = a
                self._set(I1, ag.role, [NO])
                return
        if ht["stage"] == 5:  # Brutal Strength (C14)
            ht["stage"] = 6
            if self.hchar[s] == BEAST and not self.riding[s] and not self.stunned[s] and s != traitor:
                for a in self._agents_in_play():
                    if self.ag[a].pos == self.hpos[s]:
                        if int(self.rng.integers(1, 7)) >= 5:
                            self._log("Brutal Strength hits")
                            self._damage(a)
                            if self.winner:
                                return
        if ht["stage"] == 6:  # Sniper Shot choice (C10)
            ht["stage"] = 7
            if self.hchar[s] == GUN and not self.stunned[s] and not self.riding[s] and not self._visible_to(s):
                self._set(H5, s + 1, [NO, DIR0, DIR0 + 1, DIR0 + 2, DIR0 + 3])
                return
        if ht["stage"] == 7:  # attack (C13, C61)
            ht["stage"] = 8
            targets = self._visible_to(s)
            if targets:
                legal = [CHAR0 + self.ag[a].char for a in targets]
                if s == traitor:
                    legal.append(NO)
                self._set(H6, s + 1, sorted(legal))
                return
        # end of turn: the stun token goes (§5.3)
        self.stunned[s] = False
        self._next_hunter()

    def _i1(self, action):
        s = self.ht["seat"]
        a = self.i1_a
        if action == YES:
            self._reveal_char(a)
            self.bel[a].add(("keep", ORTH[self.hpos[s]], s))
            r = int(self.rng.integers(1, 7))
            if r >= 4:
                self.stunned[s] = True
            self._log(f"Cobra's Ambush roll {r} against hunter_{s}")
        self._h_continue()

    def _h_attack_choice(self, action):
        if action == NO:
            self._h_continue()
            return
        s = self.ht["seat"]
        a = next(a for a in self._agents_in_play() if CHAR0 + self.ag[a].char == action)
        self.i2_a = a
        d = B.dist(self.hpos[s], self.ag[a].pos)
        self.att = (s, a, d)
        if d > 0 and self._offer_velocity(a, self.ag[a].pos, "attack"):
            return
        self._resolve_attack()
        if self.winner:
            return
        self._h_continue()

    def _resolve_attack(self):
        s, a, d = self.att
        if d == 0:
            hit = True
        else:
            total, miss = roll_attack(self.rng, 2 if self.hchar[s] == GUN else 1)
            if self.hchar[s] == PROPHET:
                total += 2
            total += self._defence(a, d)
            hit = not miss and total >= d
        self._log(f"hunter_{s} attacks at distance {d}: {'hit' if hit else 'miss'}")
        if hit:
            self._damage(a)
