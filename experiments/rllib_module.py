"""The pieces that put a spyenvs game on Ray RLlib (new API stack), used by
:mod:`spyenvs.experiments.rllib_selfplay`:

* :class:`SpyenvsMultiAgentEnv`: any registered env id through RLlib's own
  ``PettingZooEnv`` wrapper (turn-based: only the role to move gets an
  observation). With ``role_onehot`` the observation is followed by a one-hot of
  the role kind, exactly as :func:`spyenvs.agents.torch_policy.policy_input` builds it, so
  a shared network knows which part it plays;
* :class:`MaskedPPOModule`: a PPO ``TorchRLModule`` whose actor is a plain MLP
  (the same shape as :mod:`spyenvs.agents.checkpoint` stores) and whose logits of illegal
  actions are pushed to the float minimum before any distribution is built, so
  illegal actions are never sampled, in exploration, inference or training;
* :class:`MaskedRandomModule`: uniform over the legal actions (an opponent);
* :func:`map_agent_to_module`: the per-episode seat assignment of the league
  (one learner seat, every other seat the same opponent module);
* :func:`export_actor` / :class:`RLModulePolicy` / :class:`RoleDispatchPolicy`:
  trained modules as :mod:`spyenvs.agents` policies, for our tournament tool.

Ray and torch are imported here at module level: import this module only with the
``rllib`` extra installed.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from torch import nn

from spyenvs.agents.policy import BasePolicy, check_mask, role_kind, role_kinds
from spyenvs.agents.torch_policy import policy_input
from spyenvs.registry import make

MASKED_LOGIT = torch.finfo(torch.float32).min  # exp() of (min - max logit) is exactly 0


# ------------------------------------------------------------------ the env
class SpyenvsMultiAgentEnv(PettingZooEnv):
    """``PettingZooEnv(spyenvs.make(env_id, **game))`` with the role-kind one-hot.

    ``env_config`` keys: ``env_id``, ``game`` (config dict), ``max_decisions``
    (truncation after that many decisions of all roles; reward 0), ``role_onehot``.
    """

    def __init__(self, env_config: dict | None = None):
        cfg = dict(env_config or {})
        aec = make(cfg["env_id"], max_steps=cfg.get("max_decisions"), **cfg.get("game", {}))
        super().__init__(aec)
        self.roles = list(self.possible_agents)
        kinds = role_kinds(self.roles)
        self.onehot: dict[str, np.ndarray] = {}
        if cfg.get("role_onehot") and len(kinds) > 1:
            for r in self.roles:
                v = np.zeros(len(kinds), np.float32)
                v[kinds.index(role_kind(r))] = 1.0
                self.onehot[r] = v
            for r in self.roles:
                inner = self.observation_spaces[r]["observation"]
                box = gym.spaces.Box(np.concatenate([inner.low, np.zeros(len(kinds), np.float32)]),
                                     np.concatenate([inner.high, np.ones(len(kinds), np.float32)]),
                                     dtype=np.float32)
                self.observation_spaces[r] = gym.spaces.Dict(
                    {"observation": box, "action_mask": self.observation_spaces[r]["action_mask"]})
            self.observation_space = gym.spaces.Dict(self.observation_spaces)

    def _extend(self, obs: dict) -> dict:
        if not self.onehot:
            return obs
        return {a: {"observation": np.concatenate([o["observation"], self.onehot[a]]), "action_mask": o["action_mask"]}
                for a, o in obs.items()}

    def reset(self, *, seed=None, options=None):
        obs, info = super().reset(seed=seed, options=options)
        return self._extend(obs), info

    def step(self, action):
        obs, rew, term, trunc, info = super().step(action)
        return self._extend(obs), rew, term, trunc, info


# ---------------------------------------------------------------- modules
def _mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.where(mask > 0, logits, torch.full_like(logits, MASKED_LOGIT))


def build_mlp(sizes: list[int], activation: str, out_gain: float) -> nn.Sequential:
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        lin = nn.Linear(sizes[i], sizes[i + 1])
        last = i == len(sizes) - 2
        nn.init.orthogonal_(lin.weight, out_gain if last else np.sqrt(2))
        nn.init.zeros_(lin.bias)
        layers.append(lin)
        if not last:
            layers.append(act())
    return nn.Sequential(*layers)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Separate actor and critic MLPs over ``obs["observation"]``; the actor's
    logits are masked with ``obs["action_mask"]``. ``model_config``: ``hidden``
    (list of widths), ``activation`` (tanh or relu)."""

    def setup(self):
        dim = int(self.observation_space["observation"].shape[0])
        hidden = [int(h) for h in self.model_config.get("hidden", [128, 128])]
        activation = self.model_config.get("activation", "tanh")
        self.actor = build_mlp([dim, *hidden, int(self.action_space.n)], activation, 0.01)
        self.critic = build_mlp([dim, *hidden, 1], activation, 1.0)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.actor(obs["observation"])
        return {Columns.ACTION_DIST_INPUTS: _mask_logits(logits, obs["action_mask"])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None):
        return self.critic(batch[Columns.OBS]["observation"]).squeeze(-1)


class MaskedRandomModule(TorchRLModule):
    """Uniform over the legal actions (zero logits, masked); no parameters are
    trained. A dummy parameter keeps torch's optimizer and state code happy."""

    def setup(self):
        self._dummy = nn.Parameter(torch.zeros(1), requires_grad=False)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        mask = batch[Columns.OBS]["action_mask"]
        return {Columns.ACTION_DIST_INPUTS: _mask_logits(torch.zeros(mask.shape, dtype=torch.float32), mask)}


# ----------------------------------------------------------------- league
def learner_module(kind: str, per_role: bool) -> str:
    return f"main_{kind}" if per_role else "main"


