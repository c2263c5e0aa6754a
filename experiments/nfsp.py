"""Neural Fictitious Self-Play (NFSP; Heinrich & Silver 2016) on our games: OpenSpiel's
own PyTorch implementation (``open_spiel.python.pytorch.nfsp.NFSP``) through the
bridge (:mod:`spyenvs.openspiel`) and ``rl_environment``.

Each agent of NFSP keeps a best response (DQN on its own transitions) and an
average policy (a network trained by cross-entropy on its own best-response moves,
kept in a reservoir); per episode it plays the best response with probability
``anticipatory_param``, else the average policy. The average policy is what NFSP
converges with (to a Nash equilibrium in two-player zero-sum games), so that is the
policy exported.

What we add around OpenSpiel's agents, and why:

* **One learner per role kind.** OpenSpiel's examples train one agent per player id
  (our seat). Seats of one kind play the same part (our observations are
  egocentric), so here every seat of a kind has its own ``NFSP`` object (its own
  episode bookkeeping, as ``NFSP.step`` needs) sharing the kind's networks,
  optimizers and buffers: DouZero's one model per position, and the same export as
  DMC's (:func:`~spyenvs.experiments.algo_common.merge_kind_mlps`). The sharing
  sets a few private attributes of OpenSpiel's agents (:func:`share_kind`), checked
  at construction.
* **:class:`BridgeEnvironment`**, an ``rl_environment.Environment`` that (a) hands
  each agent :class:`~spyenvs.experiments.algo_common.InputTransform` of our
  observation (the varying entries, scaled to [0, 1]; the export folds it back)
  as a numpy array, and only to the player who acts (and to all at the end): the
  stock environment builds every player's observation tensor as a Python list at
  every step, which costs more than the game itself; and (b) plays a decision with
  one legal action itself (``auto_play_forced``), as our vectorised env does: it is
  no choice, and no sample.
* **Memory.** OpenSpiel allocates each buffer whole; ``buffer_mb`` caps each kind's
  two buffers together, which may cut their capacities.

    python -m spyenvs.experiments.algorithms unrest_v0 --algo nfsp --minutes 5

Needs the ``openspiel`` and ``train`` extras.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch

from spyenvs.core.game import role_kind, role_kinds
from spyenvs.experiments.algo_common import (Budget, Curve, InputTransform, checkpoint_meta, kind_policy,
                                             linear_layers)
from spyenvs.experiments.config import RunConfig

try:
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import dqn as os_dqn
    from open_spiel.python.pytorch import nfsp as os_nfsp
except ImportError as exc:  # pragma: no cover - only without the extra
    raise ImportError(f"NFSP needs OpenSpiel: pip install 'spyenvs[openspiel]' ({exc})") from exc

from spyenvs.openspiel import load_game

PLAY_MODES = ("sample", "greedy")


@dataclass
class NFSPConfig(RunConfig):
    """NFSP's options (``--opt KEY=VALUE``); the defaults are OpenSpiel's Leduc poker
    example's, but for the buffers, which are capped by memory."""

    hidden: list[int] = field(default_factory=lambda: [256])
    """hidden layer sizes of both networks (ReLU)"""
    anticipatory_param: float = 0.1
    """probability of playing the best response in an episode"""
    batch_size: int = 128
    """samples per update of either network"""
    rl_learning_rate: float = 0.01
    """the best response's (DQN's) step size"""
    sl_learning_rate: float = 0.01
    """the average policy's step size"""
    optimizer: str = "sgd"
    """sgd or adam (both networks)"""
    learn_every: int = 64
    """agent steps between updates"""
    min_buffer_size_to_learn: int = 1000
    """samples in a buffer before its network learns"""
    replay_buffer_capacity: int = 200_000
    """DQN transitions kept per kind (at most; see buffer_mb)"""
    reservoir_buffer_capacity: int = 2_000_000
    """average-policy samples kept per kind (at most; see buffer_mb)"""
    buffer_mb: int = 512
    """memory cap of each kind's two buffers together (half each)"""
    epsilon_start: float = 0.06
    """the best response's exploration at the start"""
    epsilon_end: float = 0.001
    """... and at the end of the decay"""
    epsilon_decay_duration: int = 20_000_000
    """agent steps of the (exponential) epsilon decay"""
    update_target_network_every: int = 19_200
    """agent steps between DQN target updates"""
    max_decisions: int = 5000
    """a longer game is cut and pays every seat 0 (the bridge's max_game_length)"""
    scale_observations: bool = True
    """inputs scaled to [0, 1] by the layout's bounds (folded into the export)"""
    drop_constant_inputs: bool = True
    """the networks read only the entries the game may vary"""
    auto_play_forced: bool = True
    """decisions with one legal action are played by the environment"""
    play: str = "sample"
    """how the exported average policy plays on the curve and in the score card:
    sample (NFSP's mixed strategy) or greedy (its most likely action)"""
    torch_threads: int = 1
    """torch and BLAS threads"""


