"""Named policies, as the CLI, tournaments and training configs spell them:

* ``random``: uniform over legal actions;
* ``heuristic``: the game's rule-based player (:mod:`spyenvs.agents.heuristics`);
* ``ismcts`` or ``ismcts:SIMS``: information-set MCTS with SIMS iterations per move
  (uniform random playouts); guided variants add a playout policy and options,
  ``ismcts:SIMS:PLAYOUT[:KEY=VALUE ...]`` (:func:`spyenvs.agents.ismcts.parse_spec`,
  documented in docs/search.md), e.g. ``ismcts:400:heuristic:cut=20:value=heuristic``;
* ``expert``: the guided search at a fixed budget of at most a second a move
  (:data:`spyenvs.agents.ismcts.EXPERT`);
* ``lookahead:DECISION[:through=A,B][:dets=N]``: the heuristic, looking one play-out
  ahead at one kind of decision (:mod:`spyenvs.agents.lookahead`; a teacher, it reads
  the live game);
* ``pretrained``: the game's shipped pretrained policy (:mod:`spyenvs.agents.pretrained`;
  ``pretrained:sample`` samples from it);
* a path to a checkpoint (``.pt`` or ``.npz``): a trained :class:`TorchPolicy`
  (``PATH:sample`` samples from the policy instead of playing its best action);
* ``package.module:callable``: your own policy. The module is imported (the current
  directory is searched too, after the installed packages), and the callable is
  called, with ``seed=`` when it takes a ``seed`` parameter, to return an object with
  ``act(observation, mask) -> int`` and optionally ``act_batch(observations, masks)``
  and ``bind(game, seat)`` (:mod:`spyenvs.agents.policy`). An object without
  ``bind`` or ``act_batch`` gets the :class:`BasePolicy` defaults: it plays any
  seat, and a batch one observation at a time.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from typing import Any

from spyenvs.registry import make_game

from .heuristics import HeuristicPolicy
from .ismcts import parse_spec
from .lookahead import parse_lookahead
from .policy import BasePolicy, RandomPolicy
from .pretrained import PretrainedPolicy
from .torch_policy import TorchPolicy

NAMES = ("random", "heuristic", "ismcts", "pretrained", "expert")


def make_policy(spec: str, seed: int | None = None, env_id: str | None = None, config: dict | None = None,
                role: str | None = None) -> BasePolicy:
    """The policy named by ``spec`` (see the module docstring).

    Without ``env_id`` the result is a template to ``bind(game, seat)``. With
    ``env_id`` and ``role`` (how ``spyenvs play`` asks) it is already bound to that
    role of a game of ``config``; a policy that needs the live game (``needs_live_game``:
    ISMCTS, the look-ahead) then stays a template and plays through
    ``act_game(game, seat)``.
    """
    policy = _load_callable(spec, seed) if _is_callable_spec(spec) else _make(spec, seed)
    if env_id is None or role is None or getattr(policy, "needs_live_game", False):
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
    if spec.startswith("lookahead:"):
        return parse_lookahead(spec, seed)
    path, sample = spec, False
    if spec.endswith(":sample"):
        path, sample = spec[: -len(":sample")], True
    if path.endswith((".pt", ".npz")) or os.path.exists(path):
        return TorchPolicy.load(path, deterministic=not sample, seed=seed)
    raise ValueError(f"unknown policy {spec!r}; allowed: {', '.join(NAMES)}, ismcts:SIMS[:PLAYOUT][:KEY=VALUE], lookahead:DECISION, pretrained:sample, a checkpoint path (.pt/.npz), or package.module:callable")


#: a dotted Python name: ``package.module`` or ``Class.method``
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _is_callable_spec(spec: Any) -> bool:
    """``module:callable``, and not one of the forms :func:`_make` reads
    (``ismcts:SIMS``, ``lookahead:DECISION``, ``pretrained:sample``, ``final.pt:sample``)."""
    if not isinstance(spec, str):
        return False
    module, sep, attr = spec.partition(":")
    return (bool(sep) and module not in (*NAMES, "lookahead") and not module.endswith((".pt", ".npz"))
            and not os.path.exists(module) and bool(_DOTTED.fullmatch(module)) and bool(_DOTTED.fullmatch(attr)))


def _load_callable(spec: str, seed: int | None) -> BasePolicy:
    """The policy returned by ``package.module:callable`` (module docstring)."""
    module_name, _, attr = spec.partition(":")
    if os.getcwd() not in sys.path and "" not in sys.path:
        # the `spyenvs` script's path starts at its bin folder: find the user's own
        # modules in the current directory as `python -m` would, after installed ones
        sys.path.append(os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"policy {spec!r}: cannot import module {module_name!r}: {exc}") from None
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ValueError(f"policy {spec!r}: module {module_name!r} has no attribute {attr!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"policy {spec!r}: {attr!r} is not callable (a function or class returning a policy)")
    takes_seed = False
    try:
        takes_seed = "seed" in inspect.signature(target).parameters
    except (TypeError, ValueError):  # a builtin without a signature: call it plainly
        pass
    policy = target(seed=seed) if takes_seed else target()
    if not callable(getattr(policy, "act", None)):
        raise ValueError(f"policy {spec!r}: {attr}() returned {type(policy).__name__}, which has no "
                         "act(observation, mask) method (see spyenvs.agents.policy)")
    return policy if isinstance(policy, BasePolicy) else PlainPolicy(policy, name=spec)


class PlainPolicy(BasePolicy):
    """A user's object with ``act`` (and perhaps ``act_batch``, ``bind``,
    ``reseed``) as a :class:`BasePolicy`; what it lacks comes from the defaults."""

    def __init__(self, inner: Any, name: str):
        self.inner = inner
        self.name = getattr(inner, "name", None) or name

    def act(self, observation, mask) -> int:
        return int(self.inner.act(observation, mask))

    def act_batch(self, observations, masks):
        if callable(getattr(self.inner, "act_batch", None)):
            return self.inner.act_batch(observations, masks)
        return super().act_batch(observations, masks)

    def bind(self, game, seat: int) -> BasePolicy:
        if not callable(getattr(self.inner, "bind", None)):
            return self
        bound = self.inner.bind(game, seat)
        return bound if isinstance(bound, BasePolicy) else PlainPolicy(bound, self.name)

    def reseed(self, seed: int) -> None:
        if callable(getattr(self.inner, "reseed", None)):
            self.inner.reseed(seed)
