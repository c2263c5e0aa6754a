"""Policies that play spyenvs games: random, rule-based heuristics per game and role,
information-set MCTS, and trained networks loaded from checkpoints.

Every policy follows :class:`spyenvs.agents.policy.Policy` (``act(obs, mask)``,
``act_batch``, ``bind(game, seat)``); :func:`make_policy` builds one by name. Torch
is imported only when a ``.pt`` checkpoint is read or written.
"""

from .checkpoint import CheckpointError
from .heuristics import HeuristicPolicy
from .ismcts import ISMCTS
from .policy import BasePolicy, Policy, RandomPolicy, role_kind, role_kinds
from .registry import make_policy
from .torch_policy import TorchPolicy

__all__ = ["ISMCTS", "BasePolicy", "CheckpointError", "HeuristicPolicy", "Policy", "RandomPolicy",
           "TorchPolicy", "make_policy", "role_kind", "role_kinds"]