# ----------------------------------------------------------------- environment
class BridgeEnvironment(rl_environment.Environment):
    """``rl_environment.Environment`` over a bridge game that hands each player the
    transformed observation (a float32 array) only when that player acts, and
    everyone's at the end; other players' entries are None and their legal actions
    empty. With ``auto_play_forced`` a decision with one legal action is played here.
    Time steps otherwise follow the stock class (FIRST without rewards, LAST with the
    returns and zero discounts)."""

    def __init__(self, game, transform: InputTransform, auto_play_forced: bool = True):
        super().__init__(game)
        self.transform = transform
        self.auto_play_forced = bool(auto_play_forced)
        self.forced = 0  # decisions played here

    def _play_forced(self) -> None:
        st = self._state
        while self.auto_play_forced and not st.is_terminal():
            legal = st.legal_actions()
            if len(legal) != 1:
                break
            st.apply_action(legal[0])
            self.forced += 1

    def _time_step(self, first: bool):
        st = self._state
        terminal = st.is_terminal()
        self._should_reset = terminal
        n = self.num_players
        spy = st.spy_game
        info: list[Any] = [None] * n
        legal: list[list[int]] = [[] for _ in range(n)]
        if terminal:
            for p in range(n):
                info[p] = self.transform(spy.observe(p))
        else:
            p = st.current_player()
            info[p] = self.transform(spy.observe(p))
            legal[p] = st.legal_actions(p)
        obs = {"info_state": info, "legal_actions": legal, "current_player": st.current_player(),
               "serialized_state": []}
        if first and not terminal:
            return rl_environment.TimeStep(observations=obs, rewards=None, discounts=None,
                                           step_type=rl_environment.StepType.FIRST)
        rewards = [float(r) for r in (st.returns() if terminal else [0.0] * n)]
        discounts = [0.0] * n if terminal else list(self._discounts)
        step_type = rl_environment.StepType.LAST if terminal else rl_environment.StepType.MID
        return rl_environment.TimeStep(observations=obs, rewards=rewards, discounts=discounts, step_type=step_type)

    def get_time_step(self):
        return self._time_step(first=False)

    def reset(self):
        self._should_reset = False
        self._state = self._game.new_initial_state()
        self._play_forced()
        return self._time_step(first=True)

    def step(self, actions):
        if self._should_reset:
            return self.reset()
        self._state.apply_action(int(actions[0]))
        self._play_forced()
        return self._time_step(first=False)


# ------------------------------------------------------------------ the agents
def _shared_buffer_class(base: type) -> type:
    """A subclass of an OpenSpiel buffer class whose ``init`` (called by each agent
    at its first sample) makes one buffer and hands every later caller that one."""

    class Shared(base):
        instance = None

        @classmethod
        def init(cls, capacity, experience):
            if cls.instance is None:
                cls.instance = base.init.__func__(cls, capacity, experience)
            return cls.instance

    Shared.__name__ = f"Shared{base.__name__}"
    return Shared


_SHARED_ATTRS = ("_avg_network", "_optimizer")
_SHARED_RL_ATTRS = ("_q_network", "_target_q_network", "_optimizer")


def share_kind(owner: os_nfsp.NFSP, other: os_nfsp.NFSP) -> None:
    """Make ``other`` learn into ``owner``'s networks and optimizers (its buffers are
    shared through their classes, :func:`_shared_buffer_class`)."""
    for name in _SHARED_ATTRS:
        if not hasattr(owner, name):
            raise RuntimeError(f"this OpenSpiel's NFSP has no {name}: cannot share a kind's networks")
        setattr(other, name, getattr(owner, name))
    for name in _SHARED_RL_ATTRS:
        if not hasattr(owner._rl_agent, name):
            raise RuntimeError(f"this OpenSpiel's DQN has no {name}: cannot share a kind's networks")
        setattr(other._rl_agent, name, getattr(owner._rl_agent, name))


