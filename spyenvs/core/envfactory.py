"""Builds the PettingZoo-style module-level ``env()`` / ``raw_env()`` pair for a game,
so each game's env.py is a few lines."""

from __future__ import annotations

from .aec import ADAPTER_KWARGS, SpyAECEnv


def _split(kwargs):
    adapter = {k: kwargs.pop(k) for k in ADAPTER_KWARGS if k in kwargs}
    return adapter, kwargs


def env_functions(game_cls):
    """(env, raw_env) for ``game_cls``.

    PettingZoo classic envs wrap raw_env in OrderEnforcingWrapper and
    AssertOutOfBoundsWrapper; measured here, those two wrappers cost more per step
    than a whole game (their ``__getattr__`` forwarding), and the adapter already
    does their job: observe/step/render before ``reset`` raise ``GameStateError`` and
    an out-of-range action raises ``IllegalActionError``. So ``env()`` returns the
    adapter itself; ``raw_env`` is kept for PettingZoo-style code that asks for it.
    """

    def raw_env(**kwargs) -> SpyAECEnv:
        adapter, config = _split(dict(kwargs))
        return SpyAECEnv(game_cls(**config), **adapter)

    def env(**kwargs) -> SpyAECEnv:
        return raw_env(**kwargs)

    raw_env.__doc__ = f"PettingZoo AEC env for {game_cls.env_id} (same as env())."
    env.__doc__ = f"PettingZoo AEC env for {game_cls.env_id}; keyword arguments are game config options plus the adapter's render_mode, max_steps (or max_cycles), illegal_action, render_view."
    return env, raw_env
