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
rates against random and heuristic (Wilson 95% intervals) are printed at the end.

    python -m spyenvs.experiments.train_selfplay unrest_v0 --config configs/unrest.yaml
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time
from typing import Any

import numpy as np

DEFAULTS: dict[str, Any] = {
    "env_id": None,
    "game": {},                 # game config options
    "seed": 0,
    "total_timesteps": 200_000,  # learner decisions
    "n_envs": 64,               # games stepped together in one process, opponents batched
    "auto_play_forced": True,   # play single-option learner decisions without the network
    "max_decisions": 3000,      # all seats' decisions per episode before truncation
    "learner_kinds": None,      # None: one network for every role kind
    "device": "cpu",
    "torch_threads": 1,         # torch intra-op threads per process
    "blas_threads": 1,          # numpy BLAS threads per process
    # torch's fused Adam kernel, called without torch.optim (``LeanAdam``): one kernel
    # per parameter instead of one per operation (measured 4.4x faster per step on
    # Specter Ops' 14k-input layers, 1 thread), and no 1.7 s torch._dynamo import
    "fused_adam": True,
    # the critic (never the actor) also reads which class of opponent the episode plays:
    # random, heuristic or a snapshot (the "opponent identity for the critic")
    "critic_sees_opponent": False,
    "ppo": {
        "learning_rate": 3.0e-4,
        "n_steps": 64,          # per env and rollout (64 envs: 4096 steps a rollout)
        "batch_size": 512,
        "n_epochs": 4,
        "gamma": 0.997,
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "ent_coef": 0.01,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
    },
    # arch mlp: hidden/activation, and the entries the game declares constant left out of
    # its input (drop_constant_inputs); board_cnn (Specter Ops; auto picks it where a game
    # has board planes): a dilated conv trunk with per-cell logits; card_table (Unrest):
    # hidden layers over the input and its card table, and a PLAY head of play_hidden
    # units that scores each play by its cards (spyenvs.experiments.nets)
    "net": {"arch": "mlp", "hidden": [128, 128], "activation": "tanh", "drop_constant_inputs": True,
            "channels": 16, "dilations": [1, 2, 4, 8], "vec_hidden": [128, 128], "head_hidden": 128,
            "share_trunk": False, "play_hidden": 64},
    "scale_observations": True,  # inputs scaled to [0, 1] by the layout's bounds
    "warm_start": {             # behaviour cloning before PPO (games 0: off)
        "games": 0,
        "teacher": "heuristic",
        "epochs": 10,
        "batch_size": 256,
        "learning_rate": 1.0e-3,
        # DAgger: rounds of dagger_games with the clone in the learner's seats and the
        # teacher labelling, each followed by dagger_epochs of cloning on every label
        "dagger_rounds": 0,
        "dagger_games": 500,
        "dagger_epochs": 4,
    },
    "clone_reg": {              # cloning steps after each PPO update, weight decaying to 0
        "coef": 0.0,
        "decay_steps": 200_000,
        "steps": 4,
        "batch_size": 256,
    },
    "league": {
        "random_weight": 1.0,
        "heuristic_weight": 1.0,
        "snapshot_weight": 2.0,
        "snapshot_every": 20_000,
        "max_snapshots": 5,
        "retire_random_at": 0.95,  # drop random once the training win rate vs it reaches this (every kind)
        "prioritise": True,        # snapshots the learner loses to are drawn more often
    },
    "eval": {
        "every": 40_000,
        "games": 40,             # per opponent, seats rotated
        "final_games": 200,
        "opponents": ["random", "heuristic"],
        "deterministic": True,
    },
}


