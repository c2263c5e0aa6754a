"""Self-play training with sb3-contrib ``MaskablePPO`` and a league of frozen
snapshots (also ``spyenvs train GAME``).

One shared network learns every role of the game (the observation is followed by a
role-kind one-hot, see :mod:`spyenvs.wrappers.selfplay`); the learner's seat rotates
every episode. Opponents are drawn per episode from a pool of ``random``,
``heuristic`` and the last ``league.max_snapshots`` frozen copies of the learner
(taken every ``league.snapshot_every`` steps); the snapshots' total sampling weight
is ``league.snapshot_weight``.

Outputs under ``out`` (default ``runs/<env_id>``): TensorBoard scalars
(``tb/``; per role kind ``selfplay/<kind>/win_rate`` over recent training episodes
and ``eval/<kind>/vs_<opponent>``), ``snapshots/*.pt``, ``latest.pt`` and
``final.pt`` (policy checkpoints, see :mod:`spyenvs.agents.checkpoint`), ``state.pt`` (for
``--resume``: network, optimizer, step counters, league and history; loaded with
``weights_only=True``), ``history.json`` and ``learning_curve.png`` from periodic
evaluation, ``results.json``/``results.md`` from the final evaluation, whose win
rates against random and heuristic (Wilson 95% intervals) are printed at the end,
each beside the heuristic's own rate in the same seats and games.

Which weights ship (``final.pt``/``final.npz``) is chosen at the end among the final
weights and the league's last snapshots (``selection``): each plays the heuristic on
games seeded from :data:`~spyenvs.experiments.seed_ranges.SELECTION`, a range the
final evaluation never plays, so the shipped figures are not those the choice was
made on (:func:`select_policy`; ``selection/`` holds the candidates' float16 files).

The options are :class:`spyenvs.experiments.config.TrainConfig`'s. A run is
:func:`start` (the game, the league, the vec env, the model, then the warm start or
the resumed state), :func:`learn` (PPO with :class:`SelfPlayCallback`) and
:func:`finish` (the final checkpoints, the selection, the evaluation and results files).

    python -m spyenvs.experiments.train_selfplay unrest_v0 --config configs/unrest.yaml
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from spyenvs.agents.checkpoint import read_checkpoint, save_arrays
from spyenvs.agents.heuristics import has_heuristic
from spyenvs.agents.macros import make_macro
from spyenvs.agents.policy import role_kinds
from spyenvs.agents.pretrained import table_name
from spyenvs.agents.prior import make_prior, open_decision_indices
from spyenvs.agents.registry import make_policy
from spyenvs.agents.torch_policy import TorchPolicy
from spyenvs.core import progress  # progress.progress_bar looked up per call (tests replace it)
from spyenvs.experiments import config as config_mod
from spyenvs.experiments import seed_ranges
from spyenvs.experiments.config import TrainConfig, default_config_path
from spyenvs.experiments.evaluate import (
    games_for,
    heuristic_reference,
    heuristic_seed,
    load_average,
    map_jobs,
    pin_blas_threads,
    plot_learning_curve,
    reference_levels,
    vs_opponents,
)
from spyenvs.experiments.export import inference_policy, save_trained
from spyenvs.experiments.league import SnapshotLeague
from spyenvs.experiments.lean_sb3 import LeanAdam, LeanRolloutBuffer
from spyenvs.experiments.nets import env_columns_for, policy_kwargs_for
from spyenvs.experiments.report import final_table
from spyenvs.experiments.seed_ranges import SeedRange
from spyenvs.experiments.warm_start import (
    CloneRegulariser,
    behaviour_clone,
    collect_demonstrations,
    join_demonstrations,
    load_demonstrations,
    save_demonstrations,
)
from spyenvs.registry import ENV_IDS, make_game
from spyenvs.tools.arguments import add_train_arguments, run_reporting_errors, train_overrides
from spyenvs.wrappers.selfplay import observation_scale
from spyenvs.wrappers.vec_processes import ProcessVecSelfPlayEnv
from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv

__all__ = ["TrainConfig", "default_config_path", "load_config", "train", "run", "main"]


def load_config(path: str | None, env_id: str | None = None, overrides: dict | None = None) -> TrainConfig:
    """The defaults of :class:`~spyenvs.experiments.config.TrainConfig`, then the YAML
    file, then ``overrides`` (dotted keys allowed); every option must have its field's type."""
    return config_mod.load(TrainConfig, path, env_id, overrides)


# ---------------------------------------------------------------- the game
@dataclass
class GameSpec:
    """What the trainer needs to know of the game, read once from a probe instance."""

    make: Callable[[], Any]  # a fresh game with the run's options
    env_id: str
    roles: list[str]
    kinds: list[str]
    num_players: int
    obs_dim: int
    num_actions: int
    scale: tuple[np.ndarray, np.ndarray] | None  # observation scaling (None: raw inputs)
    env_columns: np.ndarray | None  # the observation entries the learner reads (None: all)
    has_heuristic: bool
    source: Any = None  # the registered id or game class ``make`` builds from (picklable, for workers)


