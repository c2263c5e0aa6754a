"""The Game contract for Spy Games: config, roles, set-up, masks and cloning, and the
glue to the other modules: the rules engine (``rules``), the observation
(``observe``), hidden keys and resampling (``resample``, §9.5), invariants
(``invariants``, §9.6) and labels, text and pictures (``render``). Dependency order:
data <- rules <- observe/resample/invariants/render <- game <- env."""

from __future__ import annotations

import numpy as np

from spyenvs.core import Game, Param

from . import INFO
from . import data as D
from .data import NUM_ACTIONS, S_OVER
from .invariants import check_invariants
from .observe import _perm, _Starts, build_layout, encode
from .render import action_label, action_label_for, render_rgb, render_text
from .resample import hidden_key, resample_hidden
from .rules import SpyGamesRules


class SpyGamesGame(SpyGamesRules, Game):
    """Spy Games for 2-4 players (rules/spy_games.md). Roles ``player_0`` ..
    ``player_{N-1}`` in clockwise seat order."""

    info = INFO
    SEQUENCE_LEAKING_OPTIONS = {"auto_forced_hidden": True}  # a one-kind hand skips the plan pick (§9.2)
    CONFIG = {
        "num_players": Param(4, int, choices=(2, 3, 4), doc="seated players (colours 0..N-1) [C42]"),
        "negotiation": Param("structured", str, choices=("structured", "off"), doc="§5 negotiation mode [C29]"),
        "allocation": Param("choose", str, choices=("choose", "fixed"), doc="10/8/6 zone allocation [C02]"),
        "reward": Param("win_loss", str, choices=("win_loss", "relative", "rank", "raw"), doc="terminal payoff [C41]"),
        "auto_forced": Param(
            True, bool,
            doc="resolve a decision with exactly one legal action without a step when its being forced is "
                "public (§9.2 Amendment): the plan pick of an infiltration is still asked unless the hand holds "
                "a single card",
        ),
        "auto_forced_hidden": Param(
            False, bool,
            doc="LEAKY, opt-in (needs auto_forced): also skip decisions forced only by the decider's hidden hand, "
                "i.e. the plan pick when every card in hand is one kind. This leaks through the public acting "
                "sequence (agent_selection): every player learns that the infiltrator's hand was all one kind, "
                "hence the exact plan card under the new spy (and the hand's kinds)",
        ),
        "pins_block": Param(True, bool, doc="include the private-memory (pins) observation block (§9.3)"),
    }
    TEST_CONFIGS = [
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 4, "negotiation": "off", "pins_block": False},
        {"num_players": 3, "allocation": "fixed", "auto_forced": False, "reward": "rank"},
        {"num_players": 2, "auto_forced_hidden": True},
    ]
    BAD_CONFIGS = [
        {"num_players": 5},
        {"num_players": 1},
        {"negotiation": "open"},
        {"allocation": "random"},
        {"reward": "score"},
        {"auto_forced": 1},
        {"auto_forced": False, "auto_forced_hidden": True},
        {"nonsense": 1},
    ]

    # ------------------------------------------------------------------ set-up
    def _setup(self):
        n = self.n = self.config["num_players"]
        self.roles = tuple(f"player_{i}" for i in range(n))
        self.num_actions = NUM_ACTIONS
        self.structured = self.config["negotiation"] == "structured"
        self.auto_forced = self.config["auto_forced"]
        self.auto_forced_hidden = self.config["auto_forced_hidden"]
        if self.auto_forced_hidden and not self.auto_forced:
            raise ValueError(f"{self.env_id}: auto_forced_hidden=True is allowed only with auto_forced=True")
        self.layout = build_layout(self)
        self._slices = self.layout.slices()
        self._starts = _Starts(self.layout)
        self._starts.perms = [_perm(self, v) for v in range(n)]
        self._mask = None

    # -------------------------------------------------------------- contract
    @property
    def current_player(self) -> int:
        return self.decider

    @property
    def is_over(self) -> bool:
        return self.stage == S_OVER

    def decision_name(self) -> str:
        return "game_over" if self.stage == S_OVER else D.STAGE_NAMES[self.stage]

    def legal_mask(self) -> np.ndarray:
        m = self._mask
        if m is None:
            m = self._mask = self._build_mask()
        return m

    def _apply(self, action: int) -> None:
        self._mask = None
        self._do(action)
        self._settle()

    # ----------------------------------------------------------------- clone
    #: flat list fields (copied with [:]) and nested ones (a copy per row) of the state
    _FLAT = ("alloc_chosen", "removed", "hsize", "disc_up", "komp", "immune", "queue", "cf_up", "cf_added",
             "cf_addrev", "cf_total", "cf_a1", "cf_kplay", "cf_offer")
    _NESTED = ("zone", "init", "base", "spy_loc", "spy_c", "spy_str", "spy_ks")

    def clone(self) -> "SpyGamesGame":
        new = object.__new__(type(self))
        d = new.__dict__
        d.update(self.__dict__)  # scalars, tuples and shared static tables
        self._clone_into(new)
        src = self.__dict__
        for key in self._FLAT:
            d[key] = src[key][:]
        for key in self._NESTED:
            d[key] = [row[:] for row in src[key]]
        new.h = self.h.clone()
        new.pub = self.pub[:]
        new._mask = self._mask  # read-only by contract; rebuilt (new array) on the next change
        return new

    # ------------------------------------------------------------ information
    def observe(self, player: int) -> np.ndarray:
        return encode(self, player)

    def hidden_key(self, viewer: int):
        return hidden_key(self, viewer)

    def resample_hidden(self, viewer: int, rng: np.random.Generator) -> "SpyGamesGame":
        return resample_hidden(self, viewer, rng)

    def check_invariants(self) -> None:
        check_invariants(self)

    # ---------------------------------------------------------------- display
    def action_label(self, a: int) -> str:
        return action_label(self, a)

    def action_label_for(self, a: int, viewer: int | None) -> str:
        return action_label_for(self, a, viewer)

    def render_text(self, viewer: int | None = None) -> str:
        return render_text(self, viewer)

    def render_rgb(self, viewer: int | None = None) -> np.ndarray:
        return render_rgb(self, viewer)
