"""The SpecterOps game class: config, roles, the contract plumbing around the rules
engine (clone, hidden keys, resampling per §6.2, invariants per §10.1, labels)."""

from __future__ import annotations

import numpy as np

from spyenvs.core import Game, Param

from . import board as B
from .belief import ORTH, apply_event
from .data import (
    A1, A2, A2T, A3, A4, A5, AGENT_NAMES, BLUEJAY, CARD0, CARD_NAMES, CHAR0, CHARGES, COBRA,
    COPIES, DECISIONS, DIR0, DRIVE, ENTER, EXIT, H0, H1, H2, H2V, H3, H4, H5, H6, HUNTER_NAMES, I1, I2,
    NO, NUM_ACTIONS, ORANGUTAN, PAD, POSTCOG, REVEAL, S1, S3, SEAT0, SENSOR, STEALTH, SURGE, VELOCITY,
    X1, X2, YES, usable_by,
)
from .observe import build_layout, observe
from .render import render_rgb, render_text
from .rules import Rules

_MUTABLE_LISTS = (
    "hchar", "hpos", "riding", "stunned", "blind", "sniper", "hin", "revoked", "acted", "votes",
    "smoke", "flash", "_h_obj", "completed", "events", "_taken", "escapes",
)


_TABLES: dict = {}
#: decisions whose chosen action every role sees (hunters' moves are public, §6)
_PUBLIC_HUNTER_DECISIONS = frozenset((S1, H1, H2, H2V, H3, H4, H5, H6))