def deep_merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in (over or {}).items():
        if k not in base and k not in ("env_id",):
            raise ValueError(f"unknown training option {k!r}; allowed: {', '.join(base)}")
        if isinstance(v, dict) and isinstance(base.get(k), dict) and k != "game":
            out[k] = deep_merge(base[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def merge_config(defaults: dict, path: str | None, env_id: str | None = None, overrides: dict | None = None,
                 open_sections: tuple[str, ...] = ("game",)) -> dict:
    """``defaults``, then the YAML file, then ``overrides`` (dotted keys allowed).
    An unknown key is an error except inside ``open_sections`` (the game's options
    are checked by the game). Shared by the SB3 and RLlib trainers."""
    cfg = copy.deepcopy(defaults)
    if path:
        import yaml

        try:
            with open(path) as f:
                data = yaml.safe_load(f) or {}
        except OSError as exc:
            raise ValueError(f"cannot read the training config {path}: {exc.strerror or exc}") from exc
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise ValueError(f"{path}: not valid YAML{where}: {problem}") from exc
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a training config must be a YAML mapping")
        cfg = deep_merge(cfg, data)
    open_nodes = [cfg.get(name) for name in open_sections]
    for key, value in (overrides or {}).items():
        node = cfg
        *head, last = key.split(".")
        for h in head:
            if not isinstance(node.get(h), dict):
                raise ValueError(f"unknown training option {key!r}")
            node = node[h]
        if last not in node and not any(node is n for n in open_nodes):
            raise ValueError(f"unknown training option {key!r}")
        node[last] = value
    if env_id:
        if cfg.get("env_id") and cfg["env_id"] != env_id:
            raise ValueError(f"config is for {cfg['env_id']}, not {env_id}")
        cfg["env_id"] = env_id
    if not cfg.get("env_id"):
        raise ValueError("no env_id: give it on the command line or in the config")
    return cfg


def check_option_types(cfg: dict, defaults: dict, prefix: str = "", open_sections: tuple[str, ...] = ("game",)) -> None:
    """Every option whose default is not None has the default's type (an int is a
    fine float); a ValueError names the option and the allowed type."""
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "a mapping"}
    for key, default in defaults.items():
        name = prefix + key
        if default is None or name in open_sections or key not in cfg:
            continue
        value = cfg[key]
        kind = type(default)
        if kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise ValueError(f"training option {name!r} must be {names.get(kind, kind.__name__)}, "
                             f"got {value!r} ({type(value).__name__})")
        if kind is dict:
            check_option_types(value, default, name + ".", open_sections)


def load_config(path: str | None, env_id: str | None = None, overrides: dict | None = None) -> dict:
    """DEFAULTS, then the YAML file, then ``overrides`` (dotted keys allowed); every
    option must have its default's type."""
    cfg = merge_config(DEFAULTS, path, env_id, overrides)
    check_option_types(cfg, DEFAULTS)
    return cfg


def final_table(title: str, kinds, final: dict) -> str:
    """The closing summary both trainers print: per role, the win rate against random
    and heuristic with its Wilson interval (``final[opponent][role]``)."""
    from spyenvs.experiments.evaluate import pct

    lines = [title, "| role | vs random [95% CI] | vs heuristic [95% CI] |", "|---|---|---|"]
    for kind in kinds:
        cells = []
        for opp in ("random", "heuristic"):
            v = final.get(opp, {}).get(kind)
            cells.append(pct(v["rate"], v["low"], v["high"]) + f" (n={v['games']})" if v else "n/a")
        lines.append(f"| {kind} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def read_state(path: str) -> tuple[dict, dict]:
    """``state.pt`` as (raw tensors, decoded meta); a missing or unreadable file is a
    one-line error and the run's files are left as they are."""
    import torch

    if not os.path.isfile(path):
        raise FileNotFoundError(f"--resume: no {path} to resume from")
    try:
        raw = torch.load(path, map_location="cpu", weights_only=True)
        return raw, json.loads(raw["meta"])
    except Exception as exc:  # torch raises RuntimeError, UnpicklingError, EOFError ... on a damaged file
        why = str(exc).strip().splitlines()[0].split(". ")[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"--resume: cannot read {path} ({why}); it is left as it is") from exc


class Trainer:
    """Holds the model, the league and the bookkeeping of one training run."""

    def __init__(self, cfg: dict, out: str, game: Any = None, quiet: bool = False):
        from spyenvs.agents.heuristics import HeuristicPolicy, has_heuristic
        from spyenvs.agents.policy import RandomPolicy, role_kinds

        self.cfg = cfg
        self.out = out
        self.quiet = quiet
        self.game = game if game is not None else cfg["env_id"]
        probe = self._probe()
        self.env_id = probe.env_id
        self.roles = list(probe.roles)
        self.kinds = role_kinds(self.roles)
        self.num_players = probe.num_players
        self.obs_dim = probe.observation_size
        self.num_actions = probe.num_actions
        from spyenvs.wrappers.selfplay import observation_scale

        self.scale = observation_scale(probe.layout) if cfg["scale_observations"] else None
        from spyenvs.experiments.nets import env_columns_for

        # the observation entries the learner reads (None: all); the env writes only these
        self.env_columns = env_columns_for(self.env_id, probe, cfg["net"])
        self.loaded: dict[str, Any] = {}  # snapshot path -> policy, loaded once
        self.vs_scores: dict[str, list[float]] = {}  # opponent name -> recent training scores
        self.random_retired = False
        lg = cfg["league"]
        self.base_pool: list[tuple[Any, float, str]] = [(RandomPolicy(cfg["seed"]), lg["random_weight"], "random")]
        self.has_heuristic = has_heuristic(self.env_id)
        if self.has_heuristic and lg["heuristic_weight"] > 0:
            self.base_pool.append((HeuristicPolicy(cfg["seed"] + 1), lg["heuristic_weight"], "heuristic"))
        self.snapshots: list[str] = []  # checkpoint paths, oldest first
        self.history: list[dict] = []
        self.train_seconds = 0.0
        self.eval_seconds = 0.0
        self.next_snapshot = lg["snapshot_every"]
        self.next_eval = cfg["eval"]["every"]
        self.episode_stats: dict[str, list[float]] = {k: [] for k in self.kinds}
        self.regulariser = None
        self.warm_start_stats: dict | None = None

    def _probe(self):
        if isinstance(self.game, str):
            from spyenvs.registry import make_game

            return make_game(self.game, **self.cfg["game"])
        return self.game(**self.cfg["game"])

    # ---------------------------------------------------------- checkpoints
    def meta(self, name: str) -> dict:
        c = self.cfg
        return {"env_id": self.env_id, "config": self._probe().config, "roles": self.roles,
                "role_kinds": self.kinds, "obs_dim": self.obs_dim, "num_actions": self.num_actions,
                "activation": c["net"]["activation"], "name": name,
                "info": {"timesteps": int(self.model.num_timesteps), "train_seconds": round(self.train_seconds, 1)}}

    def save_policy(self, path: str, name: str, half: bool = False) -> None:
        from spyenvs.experiments.export import save_trained

        save_trained(path, self.model.policy, self.scale, self.meta(name), dtype="float16" if half else "float32")

    def current_policy(self, name: str = "learner"):
        from spyenvs.experiments.export import inference_policy

        return inference_policy(self.model.policy, self.scale, self.meta(name),
                                deterministic=self.cfg["eval"]["deterministic"], name=name)

    def pool(self) -> list[tuple[Any, float, str]]:
        """The opponents and their weights now: random until the learner beats it
        (``league.retire_random_at``), the heuristic, and the snapshots, sharing
        ``snapshot_weight`` by how often the learner still loses to each
        (``league.prioritise``: weight ~ (1 - score)^2 + 0.05)."""
        from spyenvs.agents.torch_policy import TorchPolicy

        lg = self.cfg["league"]
        entries = [e for e in self.base_pool if not (e[2] == "random" and self.random_retired)]
        if self.snapshots:
            names = [os.path.splitext(os.path.basename(p))[0] for p in self.snapshots]
            if lg["prioritise"]:
                raw = [(1.0 - self.recent_score(nm, default=0.5)) ** 2 + 0.05 for nm in names]
            else:
                raw = [1.0] * len(names)
            total = sum(raw)
            for path, nm, r in zip(self.snapshots, names, raw):
                policy = self.loaded.get(path)
                if policy is None:
                    # frozen opponents sample from their policy: a deterministic
                    # snapshot would be too easy to exploit
                    policy = self.loaded[path] = TorchPolicy.load(path, deterministic=False, seed=len(self.loaded) + 7)
                entries.append((policy, lg["snapshot_weight"] * r / total, nm))
        return entries

    def recent_score(self, name: str, default: float | None = None) -> float | None:
        scores = self.vs_scores.get(name)
        return float(np.mean(scores)) if scores else default

    def record_episode(self, opponent: str, score_: float) -> None:
        scores = self.vs_scores.setdefault(opponent, [])
        scores.append(score_)
        if len(scores) > 400:
            del scores[:-200]

    def update_league(self) -> bool:
        """Retire random once beaten; True when the pool's make-up or weights changed."""
        at = self.cfg["league"]["retire_random_at"]
        if not self.random_retired and at is not None and at <= 1:
            scores = self.vs_scores.get("random", [])
            if len(scores) >= 200 and float(np.mean(scores[-200:])) >= at:
                self.random_retired = True
                return True
        return bool(self.snapshots) and bool(self.cfg["league"]["prioritise"])

    def snapshot(self) -> None:
        t = int(self.model.num_timesteps)
        path = os.path.join(self.out, "snapshots", f"snap_{t:09d}.pt")
        self.save_policy(path, f"snap_{t}")
        self.snapshots.append(path)
        self.snapshots = self.snapshots[-int(self.cfg["league"]["max_snapshots"]):]
        self.model.get_env().env_method("set_opponents", self.pool())
        self.save_state()  # so --resume loses at most one snapshot interval

    def save_state(self) -> None:
        import torch

        state = {
            "timesteps": int(self.model.num_timesteps), "snapshots": self.snapshots, "history": self.history,
            "random_retired": self.random_retired,
            "train_seconds": self.train_seconds, "eval_seconds": self.eval_seconds,
            "next_snapshot": self.next_snapshot, "next_eval": self.next_eval, "cfg": self.cfg,
        }
        tmp = os.path.join(self.out, "state.pt.tmp")
        torch.save({"meta": json.dumps(state), "policy": self.model.policy.state_dict(),
                    "optimizer": self.model.policy.optimizer.state_dict()}, tmp)
        os.replace(tmp, os.path.join(self.out, "state.pt"))

    def load_state(self) -> None:
        path = os.path.join(self.out, "state.pt")
        raw, state = read_state(path)
        if state["cfg"]["env_id"] != self.env_id:
            raise ValueError(f"{path} is a run of {state['cfg']['env_id']}, not {self.env_id}")
        self.model.policy.load_state_dict(raw["policy"])
        self.model.policy.optimizer.load_state_dict(raw["optimizer"])
        self.model.num_timesteps = state["timesteps"]
        self.snapshots = [p for p in state["snapshots"] if os.path.isfile(p)]
        self.history = state["history"]
        self.train_seconds = state["train_seconds"]
        self.eval_seconds = state["eval_seconds"]
        self.next_snapshot = state["next_snapshot"]
        self.next_eval = state["next_eval"]
        self.random_retired = bool(state.get("random_retired", False))

    # ----------------------------------------------------------- warm start
    def demonstrations(self, quiet: bool, games: int | None = None, seed_offset: int = 0, student=None) -> dict:
        """The teacher's games for cloning (see :mod:`spyenvs.experiments.warm_start`);
        with ``student``, DAgger's: the student plays, the teacher labels."""
        from spyenvs.agents.registry import make_policy
        from spyenvs.core.progress import progress_bar
        from spyenvs.experiments.warm_start import collect_demonstrations

        ws = self.cfg["warm_start"]
        teacher = make_policy(ws["teacher"], seed=self.cfg["seed"] + 17 + seed_offset)
        games = int(ws["games"] if games is None else games)
        what = f"{ws['teacher']} games to clone" if student is None else f"DAgger games labelled by {ws['teacher']}"
        with progress_bar(games, what, enabled=not quiet) as bar:
            return collect_demonstrations(self._probe, teacher, games, self.cfg["seed"] + 23 + seed_offset,
                                          self.cfg["learner_kinds"] or self.kinds, self.kinds, self.scale,
                                          columns=self.env_columns,
                                          gamma=self.cfg["ppo"]["gamma"], max_decisions=self.cfg["max_decisions"],
                                          progress=bar.update, opponent_classes=opponent_classes(self.cfg),
                                          student=student)

    def warm_start(self, demos: dict) -> dict:
        """Clone the teacher into the fresh network (actor and critic), then run the
        DAgger rounds; returns every label gathered (for the cloning term). Cloning
        counts as training time; playing the teacher's and DAgger's games does not."""
        from spyenvs.experiments.warm_start import join_demonstrations

        ws = self.cfg["warm_start"]
        self._clone(demos, ws["epochs"], self.cfg["seed"], f"cloned {ws['teacher']}:")
        for r in range(int(ws["dagger_rounds"])):
            student = self.current_policy("clone")
            student.deterministic = False  # the clone samples its moves, as PPO's rollouts will
            labelled = self.demonstrations(self.quiet, games=int(ws["dagger_games"]), seed_offset=1000 * (r + 1),
                                           student=student)
            demos = join_demonstrations([demos, labelled])
            self._clone(demos, ws["dagger_epochs"], self.cfg["seed"] + r + 1, f"DAgger round {r + 1}:")
            self.warm_start_stats["dagger_rounds"] = r + 1
        self.save_policy(os.path.join(self.out, "cloned.pt"), f"{self.env_id}_cloned")
        return demos

    def _clone(self, demos: dict, epochs: int, seed: int, what: str) -> None:
        from spyenvs.experiments.warm_start import behaviour_clone

        ws = self.cfg["warm_start"]
        t0 = time.monotonic()
        self.warm_start_stats = behaviour_clone(self.model.policy, demos, epochs, ws["batch_size"],
                                                ws["learning_rate"], seed=seed, fused=bool(self.cfg["fused_adam"]))
        self.train_seconds += time.monotonic() - t0
        if not self.quiet:
            st = self.warm_start_stats
            print(f"{what} {st['samples']} decisions, agreement {st['agreement']:.1%}, {st['seconds']}s",
                  file=sys.stderr)

    # ----------------------------------------------------------- evaluation
    def evaluate(self, games: int, seed: int, learner=None) -> dict[str, dict]:
        """``learner`` (default: the network now) vs random and vs the heuristic, at
        least ``games`` games per role."""
        from spyenvs.agents.heuristics import HeuristicPolicy
        from spyenvs.agents.policy import RandomPolicy
        from spyenvs.experiments.evaluate import evaluate_vs, games_for

        learner = learner or self.current_policy()
        result = {}
        for opp in self.cfg["eval"]["opponents"]:
            if opp == "heuristic" and not self.has_heuristic:
                continue
            policy = RandomPolicy(seed) if opp == "random" else HeuristicPolicy(seed)
            # every role gets at least `games` games, the candidate's seats rotating
            n = games_for(self._probe(), games)
            res = evaluate_vs(self.game, self.cfg["game"], learner, policy, n, seed, self.cfg["max_decisions"])
            result[opp] = res["kinds"]
        return result

    def periodic_eval(self) -> None:
        t0 = time.monotonic()
        t = int(self.model.num_timesteps)
        vs = self.evaluate(self.cfg["eval"]["games"], seed=10_000_000 + t)
        self.history.append({"timesteps": t, "vs": vs})
        for opp, kinds in vs.items():
            for kind, v in kinds.items():
                self.model.logger.record(f"eval/{kind}/vs_{opp}", v["rate"])
        self.save_policy(os.path.join(self.out, "latest.pt"), "latest")
        with open(os.path.join(self.out, "history.json"), "w") as f:
            json.dump(self.history, f, indent=1)
        self.save_state()
        self.eval_seconds += time.monotonic() - t0
        if not self.quiet:
            msg = "; ".join(f"{k} vs {o} {v['rate']:.0%}" for o, ks in vs.items() for k, v in ks.items())
            self.bar.write(f"[{t} steps] {msg}")


def _callback(trainer: Trainer):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Progress, per-role training win rates, snapshots and periodic evaluation."""

        def _on_training_start(self) -> None:
            self._t0 = time.monotonic()

        def _on_step(self) -> bool:
            tr = trainer
            tr.bar.update(self.training_env.num_envs)
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done and "outcome" in info:
                    r = info["outcome"]
                    won = 1.0 if r > 0 else (0.5 if r == 0 else 0.0)
                    tr.episode_stats[info["kind"]].append(won)
                    tr.record_episode(info.get("opponent", "?"), won)
            t = self.num_timesteps
            if t >= tr.next_snapshot:
                tr.next_snapshot += tr.cfg["league"]["snapshot_every"]
                now = time.monotonic()
                tr.train_seconds += now - self._t0
                tr.snapshot()
                self._t0 = time.monotonic()
            if t >= tr.next_eval:
                tr.next_eval += tr.cfg["eval"]["every"]
                tr.train_seconds += time.monotonic() - self._t0
                tr.periodic_eval()
                self._t0 = time.monotonic()
            return True

        def _on_rollout_end(self) -> None:
            for kind, wins in trainer.episode_stats.items():
                if wins:
                    self.logger.record(f"selfplay/{kind}/win_rate", float(np.mean(wins[-200:])))
                    del wins[:-200]
            self.logger.record("selfplay/snapshots", len(trainer.snapshots))
            if trainer.update_league():
                self.training_env.env_method("set_opponents", trainer.pool())
            self.logger.record("selfplay/random_retired", float(trainer.random_retired))
            if trainer.regulariser is not None:
                loss = trainer.regulariser.apply(self.model)
                if loss is not None:
                    self.logger.record("selfplay/clone_loss", loss)
            stats = getattr(self.training_env, "stats", None)
            if stats and stats["learner_decisions"]:
                # single-option learner decisions played by the env, not the network
                self.logger.record("selfplay/forced_per_learner_decision",
                                   stats["forced_decisions"] / stats["learner_decisions"])

        def _on_training_end(self) -> None:
            trainer.train_seconds += time.monotonic() - self._t0

    return SelfPlayCallback()


def pin_threads(torch_threads: int, blas_threads: int) -> None:
    """One compute thread per process by default: on 2 cores, BLAS or OpenMP pools
    in the learner oversubscribe the CPU (measured: Specter Ops 143 -> 227 steps/s with
    one BLAS thread). The environment variables reach torch's OpenMP pool when torch
    is not loaded yet; numpy is, so its BLAS pool is limited through threadpoolctl."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, str(int(blas_threads)))
    from spyenvs.experiments.evaluate import pin_blas_threads

    pin_blas_threads(blas_threads)
    import torch

    torch.set_num_threads(int(torch_threads))


def make_vec_env(tr: Trainer, cfg: dict):
    """All games in this process, opponents batched (:class:`VecSelfPlayEnv`). SB3's
    SubprocVecEnv over SelfPlayEnv is no longer offered: measured on 2 cores it was
    slower for every game (The Agents 2.7x, Specter Ops 1.7x at the same budget)."""
    from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv

    return VecSelfPlayEnv(tr.game, cfg["game"], tr.pool(), num_envs=int(cfg["n_envs"]),
                          learner_kinds=cfg["learner_kinds"], max_decisions=cfg["max_decisions"],
                          auto_play_forced=bool(cfg["auto_play_forced"]),
                          scale_observations=bool(cfg["scale_observations"]), seed=cfg["seed"],
                          opponent_classes=opponent_classes(cfg), obs_columns=tr.env_columns)


def opponent_classes(cfg: dict) -> tuple[str, ...]:
    """The opponent classes the critic is told about (none unless critic_sees_opponent)."""
    return ("random", "heuristic") if cfg["critic_sees_opponent"] else ()


def train(cfg: dict, out: str | None = None, resume: bool = False, quiet: bool = False, game: Any = None) -> dict:
    """Run (or resume) a training run; returns the final results dict."""
    pin_threads(cfg["torch_threads"], cfg["blas_threads"])
    from sb3_contrib import MaskablePPO

    from spyenvs.experiments.evaluate import load_average, plot_learning_curve
    from spyenvs.core.progress import progress_bar
    from spyenvs.core.stats import wilson_interval  # noqa: F401  (intervals come from evaluate_vs)

    out = out or os.path.join("runs", cfg["env_id"])
    tr = Trainer(cfg, out, game=game, quiet=quiet)  # a bad env id or game option fails before out exists
    if resume:
        _, saved = read_state(os.path.join(out, "state.pt"))
        tr.snapshots = [p for p in saved["snapshots"] if os.path.isfile(p)]
    venv = make_vec_env(tr, cfg)
    from spyenvs.experiments.nets import policy_kwargs_for

    policy_class, policy_kwargs = policy_kwargs_for(tr.env_id, tr._probe(), cfg["net"],
                                                    critic_only_dims=venv.opponent_dims, env_columns=tr.env_columns)
    if cfg["fused_adam"]:
        from spyenvs.experiments.lean_sb3 import LeanAdam

        policy_kwargs["optimizer_class"] = LeanAdam
        policy_kwargs["optimizer_kwargs"] = {}  # SB3's eps=1e-5 default is for torch's Adam only
    from spyenvs.experiments.lean_sb3 import LeanRolloutBuffer

    tr.model = MaskablePPO(policy_class, venv, seed=cfg["seed"], device=cfg["device"], verbose=0,
                           rollout_buffer_class=LeanRolloutBuffer,
                           tensorboard_log=os.path.join(out, "tb"), policy_kwargs=policy_kwargs, **cfg["ppo"])
    ws, reg = cfg["warm_start"], cfg["clone_reg"]
    demos = None
    if int(ws["games"]) > 0 and (not resume or float(reg["coef"]) > 0):
        demos = tr.demonstrations(quiet)
    os.makedirs(out, exist_ok=True)
    if resume:
        tr.load_state()
    elif demos is not None:
        demos = tr.warm_start(demos)
    if demos is not None and float(reg["coef"]) > 0:
        from spyenvs.experiments.warm_start import CloneRegulariser

        tr.regulariser = CloneRegulariser(demos, reg["coef"], reg["decay_steps"], reg["steps"], reg["batch_size"],
                                          seed=cfg["seed"])
    total = int(cfg["total_timesteps"])
    start = int(tr.model.num_timesteps)
    remaining = max(0, total - start)
    # SB3 collects whole rollouts of n_envs * n_steps, so it stops at the first multiple past total
    rollout = venv.num_envs * int(cfg["ppo"]["n_steps"])
    with progress_bar(start + -(-remaining // rollout) * rollout, f"train {tr.env_id}", enabled=not quiet) as bar:
        tr.bar = bar
        bar.update(int(tr.model.num_timesteps))
        if remaining:
            tr.model.learn(remaining, callback=_callback(tr), reset_num_timesteps=not resume,
                           tb_log_name="selfplay")
    venv.close()
    if cfg["eval"]["games"] > 0 and (not tr.history or tr.history[-1]["timesteps"] != int(tr.model.num_timesteps)):
        tr.bar = bar
        tr.periodic_eval()
    tr.save_policy(os.path.join(out, "final.pt"), f"{tr.env_id}_final")
    # the shippable copy: numpy-only, float16 (python -m spyenvs.experiments.leaderboard --ship RUN);
    # the final evaluation plays this very file, so its figures are the shipped policy's
    tr.save_policy(os.path.join(out, "final.npz"), f"{tr.env_id}_final", half=True)
    # final evaluation (final_games 0 skips it: the training benchmark times training alone)
    t0 = time.monotonic()
    if cfg["eval"]["final_games"] > 0:
        from spyenvs.agents.torch_policy import TorchPolicy

        shipped = TorchPolicy.load(os.path.join(out, "final.npz"), deterministic=cfg["eval"]["deterministic"])
        final = tr.evaluate(cfg["eval"]["final_games"], seed=999_000_000, learner=shipped)
    else:
        final = {}
    final_seconds = time.monotonic() - t0
    steps = int(tr.model.num_timesteps)
    results = {"env_id": tr.env_id, "config": tr._probe().config, "num_players": tr.num_players,
               "timesteps": steps, "train_seconds": round(tr.train_seconds, 1),
               "eval_seconds": round(tr.eval_seconds + final_seconds, 1),
               "steps_per_second": round(steps / tr.train_seconds, 1) if tr.train_seconds > 0 else None,
               "vs": final, "checkpoint": os.path.join(out, "final.pt"),
               "env_stats": dict(getattr(venv, "stats", {})), "warm_start": tr.warm_start_stats,
               "load": load_average(),
               "random_retired": tr.random_retired}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(out, "history.json"), "w") as f:
        json.dump(tr.history, f, indent=1)
    if tr.history:  # a run without evaluations (eval.games=0) has no curve to draw
        plot_learning_curve(tr.history, os.path.join(out, "learning_curve.png"), f"{tr.env_id} self-play")
    text = final_table(
        f"{tr.env_id}: {steps} steps in {tr.train_seconds:.0f}s of training "
        f"({results['steps_per_second']} steps/s); final evaluation ({cfg['eval']['final_games']} games per opponent)",
        tr.kinds, final)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command-line arguments (shared with ``spyenvs train``)."""
    from spyenvs.tools.arguments import add_train_arguments

    add_train_arguments(parser)


def default_config_path(env_id: str, prefix: str = "") -> str | None:
    """``configs/<prefix><game>.yaml``: the working directory's copy if there is one (a
    user's edited checkout), else the one shipped in :mod:`spyenvs.configs`."""
    import spyenvs.configs

    name = f"{prefix}{env_id.rsplit('_v', 1)[0]}.yaml"
    shipped = os.path.join(os.path.dirname(spyenvs.configs.__file__), name)
    for p in (os.path.join("configs", name), shipped):
        if os.path.isfile(p):
            return p
    return None


def run(args) -> int:
    from spyenvs.tools.arguments import parse_key_values

    overrides = parse_key_values(args.opt, "--opt")
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
    from spyenvs.tools.arguments import run_reporting_errors

    sys.exit(run_reporting_errors(main, "train_selfplay"))
