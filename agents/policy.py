"""The policy protocol every agent follows, and the random policy.

A policy maps one observation and its legal-action mask to an action:
``act(observation, mask) -> int``, with a batched variant
``act_batch(observations[B, D], masks[B, A]) -> int[B]``.

Optionally a policy also says how much it likes each action:
``action_scores(observation, mask) -> float64[A]``, a score for each legal action
(higher is better, ``-inf`` on illegal ones; the action ``act`` plays is always among
the maxima), with ``action_scores_batch(observations[B, D], masks[B, A]) ->
float64[B, A]``. Only the heuristics implement it (usable as a prior: ``logits =
weight * scores + residual``); :class:`BasePolicy` raises ``TypeError`` for the others.

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
    """Observation and mask in, action out. ``action_scores`` and
    ``action_scores_batch`` (see the module docstring) are optional, so not members."""

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

    def action_scores(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """A score per action (float64, ``-inf`` on illegal ones, higher is better)."""
        raise TypeError(f"{type(self).__name__} has no action scores (only the heuristics score actions)")

    def action_scores_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``action_scores`` per row: float64[B, A]."""
        masks = np.asarray(masks)
        out = np.empty(masks.shape, dtype=np.float64)
        for b, (o, m) in enumerate(zip(observations, masks)):
            out[b] = self.action_scores(o, m)
        return out

    def action_scores_advance_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``action_scores_batch``, each row then played by ``act`` (its move
        discarded): a player that remembers its game moves on as in its own games.
        Players with memory may do both in one pass."""
        scores = self.action_scores_batch(observations, masks)
        for o, m in zip(observations, masks):
            self.act(o, m)
        return scores

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


def masked_scores(mask: np.ndarray, legal: np.ndarray, values=0.0) -> np.ndarray:
    """float64 scores over ``mask``'s actions: ``values`` on ``legal``, ``-inf`` elsewhere."""
    out = np.full(len(mask), -np.inf)
    out[legal] = values
    return out


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

