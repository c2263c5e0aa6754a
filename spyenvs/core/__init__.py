"""Shared plumbing of spyenvs: the game contract, the PettingZoo adapter, config
parameters, observation layouts, records and errors."""

from .aec import SpyAECEnv
from .config import Param
from .errors import GameStateError, IllegalActionError, RecordError, SpyenvsError
from .game import Game, copy_rng
from .layout import Layout
from .records import load_record, save_record

__all__ = [
    "Game", "Param", "Layout", "SpyAECEnv", "IllegalActionError", "GameStateError",
    "RecordError", "SpyenvsError", "copy_rng", "load_record", "save_record",
]
