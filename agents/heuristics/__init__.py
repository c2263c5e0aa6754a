"""Rule-based players, one module per game (``agents/heuristics/<game>.py``).

A game names its module in ``INFO.heuristic`` (:class:`spyenvs.core.info.GameInfo`).
Each module exposes ``make(layout, config, role, rng) -> policy``: a policy for one
role that decodes ONLY its own observation (through ``layout.view(obs, block)``)
and the legal-action mask; it never sees the game object or hidden state.
:class:`HeuristicPolicy` is the unbound template: ``bind(game, seat)`` hands the
game's layout, config and the seat's role name to the module's ``make``.

Every bound heuristic also exposes its preferences:
``action_scores(observation, mask) -> float64[num_actions]``, a score for each legal
action, higher is better, ``-inf`` on illegal ones; the action ``act`` plays is always
among the maxima (where ``act`` draws among equals, all of them are). The scores are
the values the heuristic compares (its preference order as decreasing ranks where it
has only an order; equal where it draws uniformly), scaled so that a clearly better
move leads by a few units; each module's docstring gives its scale. Usable as a
prior: ``logits = weight * scores + residual``. ``action_scores_batch(observations,
masks)`` scores a batch; computing scores changes nothing in the player (memory, rng).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

import numpy as np

from spyenvs.registry import ENV_IDS, game_info

from ..policy import BasePolicy

_FACTORIES: dict[str, Callable[..., BasePolicy]] = {}


def register_heuristic(env_id: str, make: Callable[..., BasePolicy]) -> None:
    """Register a heuristic factory for an env id (used for test games)."""
    _FACTORIES[env_id] = make


def heuristic_factory(env_id: str) -> Callable[..., BasePolicy]:
    if env_id in _FACTORIES:
        return _FACTORIES[env_id]
    try:
        module_name = game_info(env_id).heuristic
    except ValueError:  # not a registered env id
        module_name = None
    if module_name is None:
        available = {e for e in ENV_IDS if game_info(e).heuristic is not None} | set(_FACTORIES)
        raise ValueError(f"no heuristic for {env_id!r}; available: {', '.join(sorted(available))}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise ValueError(f"the heuristic for {env_id!r} is not written yet ({exc})") from exc
    return module.make


def has_heuristic(env_id: str) -> bool:
    try:
        heuristic_factory(env_id)
    except ValueError:
        return False
    return True


class HeuristicPolicy(BasePolicy):
    """The rule-based player of a game; plays any role once bound to a seat."""

    name = "heuristic"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def bind(self, game: Any, seat: int) -> BasePolicy:
        make = heuristic_factory(game.env_id)
        policy = make(game.layout, game.config, game.roles[seat], self.rng)
        policy.name = "heuristic"
        return policy

    def act(self, observation, mask):  # pragma: no cover - a template cannot play
        raise TypeError("HeuristicPolicy needs its game and seat: call bind(game, seat) first")

    def action_scores(self, observation, mask):
        raise TypeError("HeuristicPolicy needs its game and seat to score actions: call bind(game, seat) first")
