"""The Game contract for Specter Ops: config, roles, set-up, masks and cloning, and
the glue to the other modules: the rules engine (``rules``, with ``board`` and
``belief``), the observation (``observe``), hidden keys and resampling (``resample``,
§6.2), invariants (``invariants``, §10.1) and labels, text and pictures (``render``)."""

from __future__ import annotations

from spyenvs.core import Game, Param
from spyenvs.core.info import Payoff

from . import INFO
from .data import AGENT_NAMES, DECISIONS, HUNTER_NAMES, NUM_ACTIONS
from .invariants import check_invariants
from .observe import build_layout, encode, static_planes, varying_columns
from .render import action_label, action_label_for, render_rgb, render_text, status_line
from .resample import hidden_key, resample_hidden
from .rules import SpecterOpsRules

_MUTABLE_LISTS = (
    "hchar", "hpos", "riding", "stunned", "blind", "sniper", "hin", "revoked", "acted", "votes",
    "smoke", "flash", "_h_obj", "completed", "events", "_taken", "escapes",
)


_TABLES: dict = {}


class SpecterOpsGame(SpecterOpsRules, Game):
    """Specter Ops: Shadow of Babel. Roles: ``agent``, ``hunter_0`` .. ``hunter_{k-1}``."""

    info = INFO
    team_kinds = ("hunter",)  # the hunters share a team reward (rules §8.1)
    decisions = DECISIONS
    SEQUENCE_LEAKING_OPTIONS = {"pad_agent_turn": False}  # her step count, A1, I1 ... (C58)
    # §4's table: 3 players differ from 2 only in who holds the two hunters (two players
    # or one), which the game never encodes; roles, observations, masks and turns match
    POLICY_EQUIVALENT_VALUES = {"num_players": {3: 2}}
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
            True, bool,
            doc="C58/§8.1: the sequence of acting seats (AEC agent_selection, public) depends only on public "
                "information: every agent turn and reveal sequence takes exactly 13 decisions in fixed phases "
                "(objective, card before, 6 movement slots, card after, report, Quick Draw, Pre-Cognition), "
                "forced passes filling what she skips, so every publication comes at a fixed slot; every agent "
                "is asked I1 after each hunter move on foot, I2 before each roll against her and A5 whenever "
                "the Prophet plays (forced passes when she cannot act). False: the faster variant (about half "
                "the decisions) that LEAKS through agent_selection her number of movement steps, whether she "
                "had an objective in reach (A1) or a usable card (A2/A4), her Pre-Cognition range (A5), "
                "whether a hunter ended next to Cobra (I1) and whether she holds an unspent Velocity Blade (I2)",
        ),
    }
    TEST_CONFIGS = [
        {"num_players": 2},
        {"num_players": 3, "hunter_order": "seat", "sniper_stacks_with_quick_draw": False},
        {"num_players": 4},
        {"num_players": 5},
        {"num_players": 2, "agent_character": "Cobra", "hunter_characters": "Gun,Beast", "belief_planes": False,
         "beast_senses": "3_or_more"},
        # the unpadded, leaky variant (opt-in)
        {"num_players": 2, "pad_agent_turn": False},
        {"num_players": 5, "pad_agent_turn": False},
        {"num_players": 2, "agent_character": "Cobra", "hunter_characters": "Gun,Prophet", "pad_agent_turn": False},
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
        self.sides_change = n == 5  # the traitor joins the agent's side when she deals his card (S4)
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
            lay = build_layout(self)
            static = static_planes(self, lay)
            _TABLES[key] = (lay, static, {name: b.start for name, b in lay.blocks.items()})
        self.layout, self._tables_key = _TABLES[key][0], key

    def varying_inputs(self):
        return varying_columns(self.layout, len(self.roles) - 1, self.config["num_players"] == 5)

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

    def sides(self):
        # §4: the traitor wins and loses with the agent from the deal on, disclosed or not
        traitor = getattr(self, "_h_traitor", -1)
        if traitor < 0:
            return self.starting_sides()
        return tuple(0 if p == 0 or p - 1 == traitor else 1 for p in range(len(self.roles)))

    def payoff(self):
        # the agent's side (and the traitor) +1 each, the hunters -1 each, or the
        # reverse: the sum depends on who won
        return Payoff(False, -1.0, 1.0)

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

    # ------------------------------------------------------------------ information
    def observe(self, player):
        return encode(self, player)

    def hidden_key(self, viewer):
        return hidden_key(self, viewer)

    def resample_hidden(self, viewer, rng):
        return resample_hidden(self, viewer, rng)

    def check_invariants(self):
        check_invariants(self)

    # ------------------------------------------------------------------ display
    def action_label(self, a):
        return action_label(self, a)

    def action_label_for(self, a, viewer):
        return action_label_for(self, a, viewer)

    def render_text(self, viewer=None, compact=False):
        """The map with its legend and the state lines; ``compact=True`` leaves out the
        32-row map (a status line instead), for the steps inside one turn."""
        return render_text(self, viewer, compact)

    def render_rgb(self, viewer=None):
        return render_rgb(self, viewer)

    def status_line(self, viewer=None):
        """One line: round, who is to move, hunters, vehicle, objectives, the viewer's agent."""
        return status_line(self, viewer)