def describe_game(cfg: TrainConfig, game: Any = None) -> GameSpec:
    """``game`` (a registered id, default ``cfg.env_id``, or a game class) with the
    run's options; a bad env id or game option fails here, before anything is written."""
    game = game if game is not None else cfg.env_id

    def make():
        return make_game(game, **cfg.game) if isinstance(game, str) else game(**cfg.game)

    probe = make()
    if cfg.net.prior != "none":
        if not has_heuristic(probe.env_id):
            raise ValueError(f"net.prior {cfg.net.prior} needs a game with a heuristic; {probe.env_id} has none")
        if cfg.net.prior.startswith("lookahead:"):  # it needs a game that rebuilds from observations
            make_prior(cfg.net.prior).bind(probe, 0)
    kinds = role_kinds(list(probe.roles))
    cfg.net.prior_weight_per_kind(kinds)  # a weight per kind names exactly the game's
    open_decision_indices(probe, cfg.net.prior_open, "training option 'net.prior_open'")
    macro = make_macro(cfg.macro)
    if macro is not None:
        macro.check_env(probe.env_id)
    scale = observation_scale(probe.layout) if cfg.scale_observations else None
    # the env writes only the entries the learner reads
    columns = env_columns_for(probe.env_id, probe, config_mod.to_dict(cfg.net))
    return GameSpec(make=make, env_id=probe.env_id, roles=list(probe.roles), kinds=kinds,
                    num_players=probe.num_players, obs_dim=probe.observation_size, num_actions=probe.num_actions,
                    scale=scale, env_columns=columns, has_heuristic=has_heuristic(probe.env_id), source=game)


def opponent_classes(cfg: TrainConfig) -> tuple[str, ...]:
    """The opponent classes the critic is told about (none unless critic_sees_opponent)."""
    return ("random", "heuristic") if cfg.critic_sees_opponent else ()


def row_options(cfg: TrainConfig) -> dict[str, Any]:
    """The env's options for the learner row's extra parts: the other seats'
    observations for the critic (``net.privileged_critic``) and the prior's scores
    (``net.prior``); and for the learner's decisions, the macro (``macro``)."""
    return {"privileged": bool(cfg.net.privileged_critic), "prior": make_prior(cfg.net.prior, seed=cfg.seed + 29,
                                                                                open_decisions=cfg.net.prior_open),
            "macro": make_macro(cfg.macro)}


# ---------------------------------------------------------------- run state
@dataclass
class RunState:
    """The run's bookkeeping: what ``state.pt`` keeps for ``--resume``, and the timers."""

    history: list[dict] = field(default_factory=list)
    train_seconds: float = 0.0
    eval_seconds: float = 0.0
    next_snapshot: int = 0
    next_eval: int = 0


