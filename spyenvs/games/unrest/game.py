"""The Game contract for Unrest: config, set-up, masks and cloning, and the glue to
the other modules: the rules engine (``rules``), the observation and its incremental
buffers (``observe``), hidden keys and resampling (``resample``, §5.4), invariants
(``invariants``, §5.5) and labels, text and pictures (``render``)."""

from __future__ import annotations

import numpy as np

from spyenvs.core import Game, Param

from . import INFO
from .invariants import check_invariants
from .observe import (
    block_offsets,
    build_layout,
    encode,
    move_handle,
    play_handle,
    rebuild_buffers,
    reveal_handle,
    sync_after,
    write_event,
)
from .rebuild import game_from_rebel_observation
from .render import action_label, action_label_for, render_rgb, render_text
from .resample import hidden_key, resample_hidden
from .rules import REBEL, UnrestRules


class UnrestGame(UnrestRules, Game):
    """Unrest: the Rebel liberates 3 of 5 districts through missions before the deck
    runs out; the Empire stops it with two of four power tokens per round."""

    info = INFO
    CONFIG = {
        "revolution_reusable": Param(False, bool, doc="C10: Revolution stays available after use"),
        "empire_can_target_area_district_cards": Param(
            False,
            bool,
            doc="C6/C22: Surveillance/Destroy/Redirect may also target cards in the area districts (§7.5 layout)",
        ),
        "include_mission_12": Param(False, bool, doc="C4/C16: add Coordinated Strike to the mission pool"),
        "revolution_threshold": Param(21, int, min=1, max=80, doc="§10: Revolution needs suit total >= this"),
        "final_encounter_one_faceup": Param(
            True, bool, doc="C11/C23: Final Encounter plays 1 face up if possible"
        ),
        "reveal_all_on_liberation": Param(
            True, bool, doc="C9/C23: a liberated district turns all its cards face up"
        ),
    }
    TEST_CONFIGS = [
        {},
        {"empire_can_target_area_district_cards": True},
        {
            "revolution_reusable": True,
            "include_mission_12": True,
            "revolution_threshold": 14,
            "final_encounter_one_faceup": False,
            "reveal_all_on_liberation": False,
        },
    ]
    rebuilds_from = ("rebel",)  # she sees every card but the deck's order (§5.1)
    BAD_CONFIGS = [
        {"revolution_threshold": 0},
        {"revolution_threshold": 100},
        {"revolution_reusable": "yes"},
        {"include_mission_12": 1},
        {"num_players": 3},
    ]

    # ---------------------------------------------------------------- set-up
    def _setup(self):
        self._setup_tables()
        self.layout = build_layout(self)
        self._enc, self._henc, self._fast = block_offsets(self.layout)

    def _new_game(self):
        self._deal()

    # the rules' hooks write observe.py's incremental buffers (called as methods)
    _obs_play = play_handle
    _obs_move = move_handle
    _obs_reveal = reveal_handle
    _obs_event = write_event
    _obs_sync = sync_after
    _obs_rebuild = rebuild_buffers

    def touch(self) -> None:
        """Forget cached decisions and rebuild the incremental observation buffers
        (call after editing the state by hand, as tests do)."""
        self._cache.mask = None
        rebuild_buffers(self)

    # ----------------------------------------------------------------- clone
    def clone(self) -> "UnrestGame":
        new = self._clone_into(object.__new__(type(self)))
        self._copy_rules_into(new)
        new._enc = self._enc
        new._henc = self._henc
        new._fast = self._fast
        return new

    # ------------------------------------------------------------ information
    def observe(self, player: int) -> np.ndarray:
        return encode(self, player)

    def hidden_key(self, viewer: int):
        return hidden_key(self, viewer)

    def resample_hidden(self, viewer: int, rng: np.random.Generator) -> "UnrestGame":
        return resample_hidden(self, viewer, rng)

    def from_observation(self, viewer: int, observation: np.ndarray, rng: np.random.Generator) -> "UnrestGame":
        if viewer != REBEL:
            raise ValueError("unrest_v0 rebuilds its state from the Rebel's observation only: the Empire's "
                             "hides her hand and the face-down cards")
        return game_from_rebel_observation(self, observation, rng)

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
