"""Builds the PettingZoo-style module-level ``env()`` / ``raw_env()`` pair for a game,
so each game's env.py is a few lines."""

from __future__ import annotations

from pettingzoo.utils import wrappers

from .aec import SpyAECEnv


def _split(kwargs):
    from spyenvs.registry import ADAPTER_KWARGS

    adapter = {k: kwargs.pop(k) for k in ADAPTER_KWARGS if k in kwargs}
    return adapter, kwargs


def env_functions(game_cls):
    """(env, raw_env) for ``game_cls``: raw_env is the bare adapter; env adds
    PettingZoo's order-enforcing and out-of-bounds checks as classic envs do."""

    def raw_env(**kwargs) -> SpyAECEnv:
        adapter, config = _split(dict(kwargs))
        return SpyAECEnv(game_cls(**config), **adapter)

    def env(**kwargs):
        e = raw_env(**kwargs)
        if e.illegal_action == "raise":
            e = wrappers.AssertOutOfBoundsWrapper(e)
        return wrappers.OrderEnforcingWrapper(e)

    raw_env.__doc__ = f"Unwrapped PettingZoo AEC env for {game_cls.env_id}."
    env.__doc__ = f"PettingZoo AEC env for {game_cls.env_id} (order-enforcing)."
    return env, raw_env