def read_state(path: str) -> tuple[dict, dict]:
    """``state.pt`` as (raw tensors, decoded meta); a missing or unreadable file is a
    one-line error and the run's files are left as they are."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"--resume: no {path} to resume from")
    try:
        raw = torch.load(path, map_location="cpu", weights_only=True)
        return raw, json.loads(raw["meta"])
    except Exception as exc:  # torch raises RuntimeError, UnpicklingError, EOFError ... on a damaged file
        why = str(exc).strip().splitlines()[0].split(". ")[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"--resume: cannot read {path} ({why}); it is left as it is") from exc


def save_state(out: str, cfg: TrainConfig, model, league: SnapshotLeague, state: RunState) -> None:
    """``state.pt``: network, optimizer, step counters, league and history (written
    whole, then moved into place)."""
    meta = {
        "timesteps": int(model.num_timesteps), "snapshots": league.snapshots, "history": state.history,
        "random_retired": league.random_retired,
        "train_seconds": state.train_seconds, "eval_seconds": state.eval_seconds,
        "next_snapshot": state.next_snapshot, "next_eval": state.next_eval, "cfg": config_mod.to_dict(cfg),
    }
    tmp = os.path.join(out, "state.pt.tmp")
    torch.save({"meta": json.dumps(meta), "policy": model.policy.state_dict(),
                "optimizer": model.policy.optimizer.state_dict()}, tmp)
    os.replace(tmp, os.path.join(out, "state.pt"))


def load_state(out: str, env_id: str, model, league: SnapshotLeague, state: RunState) -> None:
    """Restore a run saved by :func:`save_state` into ``model``, ``league`` and ``state``."""
    path = os.path.join(out, "state.pt")
    raw, saved = read_state(path)
    if saved["cfg"]["env_id"] != env_id:
        raise ValueError(f"{path} is a run of {saved['cfg']['env_id']}, not {env_id}")
    model.policy.load_state_dict(raw["policy"])
    model.policy.optimizer.load_state_dict(raw["optimizer"])
    model.num_timesteps = saved["timesteps"]
    league.keep_existing(saved["snapshots"])
    state.history = saved["history"]
    state.train_seconds = saved["train_seconds"]
    state.eval_seconds = saved["eval_seconds"]
    state.next_snapshot = saved["next_snapshot"]
    state.next_eval = saved["next_eval"]
    league.random_retired = bool(saved.get("random_retired", False))


# ---------------------------------------------------------------- the learner
class Learner:
    """The PPO model of a run and its exports: checkpoints and numpy players."""

    def __init__(self, cfg: TrainConfig, spec: GameSpec, model, state: RunState):
        self.cfg, self.spec, self.model, self.state = cfg, spec, model, state

    def meta(self, name: str) -> dict:
        s = self.spec
        meta = {"env_id": s.env_id, "config": s.make().config, "roles": s.roles,
                "role_kinds": s.kinds, "obs_dim": s.obs_dim, "num_actions": s.num_actions,
                "activation": self.cfg.net.activation, "name": name,
                "info": {"timesteps": int(self.model.num_timesteps), "train_seconds": round(self.state.train_seconds, 1)}}
        if self.cfg.net.prior != "none":  # package code the player binds, not weights
            weight = self.cfg.net.prior_weight  # one number, or one per role kind in role_kinds' order
            weight = {k: float(weight[k]) for k in s.kinds} if isinstance(weight, dict) else float(weight)
            meta["prior"] = {"kind": self.cfg.net.prior, "weight": weight}
            if self.cfg.net.prior_open:
                meta["prior"]["open"] = list(self.cfg.net.prior_open)
        if self.cfg.macro != "none":  # the player walks the macro's routes as the learner did
            meta["macro"] = self.cfg.macro
        return meta

    def save_policy(self, path: str, name: str, half: bool = False) -> None:
        save_trained(path, self.model.policy, self.spec.scale, self.meta(name), dtype="float16" if half else "float32")

    def current_policy(self, name: str = "learner", macro: bool = True):
        """The numpy player of the network now; ``macro=False``: the bare network, which
        chooses among whatever mask it is given (DAgger's student, on the macro's masks)."""
        meta = self.meta(name)
        if not macro:
            meta.pop("macro", None)
        return inference_policy(self.model.policy, self.spec.scale, meta,
                                deterministic=self.cfg.eval.deterministic, name=name)


# ---------------------------------------------------------------- warm start
#: games per part of a warm start played by several workers (``warm_start.workers``)
DEMO_PART = 8
#: the run folder's file of the cloning term's demonstrations (teacher's and DAgger's)
DEMOS_FILE = "demos.npz"


def demonstration_part(cfg: TrainConfig, spec: GameSpec, games: int, first: int, seed_offset: int = 0,
                       student=None, progress=None) -> dict:
    """The teacher's games ``first`` to ``first + games - 1`` of a warm start (all of
    them, with ``first`` 0, in one process). A part after the first of a split
    collection draws its games and the teacher's moves from seeds of its own number."""
    ws = cfg.warm_start
    salt = seed_offset + 7_919 * (first // DEMO_PART)  # one process plays all from 0: part 0
    teacher = make_policy(ws.teacher, seed=cfg.seed + 17 + salt)
    return collect_demonstrations(spec.make, teacher, games, cfg.seed + 23 + salt,
                                  cfg.learner_kinds or spec.kinds, spec.kinds, spec.scale,
                                  columns=spec.env_columns,
                                  gamma=cfg.ppo.gamma, max_decisions=cfg.max_decisions,
                                  progress=progress, opponent_classes=opponent_classes(cfg),
                                  student=student, privileged=bool(cfg.net.privileged_critic),
                                  prior=make_prior(cfg.net.prior, seed=cfg.seed + 31 + salt,
                                                                   open_decisions=cfg.net.prior_open),
                                  macro=make_macro(cfg.macro), first=first,
                                  opponent=(make_policy(ws.opponent, seed=cfg.seed + 29 + salt, env_id=spec.env_id)
                                            if ws.opponent else None),
                                  visits=ws.targets == "visits")


def _demonstration_job(job: tuple) -> tuple[int, dict]:
    """One part of a warm start in a worker process (the game described afresh here):
    how many games it played, and their demonstrations."""
    cfg, source, games, first, seed_offset, student = job
    pin_threads(1, 1)
    if student is not None:  # each part samples the student's moves from a stream of its own
        student.rng = np.random.default_rng([cfg.seed, seed_offset, first])
    return games, demonstration_part(cfg, describe_game(cfg, source), games, first, seed_offset, student=student)


class WarmStart:
    """Behaviour cloning before PPO: the teacher's games, cloning, DAgger rounds."""

    def __init__(self, cfg: TrainConfig, spec: GameSpec, learner: Learner, quiet: bool):
        self.cfg, self.spec, self.learner, self.quiet = cfg, spec, learner, quiet
        self.stats: dict | None = None

    def demonstrations(self, games: int | None = None, seed_offset: int = 0, student=None) -> dict:
        """The teacher's games for cloning (see :mod:`spyenvs.experiments.warm_start`);
        with ``student``, DAgger's: the student plays, the teacher labels."""
        cfg, ws = self.cfg, self.cfg.warm_start
        games = int(ws.games if games is None else games)
        what = f"{ws.teacher} games to clone" if student is None else f"DAgger games labelled by {ws.teacher}"
        with progress.progress_bar(games, what, enabled=not self.quiet) as bar:
            if int(ws.workers) <= 1:
                return demonstration_part(cfg, self.spec, games, 0, seed_offset, student=student,
                                          progress=bar.update)
            jobs = [(cfg, self.spec.source, min(DEMO_PART, games - first), first, seed_offset, student)
                    for first in range(0, games, DEMO_PART)]
            parts = []
            for played, part in map_jobs(_demonstration_job, jobs, int(ws.workers)):
                parts.append(part)
                bar.update(played)
            return join_demonstrations(parts)

    def load(self, path: str) -> dict:
        """Demonstrations a run kept (``demos.npz``), checked against this run: the same
        teacher and rows as this run's env writes them."""
        demos, teacher = load_demonstrations(path)
        ws, spec = self.cfg.warm_start, self.spec
        if teacher != ws.teacher:
            raise ValueError(f"{path} holds {teacher}'s games; set warm_start.teacher={teacher} to clone them")
        width = int(self.learner.model.observation_space.shape[0])
        if demos["obs"].shape[1:] != (width,) or demos["masks"].shape[1:] != (spec.num_actions,):
            raise ValueError(f"{path} has rows of {demos['obs'].shape[1]} inputs and {demos['masks'].shape[1]} "
                             f"actions; this run's are {width} and {spec.num_actions} (another game, game "
                             "options or net inputs)")
        if ws.targets == "visits" and "targets" not in demos:
            raise ValueError(f"{path} holds {teacher}'s moves without its visit shares; "
                             "set warm_start.targets=moves to clone them")
        if ws.targets == "moves":
            demos.pop("targets", None)
        return demos

    def run(self, demos: dict, out: str) -> dict:
        """Clone the teacher into the fresh network (actor and critic; with the prior
        as the teacher the critic alone, since the actor already plays it), then run the
        DAgger rounds; returns every label gathered (for the cloning term). Cloning
        counts as training time; playing the teacher's and DAgger's games does not."""
        ws = self.cfg.warm_start
        self._clone(demos, ws.epochs, self.cfg.seed, f"cloned {ws.teacher}:")
        for r in range(int(ws.dagger_rounds)):
            student = self.learner.current_policy("clone", macro=False)  # it chooses on the macro's masks
            student.deterministic = False  # the clone samples its moves, as PPO's rollouts will
            labelled = self.demonstrations(games=int(ws.dagger_games), seed_offset=1000 * (r + 1), student=student)
            demos = join_demonstrations([demos, labelled])
            self._clone(demos, ws.dagger_epochs, self.cfg.seed + r + 1, f"DAgger round {r + 1}:")
            self.stats["dagger_rounds"] = r + 1
        self.learner.save_policy(os.path.join(out, "cloned.pt"), f"{self.spec.env_id}_cloned")
        return demos

    def _clone(self, demos: dict, epochs: int, seed: int, what: str) -> None:
        ws = self.cfg.warm_start
        t0 = time.monotonic()
        self.stats = behaviour_clone(self.learner.model.policy, demos, epochs, ws.batch_size,
                                     ws.learning_rate, seed=seed, fused=bool(self.cfg.fused_adam),
                                     actor=not self.cfg.prior_plays_teacher)
        if self.cfg.prior_plays_teacher:
            self.stats["critic_only"] = True
            what = f"{what} (critic only: the prior plays the teacher)"
        self.learner.state.train_seconds += time.monotonic() - t0
        if not self.quiet:
            st = self.stats
            print(f"{what} {st['samples']} decisions, agreement {st['agreement']:.1%}, {st['seconds']}s",
                  file=sys.stderr)


# ---------------------------------------------------------------- evaluation
def evaluation_plan(cfg: TrainConfig, spec: GameSpec, games: int, seeds: SeedRange, offset: int = 0) -> dict:
    """What an evaluation plays: ``games`` in all (at least ``games`` per role, the
    candidate's seats rotating) from ``seed`` on, against ``opponent_seeds``
    (``eval.opponents``, the heuristic only where the game has one, each seeded like
    the games), ``max_decisions`` per game."""
    n = games_for(spec.make(), games)
    seed = seeds.first(n, offset)
    opponents = {opp: seed for opp in cfg.eval.opponents if opp != "heuristic" or spec.has_heuristic}
    return {"seed": seed, "games": n, "opponent_seeds": opponents, "max_decisions": cfg.max_decisions}


def evaluate(cfg: TrainConfig, spec: GameSpec, game: Any, candidate, games: int, seeds: SeedRange,
             offset: int = 0) -> dict[str, dict]:
    """``candidate`` vs random and vs the heuristic, at least ``games`` games per role,
    on games from ``seeds`` (:func:`evaluation_plan`)."""
    plan = evaluation_plan(cfg, spec, games, seeds, offset)
    return vs_opponents(game, cfg.game, candidate, plan["games"], plan["seed"], plan["max_decisions"],
                        plan["opponent_seeds"])


class SelfPlayRun:
    """One run's pieces while PPO trains: the learner, the league, the bookkeeping;
    the snapshots and periodic evaluations the callback asks for."""

    def __init__(self, cfg: TrainConfig, out: str, spec: GameSpec, game: Any, venv: VecSelfPlayEnv,
                 league: SnapshotLeague, state: RunState, learner: Learner, quiet: bool):
        self.cfg, self.out, self.spec, self.game, self.venv = cfg, out, spec, game, venv
        self.league, self.state, self.learner, self.quiet = league, state, learner, quiet
        self.episode_stats: dict[str, list[float]] = {k: [] for k in spec.kinds}
        self.regulariser: CloneRegulariser | None = None
        self.bar = None

    def save_state(self) -> None:
        save_state(self.out, self.cfg, self.learner.model, self.league, self.state)

    def snapshot(self) -> None:
        model = self.learner.model
        t = int(model.num_timesteps)
        path = os.path.join(self.out, "snapshots", f"snap_{t:09d}.pt")
        self.learner.save_policy(path, f"snap_{t}")
        self.league.add_snapshot(path)
        model.get_env().env_method("set_opponents", self.league.pool())
        self.save_state()  # so --resume loses at most one snapshot interval

    def periodic_eval(self) -> None:
        model = self.learner.model
        t0 = time.monotonic()
        t = int(model.num_timesteps)
        vs = evaluate(self.cfg, self.spec, self.game, self.learner.current_policy(), self.cfg.eval.games,
                      seed_ranges.PERIODIC_EVAL, offset=t)
        self.state.history.append({"timesteps": t, "vs": vs})
        for opp, kinds in vs.items():
            for kind, v in kinds.items():
                model.logger.record(f"eval/{kind}/vs_{opp}", v["rate"])
        self.learner.save_policy(os.path.join(self.out, "latest.pt"), "latest")
        with open(os.path.join(self.out, "history.json"), "w") as f:
            json.dump(self.state.history, f, indent=1)
        self.save_state()
        self.state.eval_seconds += time.monotonic() - t0
        if not self.quiet:
            msg = "; ".join(f"{k} vs {o} {v['rate']:.0%}" for o, ks in vs.items() for k, v in ks.items())
            self.bar.write(f"[{t} steps] {msg}")


class SelfPlayCallback(BaseCallback):
    """Progress, per-role training win rates, snapshots and periodic evaluation."""

    def __init__(self, run: SelfPlayRun):
        super().__init__()
        self.run = run

    def _on_training_start(self) -> None:
        self._t0 = time.monotonic()

    def _on_rollout_start(self) -> None:
        if getattr(self.training_env, "processes", 1) > 1:
            # the workers step their games while this process steps its own: a second
            # torch thread would spin on their core (its OpenMP threads wait busy)
            torch.set_num_threads(1)

    def _on_step(self) -> bool:
        run, state = self.run, self.run.state
        run.bar.update(self.training_env.num_envs)
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "outcome" in info:
                r = info["outcome"]
                won = 1.0 if r > 0 else (0.5 if r == 0 else 0.0)
                run.episode_stats[info["kind"]].append(won)
                run.league.record_episode(info.get("opponent", "?"), won)
        t = self.num_timesteps
        if t >= state.next_snapshot:
            state.next_snapshot += run.cfg.league.snapshot_every
            now = time.monotonic()
            state.train_seconds += now - self._t0
            run.snapshot()
            self._t0 = time.monotonic()
        if t >= state.next_eval:
            state.next_eval += run.cfg.eval.every
            state.train_seconds += time.monotonic() - self._t0
            run.periodic_eval()
            self._t0 = time.monotonic()
        return True

    def _on_rollout_end(self) -> None:
        run = self.run
        torch.set_num_threads(int(run.cfg.torch_threads))  # the update has the cores to itself
        for kind, wins in run.episode_stats.items():
            if wins:
                self.logger.record(f"selfplay/{kind}/win_rate", float(np.mean(wins[-200:])))
                del wins[:-200]
        self.logger.record("selfplay/snapshots", len(run.league.snapshots))
        if run.league.update():
            self.training_env.env_method("set_opponents", run.league.pool())
        self.logger.record("selfplay/random_retired", float(run.league.random_retired))
        if run.regulariser is not None:
            loss = run.regulariser.apply(self.model)
            if loss is not None:
                self.logger.record("selfplay/clone_loss", loss)
        stats = getattr(self.training_env, "stats", None)
        if stats and stats["learner_decisions"]:
            # single-option learner decisions played by the env, not the network
            self.logger.record("selfplay/forced_per_learner_decision",
                               stats["forced_decisions"] / stats["learner_decisions"])
            if run.cfg.macro != "none":  # env moves the macro's plans played per learner decision
                self.logger.record("selfplay/macro_per_learner_decision",
                                   stats["macro_decisions"] / stats["learner_decisions"])

    def _on_training_end(self) -> None:
        self.run.state.train_seconds += time.monotonic() - self._t0


# ---------------------------------------------------------------- snapshot selection
@dataclass
class Candidate:
    """One policy the run may ship: its weights as a float32 checkpoint and as the
    float16 file that would ship (the one selection plays)."""

    name: str  # "final" (the last weights) or the snapshot's file name without .pt
    timesteps: int
    checkpoint: str
    shippable: str


def selection_candidates(run: SelfPlayRun) -> list[Candidate]:
    """The final weights (``final.pt``/``final.npz``, already written) and the league's
    snapshots taken before them, newest first, ``selection.snapshots`` at most; each
    snapshot's shippable float16 copy is written to ``selection/``."""
    out, steps = run.out, int(run.learner.model.num_timesteps)
    found = [Candidate("final", steps, os.path.join(out, "final.pt"), os.path.join(out, "final.npz"))]
    earlier = []
    for path in run.league.snapshots:
        arrays, meta = read_checkpoint(path)
        t = int(meta.get("info", {}).get("timesteps", -1))
        if 0 <= t < steps:
            earlier.append((t, path, arrays, meta))
    earlier.sort(key=lambda e: -e[0])
    for t, path, arrays, meta in earlier[: int(run.cfg.selection.snapshots) - 1]:
        name = os.path.splitext(os.path.basename(path))[0]
        shippable = os.path.join(out, "selection", f"{name}.npz")
        save_arrays(shippable, arrays, meta, dtype="float16")  # as final.npz is written: float16
        found.append(Candidate(name, t, path, shippable))
    return found


def selection_score(kinds: dict[str, dict]) -> float:
    """A candidate's selection score: its mean win rate over role kinds (each kind
    counts once, however many seats it has)."""
    return float(np.mean([v["rate"] for v in kinds.values()]))


def choose(scored: list[tuple[Candidate, float]]) -> Candidate:
    """The best score; a tie goes to the later candidate (more training)."""
    return max(scored, key=lambda cs: (cs[1], cs[0].timesteps))[0]


def select_policy(run: SelfPlayRun) -> dict | None:
    """Play each of :func:`selection_candidates` against the heuristic on the
    :data:`~spyenvs.experiments.seed_ranges.SELECTION` games (the same games for
    each), and make the best one ``final.pt``/``final.npz`` (the last weights then
    move to ``last.pt``/``last.npz``). Returns what results.json records, or None
    when there was nothing to compare (one candidate, or a game without a heuristic)."""
    cfg, spec, out = run.cfg, run.spec, run.out
    if not spec.has_heuristic:
        return None
    candidates = selection_candidates(run)
    if len(candidates) < 2:
        return None
    t0 = time.monotonic()
    n = games_for(spec.make(), int(cfg.selection.games))
    seed = seed_ranges.SELECTION.first(n)
    scored, rows = [], []
    for c in candidates:
        policy = TorchPolicy.load(c.shippable, deterministic=cfg.eval.deterministic)
        kinds = vs_opponents(run.game, cfg.game, policy, n, seed, cfg.max_decisions, {"heuristic": seed})["heuristic"]
        scored.append((c, selection_score(kinds)))
        rows.append({"name": c.name, "timesteps": c.timesteps, "score": scored[-1][1], "kinds": kinds})
    best = choose(scored)
    if best.name != "final":
        for ext in (".pt", ".npz"):
            os.replace(os.path.join(out, f"final{ext}"), os.path.join(out, f"last{ext}"))
        shutil.copyfile(best.checkpoint, os.path.join(out, "final.pt"))
        shutil.copyfile(best.shippable, os.path.join(out, "final.npz"))
    record = {"opponent": "heuristic", "games_per_role": int(cfg.selection.games), "games": n, "seed": seed,
              "max_decisions": cfg.max_decisions, "chosen": best.name, "chosen_timesteps": best.timesteps,
              "candidates": rows, "seconds": round(time.monotonic() - t0, 1)}
    if not run.quiet:
        print("selection vs heuristic: " + ", ".join(f"{r['name']} {r['score']:.1%}" for r in rows)
              + f"; ships {best.name}", file=sys.stderr)
    return record


# ---------------------------------------------------------------- building
def pin_threads(torch_threads: int, blas_threads: int) -> None:
    """One compute thread per process by default: on 2 cores, BLAS or OpenMP pools
    in the learner oversubscribe the CPU. The environment variables reach the pools of
    processes started from here; numpy's BLAS pool is limited through threadpoolctl and
    torch's through ``torch.set_num_threads``."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, str(int(blas_threads)))
    pin_blas_threads(blas_threads)
    torch.set_num_threads(int(torch_threads))


def make_vec_env(cfg: TrainConfig, spec: GameSpec, game: Any, opponents: list, **options: Any) -> VecSelfPlayEnv:
    """The games, opponents batched: all in this process (:class:`VecSelfPlayEnv`), or
    split over ``env_processes`` (at most ``n_envs``; :class:`ProcessVecSelfPlayEnv`).
    ``options`` replace the config's env options (e.g. ``learner_kinds``).
    Split games fork their workers here: before the PPO model exists and torch starts
    its threads, which a forked child must not inherit busy."""
    options = dict(dict(learner_kinds=cfg.learner_kinds, max_decisions=cfg.max_decisions,
                        auto_play_forced=bool(cfg.auto_play_forced), scale_observations=bool(cfg.scale_observations),
                        seed=cfg.seed, opponent_classes=opponent_classes(cfg), obs_columns=spec.env_columns,
                        learner_teams=bool(cfg.learner_teams), **row_options(cfg)), **options)
    processes = min(int(cfg.env_processes), int(cfg.n_envs))
    if processes > 1:
        return ProcessVecSelfPlayEnv(game, cfg.game, opponents, num_envs=int(cfg.n_envs), processes=processes,
                                     **options)
    return VecSelfPlayEnv(game, cfg.game, opponents, num_envs=int(cfg.n_envs), **options)


def make_model(cfg: TrainConfig, spec: GameSpec, venv: VecSelfPlayEnv, out: str) -> MaskablePPO:
    """The MaskablePPO learner over ``venv`` with the game's network (reading the
    env's learner row by its parts: :meth:`VecSelfPlayEnv.row_layout`)."""
    row = dict(venv.row_layout(), prior_weight=cfg.net.prior_weight_per_kind(venv.kinds),
               value_heads=(venv.role_dims or 1) if cfg.net.privileged_critic else 1)
    policy_class, policy_kwargs = policy_kwargs_for(spec.env_id, spec.make(), config_mod.to_dict(cfg.net),
                                                    critic_only_dims=venv.opponent_dims, env_columns=spec.env_columns,
                                                    row=row)
    if cfg.fused_adam:
        policy_kwargs["optimizer_class"] = LeanAdam
        policy_kwargs["optimizer_kwargs"] = {}  # SB3's eps=1e-5 default is for torch's Adam only
    return MaskablePPO(policy_class, venv, seed=cfg.seed, device=cfg.device, verbose=0,
                       rollout_buffer_class=LeanRolloutBuffer,
                       tensorboard_log=os.path.join(out, "tb"), policy_kwargs=policy_kwargs,
                       **config_mod.to_dict(cfg.ppo))


def start(cfg: TrainConfig, out: str, game: Any, resume: bool, quiet: bool) -> tuple[SelfPlayRun, WarmStart]:
    """Everything up to the first PPO step: the game, the league, the vec env, the
    model, then the warm start (or the resumed state) and the cloning term."""
    spec = describe_game(cfg, game)  # a bad env id or game option fails before out exists
    game = game if game is not None else cfg.env_id
    league = SnapshotLeague(cfg.league, cfg.seed, spec.has_heuristic, spec.make)
    state = RunState(next_snapshot=cfg.league.snapshot_every, next_eval=cfg.eval.every)
    if resume:
        _, saved = read_state(os.path.join(out, "state.pt"))
        league.keep_existing(saved["snapshots"])
    venv = make_vec_env(cfg, spec, game, league.pool())
    learner = Learner(cfg, spec, make_model(cfg, spec, venv, out), state)
    run = SelfPlayRun(cfg, out, spec, game, venv, league, state, learner, quiet)
    warm = WarmStart(cfg, spec, learner, quiet)
    ws, reg = cfg.warm_start, cfg.clone_reg
    demos = None
    kept = os.path.join(out, DEMOS_FILE)  # the cloning term's demonstrations, for --resume
    if not resume or float(reg.coef) > 0:  # a resumed run needs them only for the cloning term
        if resume and os.path.exists(kept):
            demos = warm.load(kept)
        elif ws.demos:
            demos = warm.load(ws.demos)
        elif int(ws.games) > 0:
            demos = warm.demonstrations()
    os.makedirs(out, exist_ok=True)
    if resume:
        load_state(out, spec.env_id, learner.model, league, state)
    elif demos is not None:
        demos = warm.run(demos, out)
        if float(reg.coef) > 0 or ws.teacher != "heuristic":  # the heuristic's games are quick to play again
            save_demonstrations(kept, demos, ws.teacher)
    if demos is not None and float(reg.coef) > 0:
        run.regulariser = CloneRegulariser(demos, reg.coef, reg.decay_steps, reg.steps, reg.batch_size,
                                           seed=cfg.seed)
    return run, warm


def learn(run: SelfPlayRun, resume: bool) -> None:
    """PPO up to ``total_timesteps`` (whole rollouts), with :class:`SelfPlayCallback`."""
    model, venv = run.learner.model, run.venv
    total = int(run.cfg.total_timesteps)
    begin = int(model.num_timesteps)
    remaining = max(0, total - begin)
    # SB3 collects whole rollouts of n_envs * n_steps, so it stops at the first multiple past total
    rollout = venv.num_envs * int(run.cfg.ppo.n_steps)
    with progress.progress_bar(begin + -(-remaining // rollout) * rollout, f"train {run.spec.env_id}",
                      enabled=not run.quiet) as bar:
        run.bar = bar
        bar.update(int(model.num_timesteps))
        try:
            if remaining:
                model.learn(remaining, callback=SelfPlayCallback(run), reset_num_timesteps=not resume,
                            tb_log_name="selfplay")
        finally:
            venv.close()  # an env's worker processes end with the run, failed or not


def finish(run: SelfPlayRun, warm: WarmStart) -> dict:
    """The last evaluation, the final checkpoints, the choice among the last
    snapshots (:func:`select_policy`), the final evaluation of the shipped file with
    the heuristic's own scores beside it, and the run's results files; returns the
    results dict."""
    cfg, out, spec, state, learner = run.cfg, run.out, run.spec, run.state, run.learner
    model, venv = learner.model, run.venv
    if cfg.eval.games > 0 and (not state.history or state.history[-1]["timesteps"] != int(model.num_timesteps)):
        run.periodic_eval()
    learner.save_policy(os.path.join(out, "final.pt"), f"{spec.env_id}_final")
    # the shippable copy: numpy-only, float16 (python -m spyenvs.experiments.leaderboard --ship RUN);
    # the final evaluation plays this very file, so its figures are the shipped policy's
    learner.save_policy(os.path.join(out, "final.npz"), f"{spec.env_id}_final", half=True)
    for ext in (".pt", ".npz"):  # a resumed run's earlier choice: these weights are not the last any more
        if os.path.isfile(os.path.join(out, f"last{ext}")):
            os.remove(os.path.join(out, f"last{ext}"))
    t0 = time.monotonic()
    selection = select_policy(run) if cfg.selection.enabled else None
    # final evaluation (final_games 0 skips it: the training benchmark times training alone)
    final, reference, evaluation = {}, None, None
    if cfg.eval.final_games > 0:
        shipped = TorchPolicy.load(os.path.join(out, "final.npz"), deterministic=cfg.eval.deterministic)
        plan = evaluation_plan(cfg, spec, cfg.eval.final_games, seed_ranges.FINAL_EVAL)
        args = (plan["games"], plan["seed"], plan["max_decisions"], plan["opponent_seeds"])
        final = vs_opponents(run.game, cfg.game, shipped, *args)
        evaluation = dict(plan, deterministic=bool(cfg.eval.deterministic))
        if spec.has_heuristic:  # the level the shipped figures are read against
            reference = heuristic_reference(run.game, cfg.game, *args)
            evaluation["heuristic_seed"] = heuristic_seed(plan["opponent_seeds"])
    final_seconds = time.monotonic() - t0
    steps = int(model.num_timesteps)
    results = {"env_id": spec.env_id, "config": spec.make().config, "num_players": spec.num_players,
               "timesteps": steps, "train_seconds": round(state.train_seconds, 1),
               "eval_seconds": round(state.eval_seconds + final_seconds, 1),
               "steps_per_second": round(steps / state.train_seconds, 1) if state.train_seconds > 0 else None,
               "vs": final, "checkpoint": os.path.join(out, "final.pt"),
               "env_stats": dict(getattr(venv, "stats", {})), "warm_start": warm.stats,
               "load": load_average(),
               "random_retired": run.league.random_retired,
               "options": config_mod.to_dict(cfg)}  # the whole recipe, so a shipped file names what made it
    if evaluation is not None:
        results["evaluation"] = evaluation
    if reference is not None:
        results["heuristic_vs"] = reference
    if selection is not None:
        results["selection"] = selection
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(out, "history.json"), "w") as f:
        json.dump(state.history, f, indent=1)
    if state.history:  # a run without evaluations (eval.games=0) has no curve to draw
        plot_learning_curve(state.history, os.path.join(out, "learning_curve.png"), f"{spec.env_id} self-play",
                            levels=reference_levels(reference))
    ships = "" if selection is None else f"; ships {selection['chosen']} ({selection['chosen_timesteps']} steps)"
    text = final_table(
        f"{spec.env_id}: {steps} steps in {state.train_seconds:.0f}s of training "
        f"({results['steps_per_second']} steps/s){ships}; final evaluation ({cfg.eval.final_games} games per opponent)",
        spec.kinds, final, reference)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    return results


def train(cfg: TrainConfig | dict, out: str | None = None, resume: bool = False, quiet: bool = False,
          game: Any = None) -> dict:
    """Run (or resume) a training run; returns the final results dict. ``cfg`` may
    also be a mapping of the same options (checked like a loaded config)."""
    cfg = config_mod.coerce(TrainConfig, cfg)
    pin_threads(cfg.torch_threads, cfg.blas_threads)
    out = out or default_out(cfg)
    # before any torch thread or env worker starts: each inherits this thread's setting
    with flushing_denormals(bool(cfg.flush_denormals)), without_distribution_checks():
        run, warm = start(cfg, out, game, resume, quiet)
        learn(run, resume)
        return finish(run, warm)


def default_out(cfg: TrainConfig) -> str:
    """``runs/<table>``: ``runs/<env_id>`` at the game's default player count,
    ``runs/<env_id>-<N>p`` at another (:func:`~spyenvs.agents.pretrained.table_name`)."""
    if isinstance(cfg.env_id, str) and cfg.env_id in ENV_IDS:
        return os.path.join("runs", table_name(cfg.env_id, cfg.game))
    return os.path.join("runs", str(cfg.env_id))


@contextlib.contextmanager
def flushing_denormals(on: bool):
    """With ``on``, subnormal floats flushed to zero inside (``torch.set_flush_denormal``):
    in this thread, and in the threads and processes started from it inside (torch's
    thread pool, when the run starts it; forked env workers). After, this thread's own
    setting is as it was; threads started inside keep theirs. Off: nothing changes."""
    if not on:
        yield
        return
    was = bool((torch.tensor(1e-39, dtype=torch.float32) * 1.0).item() == 0.0)
    if not torch.set_flush_denormal(True):
        print("spyenvs: this CPU cannot flush subnormal floats; flush_denormals has no effect", file=sys.stderr)
    try:
        yield
    finally:
        torch.set_flush_denormal(was)


@contextlib.contextmanager
def without_distribution_checks():
    """torch.distributions' argument checks off inside, as they were after. SB3 builds a
    masked categorical distribution (twice over, masking included) for every rollout
    step and every PPO minibatch, and each build checks its logits and each log-prob its
    actions: work that changes no number (the run's weights are bit-identical), paid
    per call whatever the network's size. A NaN logit still fails, in sampling."""
    was = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)
    try:
        yield
    finally:
        torch.distributions.Distribution.set_default_validate_args(was)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command-line arguments (shared with ``spyenvs train``)."""
    add_train_arguments(parser)


def run(args) -> int:
    overrides = train_overrides(args)
    if args.timesteps is not None:
        overrides["total_timesteps"] = args.timesteps
    path = args.config or default_config_path(args.env_id)
    cfg = load_config(path, args.env_id, overrides)
    train(cfg, args.out, resume=args.resume, quiet=args.quiet)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="spyenvs train", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "train_selfplay"))
