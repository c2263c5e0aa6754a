"""Inference with a trained policy checkpoint, without the training library.

:class:`TorchPolicy` reads a checkpoint written by :mod:`spyenvs.agents.checkpoint` (torch's
``weights_only`` loader or numpy, never pickled code) and evaluates the actor MLP
(a file whose ``arch`` is ``board_cnn`` or ``card_table`` loads as
:class:`~.cnn_policy.CNNPolicy`).
The forward pass runs in numpy: for one observation at a time (how opponents and
tournaments call it) a few small matrix products in numpy are several times faster
than torch's per-call overhead, and the policy stays picklable for subprocess
workers. ``as_torch_module()`` rebuilds the same network as a ``torch.nn``
module for batched or GPU inference.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .checkpoint import CheckpointError, mlp_weights, read_checkpoint
from .policy import BasePolicy, check_mask, role_kind


def policy_input(obs: np.ndarray, kind_index: int, n_kinds: int) -> np.ndarray:
    """The learner's network input: the observation, then a one-hot of the role
    kind when the game has more than one kind (the same as the self-play wrapper's
    ``role_onehot=True`` observation)."""
    if n_kinds <= 1:
        return obs
    extra = np.zeros(obs.shape[:-1] + (n_kinds,), np.float32)
    extra[..., kind_index] = 1.0
    return np.concatenate([obs, extra], axis=-1)


class MLPActor:
    """A plain numpy MLP: Linear layers with an activation between them."""

    def __init__(self, weights: list[tuple[np.ndarray, np.ndarray]], activation: str):
        self.weights = [(np.ascontiguousarray(w.T), b) for w, b in weights]  # x @ W.T
        self.activation = np.tanh if activation == "tanh" else (lambda x: np.maximum(x, 0.0))

    def logits(self, x: np.ndarray) -> np.ndarray:
        last = len(self.weights) - 1
        for i, (wt, b) in enumerate(self.weights):
            x = x @ wt + b
            if i < last:
                x = self.activation(x)
        return x


class TorchPolicy(BasePolicy):
    """A trained policy from a checkpoint file (or from weights and metadata).

    ``deterministic=True`` plays the most likely legal action; otherwise it samples
    from the masked softmax (seeded). ``bind(game, seat)`` checks the game matches the
    checkpoint and sets the role-kind input for that seat.
    """

    def __init__(self, weights, meta: dict[str, Any], deterministic: bool = True, seed: int | None = None,
                 name: str | None = None):
        self.meta = meta
        self.net = self._build_net(weights, meta)
        self.kinds = list(meta["role_kinds"])
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.kind_index = 0
        self.name = name or meta.get("name", "trained")

    @staticmethod
    def _build_net(weights, meta: dict[str, Any]):
        """The actor network of a checkpoint's weights (subclasses: other architectures)."""
        return MLPActor(weights, meta["activation"])

    @classmethod
    def load(cls, path: str | os.PathLike, deterministic: bool = True, seed: int | None = None) -> TorchPolicy:
        """The policy of a checkpoint file, of whichever architecture its ``arch``
        names (the MLP when absent; ``board_cnn``, ``card_table``: a
        :class:`~.cnn_policy.CNNPolicy`)."""
        raw, meta = read_checkpoint(path)
        name = os.path.splitext(os.path.basename(os.fspath(path)))[0]
        arch = meta.get("arch", "mlp")
        if arch == "mlp":
            return cls(mlp_weights(raw, meta, os.fspath(path)), meta, deterministic=deterministic, seed=seed, name=name)
        from .cnn_policy import ARCHS, CNNPolicy

        if arch not in ARCHS:
            raise CheckpointError(f"{path}: unknown network arch {arch!r}; this code reads mlp, {', '.join(ARCHS)}")
        return CNNPolicy.from_arrays(raw, meta, path=os.fspath(path), deterministic=deterministic, seed=seed,
                                     name=name)

    def bind(self, game: Any, seat: int) -> TorchPolicy:
        if game.env_id != self.meta["env_id"]:
            raise CheckpointError(f"checkpoint {self.name!r} is for {self.meta['env_id']}, not {game.env_id}")
        if game.observation_size != self.meta["obs_dim"] or game.num_actions != self.meta["num_actions"]:
            raise CheckpointError(
                f"checkpoint {self.name!r} expects obs {self.meta['obs_dim']} / actions {self.meta['num_actions']}, "
                f"the game has {game.observation_size} / {game.num_actions} (another config?)")
        kind = role_kind(game.roles[seat])
        if kind not in self.kinds:
            raise CheckpointError(f"checkpoint {self.name!r} was not trained for role kind {kind!r}")
        # one bound copy per role kind, so every seat of a kind (in every game of a
        # vectorised env) lands in one batched forward pass
        cache = self.__dict__.setdefault("_bound_by_kind", {})
        bound = cache.get(kind)
        if bound is None:
            bound = object.__new__(type(self))
            bound.__dict__.update(self.__dict__)
            bound.kind_index = self.kinds.index(kind)
            cache[kind] = bound
        return bound

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.__dict__.pop("_bound_by_kind", None)  # bound copies hold the old stream

    def _masked_logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        x = policy_input(np.asarray(obs, np.float32), self.kind_index, len(self.kinds))
        logits = self.net.logits(x)
        return np.where(np.asarray(masks) > 0, logits, -np.inf)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        check_mask(mask)
        z = self._masked_logits(observation, mask)
        if self.deterministic:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(self.rng.choice(p.size, p=p))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        z = self._masked_logits(observations, masks)
        if self.deterministic:
            return z.argmax(axis=1).astype(np.int64)
        g = -np.log(-np.log(self.rng.random(z.shape)))  # Gumbel-max sampling
        return (z + g).argmax(axis=1).astype(np.int64)

    def as_torch_module(self):
        """The actor as a ``torch.nn.Sequential`` (logits out)."""
        import torch
        from torch import nn

        layers: list[nn.Module] = []
        act = nn.Tanh if self.meta["activation"] == "tanh" else nn.ReLU
        for i, (wt, b) in enumerate(self.net.weights):
            lin = nn.Linear(wt.shape[0], wt.shape[1])
            with torch.no_grad():
                lin.weight.copy_(torch.from_numpy(wt.T.copy()))
                lin.bias.copy_(torch.from_numpy(b))
            layers.append(lin)
            if i < len(self.net.weights) - 1:
                layers.append(act())
        return nn.Sequential(*layers)
