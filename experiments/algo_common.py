"""What the algorithm families of :mod:`spyenvs.experiments.algorithms` (DMC, NFSP)
share: the network input, one network per role kind exported as one ordinary
checkpoint, the budget, the learning curve and the score card.

**The input.** Every network reads :class:`InputTransform` of the flat observation:
the entries the game may vary (``Game.varying_inputs``; Specter Ops: 5,391 of 14,193),
each scaled to [0, 1] by the layout's bounds (as the PPO recipe does). The export folds
both back into the first layer, so a checkpoint reads raw observations like every
other policy.

**One network per role kind, one checkpoint.** DouZero keeps one model per position;
here that is one ReLU MLP per role kind (``rebel``, ``empire``; ``agent``, ``hunter``),
every seat of a kind sharing it. The package's checkpoint (:mod:`spyenvs.agents.checkpoint`)
holds *one* MLP over the observation and a one-hot of the role kind, so
:func:`merge_kind_mlps` writes the kinds' networks side by side as one exact MLP: a
block of hidden units per kind, the one-hot carried along in extra units, and every
block of another kind switched off by a large negative weight on that kind's one-hot
unit (a ReLU then outputs exactly 0). The weights of the active kind meet only exact
zeros, so the merged network computes each kind's Q-values (DMC) or logits (NFSP's
average policy) up to float rounding, and :class:`~spyenvs.agents.torch_policy.TorchPolicy`
plays it: masked argmax, or sampling with ``PATH:sample``.

**The budget.** ``minutes`` of training wall-clock time (collection and updates;
evaluation excluded, as the PPO recipe's ``train_seconds`` excludes it) and/or ``steps``
decisions made by the networks: training stops at whichever comes first.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import torch
from torch import nn

from spyenvs.agents.checkpoint import save_policy
from spyenvs.agents.heuristics import HeuristicPolicy, has_heuristic
from spyenvs.agents.policy import RandomPolicy
from spyenvs.agents.torch_policy import TorchPolicy
from spyenvs.core.game import role_kinds
from spyenvs.experiments.evaluate import evaluate_vs, games_for, load_average, plot_learning_curve
from spyenvs.registry import make_game
from spyenvs.wrappers.selfplay import observation_scale

#: the weight that switches another kind's hidden block off (its one-hot unit is 1):
#: any pre-activation of a block is far smaller, and the active block only ever
#: multiplies it by an exact 0
OFF = 1.0e6


# ------------------------------------------------------------------ the game
def game_maker(game: Any, config: dict | None) -> Callable[[], Any]:
    """A function making a fresh game: ``game`` is an env id or a game class (the
    tests' toy game). A bad id or option fails on the first call."""
    config = dict(config or {})
    if isinstance(game, str):
        return lambda: make_game(game, **config)
    return lambda: game(**config)


@dataclass
class InputTransform:
    """The network input of an observation: ``(obs[columns] - low) * inv``."""

    obs_dim: int
    columns: np.ndarray | None  # the observation entries read (None: all)
    low: np.ndarray  # float32, one per entry read
    inv: np.ndarray

    @classmethod
    def for_game(cls, game: Any, scale: bool = True, drop_constant: bool = True) -> InputTransform:
        cols = game.varying_inputs() if drop_constant else None
        cols = None if cols is None else np.asarray(cols, np.int64)
        if scale:
            low, inv = observation_scale(game.layout)
        else:
            low, inv = np.zeros(game.observation_size, np.float32), np.ones(game.observation_size, np.float32)
        if cols is not None:
            low, inv = low[cols], inv[cols]
        return cls(int(game.observation_size), cols, low.astype(np.float32), inv.astype(np.float32))

    @property
    def width(self) -> int:
        return int(self.low.size)

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        x = np.asarray(obs, np.float32)
        if self.columns is not None:
            x = x[..., self.columns]
        return (x - self.low) * self.inv

    def fold(self, w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A first layer over this input as the same layer over the raw observation
        (float64): ``W x' + b`` with ``x' = (x[cols] - low) * inv``."""
        w = np.asarray(w, np.float64)
        inv, low = self.inv.astype(np.float64), self.low.astype(np.float64)
        full = np.zeros((w.shape[0], self.obs_dim))
        cols = self.columns if self.columns is not None else np.arange(self.obs_dim)
        full[:, cols] = w * inv
        return full, np.asarray(b, np.float64) - w @ (low * inv)


# ---------------------------------------------------------------- the networks
def kind_mlp(in_dim: int, hidden: Sequence[int], out_dim: int) -> nn.Sequential:
    """A ReLU MLP (Linear, ReLU, ..., Linear), the layout OpenSpiel's ``dqn.MLP`` has."""
    layers: list[nn.Module] = []
    for h in hidden:
        layers += [nn.Linear(in_dim, int(h)), nn.ReLU()]
        in_dim = int(h)
    layers.append(nn.Linear(in_dim, out_dim))
    return nn.Sequential(*layers)


def linear_layers(module: nn.Module) -> list[tuple[np.ndarray, np.ndarray]]:
    """The Linear layers of a ReLU MLP, in order, as float64 ``(W[out, in], b)``."""
    return [(m.weight.detach().cpu().numpy().astype(np.float64), m.bias.detach().cpu().numpy().astype(np.float64))
            for m in module.modules() if isinstance(m, nn.Linear)]


def merge_kind_mlps(per_kind: dict[str, list[tuple[np.ndarray, np.ndarray]]], kinds: Sequence[str],
                    transform: InputTransform) -> list[tuple[np.ndarray, np.ndarray]]:
    """One MLP (ReLU between layers) over ``[observation, one-hot of the kind]`` (the
    one-hot only with several kinds, :func:`~spyenvs.agents.torch_policy.policy_input`)
    that computes ``per_kind[kind]`` (each a ReLU MLP over ``transform``'s input) for
    the kind its one-hot names; see the module docstring. Every kind's network needs
    the same number of layers, at least one of them hidden."""
    kinds = list(kinds)
    missing = [k for k in kinds if k not in per_kind]
    if missing:
        raise ValueError(f"no network for role kind(s) {missing}")
    nets = [[(np.asarray(w, np.float64), np.asarray(b, np.float64)) for w, b in per_kind[k]] for k in kinds]
    for net in nets:
        net[0] = transform.fold(*net[0])
    if len(kinds) == 1:
        return [(w.astype(np.float32), b.astype(np.float32)) for w, b in nets[0]]
    depth = {len(net) for net in nets}
    if len(depth) != 1 or min(depth) < 2:
        raise ValueError("every kind's network needs the same depth and at least one hidden layer")
    K, L, D = len(kinds), depth.pop(), transform.obs_dim
    out: list[tuple[np.ndarray, np.ndarray]] = []
    prev_sizes = None  # hidden units per kind in the previous layer
    for i in range(L):
        last = i == L - 1
        sizes = [net[i][0].shape[0] for net in nets]
        if i == 0:
            in_dim, onehot = D + K, D  # onehot: the column of kind 0's one-hot (carrier) input
        else:
            in_dim, onehot = sum(prev_sizes) + K, sum(prev_sizes)
        if last:
            n_out = sizes[0]
            w = np.zeros((n_out, in_dim))
            b = np.zeros(n_out)
            col = 0
            for k, net in enumerate(nets):
                wk, bk = net[i]
                w[:, col:col + prev_sizes[k]] = wk
                w[:, onehot + k] = bk  # the bias rides on the kind's one-hot unit
                col += prev_sizes[k]
        else:
            w = np.zeros((sum(sizes) + K, in_dim))
            b = np.zeros(sum(sizes) + K)
            row, col = 0, 0
            for k, net in enumerate(nets):
                wk, bk = net[i]
                if i == 0:
                    w[row:row + sizes[k], :D] = wk
                else:
                    w[row:row + sizes[k], col:col + prev_sizes[k]] = wk
                    col += prev_sizes[k]
                for j in range(K):
                    if j != k:
                        w[row:row + sizes[k], onehot + j] = -OFF
                b[row:row + sizes[k]] = bk
                row += sizes[k]
            for j in range(K):  # carry the one-hot to the next layer (ReLU(1) = 1)
                w[row + j, onehot + j] = 1.0
        out.append((w.astype(np.float32), b.astype(np.float32)))
        prev_sizes = sizes
    return out


def checkpoint_meta(game: Any, name: str, info: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint's metadata for ``game`` (a started or fresh instance)."""
    roles = list(game.roles)
    return {"env_id": game.env_id, "config": game.config, "roles": roles, "role_kinds": role_kinds(roles),
            "obs_dim": int(game.observation_size), "num_actions": int(game.num_actions),
            "activation": "relu", "name": name, "info": info}


def kind_policy(per_kind: dict[str, list], transform: InputTransform, meta: dict[str, Any],
                deterministic: bool = True, seed: int | None = None) -> TorchPolicy:
    """The numpy player of the merged networks (what :func:`save_kind_policy` writes)."""
    weights = merge_kind_mlps(per_kind, meta["role_kinds"], transform)
    return TorchPolicy(weights, meta, deterministic=deterministic, seed=seed, name=meta.get("name"))


def save_kind_policy(path: str, per_kind: dict[str, list], transform: InputTransform, meta: dict[str, Any]) -> None:
    """The merged networks as an ordinary MLP checkpoint (float32)."""
    save_policy(path, merge_kind_mlps(per_kind, meta["role_kinds"], transform), meta)


# ------------------------------------------------------------------ the budget
class Budget:
    """Training seconds (a clock paused during evaluation) and decisions; the run
    stops when either reaches its limit."""

    def __init__(self, minutes: float | None, steps: int | None):
        if minutes is None and steps is None:
            raise ValueError("give a budget: --minutes M and/or --steps N")
        if minutes is not None and not (isinstance(minutes, (int, float)) and 0 < minutes < float("inf")):
            raise ValueError(f"minutes must be a positive number, got {minutes!r}")
        if steps is not None and not (isinstance(steps, int) and not isinstance(steps, bool) and steps > 0):
            raise ValueError(f"steps must be a positive integer, got {steps!r}")
        self.minutes, self.max_steps = minutes, steps
        self.seconds = None if minutes is None else float(minutes) * 60.0
        self._spent = 0.0
        self._since: float | None = None

    def start(self) -> None:
        if self._since is None:
            self._since = time.monotonic()

    def stop(self) -> None:
        if self._since is not None:
            self._spent += time.monotonic() - self._since
            self._since = None

    @contextlib.contextmanager
    def paused(self):
        running = self._since is not None
        self.stop()
        try:
            yield
        finally:
            if running:
                self.start()

    @property
    def spent(self) -> float:
        """Training seconds so far."""
        return self._spent + (time.monotonic() - self._since if self._since is not None else 0.0)

    def fraction(self, steps: int) -> float:
        """How much of the budget ``steps`` decisions and the time spent have used (0..1+)."""
        parts = [0.0]
        if self.seconds is not None:
            parts.append(self.spent / self.seconds)
        if self.max_steps is not None:
            parts.append(steps / self.max_steps)
        return max(parts)

    def as_dict(self) -> dict[str, Any]:
        return {"minutes": self.minutes, "steps": self.max_steps}


# ---------------------------------------------------------------- the curve
class Curve:
    """Evaluations against random and the heuristic at ``points`` evenly spaced shares
    of the budget (the first before any training, the last at the end)."""

    def __init__(self, make_game_fn: Callable[[], Any], game: Any, config: dict | None, points: int, games: int,
                 max_decisions: int | None, opponents: Sequence[str] = ("random", "heuristic"), log=None):
        if points < 1 or games < 0:
            raise ValueError("curve points must be >= 1 and curve games >= 0")
        probe = make_game_fn()
        self.game, self.config, self.games = game, config, int(games)
        self.max_decisions = max_decisions
        self.opponents = [o for o in opponents if o != "heuristic" or has_heuristic(probe.env_id)]
        self.n_games = games_for(probe, self.games) if self.games else 0
        self.at = [i / (points - 1) for i in range(points - 1)] if points > 1 else []
        self.history: list[dict[str, Any]] = []
        self.log = log

    def due(self, fraction: float) -> bool:
        """Whether the budget has reached the next point."""
        return bool(self.at) and self.games > 0 and fraction >= self.at[0]

    def maybe(self, fraction: float, policy: Callable[[], Any], steps: int, seconds: float) -> bool:
        """Evaluate ``policy()`` when a point is due (one evaluation covers every
        point the budget has passed); True when it did."""
        if not self.due(fraction):
            return False
        while self.at and fraction >= self.at[0]:
            self.at.pop(0)
        return self.evaluate(policy(), steps, seconds) is not None

    def evaluate(self, policy: Any, steps: int, seconds: float) -> dict[str, Any] | None:
        """One point: ``policy`` against each opponent, every role, seats rotated
        (none when there are no curve games, or this step count already has one)."""
        if self.games == 0 or (self.history and self.history[-1]["timesteps"] == steps):
            return None
        vs = {}
        t0 = time.monotonic()
        seed = 10_000_000 + int(steps)
        for opp in self.opponents:
            bot = RandomPolicy(seed) if opp == "random" else HeuristicPolicy(seed)
            vs[opp] = evaluate_vs(self.game, self.config, policy, bot, self.n_games, seed, self.max_decisions)["kinds"]
        row = {"timesteps": int(steps), "train_seconds": round(seconds, 1), "vs": vs,
               "eval_seconds": round(time.monotonic() - t0, 1), "load": load_average()}
        self.history.append(row)
        if self.log:
            msg = "; ".join(f"{k} vs {o} {v['rate']:.0%}" for o, ks in vs.items() for k, v in ks.items())
            self.log(f"[{steps} steps, {seconds:.0f} s] {msg}")
        return row


# ------------------------------------------------------------------ score card
def write_scorecard(game: Any, config: dict | None, spec: str, policy: Any, games: int, seed: int, out: str,
                    max_decisions: int | None = 5000, quiet: bool = True,
                    search_games: int | None = None) -> dict[str, Any]:
    """``spyenvs scorecard ENV SPEC`` of the trained checkpoint: ``policy`` (made from
    ``spec``) against the game's fixed ladder, JSON and markdown written into ``out``
    as ``scorecard.json``/``scorecard.md``. ``game`` may be a game class (the toy
    game of the tests): then it meets random and its heuristic, unrated."""
    from spyenvs.agents.ladder import config_difference, find_ladder, load_ladder
    from spyenvs.core.progress import progress_bar
    from spyenvs.experiments.scorecard import markdown, score_card_total, scorecard

    probe = game_maker(game, config)()
    ladder, bots, unrated = None, None, None
    if isinstance(game, str):
        ladder = find_ladder(game, config or {})
        if ladder is None:
            default = load_ladder(game)
            bots = default["bots"]
            unrated = (f"no ladder for this config (it differs from the default config's ladder in "
                       f"{config_difference(game, config or {}, default)}): win rates only")
    else:
        bots = ["random", "heuristic"] if has_heuristic(probe.env_id) else ["random"]
        unrated = "a game without a ladder"
    total = score_card_total(probe, ladder["bots"] if ladder else bots, games, search_games)
    with progress_bar(total, f"{probe.env_id} score card", enabled=not quiet) as bar:
        card = scorecard(game, config, policy, spec, ladder, games, seed, max_decisions, bots, unrated, bar.update,
                         search_games)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "scorecard.json"), "w") as f:
        json.dump(card, f, indent=1)
        f.write("\n")
    with open(os.path.join(out, "scorecard.md"), "w") as f:
        f.write(markdown(card))
    return card


def write_history(out: str, history: list[dict[str, Any]], title: str) -> list[str]:
    """``history.json`` and, when there is a point, ``curve.png``; the files written."""
    os.makedirs(out, exist_ok=True)
    written = [os.path.join(out, "history.json")]
    with open(written[0], "w") as f:
        json.dump(history, f, indent=1)
    if history:
        try:
            plot_learning_curve(history, os.path.join(out, "curve.png"), title,
                                xlabel="training decisions (every seat's, by the networks)")
            written.append(os.path.join(out, "curve.png"))
        except ImportError as exc:  # pragma: no cover - matplotlib is in the train extra
            print(f"no curve picture ({exc})", file=sys.stderr)
    return written


def pin_torch_threads(n: int = 1) -> None:
    """One torch thread and one BLAS thread (2 shared cores)."""
    from spyenvs.experiments.evaluate import pin_blas_threads

    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, str(int(n)))
    pin_blas_threads(n)
    torch.set_num_threads(int(n))
