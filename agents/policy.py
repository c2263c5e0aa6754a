"""The policy protocol every agent follows, and the random policy.

A policy maps one observation and its legal-action mask to an action:
``act(observation, mask) -> int``, with a batched variant
``act_batch(observations[B, D], masks[B, A]) -> int[B]``.

Some policies need to know which game and seat they play before a game starts: a
heuristic decodes the observation with the game's layout and plays its role; ISMCTS
searches on the game object itself. Such policies are *unbound* templates whose
``bind(game, seat)`` returns the playing policy. Tournaments and the self-play
wrapper call ``bind`` once per seat and game; for stateless policies it returns
``self``. Bound policies only ever receive their own observation and mask through
``act`` (ISMCTS is the documented exception: see :mod:`spyenvs.agents.ismcts`).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

# re-exported: role kinds are defined once, with the game contract
from spyenvs.core.game import role_kind as role_kind, role_kinds as role_kinds


@runtime_checkable
class Policy(Protocol):
    """Observation and mask in, action out."""

    name: str

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int: ...

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray: ...

    def bind(self, game: Any, seat: int) -> Policy: ...


class BasePolicy:
    """Defaults for the protocol: ``act_batch`` loops over ``act``; ``bind`` is the
    identity (stateless policies play any seat)."""

    name = "policy"
    #: False for a policy that decides from the mask alone: batched callers (the
    #: vectorised self-play env) then skip encoding its observations
    reads_observation = True

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([self.act(o, m) for o, m in zip(observations, masks)], dtype=np.int64)

    def bind(self, game: Any, seat: int) -> BasePolicy:
        return self

    def reseed(self, seed: int) -> None:
        """Restart the policy's own randomness (seeded env resets call this)."""
        if hasattr(self, "rng"):
            self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def check_mask(mask: np.ndarray) -> np.ndarray:
    """The legal action indices of ``mask``; an all-zero mask is a caller error."""
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise ValueError("the action mask has no legal action")
    return legal


class RandomPolicy(BasePolicy):
    """Uniform over the legal actions; seeded so tournaments are reproducible."""

    name = "random"
    reads_observation = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = check_mask(mask)
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks, dtype=np.float64)
        if (masks.sum(axis=1) == 0).any():
            raise ValueError("an action mask in the batch has no legal action")
        # Gumbel-free trick: random keys, illegal ones pushed below every legal one
        keys = self.rng.random(masks.shape) + masks
        return keys.argmax(axis=1).astype(np.int64)

