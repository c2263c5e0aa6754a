"""Bring your own algorithm (2): OpenSpiel's A2C through the bridge, then a score card.

Trains OpenSpiel's own PyTorch policy-gradient agents
(``open_spiel.python.pytorch.policy_gradient.PolicyGradient``, loss "a2c"), one per
seat, by self-play on ``rl_environment.Environment`` over the bridge game
``python_spyenvs_unrest`` (``spyenvs.openspiel``). The environment hands each agent
``observation_tensor(p)``, which is our env's flat float32 observation, and the legal
actions, which are our legal mask. The script saves each agent's policy network, then
scores it on the fixed ladder exactly as

    spyenvs scorecard unrest_v0 examples.openspiel_algorithm:make_policy --games N

does (run that from the repository root, where ``examples`` is importable).

    python examples/openspiel_algorithm.py --steps 40000 --games 100

Needs the ``openspiel`` and ``train`` extras. docs/byo_algorithm.md walks through it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import torch

ENV_ID = "unrest_v0"
#: where the script saves the networks and ``make_policy`` loads them; the environment
#: variable overrides it (the script sets it when given ``--weights``)
WEIGHTS_VAR = "SPYENVS_OPENSPIEL_WEIGHTS"
DEFAULT_WEIGHTS = os.path.join("runs", "byo", "openspiel_a2c_unrest_v0.pt")
POLICY_SPEC = "examples.openspiel_algorithm:make_policy"
HIDDEN = (128,)


def policy_network(n_obs: int, n_act: int, hidden=HIDDEN) -> torch.nn.Sequential:
    """The layers of OpenSpiel's ``PolicyGradient.policy_logits_network`` (its MLPTorso,
    then the logits layer), in a plain module that loads its state dict."""
    from open_spiel.python.pytorch.policy_gradient import MLPTorso

    return torch.nn.Sequential(MLPTorso(n_obs, list(hidden)), torch.nn.Linear(hidden[-1], n_act))


# --------------------------------------------------------------------- training
def train(steps: int, seed: int = 0, log=print) -> list[torch.nn.Module]:
    """A2C self-play for at least ``steps`` decisions; each seat's policy network."""
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch.policy_gradient import PolicyGradient

    from spyenvs.openspiel import load_game

    np.random.seed(seed)  # the agents sample their actions with numpy's global generator
    torch.manual_seed(seed)
    game = load_game(ENV_ID, seed=seed)  # pyspiel.load_game("python_spyenvs_unrest", {"seed": seed})
    env = rl_environment.Environment(game)  # no information state: it uses the observation tensor
    n_obs = env.observation_spec()["info_state"][0]
    n_act = env.action_spec()["num_actions"]
    agents = [PolicyGradient(p, n_obs, n_act, loss_str="a2c", hidden_layers_sizes=HIDDEN, batch_size=256,
                             critic_learning_rate=1e-3, pi_learning_rate=1e-3, entropy_cost=0.01,
                             num_critic_before_pi=1, optimizer_str="adam")
              for p in range(game.num_players())]
    t0, done, episodes, wins = time.monotonic(), 0, 0, np.zeros(game.num_players())
    while done < steps:
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = env.step([agents[player].step(time_step).action])
            done += 1
        for agent in agents:  # every agent sees the end of the game: that is where it learns
            agent.step(time_step)
        episodes += 1
        wins += np.asarray(time_step.rewards) > 0
        if episodes % 200 == 0 or done >= steps:
            log(f"{done:>7} steps {episodes:>5} games  wins by seat {wins.astype(int).tolist()} in the last "
                f"{episodes % 200 or 200}  {time.monotonic() - t0:.0f} s")
            wins[:] = 0
    return [agent.policy_logits_network for agent in agents]


def save(nets: list[torch.nn.Module], path: str) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    shapes = [[net[0].model[0][0].in_features, net[-1].out_features] for net in nets]
    torch.save({"env_id": ENV_ID, "hidden": list(HIDDEN), "shapes": shapes,
                "state": [net.state_dict() for net in nets]}, path)


# ---------------------------------------------------------------------- playing
class MaskedArgmax:
    """One seat's network as a spyenvs policy: numpy in, int out, the best legal action."""

    def __init__(self, net: torch.nn.Module, name: str):
        self.net, self.name = net, name

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        with torch.no_grad():
            logits = self.net(torch.as_tensor(observation, dtype=torch.float32)[None])[0].numpy()
        return int(np.argmax(np.where(np.asarray(mask) > 0, logits, -np.inf)))


class PerSeatPolicy:
    """OpenSpiel trains one agent per player id, which is our seat: bind() picks it."""

    name = "openspiel_a2c"

    def __init__(self, nets: list[torch.nn.Module]):
        self.nets = nets

    def bind(self, game, seat: int) -> MaskedArgmax:
        return MaskedArgmax(self.nets[seat], f"{self.name}:{game.roles[seat]}")

    def act(self, observation, mask) -> int:  # the protocol asks for it; bind() is what plays
        raise RuntimeError("bind(game, seat) first: each seat has its own network")


def make_policy(seed: int | None = None) -> PerSeatPolicy:
    """``examples.openspiel_algorithm:make_policy``: the saved networks
    (``$SPYENVS_OPENSPIEL_WEIGHTS``, default runs/byo/openspiel_a2c_unrest_v0.pt)."""
    path = os.environ.get(WEIGHTS_VAR, DEFAULT_WEIGHTS)
    if not os.path.exists(path):
        raise ValueError(f"no trained weights at {path}: run python examples/openspiel_algorithm.py first")
    ckpt = torch.load(path, weights_only=True)
    nets = []
    for (n_obs, n_act), state in zip(ckpt["shapes"], ckpt["state"]):
        net = policy_network(n_obs, n_act, tuple(ckpt["hidden"]))
        net.load_state_dict(state)
        nets.append(net.eval())
    return PerSeatPolicy(nets)


# ------------------------------------------------------------------------- main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=40_000, help="decisions of A2C self-play (default 40000)")
    parser.add_argument("--games", type=int, default=100, help="score-card games per role and ladder bot")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weights", default=DEFAULT_WEIGHTS, help=f"where to save the networks ({DEFAULT_WEIGHTS})")
    parser.add_argument("--out", default="scorecards", help="score-card folder (default scorecards/)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)

    nets = train(args.steps, args.seed)
    save(nets, args.weights)
    print(f"saved {args.weights}")

    # the score card imports examples.openspiel_algorithm: make the repository root
    # importable (the `spyenvs scorecard` command finds it in the current directory)
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
