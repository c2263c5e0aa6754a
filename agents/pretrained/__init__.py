"""The pretrained opponent of each game: the final policy of its default training run
(``spyenvs train ENV``), shipped as ``<env_id>.npz`` beside this file (numpy arrays and
JSON metadata read with ``allow_pickle=False``: loading runs no code and needs no torch).

``make_policy("pretrained")`` gives :class:`PretrainedPolicy`, a template that binds to
any seat of a game whose config matches the one the file was trained on.
"""

from __future__ import annotations

import os
from typing import Any

from ..checkpoint import CheckpointError
from ..policy import BasePolicy
from ..torch_policy import TorchPolicy

HERE = os.path.dirname(os.path.abspath(__file__))


def pretrained_path(env_id: str) -> str:
    return os.path.join(HERE, f"{env_id}.npz")


def available() -> list[str]:
    """Env ids with a shipped pretrained policy."""
    return sorted(f[: -len(".npz")] for f in os.listdir(HERE) if f.endswith(".npz"))


class PretrainedPolicy(BasePolicy):
    """Plays the shipped policy of whatever game it is bound to (its most likely
    legal action; ``sample=True`` samples instead)."""

    name = "pretrained"

    def __init__(self, seed: int | None = None, sample: bool = False):
        self.seed = seed
        self.sample = sample
        self._loaded: dict[str, Any] = {}

    def bind(self, game: Any, seat: int) -> BasePolicy:
        policy = self._loaded.get(game.env_id)
        if policy is None:
            path = pretrained_path(game.env_id)
            if not os.path.isfile(path):
                have = ", ".join(available()) or "none"
                raise CheckpointError(f"no pretrained policy for {game.env_id}; shipped: {have}")
            policy = self._loaded[game.env_id] = TorchPolicy.load(path, deterministic=not self.sample, seed=self.seed)
            policy.name = "pretrained"
        trained_on = policy.meta.get("config", {})
        differs = {k: v for k, v in trained_on.items() if game.config.get(k) != v}
        if differs:
            raise CheckpointError(
                f"the pretrained {game.env_id} policy was trained on {trained_on}; this game differs in "
                f"{', '.join(f'{k}={game.config.get(k)!r}' for k in differs)}")
        return policy.bind(game, seat)

    def act(self, observation, mask):  # pragma: no cover - a template cannot play
        raise TypeError("PretrainedPolicy needs its game and seat: call bind(game, seat) first")

    def reseed(self, seed: int) -> None:
        self.seed = seed
        for policy in self._loaded.values():
            policy.reseed(seed)
