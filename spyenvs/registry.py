"""Registry of env ids. Each game's ``env`` module exposes ``GAME`` (its Game
class), ``env(**kwargs)`` and ``raw_env(**kwargs)``; adding an id here puts the game
under the conformance suite, the bench and the CLI."""

from __future__ import annotations

import importlib

from .core.aec import ADAPTER_KWARGS as ADAPTER_KWARGS  # re-exported: defined with the adapter

_MODULES = {
    "specter_ops_v0": "spyenvs.games.specter_ops.env",
    "the_agents_v0": "spyenvs.games.the_agents.env",
    "spy_games_v0": "spyenvs.games.spy_games.env",
    "unrest_v0": "spyenvs.games.unrest.env",
}

ENV_IDS: tuple[str, ...] = tuple(_MODULES)

#: the PettingZoo registry id of each env id: ``pettingzoo.make("aec", id, **config)``
PETTINGZOO_IDS: dict[str, str] = {
    "the_agents_v0": "spyenvs/TheAgents-v0",
    "unrest_v0": "spyenvs/Unrest-v0",
    "spy_games_v0": "spyenvs/SpyGames-v0",
    "specter_ops_v0": "spyenvs/SpecterOps-v0",
}


def env_module(env_id: str):
    if env_id not in _MODULES:
        raise ValueError(f"unknown env id {env_id!r}; available: {', '.join(ENV_IDS)}")
    return importlib.import_module(_MODULES[env_id])


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


def register_pettingzoo() -> None:
    """Put every env in PettingZoo's registry (``import spyenvs`` does this), so
    ``pettingzoo.make("aec", "spyenvs/TheAgents-v0", **config)`` returns what
    ``spyenvs.make("the_agents_v0", **config)`` does. The entry points are
    "module:env" strings, so no game module is imported until an env is made.
    PettingZoo versions without a registry (before 1.27) are left alone."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # pragma: no cover - pettingzoo < 1.27
        return
    for env_id, pz_id in PETTINGZOO_IDS.items():
        if pz_id not in aec_registry:
            register("aec", pz_id, entry_point=f"{_MODULES[env_id]}:env")
