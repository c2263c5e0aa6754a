"""Priors for trained policies: residual policy learning over the heuristic's scores.

A policy trained with a prior (``net.prior: heuristic``) plays

    logits = weight * prior(observation, mask) + residual(observation)

where ``prior`` is the heuristic's :meth:`~spyenvs.agents.policy.BasePolicy.action_scores`
for the seat it plays (:mod:`spyenvs.agents.heuristics`) and ``residual`` the trained
network, whose last layer starts at zero: training starts at the heuristic's moves
and PPO learns only how to improve on them (residual policy learning, or
kickstarting). The prior is package code, never weights: a checkpoint's metadata
names it (``"prior": {"kind": "heuristic", "weight": w}``) and
:class:`~spyenvs.agents.torch_policy.TorchPolicy` binds the game's heuristic when it
binds to a seat.

The scores reach the network as :func:`prior_columns`: finite float32, the legal
actions shifted so the best is 0 (float32 keeps the heuristic's small tie-breaks
near the top), clipped at :data:`SCORE_FLOOR`, 0 on illegal actions (masked anyway).
The trainer's vectorised env (:class:`~spyenvs.wrappers.vec_selfplay.VecSelfPlayEnv`)
writes them after the learner's input; the exported player computes the same
columns itself.

A heuristic that remembers its game (``per_game_state``: Specter Ops' agent counts
turns without progress, a hunter follows the plan of its turn) must see every
decision of its seat as it would when playing: :meth:`BoundPrior.scores` first
scores (with the memory so far), then, with ``advance``, lets the heuristic play the
same observation (its move is discarded) so its memory moves on as in its own games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: the prior kinds a config or checkpoint may name ("none": no prior)
PRIOR_KINDS = ("none", "heuristic")
#: the lowest prior column (a legal action's score below the best, clipped here)
SCORE_FLOOR = -1.0e4


def prior_columns(scores: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The network's prior input from action scores ``(B, A)`` (``-inf`` on illegal
    actions): float32, legal actions shifted so the best is 0 and clipped at
    :data:`SCORE_FLOOR`, illegal ones 0."""
    s = np.asarray(scores, np.float64)
    legal = np.asarray(masks) > 0
    best = np.where(legal, s, -np.inf).max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        shifted = np.maximum(s - best, SCORE_FLOOR)
    return np.where(legal, shifted, 0.0).astype(np.float32)


class BoundPrior:
    """The prior of one seat: a bound heuristic's scores as :func:`prior_columns`."""

    def __init__(self, heuristic: Any):
        self.heuristic = heuristic
        #: the heuristic remembers its game: bind one per game and episode
        self.per_game_state = bool(getattr(heuristic, "per_game_state", False))

    def scores(self, observations: np.ndarray, masks: np.ndarray, advance: bool = True) -> np.ndarray:
        """float32 ``(B, A)`` prior columns of the rows (one seat's decisions, in
        order). ``advance``: a heuristic with memory then plays each row (move
        discarded), as it would have at the table; False leaves it as it is (a
        look-ahead, e.g. search asking for logits)."""
        observations = np.asarray(observations)
        masks = np.asarray(masks)
        raw = self.heuristic.action_scores_batch(observations, masks)
        if advance and self.per_game_state:
            for o, m in zip(observations, masks):
                self.heuristic.act(o, m)
        return prior_columns(raw, masks)


class HeuristicPrior:
    """The unbound heuristic prior: ``bind(game, seat)`` binds the game's heuristic to
    the seat (see the module docstring)."""

    kind = "heuristic"

    def __init__(self, seed: int | None = None):
        from .heuristics import HeuristicPolicy

        self.template = HeuristicPolicy(seed)

    def bind(self, game: Any, seat: int) -> BoundPrior:
        return BoundPrior(self.template.bind(game, seat))

    def reseed(self, seed: int) -> None:
        self.template.reseed(seed)


def make_prior(kind: str | None, seed: int | None = None) -> HeuristicPrior | None:
    """The prior named ``kind`` (:data:`PRIOR_KINDS`; ``none`` or None: no prior)."""
    if kind in (None, "none"):
        return None
    if kind == "heuristic":
        return HeuristicPrior(seed)
    raise ValueError(f"unknown prior {kind!r}; allowed: {', '.join(PRIOR_KINDS)}")
