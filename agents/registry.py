"""Named policies, as the CLI, tournaments and training configs spell them:

* ``random``: uniform over legal actions;
* ``heuristic``: the game's rule-based player (:mod:`spyenvs.agents.heuristics`);
* ``ismcts`` or ``ismcts:SIMS``: information-set MCTS with SIMS iterations per move
  (uniform random playouts); guided variants add a playout policy and options,
  ``ismcts:SIMS:PLAYOUT[:KEY=VALUE ...]`` (:func:`spyenvs.agents.ismcts.parse_spec`,
  documented in docs/search.md), e.g. ``ismcts:400:heuristic:cut=20:value=heuristic``;
* ``expert``: the guided search at a fixed budget of at most a second a move
  (:data:`spyenvs.agents.ismcts.EXPERT`);
* ``pretrained``: the game's shipped pretrained policy (:mod:`spyenvs.agents.pretrained`;
  ``pretrained:sample`` samples from it);
* a path to a checkpoint (``.pt`` or ``.npz``): a trained :class:`TorchPolicy`
  (``PATH:sample`` samples from the policy instead of playing its best action).
"""

from __future__ import annotations

import os

from spyenvs.registry import make_game

from .heuristics import HeuristicPolicy
from .ismcts import ISMCTS, parse_spec
from .policy import BasePolicy, RandomPolicy
from .pretrained import PretrainedPolicy
from .torch_policy import TorchPolicy

NAMES = ("random", "heuristic", "ismcts", "pretrained", "expert")


def make_policy(spec: str, seed: int | None = None, env_id: str | None = None, config: dict | None = None,
                role: str | None = None) -> BasePolicy:
    """The policy named by ``spec`` (see the module docstring).

    Without ``env_id`` the result is a template to ``bind(game, seat)``. With
    ``env_id`` and ``role`` (how ``spyenvs play`` asks) it is already bound to that
    role of a game of ``config``; ISMCTS then stays a template and plays through
    ``act_game(game, seat)``, since it needs the live game.
    """
    policy = _make(spec, seed)
    if env_id is None or role is None or isinstance(policy, ISMCTS):
        return policy
    game = make_game(env_id, **(config or {}))
    if role not in game.roles:
        raise ValueError(f"role {role!r} not in {env_id}; allowed: {', '.join(game.roles)}")
    return policy.bind(game, game.roles.index(role))


def _make(spec: str, seed: int | None) -> BasePolicy:
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a policy spec must be a non-empty string, got {spec!r}")
    if spec == "random":
        return RandomPolicy(seed)
    if spec == "heuristic":
        return HeuristicPolicy(seed)
    if spec in ("pretrained", "pretrained:sample"):
        return PretrainedPolicy(seed, sample=spec.endswith(":sample"))
    if spec in ("ismcts", "expert") or spec.startswith("ismcts:"):
        return parse_spec(spec, seed)
    path, sample = spec, False
    if spec.endswith(":sample"):
        path, sample = spec[: -len(":sample")], True
    if path.endswith((".pt", ".npz")) or os.path.exists(path):
        return TorchPolicy.load(path, deterministic=not sample, seed=seed)
    raise ValueError(f"unknown policy {spec!r}; allowed: {', '.join(NAMES)}, ismcts:SIMS[:PLAYOUT][:KEY=VALUE], pretrained:sample, or a checkpoint path (.pt/.npz)")
