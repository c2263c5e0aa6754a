"""Registry of env ids, and what needs it: making games by id and replaying records.

One line per game, naming its package. The package's ``INFO``
(:class:`spyenvs.core.info.GameInfo`) gives the env id, the PettingZoo id and the
other facts; its ``env`` module exposes ``GAME`` (the Game class), ``env(**kwargs)``
and ``raw_env(**kwargs)``. Adding a line here puts the game under the conformance
suite, the bench, the docs and the CLI."""

from __future__ import annotations

import importlib
from typing import Any

from .core.aec import ADAPTER_KWARGS as ADAPTER_KWARGS  # re-exported: defined with the adapter
from .core.errors import IllegalActionError, RecordError
from .core.info import GameInfo
from .core.records import validate_record

#: the game packages, in the order the CLI, the docs and the bench list them
GAME_PACKAGES = (
    "spyenvs.games.specter_ops",
    "spyenvs.games.the_agents",
    "spyenvs.games.spy_games",
    "spyenvs.games.unrest",
)

#: env id -> the game's declaration; env id -> its env module. Only the packages'
#: ``__init__`` is imported here, so no game module loads until an env is made.
_INFOS: dict[str, GameInfo] = {}
_ENV_MODULES: dict[str, str] = {}


def _add_game(package: str) -> GameInfo:
    """Read a game package's ``INFO`` and file the game under its env id."""
    info = importlib.import_module(package).INFO
    if not isinstance(info, GameInfo):
        raise TypeError(f"{package}.INFO must be a spyenvs.core.info.GameInfo, got {type(info).__name__}")
    _INFOS[info.env_id] = info
    _ENV_MODULES[info.env_id] = f"{package}.env"
    return info


for _package in GAME_PACKAGES:
    _add_game(_package)

ENV_IDS: tuple[str, ...] = tuple(_INFOS)

#: the PettingZoo registry id of each env id: ``pettingzoo.make("aec", id, **config)``
PETTINGZOO_IDS: dict[str, str] = {env_id: info.pettingzoo_id for env_id, info in _INFOS.items()}


def _check(env_id: str) -> None:
    if env_id not in _ENV_MODULES:
        raise ValueError(f"unknown env id {env_id!r}; available: {', '.join(ENV_IDS)}")


def game_info(env_id: str) -> GameInfo:
    """What the game of ``env_id`` says about itself."""
    _check(env_id)
    return _INFOS[env_id]


def env_module(env_id: str):
    _check(env_id)
    return importlib.import_module(_ENV_MODULES[env_id])


def game_class(env_id: str):
    return env_module(env_id).GAME


def make_game(env_id: str, **config):
    """The bare game (no PettingZoo), for search, tests and tools."""
    return game_class(env_id)(**config)


def make(env_id: str, **kwargs):
    """A PettingZoo AEC env (wrapped like PettingZoo classic envs)."""
    return env_module(env_id).env(**kwargs)


def make_raw(env_id: str, **kwargs):
    """The unwrapped AEC env."""
    return env_module(env_id).raw_env(**kwargs)


def replay(rec: dict[str, Any], upto: int | None = None):
    """The game after the record's first ``upto`` actions (all by default)."""
    rec = validate_record(rec)
    try:
        game = make_game(rec["env_id"], **rec["config"])
    except (KeyError, ValueError) as exc:
        raise RecordError(f"record has a bad env or config: {exc}") from exc
    game.reset(rec["seed"])
    actions = rec["actions"] if upto is None else rec["actions"][:upto]
    for i, a in enumerate(actions):
        try:
            game.step(a)
        except (IllegalActionError, RuntimeError) as exc:
            raise RecordError(f"record does not replay: action #{i} ({a}) failed: {exc}") from exc
    if upto is None and "outcome" in rec and game.is_over and list(game.outcome()) != rec["outcome"]:
        raise RecordError("record replays to a different outcome than it stores")
    return game


def register_pettingzoo() -> None:
    """Put every env in PettingZoo's registry (``import spyenvs`` does this), so
    ``pettingzoo.make("aec", "spyenvs/the_agents-v0", **config)`` returns what
    ``spyenvs.make("the_agents_v0", **config)`` does. The entry points are
    "module:env" strings, so no game module is imported until an env is made.
    PettingZoo versions without a registry (before 1.27) are left alone."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # pragma: no cover - pettingzoo < 1.27
        return
    for env_id, pz_id in PETTINGZOO_IDS.items():
        if pz_id not in aec_registry:
            register("aec", pz_id, entry_point=f"{_ENV_MODULES[env_id]}:env")