def buffer_capacities(cfg: NFSPConfig, width: int, num_actions: int) -> tuple[int, int]:
    """(replay, reservoir) capacities per kind within ``buffer_mb`` (half each)."""
    half = int(cfg.buffer_mb) * 2**20 // 2
    reservoir_row = 4 * width + 4 * num_actions + num_actions  # info state, probs, mask
    replay_row = 8 * width + num_actions + 24  # info state, next info state, mask, action, reward, final
    replay = max(int(cfg.batch_size), min(int(cfg.replay_buffer_capacity), half // replay_row))
    reservoir = max(int(cfg.batch_size), min(int(cfg.reservoir_buffer_capacity), half // reservoir_row))
    return replay, reservoir


class NFSPRun:
    """OpenSpiel NFSP agents, one per seat and networks per kind, on
    :class:`BridgeEnvironment`. ``game`` must be a registered env id."""

    name = "nfsp"

    def __init__(self, cfg: NFSPConfig, game: Any = None, log: Callable[[str], None] | None = None):
        self.cfg = cfg
        env_id = game if game is not None else cfg.env_id
        if not isinstance(env_id, str):
            raise ValueError("NFSP runs on the OpenSpiel bridge, which has the registered env ids only")
        if cfg.play not in PLAY_MODES:
            raise ValueError(f"play must be one of {', '.join(PLAY_MODES)}, got {cfg.play!r}")
        if cfg.optimizer not in ("sgd", "adam"):
            raise ValueError(f"optimizer must be sgd or adam, got {cfg.optimizer!r}")
        if not cfg.hidden or any(int(h) < 1 for h in cfg.hidden):
            raise ValueError(f"hidden must list at least one positive layer size, got {cfg.hidden!r}")
        self.game = env_id
        self.spiel_game = load_game(env_id, seed=int(cfg.seed), max_game_length=int(cfg.max_decisions),
                                    **dict(cfg.game))
        probe = self.probe = self.spiel_game.template
        self.kinds = role_kinds(list(probe.roles))
        seat_kind = [role_kind(r) for r in probe.roles]
        self.transform = InputTransform.for_game(probe, cfg.scale_observations, cfg.drop_constant_inputs)
        self.env = BridgeEnvironment(self.spiel_game, self.transform, cfg.auto_play_forced)
        width, n_act = self.transform.width, probe.num_actions
        replay_cap, reservoir_cap = buffer_capacities(cfg, width, n_act)
        reservoirs = {k: _shared_buffer_class(os_nfsp.ReservoirBuffer) for k in self.kinds}
        replays = {k: _shared_buffer_class(os_dqn.ReplayBuffer) for k in self.kinds}
        self.agents: list[os_nfsp.NFSP] = []
        self.owners: dict[str, os_nfsp.NFSP] = {}
        for p, kind in enumerate(seat_kind):
            agent = os_nfsp.NFSP(
                p, width, n_act, [int(h) for h in cfg.hidden], reservoir_cap, float(cfg.anticipatory_param),
                replay_buffer_class=reservoirs[kind], batch_size=int(cfg.batch_size),
                rl_learning_rate=float(cfg.rl_learning_rate), sl_learning_rate=float(cfg.sl_learning_rate),
                min_buffer_size_to_learn=int(cfg.min_buffer_size_to_learn), learn_every=int(cfg.learn_every),
                optimizer_str=cfg.optimizer, seed=int(cfg.seed) * 1000 + 10 * self.kinds.index(kind),
                replay_buffer_capacity=replay_cap, epsilon_start=float(cfg.epsilon_start),
                epsilon_end=float(cfg.epsilon_end), epsilon_decay_duration=int(cfg.epsilon_decay_duration),
                update_target_network_every=int(cfg.update_target_network_every), discount_factor=1.0)
            agent._rl_agent._replay_buffer_class = replays[kind]
            if kind in self.owners:
                share_kind(self.owners[kind], agent)
            else:
                self.owners[kind] = agent
            self.agents.append(agent)
        # NFSP's constructors reseed numpy's and torch's global generators; the run's
        # own stream starts here (the agents sample moves and minibatches from them)
        np.random.seed(int(cfg.seed))
        torch.manual_seed(int(cfg.seed))
        self.deterministic = cfg.play == "greedy"
        self.log = log
        self.steps = 0  # decisions answered by the agents
        self.stats = {"episodes": 0, "replay_capacity": replay_cap, "reservoir_capacity": reservoir_cap}

    # ------------------------------------------------------------------- runs
    def kind_weights(self) -> dict[str, list]:
        """Each kind's average-policy network."""
        return {k: linear_layers(a._avg_network) for k, a in self.owners.items()}

    def meta(self, name: str = "nfsp") -> dict[str, Any]:
        return checkpoint_meta(self.probe, name, {"algorithm": "nfsp", "timesteps": int(self.steps),
                                                  "play": self.cfg.play})

    def policy(self, name: str = "nfsp"):
        """The average policy now, as the checkpoint will hold it."""
        return kind_policy(self.kind_weights(), self.transform, self.meta(name), deterministic=self.deterministic,
                           seed=int(self.cfg.seed) + 7)

    def episode(self) -> None:
        """One game of self-play; every agent sees its end (that is where it learns)."""
        env, agents = self.env, self.agents
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([agents[p].step(ts).action])
            self.steps += 1
        for agent in agents:
            agent.step(ts)
        self.stats["episodes"] += 1

    def train(self, budget: Budget, curve: Curve | None = None) -> None:
        """Whole episodes until the budget is spent, evaluating at the curve's points."""
        budget.start()
        last_log = time.monotonic()
        while True:
            frac = budget.fraction(self.steps)
            if curve is not None and curve.due(frac):
                with budget.paused():
                    curve.maybe(frac, self.policy, self.steps, budget.spent)
            if frac >= 1.0:
                break
            self.episode()
            if self.log and time.monotonic() - last_log > 30:
                last_log = time.monotonic()
                sl, rl = zip(*(a.loss for a in self.owners.values()))
                self.log(f"nfsp: {self.steps} steps, {self.stats['episodes']} games, {budget.spent:.0f} s; "
                         f"avg-policy loss {sl}, DQN loss {rl}")
        budget.stop()
        self.stats["forced"] = self.env.forced
