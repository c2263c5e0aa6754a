"""The Game contract for The Agents: config, roles, set-up, masks and cloning, and
the glue to the other modules: the rules engine (``rules``, with card data in
``data``), the observation (``observe``), hidden keys and resampling (``resample``,
with ``belief``, 6.1), invariants (``invariants``, 10) and labels, text and pictures
(``render``)."""

from __future__ import annotations

import numpy as np

from spyenvs.core import Game, Param
from spyenvs.core.info import Payoff

from . import INFO
from . import rules as R
from .invariants import check_invariants
from .observe import Encoder, build_layout, encode
from .render import action_label, action_label_for, render_rgb, render_text
from .resample import hidden_key, resample_hidden
from .rules import TheAgentsRules

_STATIC = ("N", "nf", "cap", "members", "own", "other_fac", "mindex", "n_mtypes", "n_missions",
           "n_agents", "immediate", "encoder")
_SCALARS = ("next_pool", "start", "active", "turns", "turn_decisions", "barred", "mhg_revealed",
            "over", "truncated", "decision", "decider", "_mask", "bv", "cv", "av", "mv",
            "clog", "clog_n", "clog_for")  # the card-event log is shared, copy on write


#: legal masks by their legal-action tuple (read-only arrays shared by all states)
_MASKS: dict[tuple, np.ndarray] = {}


class TheAgentsGame(TheAgentsRules, Game):
    """The Agents (Saar Shai, 2013), 2-5 players, rules file ``rules/the_agents.md``."""

    info = INFO
    decisions = R.DECISIONS
    CONFIG = {
        "num_players": Param(2, int, min=2, max=5, doc="number of players"),
        "end_rule": Param("immediate", str, choices=("immediate", "equal_turns"),
                          doc="5.4: win at once at 40 IP (C9), or play out the round (C10)"),
        "start_player": Param("seat0", str, choices=("seat0", "random"), doc="3.1 (C8)"),
        "max_turns": Param(400, int, min=1, optional=True, doc="player-turns before truncation (C38)"),
        "max_decisions_per_turn": Param(1000, int, min=1, optional=True,
                                        doc="decisions in one turn before truncation (C38)"),
        "moral_high_ground": Param(True, bool, doc="C2: include the Moral High Ground missions"),
        "dead_identities_visible": Param(True, bool, doc="C34/C51: show dead cards' types"),
    }
    TEST_CONFIGS = [
        {"num_players": 2},
        {"num_players": 4},
        {"num_players": 5},
        {"num_players": 3, "end_rule": "equal_turns", "start_player": "random"},
        {"num_players": 2, "moral_high_ground": False, "dead_identities_visible": False},
    ]
    BAD_CONFIGS = [
        {"num_players": 1},
        {"num_players": 6},
        {"end_rule": "sudden"},
        {"start_player": 3},
        {"max_turns": 0},
        {"moral_high_ground": "yes"},
        {"bogus": 1},
    ]

    def _setup(self):
        self._setup_tables()
        self.roles = tuple(f"player_{i}" for i in range(self.N))
        self.num_actions = R.NUM_ACTIONS
        self.layout = build_layout(self)
        self.encoder = Encoder(self)

    def _new_game(self):
        self._deal()
        self._set_mask()

    def _set_mask(self):
        key = tuple(self.legal)
        m = _MASKS.get(key)
        if m is None:
            m = np.zeros(R.NUM_ACTIONS, np.int8)
            if key:
                m[list(key)] = 1
            m.flags.writeable = False  # shared between states: never modified
            if len(_MASKS) < 100000:
                _MASKS[key] = m
        self._mask = m

    def _apply(self, action):
        self._apply_action(action)
        self._set_mask()

    # ------------------------------------------------------------- contract
    @property
    def current_player(self):
        return self.decider

    def legal_mask(self):
        return self._mask

    def decision_name(self):
        return "game_over" if self.over else R.DECISIONS[self.decision]

    @property
    def is_over(self):
        return self.over

    def outcome(self):
        if not self.over or self.truncated or not self.winners:
            return [0.0] * self.N
        return [1.0 if q in self.winners else -1.0 for q in range(self.N)]

    def payoff(self):
        # 'equal_turns' can end in a tie of several winners (+1 each)
        zero = self.N == 2 and self.config["end_rule"] == "immediate"
        return Payoff(zero, -1.0, 1.0)

    # ---------------------------------------------------------------- clone
    def clone(self):
        new = self._clone_into(object.__new__(TheAgentsGame))
        d = new.__dict__
        src = self.__dict__
        for k in _STATIC:
            d[k] = src[k]
        for k in _SCALARS:
            d[k] = src[k]
        new.deck_a = list(self.deck_a)
        new.deck_m = list(self.deck_m)
        new.ret_a = list(self.ret_a)
        new.ret_m = list(self.ret_m)
        new.hand_a = [list(h) for h in self.hand_a]
        new.hand_m = [list(h) for h in self.hand_m]
        new.cnt_a = [list(h) for h in self.cnt_a]
        new.cnt_m = [list(h) for h in self.cnt_m]
        new.na = list(self.na)
        new.fac = [list(r) for r in self.fac]
        new.att = [[list(a), list(b)] for a, b in self.att]
        new.ip = list(self.ip)
        new.transit = [list(e) for e in self.transit]
        new.tag_a = [list(t) for t in self.tag_a]
        new.tag_m = [list(t) for t in self.tag_m]
        new.reached = list(self.reached)
        new.winners = list(self.winners)
        new.stack = [list(fr) for fr in self.stack]
        new.legal = list(self.legal)
        return new

    # ------------------------------------------------------------ information
    def observe(self, player):
        return encode(self, player)

    def hidden_key(self, viewer):
        return hidden_key(self, viewer)

    def resample_hidden(self, viewer, rng):
        """6.1: a clone with everything hidden from ``viewer`` re-dealt from the exact
        posterior of its view of the history (``resample.py``, ``belief.py``)."""
        return resample_hidden(self, viewer, rng)

    def check_invariants(self):
        check_invariants(self)

    # ---------------------------------------------------------------- display
    def action_label(self, a):
        return action_label(self, a)

    def action_label_for(self, a, viewer):
        return action_label_for(self, a, viewer)

    def render_text(self, viewer=None):
        return render_text(self, viewer)

    def render_rgb(self, viewer=None):
        return render_rgb(self, viewer)
