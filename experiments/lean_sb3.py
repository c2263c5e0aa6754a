"""Lean stand-ins for two pieces of torch / Stable-Baselines3 that cost a training
process fixed or per-minibatch time, with the same results:

* :class:`LeanAdam`: torch's fused CPU Adam step without ``torch.optim.Optimizer``;
* :class:`LeanRolloutBuffer`: sb3-contrib's maskable rollout buffer, copying each
  observation once (into the buffer) instead of four times.

**LeanAdam.**
Every ``torch.optim.Optimizer`` imports ``torch._dynamo`` when it is built (its
``__init__`` and ``step`` are wrapped in ``torch._disable_dynamo``), a fixed cost
every training process pays. This class calls the same fused kernel (``torch._fused_adam_``) with the same
arguments as ``torch.optim.Adam(fused=True)``, so its updates are bit-identical, and
it never imports dynamo. It has what Stable-Baselines3 and this project use of an
optimizer: ``param_groups`` (SB3 writes the learning rate there), ``zero_grad``,
``step`` and a ``state_dict`` in ``torch.optim.Adam``'s format (a saved model loads
with either class).
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples


class LeanAdam:
    """Adam (no AMSGrad, no decoupled weight decay) on CPU float tensors."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0,
                 fused: bool = True):
        params = list(params)
        if not params:
            raise ValueError("LeanAdam got an empty parameter list")
        if not fused:
            raise ValueError("LeanAdam is the fused Adam step only; use torch.optim.Adam for fused=False")
        if lr < 0 or eps < 0 or weight_decay < 0 or not (0 <= betas[0] < 1 and 0 <= betas[1] < 1):
            raise ValueError(f"LeanAdam: invalid hyper-parameters lr={lr} betas={betas} eps={eps} "
                             f"weight_decay={weight_decay}")
        self.param_groups = [{"params": params, "lr": lr, "betas": tuple(betas), "eps": eps,
                              "weight_decay": weight_decay, "amsgrad": False, "maximize": False, "foreach": None,
                              "capturable": False, "differentiable": False, "fused": True,
                              "decoupled_weight_decay": False}]
        self.state: dict = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.zero_()

    def _state(self, p):
        st = self.state.get(p)
        if st is None:
            st = self.state[p] = {"step": torch.tensor(0.0), "exp_avg": torch.zeros_like(p),
                                  "exp_avg_sq": torch.zeros_like(p)}
        return st

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            states = [self._state(p) for p in params]
            steps = [s["step"] for s in states]
            torch._foreach_add_(steps, 1)
            beta1, beta2 = group["betas"]
            torch._fused_adam_(params, [p.grad for p in params], [s["exp_avg"] for s in states],
                               [s["exp_avg_sq"] for s in states], [], steps, amsgrad=False, lr=group["lr"],
                               beta1=beta1, beta2=beta2, weight_decay=group["weight_decay"], eps=group["eps"],
                               maximize=False, grad_scale=None, found_inf=None)
        return loss

    # ------------------------------------------------------------- checkpoints
    def state_dict(self) -> dict:
        index, groups = {}, []
        for group in self.param_groups:
            ids = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            groups.append({**{k: v for k, v in group.items() if k != "params"}, "params": ids})
        state = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p in self.state:
                    state[index[id(p)]] = {k: v.clone() for k, v in self.state[p].items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict, strict: bool = True) -> None:
        """Load a state saved by this class or by ``torch.optim.Adam`` (``strict`` is
        accepted for SB3, which passes it to everything that is not a torch optimizer)."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups) or any(
                len(g["params"]) != len(mine["params"]) for g, mine in zip(groups, self.param_groups)):
            raise ValueError("LeanAdam.load_state_dict: the saved parameter groups do not match this optimizer's")
        self.state = {}
        for saved, mine in zip(groups, self.param_groups):
            for key in ("lr", "betas", "eps", "weight_decay"):
                if key in saved:
                    mine[key] = tuple(saved[key]) if key == "betas" else saved[key]
            for i, p in zip(saved["params"], mine["params"]):
                st = state_dict["state"].get(i)
                if st is not None:
                    self.state[p] = {"step": torch.as_tensor(st["step"], dtype=torch.float32).clone(),
                                     "exp_avg": st["exp_avg"].to(p).clone(), "exp_avg_sq": st["exp_avg_sq"].to(p).clone()}


class LeanRolloutBuffer(MaskableRolloutBuffer):
    """``MaskableRolloutBuffer`` that copies each observation once. SB3's copies it
    into the buffer twice (``np.array``, then the assignment), swaps the whole
    (steps, envs) array to (envs, steps) once per rollout, copies each minibatch's
    rows a second time into a tensor, and allocates the observation array anew at
    every reset. Here observations stay where :meth:`add` wrote them, in the same
    array across rollouts (every row is written before one is read), and a
    minibatch reads its rows straight from there, in SB3's order: flat index ``i``
    of the swapped array is step ``i % steps`` of env ``i // steps``. For Specter
    Ops a rollout's observations are 235 MB (4,096 of 14k floats)."""

    def reset(self) -> None:
        kept = self.__dict__.get("observations")
        super().reset()
        if kept is not None and kept.shape == self.observations.shape:
            self.observations = kept

    def add(self, obs, action, reward, episode_start, value, log_prob, action_masks=None) -> None:
        if not isinstance(self.observation_space, spaces.Box):
            return super().add(obs, action, reward, episode_start, value, log_prob, action_masks=action_masks)
        if action_masks is not None:
            self.action_masks[self.pos] = action_masks.reshape((self.n_envs, self.mask_dims))
        if len(log_prob.shape) == 0:
            log_prob = log_prob.reshape(-1, 1)
        self.observations[self.pos] = obs
        self.actions[self.pos] = np.asarray(action).reshape((self.n_envs, self.action_dim))
        self.rewards[self.pos] = reward
        self.episode_starts[self.pos] = episode_start
        self.values[self.pos] = value.detach().cpu().numpy().flatten()
        self.log_probs[self.pos] = log_prob.detach().cpu().numpy()
        self.pos += 1
        if self.pos == self.buffer_size:
            self.full = True

    def get(self, batch_size: int | None = None):
        assert self.full, "the rollout buffer is read only when full"
        indices = np.random.permutation(self.buffer_size * self.n_envs)
        if not self.generator_ready:  # everything but the observations, as SB3 does
            for name in ("actions", "values", "log_probs", "advantages", "returns", "action_masks"):
                self.__dict__[name] = self.swap_and_flatten(self.__dict__[name])
            self.generator_ready = True
        if batch_size is None:
            batch_size = self.buffer_size * self.n_envs
        for start in range(0, self.buffer_size * self.n_envs, batch_size):
            yield self._get_samples(indices[start : start + batch_size])

    def _get_samples(self, batch_inds, env=None) -> MaskableRolloutBufferSamples:
        env_of, step_of = np.divmod(batch_inds, self.buffer_size)
        obs = self._normalize_obs(self.observations[step_of, env_of], env)
        data = (obs, self.actions[batch_inds], self.values[batch_inds].flatten(),
                self.log_probs[batch_inds].flatten(), self.advantages[batch_inds].flatten(),
                self.returns[batch_inds].flatten(), self.action_masks[batch_inds].reshape(-1, self.mask_dims))
        return MaskableRolloutBufferSamples(*(torch.as_tensor(d, device=self.device) for d in data))