def snapshot_module(slot: int, kind: str, per_role: bool) -> str:
    return f"snap{slot}_{kind}" if per_role else f"snap{slot}"


def module_ids(kinds: list[str], per_role: bool, slots: int) -> tuple[list[str], list[str]]:
    """(trained module ids, frozen module ids incl. ``random``)."""
    learners = [learner_module(k, per_role) for k in kinds] if per_role else ["main"]
    frozen = ["random"] + [snapshot_module(s, k, per_role) for s in range(slots)
                           for k in (kinds if per_role else [None])]
    return learners, frozen


def draw_matchup(episode_id: str, spec: dict) -> tuple[int, str]:
    """(learner seat, opponent) for one episode, the same for every agent of it:
    a generator seeded with the episode id (stable across processes, unlike
    ``hash``). The opponent is ``self``, ``random`` or a snapshot slot index."""
    rng = random.Random(f"{spec['seed']}:{episode_id}")
    seat = rng.randrange(len(spec["roles"]))
    names, weights = zip(*spec["opponents"])
    return seat, rng.choices(names, weights)[0]


def map_agent_to_module(agent_id: str, episode: Any, spec: dict | None = None, **kwargs) -> str:
    """RLlib's ``policy_mapping_fn`` (bind ``spec`` with functools.partial): one
    seat per episode plays the learner (its role kind's module when per-role);
    every other seat plays the episode's opponent: the learner itself (pure
    self-play), the random module, or frozen snapshot slot ``i``."""
    assert spec is not None
    per_role = spec["per_role"]
    kind = role_kind(agent_id)
    seat, opp = draw_matchup(str(episode.id_), spec)
    if spec["roles"][seat] == agent_id or opp == "self":
        return learner_module(kind, per_role)
    if opp == "random":
        return "random"
    return snapshot_module(int(opp), kind, per_role)


# ---------------------------------------------------- modules as policies
def export_actor(module: MaskedPPOModule) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor's Linear layers as [(W[out, in], b[out]), ...] for
    :func:`spyenvs.agents.checkpoint.save_policy` / :class:`spyenvs.agents.torch_policy.TorchPolicy`."""
    return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy())
            for m in module.actor if isinstance(m, nn.Linear)]


def actor_from_state(state: dict) -> list[tuple[np.ndarray, np.ndarray]]:
    """The same from a module state dict (``actor.<i>.weight`` / ``.bias``), as
    ``learner_group.get_state`` returns it."""
    idx = sorted({int(k.split(".")[1]) for k in state if k.startswith("actor.")})
    out = []
    for i in idx:
        w, b = state[f"actor.{i}.weight"], state[f"actor.{i}.bias"]
        out.append((np.asarray(w.detach().cpu().numpy() if hasattr(w, "detach") else w, np.float32).copy(),
                    np.asarray(b.detach().cpu().numpy() if hasattr(b, "detach") else b, np.float32).copy()))
    return out


class RLModulePolicy(BasePolicy):
    """Any trained RLModule that reads ``{"observation", "action_mask"}`` as an
    :mod:`spyenvs.agents` policy: ``act`` runs the module's ``forward_inference`` (the
    most likely legal action) or samples its masked distribution.
    ``role_kinds`` is the list of kinds whose one-hot follows the observation
    (empty or one kind: none), as :class:`SpyenvsMultiAgentEnv` adds it."""

    def __init__(self, module: Any, role_kinds: list[str] | None = None, deterministic: bool = True,
                 seed: int | None = None, name: str = "rllib"):
        self.module = module
        self.kinds = list(role_kinds or [])
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.kind_index = 0
        self.name = name

    def bind(self, game: Any, seat: int) -> RLModulePolicy:
        bound = object.__new__(RLModulePolicy)
        bound.__dict__.update(self.__dict__)
        if len(self.kinds) > 1:
            kind = role_kind(game.roles[seat])
            if kind not in self.kinds:
                raise ValueError(f"module {self.name!r} was not trained for role kind {kind!r}")
            bound.kind_index = self.kinds.index(kind)
        return bound

    def _logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        x = policy_input(np.asarray(obs, np.float32), self.kind_index, len(self.kinds))
        batch = {Columns.OBS: {"observation": torch.from_numpy(np.ascontiguousarray(x)),
                               "action_mask": torch.from_numpy(np.asarray(masks, np.float32))}}
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        z = out[Columns.ACTION_DIST_INPUTS].numpy().astype(np.float64)
        return np.where(np.asarray(masks) > 0, z, -np.inf)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        check_mask(mask)
        return int(self.act_batch(observation[None], np.asarray(mask)[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        z = self._logits(observations, masks)
        if self.deterministic:
            return z.argmax(axis=1).astype(np.int64)
        g = -np.log(-np.log(self.rng.random(z.shape)))  # Gumbel-max sampling
        return (z + g).argmax(axis=1).astype(np.int64)


class RoleDispatchPolicy(BasePolicy):
    """Per-role training leaves one policy per role kind; this plays each seat
    with its kind's policy (``{kind: policy}``), so a per-role run enters a
    tournament as one candidate."""

    def __init__(self, by_kind: dict[str, Any], name: str = "per_role"):
        self.by_kind = dict(by_kind)
        self.name = name

    def bind(self, game: Any, seat: int):
        kind = role_kind(game.roles[seat])
        if kind not in self.by_kind:
            raise ValueError(f"{self.name!r} has no policy for role kind {kind!r}; it has {', '.join(self.by_kind)}")
        return self.by_kind[kind].bind(game, seat)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise TypeError("RoleDispatchPolicy plays through bind(game, seat)")
