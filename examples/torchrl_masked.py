"""Bring your own algorithm (1): TorchRL's PPO on Unrest, then a score card.

Trains one masked actor and one critic per role of ``unrest_v0`` (rebel, empire) by
self-play, with TorchRL's own pieces: ``PettingZooWrapper(use_mask=True)`` around the
spyenvs AEC env, a ``Collector``, ``ProbabilisticActor`` with ``MaskedCategorical``,
``ClipPPOLoss`` and its GAE value estimator. It saves the actors' weights, then scores
them on the fixed ladder exactly as

    spyenvs scorecard unrest_v0 examples.torchrl_masked:make_policy --games N

does (run that from the repository root, where ``examples`` is importable).

    python examples/torchrl_masked.py --steps 20000 --games 100

Needs the ``torchrl`` extra: ``pip install -e ".[train,torchrl]"``. docs/byo_algorithm.md
walks through it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import torch
from torch import nn

ENV_ID = "unrest_v0"
#: where the script saves the actors and ``make_policy`` loads them; the environment
#: variable overrides it (the script sets it when given ``--weights``)
WEIGHTS_VAR = "SPYENVS_TORCHRL_WEIGHTS"
DEFAULT_WEIGHTS = os.path.join("runs", "byo", "torchrl_unrest_v0.pt")
POLICY_SPEC = "examples.torchrl_masked:make_policy"


def mlp(n_in: int, hidden: int, n_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(n_in, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, n_out))


# --------------------------------------------------------------------- training
def make_env(seed: int):
    """The spyenvs AEC env as a TorchRL env: one group per role (TorchRL's default
    for AEC envs), each with its observation, ``action_mask`` and a ``mask`` that is
    True for the role that acts at this step."""
    import spyenvs
    from torchrl.envs import PettingZooWrapper

    warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")  # pettingzoo 1.27 works
    return PettingZooWrapper(spyenvs.make(ENV_ID), use_mask=True, seed=seed)


def train(steps: int, seed: int = 0, hidden: int = 64, frames_per_batch: int = 1000, epochs: int = 4,
          minibatch: int = 250, lr: float = 3e-4, log=print) -> dict[str, nn.Module]:
    """PPO self-play for ``steps`` env steps (decisions of either role); the policy
    network of each role."""
    from tensordict.nn import TensorDictModule, TensorDictSequential
    from torchrl.collectors import Collector
    from torchrl.modules import MaskedCategorical, ProbabilisticActor
    from torchrl.objectives import ClipPPOLoss, ValueEstimators

    torch.manual_seed(seed)
    env = make_env(seed)
    nets, actors, losses, optims = {}, {}, {}, {}
    for role in env.group_map:  # {"rebel": ["rebel"], "empire": ["empire"]}
        obs = (role, "observation", "observation")
        n_obs = env.observation_spec[obs].shape[-1]
        n_act = env.full_action_spec[role, "action"].space.n
        nets[role] = mlp(n_obs, hidden, n_act)
        actors[role] = ProbabilisticActor(
            TensorDictModule(nets[role], in_keys=[obs], out_keys=[(role, "logits")]),
            in_keys={"logits": (role, "logits"), "mask": (role, "action_mask")}, out_keys=[(role, "action")],
            distribution_class=MaskedCategorical, return_log_prob=True, log_prob_key=(role, "action_log_prob"))
        critic = TensorDictModule(mlp(n_obs, hidden, 1), in_keys=[obs], out_keys=[(role, "state_value")])
        loss = ClipPPOLoss(actors[role], critic, entropy_coeff=0.01, normalize_advantage=True)
        loss.set_keys(action=(role, "action"), sample_log_prob=(role, "action_log_prob"),
                      value=(role, "state_value"), reward=(role, "reward"), done=(role, "done"),
                      terminated=(role, "terminated"), advantage=(role, "advantage"),
                      value_target=(role, "value_target"))
        # rewards come at the end of the game: no discount, GAE over the role's steps
        loss.make_value_estimator(ValueEstimators.GAE, gamma=1.0, lmbda=0.95)
        losses[role], optims[role] = loss, torch.optim.Adam(loss.parameters(), lr=lr)

    collector = Collector(env, TensorDictSequential(*actors.values()), frames_per_batch=frames_per_batch,
                          total_frames=max(steps, frames_per_batch), auto_register_policy_transforms=False)
    t0, frames, games = time.monotonic(), 0, 0
    for batch in collector:  # [frames_per_batch] steps of one env, games cut and restarted
        frames += batch.numel()
        games += int(batch["next", "done"].sum())
        entropy = {}
        for role, loss in losses.items():
            with torch.no_grad():  # advantages on every step, so the end-of-game reward reaches back
                loss.value_estimator(batch, params=loss.critic_network_params,
                                     target_params=loss.target_critic_network_params)
            acting = batch[batch[role, "mask"].squeeze(-1)]  # only the steps this role decided
            for _ in range(epochs):
                for idx in torch.randperm(acting.numel()).split(minibatch):
                    out = loss(acting[idx])
                    total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                    optims[role].zero_grad()
                    total.backward()
                    nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                    optims[role].step()
            entropy[role] = round(float(out["entropy"]), 2)
        rebel_wins = float((batch["next", "rebel", "reward"] > 0).sum())
        log(f"{frames:>7} steps {games:>5} games  rebel won {rebel_wins:.0f} of the "
            f"{int(batch['next', 'done'].sum())} ended in this batch  entropy {entropy}  "
            f"{time.monotonic() - t0:.0f} s")
    collector.shutdown()
    return nets


def save(nets: dict[str, nn.Module], path: str, hidden: int) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"env_id": ENV_ID, "hidden": hidden,
                "shapes": {r: [net[0].in_features, net[-1].out_features] for r, net in nets.items()},
                "state": {r: net.state_dict() for r, net in nets.items()}}, path)


# ---------------------------------------------------------------------- playing
class MaskedArgmax:
    """One role's network as a spyenvs policy: numpy in, int out, the best legal action."""

    def __init__(self, net: nn.Module, name: str):
        self.net, self.name = net, name

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        with torch.no_grad():
            logits = self.net(torch.as_tensor(observation, dtype=torch.float32)[None])[0].numpy()
        return int(np.argmax(np.where(np.asarray(mask) > 0, logits, -np.inf)))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = self.net(torch.as_tensor(np.asarray(observations), dtype=torch.float32)).numpy()
        return np.argmax(np.where(np.asarray(masks) > 0, logits, -np.inf), axis=1).astype(np.int64)


