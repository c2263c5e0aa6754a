"""Deep Monte-Carlo (DMC), the learner of DouZero (Zha et al. 2021), on our games.

One Q-network per role kind (DouZero: one model per position) scores every action
of a decision from the acting seat's observation: with our flat ``Discrete`` actions,
a head of Q-values over all actions, the illegal ones masked. It is trained by plain
regression (mean squared error) of ``Q(observation)[action]`` on the **Monte-Carlo
return**: the terminal payoff of that episode for the seat that acted (the team's
payoff for a team kind; 0 for a game cut at ``max_decisions``). No bootstrapping, no
discount: every decision of a seat in an episode carries that episode's payoff.

Self-play: every seat of ``num_games`` games is played by the current Q-networks,
epsilon-greedy (a uniformly random legal action with probability epsilon, decaying
linearly from ``epsilon_start`` to ``epsilon_end`` over the first ``epsilon_decay`` of
the budget). One step asks every game for its pending decision and answers them in
one forward pass per kind, as :class:`~spyenvs.wrappers.vec_selfplay.VecSelfPlayEnv`
batches its opponents; a decision with one legal action is played without the
network and is no sample. A finished episode's samples (input, action, return) go to
its kind's replay of recent samples (a ring of ``replay_size`` rows, at most
``replay_mb`` MiB, float16); each new sample buys ``reuse`` samples of Adam updates
(minibatches of ``batch_size`` drawn uniformly from the replay), so acting and
learning alternate in one process at a fixed ratio. DouZero runs actors and a learner
in parallel over many cores; on 2 cores one process with batched acting is faster.

The greedy policy (argmax of the masked Q-values) is exported as an ordinary MLP
checkpoint (:func:`~spyenvs.experiments.algo_common.merge_kind_mlps`).

    python -m spyenvs.experiments.algorithms unrest_v0 --algo dmc --minutes 5
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

from spyenvs.core.game import role_kind, role_kinds
from spyenvs.experiments.algo_common import (Budget, Curve, InputTransform, checkpoint_meta, game_maker, kind_mlp,
                                             kind_policy, linear_layers)
from spyenvs.experiments.config import RunConfig


@dataclass
class DMCConfig(RunConfig):
    """Deep Monte-Carlo's options (``--opt KEY=VALUE``)."""

    num_games: int = 64
    """games played at once (one batched forward pass per kind and step)"""
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    """hidden layer sizes of each kind's Q-network (ReLU)"""
    learning_rate: float = 1.0e-3
    """Adam's step size"""
    batch_size: int = 256
    """samples per update"""
    reuse: float = 2.0
    """samples trained on per sample collected (sets the updates per step)"""
    replay_size: int = 100_000
    """recent samples kept per kind"""
    replay_mb: int = 256
    """memory cap of each kind's replay (float16 inputs), which may cut replay_size"""
    epsilon_start: float = 0.2
    """exploration at the start"""
    epsilon_end: float = 0.02
    """exploration after epsilon_decay of the budget"""
    epsilon_decay: float = 0.5
    """share of the budget over which epsilon decays linearly"""
    max_grad_norm: float = 40.0
    """gradient norm clip (DouZero's 40)"""
    max_decisions: int = 5000
    """a longer game is cut and pays every seat 0"""
    scale_observations: bool = True
    """inputs scaled to [0, 1] by the layout's bounds (folded into the export)"""
    drop_constant_inputs: bool = True
    """the network reads only the entries the game may vary"""
    torch_threads: int = 1
    """torch and BLAS threads"""