class SpecterOps(Rules, Game):
    """Specter Ops: Shadow of Babel. Roles: ``agent``, ``hunter_0`` .. ``hunter_{k-1}``."""

    env_id = "specter_ops_v0"
    CONFIG = {
        "num_players": Param(2, int, choices=(2, 3, 4, 5), doc="rulebook player count: 1 agent vs 2, 2, 3, 4 hunters"),
        "agent_character": Param(None, str, choices=AGENT_NAMES, optional=True, doc="fix the agent (None: she chooses, S2)"),
        "hunter_characters": Param(
            None, str, optional=True,
            doc="comma-separated hunter characters in seat order, e.g. 'Beast,Gun' (None: chosen in S1)",
        ),
        "hunter_order": Param("choose", str, choices=("choose", "seat"), doc="C33: hunters pick who acts next, or fixed seat order"),
        "sniper_stacks_with_quick_draw": Param(True, bool, doc="C10: Sniper Shot damage stacks with Quick Draw"),
        "beast_senses": Param(
            "3_or_fewer", str, choices=("3_or_fewer", "3_or_more"),
            doc="Enhanced Senses trigger: the printed English card (rules file) or the Italian seed's '3 or more'",
        ),
        "belief_planes": Param(True, bool, doc="include the hunters' belief planes in observations"),
        "max_rounds": Param(40, int, min=1, max=40, doc="rounds before the hunters win (40 in the rules)"),
        "pad_agent_turn": Param(
            False, bool,
            doc="C58/§8.1: make the sequence of acting seats independent of hidden choices: every agent "
                "turn (and reveal sequence) is padded with forced passes to 13 decisions, and every agent "
                "is asked I1 after each hunter move on foot and I2 before each roll against her (a forced "
                "pass when she cannot act). Off by default: 2.1-2.7x the decisions per game "
                "(measured in random play) for a leak that exists only if a learner reads the "
                "agent_selection history; observations never show it",
        ),
    }
    TEST_CONFIGS = [
        {"num_players": 2},
        {"num_players": 3, "hunter_order": "seat", "sniper_stacks_with_quick_draw": False},
        {"num_players": 4},
        {"num_players": 5},
        {"num_players": 2, "agent_character": "Cobra", "hunter_characters": "Gun,Beast", "belief_planes": False,
         "beast_senses": "3_or_more"},
        {"num_players": 5, "pad_agent_turn": True},
    ]
    BAD_CONFIGS = [
        {"num_players": 6},
        {"agent_character": "Batman"},
        {"hunter_order": "random"},
        {"max_rounds": 0},
        {"hunter_characters": "Beast,Beast"},
        {"num_players": 3, "hunter_characters": "Beast"},
    ]

    def _setup(self):
        cfg = self.config
        n = cfg["num_players"]
        nh = {2: 2, 3: 2, 4: 3, 5: 4}[n]
        self.roles = ("agent",) + tuple(f"hunter_{i}" for i in range(nh))
        self.num_actions = NUM_ACTIONS
        self._fixed_agent = AGENT_NAMES.index(cfg["agent_character"]) if cfg["agent_character"] else -1
        self._fixed_hunters = None
        if cfg["hunter_characters"] is not None:
            names = [x.strip() for x in cfg["hunter_characters"].split(",")]
            ok = len(names) == nh and len(set(names)) == nh and all(x in HUNTER_NAMES for x in names)
            if not ok:
                raise ValueError(
                    f"{self.env_id}: invalid value {cfg['hunter_characters']!r} for config 'hunter_characters'; "
                    f"allowed: {nh} distinct names from {', '.join(HUNTER_NAMES)}, comma-separated, or None"
                )
            self._fixed_hunters = tuple(HUNTER_NAMES.index(x) for x in names)
        key = (n >= 4, cfg["belief_planes"])
        if key not in _TABLES:
            # static planes and block offsets live outside the state (cheap clones and pickles)
            lay, static = build_layout(B.bits(B.ESCAPES + (B.ESCAPE_EXTRA if n >= 4 else [])), cfg["belief_planes"])
            _TABLES[key] = (lay, static, {name: b.start for name, b in lay.blocks.items()})
        self.layout, self._tables_key = _TABLES[key][0], key

    @property
    def _static(self):
        return _TABLES[self._tables_key][1]

    @property
    def _starts(self):
        return _TABLES[self._tables_key][2]

    def _new_game(self):
        self._new_state()

    # ------------------------------------------------------------------ contract
    @property
    def current_player(self):
        return self.actor

    def legal_mask(self):
        return self.mask

    def decision_name(self):
        return DECISIONS[self.dec]

    @property
    def is_over(self):
        return self.winner is not None

    def outcome(self):
        agents_win = self.winner == "agents"
        out = []
        for p in range(len(self.roles)):
            on_agent_side = p == 0 or (p - 1 == self._h_traitor)
            out.append(1.0 if agents_win == on_agent_side else -1.0)
        return out

    def observe(self, p):
        return observe(self, p)

    def render_text(self, viewer=None):
        return render_text(self, viewer)

    def render_rgb(self, viewer=None):
        return render_rgb(self, viewer)

    # ------------------------------------------------------------------ clone
    def clone(self):
        new = self._clone_into(object.__new__(type(self)))
        d = new.__dict__
        for k, v in self.__dict__.items():
            if k not in d:
                d[k] = v
        for k in _MUTABLE_LISTS:
            d[k] = list(self.__dict__[k])
        new.ag = [a.copy() for a in self.ag]
        new.pa = [p.copy() for p in self.pa]
        new.bel = [b.copy() if b is not None else None for b in self.bel]
        new._obs_cache = {}  # never shared: clones diverge
        new._obs_common = None
        if self.ht is not None:
            new.ht = dict(self.ht)
        if self.tr is not None:
            new.tr = dict(self.tr)
        return new

    # ------------------------------------------------------------------ hidden information
    def _viewer_kind(self, p):
        if p == 0:
            return "agent"
        if self.exposed and p == self.traitor_role:
            return "second"
        return "hunter"

    def hidden_key(self, viewer):
        kind = self._viewer_kind(viewer)
        rng_state = self.rng.bit_generator.state["state"]["state"] if self.rng is not None else 0
        parts = [rng_state]

        def agent_key(ag):
            return (ag.char, ag.pos, ag.hp, tuple(map(tuple, ag.hand)), tuple(ag.path), ag.steps,
                    ag.stealth, ag.velocity, ag.holo, ag.holo_used, tuple(ag.history[-3:]), ag.moved3)

        if kind != "agent":
            parts.append(agent_key(self.ag[0]))
            if self.big:
                parts.append(tuple(self._h_obj))
            if kind == "hunter" and viewer - 1 != self._h_traitor:
                parts.append(self._h_traitor)
        if len(self.ag) > 1 and kind != "second":
            parts.append(agent_key(self.ag[1]))
        return tuple(parts)

    def resample_hidden(self, viewer, rng):
        new = self.clone()
        kind = self._viewer_kind(viewer)
        padding = new.pad_saved is not None
        if padding:  # re-deal against the decision the passes delay, then delay it again
            new.dec, new.actor, new.legal, new.mask = new.pad_saved
        if self.winner is None:
            if kind != "agent" and self.round == 0:
                new._resample_setup(viewer, rng)
            elif kind != "agent":
                new._resample_main(viewer, rng)
            if len(self.ag) > 1 and kind != "second":
                new._resample_second(rng)
            if new.pad_on and new.dec == I1:
                new._set(I1, new.actor, new._i1_legal())
            elif new.pad_on and new.dec == I2:
                new._set(I2, new.actor, new._i2_legal())
        if padding:
            new.pad_saved = (new.dec, new.actor, new.legal, new.mask)
            new._set(PAD, new.pad_actor, [NO])
        new.rng = np.random.default_rng(int(rng.integers(2**63)))
        return new

    # ---- setup phase (before round 1): only the agent's choices and the dice are hidden
    def _resample_setup(self, viewer, rng):
        ag = self.ag[0]
        if self.big:
            self._h_obj = [B.OBJECTIVES[s][int(rng.integers(0, 6))] for s in range(4)]
        if ag.char < 0:
            return
        if self._fixed_agent < 0:
            self._set_agent_char(int(rng.integers(0, 4)))
        n = len(ag.hand)
        self._taken = [0] * 8
        ag.hand = []
        for _ in range(n):
            opts = [t for t in range(8) if self._taken[t] < COPIES[t] and usable_by(t, ag.char)]
            self._take_card(0, opts[int(rng.integers(0, len(opts)))])
        if self.dec == S3:
            self._ask_card()

    # ---- main agent (§6.2 for a loyal hunter, the traitor or the second agent)
    def _resample_main(self, viewer, rng):
        ag = self.ag[0]
        pa = self.pa[0]
        bel = self.bel[0]
        kind = self._viewer_kind(viewer)
        mid_turn = self.cur == 0 and self.dec in (A1, A2, A2T, A3, A4) and self.tr is not None and self.round >= 1
        # 1. traitor seat (mid-turn: only seats whose branch fits this turn's public
        # pre-move facts, e.g. a card placement not yet folded into the belief)
        if self._h_traitor >= 0 and not self.exposed and kind == "hunter" and viewer - 1 != self._h_traitor:
            opts = [j for j in bel.hyps if j >= 0 and j != viewer - 1
                    and (not mid_turn or self._mid_turn_cells(bel.hyps[j]))]
            self._h_traitor = opts[int(rng.integers(0, len(opts)))]
            if self.dec in (H2, H2V) and self.actor != viewer:
                self._ask_main(self.actor - 1)  # REVEAL belongs to the new traitor's mask
        j = self._h_traitor if (self._h_traitor >= 0 and not self.exposed) else -1
        branches = bel.hyps[j]
        # 2. character (the second agent saw the box at X1/X2, so he knows her cards and character)
        if kind == "second":
            char = ag.char
        elif pa.char_known >= 0:
            char = pa.char_known
        elif self.dec == I1 and self.i1_a == 0 and not self.pad_on:
            char = COBRA
        else:
            opts = [c for c in range(4) if not (len(self.ag) > 1 and self.pa[1].char_known == c)]
            if self._fixed_agent >= 0:
                opts = [self._fixed_agent]
            char = opts[int(rng.integers(0, len(opts)))]
        # 3. position (and card branch)
        if mid_turn:
            cells = B.cells_of(self._mid_turn_cells(branches))
            x = cells[int(rng.integers(0, len(cells)))]
            stealth_hp = None
            moved3 = ag.moved3
        else:
            cand = 0
            for L, M, _ in branches:
                cand |= L | M
            if self.dec == I1 and self.i1_a == 0 and not self.pad_on:
                cand &= ORTH[self.hpos[self.ht["seat"]]]
            if self.dec == A5 and self.cur == 0:
                cand &= self._objective_zone(char)
            cells = B.cells_of(cand)
            x = cells[int(rng.integers(0, len(cells)))]
            opts = [(L, M, st) for L, M, st in branches if ((L | M) >> x) & 1]
            L, M, stealth_hp = opts[int(rng.integers(0, len(opts)))]
            inl, inm = (L >> x) & 1, (M >> x) & 1
            moved3 = bool(inm) if inl != inm else bool(rng.integers(0, 2))
        # 4. objectives (4-5p: hidden from hunters and from the second agent)
        if self.big:
            rng_range = 2 if char == BLUEJAY else 1
            need = self.precog or (self.dec == A5 and self.cur == 0)
            for s in range(4):
                if s not in self.completed:
                    self._h_obj[s] = B.OBJECTIVES[s][int(rng.integers(0, 6))]
            if need:
                pairs = [(s, o) for s in range(4) if s not in self.completed for o in B.OBJECTIVES[s]
                         if B.dist(x, o) <= rng_range]
                if pairs:
                    s, o = pairs[int(rng.integers(0, len(pairs)))]
                    self._h_obj[s] = o
        # 5. hand
        stealth_now = bool(stealth_hp) if stealth_hp is not None else False
        other = self.ag[1].physical() if len(self.ag) > 1 else [0] * 8
        if kind == "second":
            hand, spent = ag.hand, ag.spent
        else:
            hand, spent = self._draw_hand(char, pa, rng, stealth_now, mid_turn, other, pa.ncards)
        # write back
        ag.char = char
        base = 6 if char == ORANGUTAN else 4
        if self.config["num_players"] == 4:
            base += 2
        ag.maxhp = base
        ag.hp = max(1, base - pa.damage)
        ag.hand = hand
        ag.spent = spent
        self._recount_taken()
        ag.holo = -1
        ag.holo_used = False
        ag.moved3 = moved3
        # 6. trajectory: the latest positions, drawn backwards (§6.2 step 6)
        ag.pos = x
        if mid_turn:
            ag.history[-1] = x
            self._restart_turn(rng)
            last = self.round - 1
        else:
            ag.path = [x]
            ag.stealth = stealth_now
            ag.stealth_path = False
            ag.velocity = False
            if len(ag.history) > self.round:
                ag.history[self.round] = x
                last = self.round
            elif self.round in bel.snaps:
                last = self.round  # her turn is published but not yet recorded (A5, I2)
            else:
                ag.history[-1] = x
                last = self.round - 1
        self._resample_history(rng, j, last, x, classed=not mid_turn)
        if self.dec == I2 and not self.pad_on and (
                (self.i2_ctx == "quickdraw" and self.cur == 0) or (self.i2_ctx == "attack" and self.i2_a == 0)):
            if ag.charges(VELOCITY) == 0:
                self._force_card(ag, VELOCITY)
            ag.velocity = False

    def _mid_turn_cells(self, branches):
        """Bitset of her possible start cells this turn: the branches' cells that fit
        the turn's public facts so far (objective completed, card placement)."""
        tr = self.tr
        S = 0
        for L, M, _ in branches:
            S |= L | M
        if tr["obj"] >= 0:
            S &= B.BALL[2 if tr["bj"] else 1][tr["obj"]]
        return S & tr["pre_mask"]

    def _objective_zone(self, char):
        r = 2 if char == BLUEJAY else 1
        z = 0
        for s in range(4):
            if s in self.completed:
                continue
            for o in (B.OBJECTIVES[s] if self.big else [self._h_obj[s]]):
                z |= B.BALL[r][o]
        return z

    def _recount_taken(self):
        t = [0] * 8
        for ag in self.ag:
            for k, n in enumerate(ag.physical()):
                t[k] += n
        self._taken = t

    def _draw_hand(self, char, pa, rng, stealth_now, mid_turn, other, ncards):
        """Revealed cards as published, one spent card per rotated use, the rest
        drawn uniformly from the physical cards her character may hold (§6.2 step 5).
        ``other`` counts the cards the other agent holds. Returns (hand, spent)."""
        taken = list(other)
        hand, spent = [], []
        for t in range(8):
            u = pa.uses[t]
            if not u:
                continue
            if CHARGES[t] == 2:
                taken[t] += 1
                if u < 2:
                    hand.append([t, 2 - u])
                else:
                    spent.append(t)
            else:
                taken[t] += u
                spent += [t] * u
        for k, (rnd, window) in enumerate(pa.rotated):
            if window == 1:
                t = STEALTH
            elif rnd == self.round and k == len(pa.rotated) - 1 and not mid_turn:
                t = STEALTH if stealth_now else SURGE
            else:
                t = SURGE if rng.integers(0, 2) else STEALTH
            if taken[t] >= COPIES[t]:
                t = STEALTH if t == SURGE else SURGE
            taken[t] += 1
            spent.append(t)
        while len(hand) + len(spent) < ncards:
            opts = [t for t in range(8) if taken[t] < COPIES[t] and usable_by(t, char) and pa.uses[t] == 0]
            if not opts:
                break
            t = opts[int(rng.integers(0, len(opts)))]
            taken[t] += 1
            hand.append([t, CHARGES[t]])
        return hand, spent

    def _force_card(self, ag, t):
        generic = [i for i, c in enumerate(ag.hand) if c[0] not in (t,)]
        if generic:
            ag.hand[generic[0]] = [t, CHARGES[t]]
        else:
            ag.hand.append([t, CHARGES[t]])
        self._recount_taken()

    def _restart_turn(self, rng):
        """Mid-turn resample: the turn restarts after its public pre-move part."""
        ag = self.ag[0]
        tr = self.tr
        ag.path = [ag.pos]
        ag.steps = 0
        ag.max_steps = 4
        ag.stealth = ag.stealth_path = False
        ag.window = 0
        ag.pending_card = -1
        if tr["visible_card"]:
            ag.card_used = True
            if tr["rotated"] == 1:
                if rng.integers(0, 2):
                    ag.max_steps = 6
                else:
                    ag.stealth = ag.stealth_path = True
            self._a_ask_step()
        else:
            ag.card_used = False
            s = self._eligible_objective()
            from .data import PROPHET

            if tr["obj"] < 0 and s >= 0 and self._has_hunter(PROPHET) < 0:
                self._set(A1, ag.role, [NO, YES])
            else:
                self._a_before()

    def _resample_history(self, rng, j, last, x, classed=False):
        """Redraw her cells after turns last-1 and last-2 backwards from x (her cell
        after turn ``last``) so that each turn's published events lead there."""
        ag = self.ag[0]
        bel = self.bel[0]
        for t in range(last, max(0, last - 2), -1):
            if t not in bel.snaps or t - 1 < 0:
                break
            idx, hyps = bel.snaps[t]
            end = bel.snaps[t + 1][0] if (t + 1) in bel.snaps else len(bel.log)
            prev = 0
            key = j if j in hyps else self._h_traitor
            for L, M, _ in hyps.get(key, ()):
                prev |= L | M
            cells = B.cells_of(prev)
            order = rng.permutation(len(cells))
            chosen = cells[int(order[0])] if cells else x
            for k in order:
                y = cells[int(k)]
                h = {key: (((1 << y), 0, False),)}
                for ev in bel.log[idx:end]:
                    h = apply_event(h, ev, bel.known)
                    if not h:
                        break
                u = 0
                for L, M, st in h.get(key if key in h else -1, ()):
                    if t == last and classed:
                        # her latest cell must also keep its movement class and Stealth
                        # flag: answers still to come (motion sensor, sightings) use them
                        if st == ag.stealth:
                            u |= M if ag.moved3 else L
                    else:
                        u |= L | M
                if (u >> x) & 1:
                    chosen = y
                    break
            if t - 1 >= 1:
                ag.history[t - 1] = chosen
            x = chosen

    # ---- revealed second agent (C65)
    def _resample_second(self, rng):
        ag = self.ag[1]
        pa = self.pa[1]
        if self.dec in (X1, X2) or ag.char < 0:
            # restart the reveal sequence: his choices are private
            ag.char = -1
            ag.hand = []
            ag.spent = []
            self._recount_taken()
            self._set(X1, ag.role, [CHAR0 + c for c in range(4) if c != self.ag[0].char])
            return
        at_ambush = self.dec == I1 and self.i1_a == 1 and not self.pad_on
        if pa.char_known >= 0:
            ag.char = pa.char_known
        elif at_ambush:
            ag.char = COBRA  # only Cobra is asked about an Ambush roll
        else:
            opts = [c for c in range(4) if c != self.ag[0].char]
            ag.char = opts[int(rng.integers(0, len(opts)))]
        ag.maxhp = 6 if ag.char == ORANGUTAN else 4
        ag.hp = max(1, ag.maxhp - pa.damage)
        bel = self.bel[1]
        cand = bel.union()
        mid = self.cur == 1 and self.dec in (A2, A2T, A3, A4) and self.tr is not None
        stealth_now = False
        if mid:
            cells = B.cells_of(cand & self.tr["pre_mask"])
            x = cells[int(rng.integers(0, len(cells)))]
        else:
            if at_ambush:
                cand &= ORTH[self.hpos[self.ht["seat"]]]
            cells = B.cells_of(cand)
            x = cells[int(rng.integers(0, len(cells)))]
            opts = [(L, M, st) for L, M, st in bel.hyps[-1] if ((L | M) >> x) & 1]
            L, M, st = opts[int(rng.integers(0, len(opts)))]
            stealth_now = st
            inl, inm = (L >> x) & 1, (M >> x) & 1
            ag.moved3 = bool(inm) if inl != inm else bool(rng.integers(0, 2))
        ag.hand, ag.spent = self._draw_hand(ag.char, pa, rng, stealth_now, mid, self.ag[0].physical(), 2)
        self._recount_taken()
        ag.pos = x
        ag.path = [x]
        ag.holo = -1
        ag.velocity = False
        ag.stealth = stealth_now
        ag.stealth_path = False
        if self.pad_on:
            pass  # I2 may be a forced pass: its mask is rebuilt from the re-dealt state
        elif self.dec == I2 and self.i2_ctx == "attack" and self.i2_a == 1 and ag.charges(VELOCITY) == 0:
            self._force_card(ag, VELOCITY)
        elif self.dec == I2 and self.i2_ctx == "quickdraw" and self.cur == 1 and ag.charges(VELOCITY) == 0:
            self._force_card(ag, VELOCITY)
        if mid:
            ag.steps = 0
            ag.max_steps = 4
            ag.window = 0
            ag.pending_card = -1
            ag.stealth = ag.stealth_path = False
            if self.xmove:
                ag.card_used = True
                self._a_ask_step()
            elif self.tr["visible_card"]:
                ag.card_used = True
                if self.tr["rotated"] == 1:
                    if rng.integers(0, 2):
                        ag.max_steps = 6
                    else:
                        ag.stealth = ag.stealth_path = True
                self._a_ask_step()
            else:
                ag.card_used = False
                self._a_before()

    # ------------------------------------------------------------------ invariants (§10.1)
    def check_invariants(self):
        assert 0 <= self.round <= self.config["max_rounds"]
        assert self.winner is not None or self.legal
        for s in range(self.nh):
            if not self.hin[s]:
                assert self.hpos[s] == -1 and not self.riding[s]
                continue
            if self.round == 0:
                continue
            if self.riding[s]:
                assert self.hpos[s] == -1
            else:
                assert (B.OPEN >> self.hpos[s]) & 1, "hunter off the open cells"
        assert (B.ROAD >> self.vpos) & 1, "vehicle off road"
        assert 0 <= self.vused <= 10
        assert len(self.smoke) <= 2 and len(self.flash) <= 2
        for t in range(8):
            assert self._taken[t] <= COPIES[t]
        if self.round == 0:
            return
        assert 0 <= len(self.completed) <= 4
        for a, ag in enumerate(self.ag):
            if not ag.in_play or ag.char < 0:
                continue
            assert (B.OPEN >> ag.pos) & 1
            assert self.winner is not None or 1 <= ag.hp <= ag.maxhp, "HP out of range"
            assert self.pa[a].damage >= ag.maxhp - ag.hp
            assert ag.steps <= ag.max_steps <= 6
            for t, ch in ag.hand:
                assert usable_by(t, ag.char) and 0 < ch <= CHARGES[t]
            if self.bel[a] is None:
                continue
            j = self._h_traitor if (a == 0 and self._h_traitor >= 0 and not self.exposed) else -1
            pre = self.cur == a and self.dec in (A1, A2, A2T, A3, A4) and self.winner is None
            if a == 1 and self.dec in (X1, X2):
                pre = True
            cell = ag.path[0] if pre else ag.pos
            u = 0
            for L, M, _ in self.bel[a].hyps.get(j, ()):
                u |= L | M
            assert (u >> cell) & 1, f"true cell {B.name(cell)} outside the belief of agent {a}"

    # ------------------------------------------------------------------ labels
    def action_label_for(self, action, viewer):
        """C58: another role sees a hunter's public move (character pick, turn order,
        walk, drive, exit, sniper, attack) as it is, but never the name of an agent's
        sub-step or a secret vote: those show only as who acts."""
        actor = self.actor
        if viewer is None or viewer == actor:
            return self.action_label(action)
        if self._viewer_kind(actor) == "hunter" and self.dec in _PUBLIC_HUNTER_DECISIONS:
            return self.action_label(action)
        if self.dec == H0:
            return "(secret vote)"
        return "(agent acts)" if self._viewer_kind(actor) == "agent" else "(second agent acts)"

    def action_label(self, a):
        a = int(a)
        dec = self.dec
        if a < 736:
            verb = {A3: "step to", H2: "walk to", H3: "drive to", H4: "exit to", A2T: "target"}.get(dec, "cell")
            return f"{verb} {B.name(a)}"
        if a == NO:
            return {A3: "stop", H4: "stay inside", H5: "no sniper shot", PAD: "pass (padding)"}.get(dec, "no / pass")
        if a == YES:
            return "yes"
        if DIR0 <= a < DIR0 + 4:
            return "sniper " + "NESW"[a - DIR0]
        if CARD0 <= a < CARD0 + 8:
            return CARD_NAMES[a - CARD0]
        if SEAT0 <= a < SEAT0 + 4:
            return f"hunter_{a - SEAT0}"
        if CHAR0 <= a < CHAR0 + 4:
            if dec in (H6,):
                return f"attack {AGENT_NAMES[a - CHAR0]}"
            names = HUNTER_NAMES if dec == 0 else AGENT_NAMES
            return names[a - CHAR0]
        return {SENSOR: "motion sensor", DRIVE: "drive", EXIT: "exit vehicle", ENTER: "enter vehicle",
                POSTCOG: "Post-Cognition", REVEAL: "reveal as traitor"}.get(a, f"reserved {a}")