class PerRolePolicy:
    """The score card binds a policy to a seat before each game: play that seat's
    role with its own network (Unrest's rebel and empire are different players)."""

    name = "torchrl_ppo"

    def __init__(self, nets: dict[str, nn.Module]):
        self.nets = nets

    def bind(self, game, seat: int) -> MaskedArgmax:
        role = game.roles[seat]
        return MaskedArgmax(self.nets[role], f"{self.name}:{role}")

    def act(self, observation, mask) -> int:  # the protocol asks for it; bind() is what plays
        raise RuntimeError("bind(game, seat) first: each role has its own network")


def make_policy(seed: int | None = None) -> PerRolePolicy:
    """``examples.torchrl_masked:make_policy``: the saved actors (``$SPYENVS_TORCHRL_WEIGHTS``,
    default runs/byo/torchrl_unrest_v0.pt), loaded without executing code."""
    path = os.environ.get(WEIGHTS_VAR, DEFAULT_WEIGHTS)
    if not os.path.exists(path):
        raise ValueError(f"no trained weights at {path}: run python examples/torchrl_masked.py first")
    ckpt = torch.load(path, weights_only=True)
    nets = {}
    for role, (n_obs, n_act) in ckpt["shapes"].items():
        nets[role] = mlp(n_obs, ckpt["hidden"], n_act)
        nets[role].load_state_dict(ckpt["state"][role])
        nets[role].eval()
    return PerRolePolicy(nets)


# ------------------------------------------------------------------------- main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="env steps of PPO self-play (default 20000)")
    parser.add_argument("--games", type=int, default=100, help="score-card games per role and ladder bot")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--frames-per-batch", type=int, default=1000)
    parser.add_argument("--weights", default=DEFAULT_WEIGHTS, help=f"where to save the actors ({DEFAULT_WEIGHTS})")
    parser.add_argument("--out", default="scorecards", help="score-card folder (default scorecards/)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)

    nets = train(args.steps, args.seed, args.hidden, frames_per_batch=min(args.frames_per_batch, args.steps))
    save(nets, args.weights, args.hidden)
    print(f"saved {args.weights}")

    # the score card imports examples.torchrl_masked: make the repository root importable
    # (the `spyenvs scorecard` command finds it in the current directory)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:
        sys.path.insert(0, root)
    os.environ[WEIGHTS_VAR] = os.path.abspath(args.weights)
    command = ["scorecard", ENV_ID, POLICY_SPEC, "--games", str(args.games), "--out", args.out, "--quiet"]
    print("spyenvs " + " ".join(command))
    from spyenvs.cli import main as spyenvs_main

    return spyenvs_main(command)


if __name__ == "__main__":
    sys.exit(main())