class Replay:
    """A ring of the most recent (input, action, return) samples of one kind."""

    def __init__(self, capacity: int, width: int):
        self.capacity = int(capacity)
        self.x = np.zeros((self.capacity, width), np.float16)
        self.a = np.zeros(self.capacity, np.int64)
        self.g = np.zeros(self.capacity, np.float32)
        self.size = 0
        self.pos = 0
        self.added = 0

    def add(self, x: np.ndarray, a: np.ndarray, g: np.ndarray) -> None:
        n = len(a)
        if n > self.capacity:  # only the newest fit
            x, a, g, n = x[-self.capacity:], a[-self.capacity:], g[-self.capacity:], self.capacity
        idx = (self.pos + np.arange(n)) % self.capacity
        self.x[idx], self.a[idx], self.g[idx] = x, a, g
        self.pos = int((self.pos + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)
        self.added += n

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        idx = rng.integers(0, self.size, n)
        return self.x[idx].astype(np.float32), self.a[idx], self.g[idx]


class _Episode:
    """One game's samples so far: per decision the seat, its input row and the action."""

    __slots__ = ("seats", "rows", "actions", "seed")

    def __init__(self, seed: int):
        self.seats: list[int] = []
        self.rows: list[np.ndarray] = []
        self.actions: list[int] = []
        self.seed = seed


class DMC:
    """The learner: ``num_games`` games, a Q-network, optimizer and replay per kind.

    ``game`` is an env id or a game class (default ``cfg.env_id``). :meth:`train`
    runs to the budget; :meth:`policy` is the greedy player of the networks now.
    """

    name = "dmc"
    deterministic = True  # the exported policy is the greedy one

    def __init__(self, cfg: DMCConfig, game: Any = None, log: Callable[[str], None] | None = None):
        self.cfg = cfg
        self.game = game if game is not None else cfg.env_id
        if int(cfg.num_games) < 1 or int(cfg.batch_size) < 1 or float(cfg.reuse) <= 0:
            raise ValueError("num_games and batch_size must be >= 1 and reuse > 0")
        if not cfg.hidden or any(int(h) < 1 for h in cfg.hidden):
            raise ValueError(f"hidden must list at least one positive layer size, got {cfg.hidden!r}")
        self.make = game_maker(self.game, cfg.game)
        self.games = [self.make() for _ in range(int(cfg.num_games))]
        probe = self.probe = self.games[0]
        self.kinds = role_kinds(list(probe.roles))
        self.seat_kind = np.array([self.kinds.index(role_kind(r)) for r in probe.roles])
        self.transform = InputTransform.for_game(probe, cfg.scale_observations, cfg.drop_constant_inputs)
        self.rng = np.random.default_rng(cfg.seed)
        torch.manual_seed(cfg.seed)
        width, n_act = self.transform.width, probe.num_actions
        self.nets = {k: kind_mlp(width, cfg.hidden, n_act) for k in self.kinds}
        self.optims = {k: torch.optim.Adam(self.nets[k].parameters(), lr=cfg.learning_rate) for k in self.kinds}
        capacity = max(int(cfg.batch_size), min(int(cfg.replay_size), int(cfg.replay_mb) * 2**20 // (2 * width + 12)))
        self.replays = {k: Replay(capacity, width) for k in self.kinds}
        self.credit = {k: 0.0 for k in self.kinds}
        self.log = log
        self.steps = 0  # decisions answered by the networks (samples collected)
        self.stats = {"episodes": 0, "truncated": 0, "forced": 0, "updates": {k: 0 for k in self.kinds},
                      "loss": {k: None for k in self.kinds}, "replay_capacity": capacity}
        self.recent: deque[dict[str, Any]] = deque(maxlen=8)  # the last finished episodes (seed, actions, outcome)
        self._obs = np.zeros((len(self.games), probe.observation_size), np.float32)
        self._masks = np.zeros((len(self.games), n_act), np.int8)
        self._seats = np.zeros(len(self.games), np.int64)
        self.episodes = [self._new_episode(i) for i in range(len(self.games))]

    # ----------------------------------------------------------------- acting
    def _new_episode(self, i: int) -> _Episode:
        seed = int(self.rng.integers(2**62))
        self.games[i].reset(seed)
        return self._advance(i, _Episode(seed))

    def _advance(self, i: int, ep: _Episode) -> _Episode:
        """Play forced decisions of game ``i``; a finished (or cut) game hands its
        samples to the replays and a new game starts. Returns the live episode."""
        g = self.games[i]
        while True:
            if g.is_over or len(g.actions) >= self.cfg.max_decisions:
                self._finish(g, ep)
                seed = int(self.rng.integers(2**62))
                g.reset(seed)
                ep = _Episode(seed)
                continue
            mask = g.legal_mask()
            legal = np.flatnonzero(mask)
            if legal.size == 1:
                g.step(int(legal[0]))
                self.stats["forced"] += 1
                continue
            return ep

    def _finish(self, g: Any, ep: _Episode) -> None:
        truncated = not g.is_over
        outcome = [0.0] * g.num_players if truncated else [float(r) for r in g.outcome()]
        self.stats["episodes"] += 1
        self.stats["truncated"] += int(truncated)
        self.recent.append({"seed": ep.seed, "actions": list(g.actions), "outcome": outcome,
                            "samples": len(ep.actions)})
        if not ep.actions:
            return
        seats = np.asarray(ep.seats)
        rows = np.stack(ep.rows)
        acts = np.asarray(ep.actions, np.int64)
        returns = np.asarray(outcome, np.float32)[seats]  # the Monte-Carlo return of each decision
        kinds = self.seat_kind[seats]
        for k, kind in enumerate(self.kinds):
            sel = kinds == k
            if sel.any():
                self.replays[kind].add(rows[sel], acts[sel], returns[sel])
                self.credit[kind] += float(sel.sum()) * float(self.cfg.reuse)

    def epsilon(self, fraction: float) -> float:
        c = self.cfg
        left = max(0.0, 1.0 - fraction / c.epsilon_decay) if c.epsilon_decay > 0 else 0.0
        return float(c.epsilon_end + (c.epsilon_start - c.epsilon_end) * left)

    @torch.no_grad()
    def act(self, epsilon: float) -> None:
        """One decision in every game: epsilon-greedy on the kinds' Q-values, batched."""
        n = len(self.games)
        for i, g in enumerate(self.games):
            s = g.current_player
            self._seats[i] = s
            self._obs[i] = g.observe(s)
            self._masks[i] = g.legal_mask()
        x = self.transform(self._obs)
        actions = np.zeros(n, np.int64)
        kinds = self.seat_kind[self._seats]
        for k, kind in enumerate(self.kinds):
            idx = np.flatnonzero(kinds == k)
            if idx.size:
                q = self.nets[kind](torch.from_numpy(x[idx])).numpy()
                actions[idx] = np.where(self._masks[idx] > 0, q, -np.inf).argmax(axis=1)
        explore = self.rng.random(n) < epsilon
        if explore.any():
            noise = self.rng.random((int(explore.sum()), self._masks.shape[1]))
            actions[explore] = np.where(self._masks[explore] > 0, noise, -1.0).argmax(axis=1)
        x16 = x.astype(np.float16)
        for i, g in enumerate(self.games):
            ep = self.episodes[i]
            ep.seats.append(int(self._seats[i]))
            ep.rows.append(x16[i])
            ep.actions.append(int(actions[i]))
            g.step(int(actions[i]))
            self.episodes[i] = self._advance(i, ep)
        self.steps += n

    # --------------------------------------------------------------- learning
    def learn(self) -> None:
        """The updates the new samples have paid for, per kind."""
        bs = int(self.cfg.batch_size)
        for kind in self.kinds:
            replay = self.replays[kind]
            while self.credit[kind] >= bs and replay.size >= bs:
                self.credit[kind] -= bs
                self.update(kind, *replay.sample(bs, self.rng))

    def update(self, kind: str, x: np.ndarray, a: np.ndarray, g: np.ndarray) -> float:
        """One regression step of ``kind``'s Q[action] on the returns ``g``."""
        net, opt = self.nets[kind], self.optims[kind]
        q = net(torch.from_numpy(x)).gather(1, torch.from_numpy(a)[:, None])[:, 0]
        loss = nn.functional.mse_loss(q, torch.from_numpy(g))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), self.cfg.max_grad_norm)
        opt.step()
        value = float(loss.item())
        prev = self.stats["loss"][kind]
        self.stats["loss"][kind] = value if prev is None else 0.99 * prev + 0.01 * value
        self.stats["updates"][kind] += 1
        return value

    # ------------------------------------------------------------------- runs
    def kind_weights(self) -> dict[str, list]:
        return {k: linear_layers(net) for k, net in self.nets.items()}

    def meta(self, name: str = "dmc") -> dict[str, Any]:
        return checkpoint_meta(self.probe, name, {"algorithm": "dmc", "timesteps": int(self.steps)})

    def policy(self, name: str = "dmc"):
        """The greedy player of the networks now (what the checkpoint will hold)."""
        return kind_policy(self.kind_weights(), self.transform, self.meta(name), deterministic=True)

    def train(self, budget: Budget, curve: Curve | None = None) -> None:
        """Act and learn until the budget is spent, evaluating at the curve's points."""
        budget.start()
        last_log = time.monotonic()
        while True:
            frac = budget.fraction(self.steps)
            if curve is not None and curve.due(frac):
                with budget.paused():
                    curve.maybe(frac, self.policy, self.steps, budget.spent)
            if frac >= 1.0:
                break
            self.act(self.epsilon(frac))
            self.learn()
            if self.log and time.monotonic() - last_log > 30:
                last_log = time.monotonic()
                loss = ", ".join(f"{k} {v:.3f}" for k, v in self.stats["loss"].items() if v is not None)
                self.log(f"dmc: {self.steps} steps, {self.stats['episodes']} games, {budget.spent:.0f} s; "
                         f"loss {loss or 'n/a'}")
        budget.stop()
