"""Distributed self-play on Ray RLlib (new API stack, PPO); also
``spyenvs train ENV --backend rllib``. Needs the ``rllib`` extra.

Any registered env id runs through RLlib's ``PettingZooEnv`` wrapper
(:class:`spyenvs.experiments.rllib_module.SpyenvsMultiAgentEnv`). The RLModule masks the
logits of illegal actions (:class:`~experiments.rllib_module.MaskedPPOModule`), so
no illegal action is ever sampled.

* ``policies: shared`` trains one module ``main`` for every role (its input ends
  with a role-kind one-hot when the game has several kinds, as in the SB3 path);
  ``policies: per_role`` trains one module per role kind (``main_agent``,
  ``main_hunter`` ...).
* League: every episode one seat (drawn per episode, so every seat and role is
  played) is the learner; every other seat plays one opponent drawn by weight:
  ``random`` (uniform over legal actions), a frozen snapshot of the learner
  (``league.max_snapshots`` slots, refilled round-robin with the learner's weights
  every ``league.snapshot_every`` iterations; they start as copies of the initial
  network), or ``self`` (the learner in every seat). Frozen modules sample from
  their policy and are never trained.
* Config: :class:`spyenvs.experiments.config.RLlibConfig`, loaded by the SB3
  trainer's rules from ``configs/rllib_<game>.yaml``; ``ppo:`` keys are RLlib's
  ``config.training`` arguments, passed through unchanged.
* Outputs under ``out`` (default ``runs/rllib_<env_id>``): ``checkpoint/`` (the
  whole Algorithm, learner, optimizer and league slots included; ``--resume``
  restores it), ``league.json``, ``policies/<module>.pt`` (trained actors as
  :mod:`spyenvs.agents.checkpoint` files: ``spyenvs eval`` and ``spyenvs play --vs`` load
  them without Ray), ``history.json`` (periodic evaluation),
  ``results.json``/``results.md`` (final evaluation through
  :func:`spyenvs.experiments.evaluate.evaluate_vs`, Wilson 95% intervals) and
  ``throughput.json`` (env steps per second).
* Ray: a local instance by default; ``--address auto`` (or ``HOST:6379``, or
  ``ray://HOST:10001``) joins a running cluster, where ``env_runners`` scales the
  sampling out across its nodes (see docs/rllib.md).

    python -m spyenvs.experiments.rllib_selfplay the_agents_v0 --config configs/rllib_the_agents.yaml
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from typing import Any

import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.tune.registry import register_env

from spyenvs.agents.checkpoint import save_policy
from spyenvs.agents.heuristics import HeuristicPolicy, has_heuristic
from spyenvs.agents.policy import RandomPolicy, role_kinds
from spyenvs.agents.torch_policy import TorchPolicy
from spyenvs.experiments import config as config_mod
from spyenvs.experiments import seed_ranges
from spyenvs.experiments.config import RLlibConfig
from spyenvs.experiments.evaluate import evaluate_vs, plot_learning_curve
from spyenvs.experiments.report import final_table
from spyenvs.experiments.rllib_module import (
    MaskedPPOModule,
    MaskedRandomModule,
    RoleDispatchPolicy,
    SpyenvsMultiAgentEnv,
    actor_from_state,
    learner_module,
    map_agent_to_module,
    module_ids,
    snapshot_module,
)
from spyenvs.registry import make_game
from spyenvs.tools.arguments import add_train_arguments, run_reporting_errors, train_overrides


def load_config(path: str | None, env_id: str | None = None, overrides: dict | None = None) -> RLlibConfig:
    """The defaults of :class:`~spyenvs.experiments.config.RLlibConfig`, then the YAML
    file, then ``overrides`` (dotted keys), by the SB3 trainer's rules; ``ppo`` takes any
    RLlib training() argument and ``game`` any game option (checked by the game)."""
    cfg = config_mod.load(RLlibConfig, path, env_id, overrides)
    if cfg.policies not in ("shared", "per_role"):
        raise ValueError(f"policies must be shared or per_role, got {cfg.policies!r}")
    if cfg.net.activation not in ("tanh", "relu"):
        raise ValueError(f"net.activation: allowed tanh, relu; got {cfg.net.activation!r}")
    lg = cfg.league
    if lg.self_weight + lg.random_weight + (lg.snapshot_weight if lg.max_snapshots else 0) <= 0:
        raise ValueError("league: some opponent weight must be positive")
    return cfg


def default_config_path(env_id: str) -> str | None:
    return config_mod.default_config_path(env_id, prefix="rllib_")


class League:
    """The run's roles, modules and the round-robin snapshot bookkeeping."""

    def __init__(self, cfg: RLlibConfig):
        self.cfg = cfg
        probe = make_game(cfg.env_id, **cfg.game)
        self.env_id = probe.env_id
        self.game_config = probe.config
        self.roles = list(probe.roles)
        self.kinds = role_kinds(self.roles)
        self.num_players = probe.num_players
        self.obs_dim = probe.observation_size
        self.num_actions = probe.num_actions
        self.per_role = cfg.policies == "per_role"
        self.slots = int(cfg.league.max_snapshots)
        self.next_slot = 0
        self.filled = 0
        self.snapshots_taken: list[int] = []  # iteration of each snapshot

    def mapping_spec(self) -> dict:
        lg = self.cfg.league
        opponents = [("self", lg.self_weight), ("random", lg.random_weight)]
        if self.slots:
            opponents += [(str(s), lg.snapshot_weight / self.slots) for s in range(self.slots)]
        return {"roles": self.roles, "per_role": self.per_role, "seed": self.cfg.seed,
                "opponents": [(n, w) for n, w in opponents if w > 0]}

    def learner_ids(self) -> list[str]:
        return [learner_module(k, True) for k in self.kinds] if self.per_role else ["main"]

    def kinds_of(self, module_id: str) -> list[str]:
        return [module_id[len("main_"):]] if self.per_role else list(self.kinds)

    def meta(self, module_id: str, name: str, info: dict) -> dict:
        return {"env_id": self.env_id, "config": self.game_config, "roles": self.roles,
                "role_kinds": self.kinds_of(module_id), "obs_dim": self.obs_dim,
                "num_actions": self.num_actions, "activation": self.cfg.net.activation,
                "name": name, "info": info}

    def state(self) -> dict:
        return {"next_slot": self.next_slot, "filled": self.filled, "snapshots_taken": self.snapshots_taken}

    def load(self, state: dict) -> None:
        self.next_slot, self.filled = state["next_slot"], state["filled"]
        self.snapshots_taken = state["snapshots_taken"]


def build_config(cfg: RLlibConfig, league: League):
    """The RLlib ``PPOConfig`` of a run."""
    register_env("spyenvs", lambda env_config: SpyenvsMultiAgentEnv(env_config))
    env_config = {"env_id": cfg.env_id, "game": cfg.game, "max_decisions": cfg.max_decisions,
                  "role_onehot": not league.per_role}
    learners, frozen = module_ids(league.kinds, league.per_role, league.slots)
    net = {"hidden": list(cfg.net.hidden), "activation": cfg.net.activation}
    specs = {m: RLModuleSpec(module_class=MaskedPPOModule, model_config=net) for m in learners}
    specs.update({m: RLModuleSpec(module_class=MaskedPPOModule, model_config=net) for m in frozen if m != "random"})
    specs["random"] = RLModuleSpec(module_class=MaskedRandomModule)
    config = (
        PPOConfig()
        # RLlib's env check steps unmasked random actions, which our envs reject
        .environment("spyenvs", env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=int(cfg.env_runners), num_envs_per_env_runner=int(cfg.envs_per_runner),
                     num_cpus_per_env_runner=cfg.cpus_per_env_runner,
                     rollout_fragment_length=cfg.rollout_fragment_length)
        .multi_agent(policies=set(specs), policies_to_train=learners,
                     policy_mapping_fn=functools.partial(map_agent_to_module, spec=league.mapping_spec()))
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(**cfg.ppo)
        .debugging(seed=int(cfg.seed), log_level="WARN")
    )
    return config


def fill_snapshot(algo, league: League, iteration: int) -> None:
    """Copy the learner module(s) into the next frozen slot, on the learner and on
    every env runner."""
    slot = league.next_slot
    pairs = [(learner_module(k, league.per_role), snapshot_module(slot, k, league.per_role))
             for k in (league.kinds if league.per_role else [None])]
    state = algo.learner_group.get_state(components=[f"learner/rl_module/{src}" for src, _ in pairs])
    modules = state["learner"]["rl_module"]
    copies = {dst: modules[src] for src, dst in pairs}
    algo.learner_group.set_state({"learner": {"rl_module": copies}})
    push_to_env_runners(algo, copies)
    league.next_slot = (slot + 1) % league.slots
    league.filled = min(league.slots, league.filled + 1)
    league.snapshots_taken.append(iteration)


def push_to_env_runners(algo, module_states: dict) -> None:
    """Set these modules' weights on every env runner (local and remote).
    ``EnvRunnerGroup.sync_weights`` would skip runners whose weights sequence
    number is already current, which is the case for frozen slots."""
    ref = ray.put(module_states)

    def _set(env_runner):
        env_runner.module.set_state(ray.get(ref))

    algo.env_runner_group.foreach_env_runner(_set, local_env_runner=True, timeout_seconds=120.0)


def frozen_states(algo, league: League) -> dict:
    """The learner group's copy of every frozen snapshot slot."""
    _, frozen = module_ids(league.kinds, league.per_role, league.slots)
    ids = [m for m in frozen if m != "random"]
    if not ids:
        return {}
    return algo.learner_group.get_state(components=[f"learner/rl_module/{m}" for m in ids])["learner"]["rl_module"]


def learner_policies(algo, league: League, deterministic: bool, info: dict, out: str | None = None,
                     tag: str = "latest") -> Any:
    """The trained module(s) as one :mod:`spyenvs.agents` policy (a
    :class:`~experiments.rllib_module.RoleDispatchPolicy` when per-role), written
    as spyenvs policy checkpoints under ``out/policies`` when ``out`` is given."""
    ids = league.learner_ids()
    state = algo.learner_group.get_state(components=[f"learner/rl_module/{m}" for m in ids])["learner"]["rl_module"]
    by_kind = {}
    for m in ids:
        weights = actor_from_state(state[m])
        meta = league.meta(m, f"rllib_{m}_{tag}", info)
        if out:
            save_policy(os.path.join(out, "policies", f"{m}_{tag}.pt"), weights, meta)
        policy = TorchPolicy(weights, meta, deterministic=deterministic, name=meta["name"])
        for k in league.kinds_of(m):
            by_kind[k] = policy
    if not league.per_role:
        return by_kind[league.kinds[0]]
    return RoleDispatchPolicy(by_kind, name=f"rllib_per_role_{tag}")


def evaluate(policy, cfg: RLlibConfig, games: int, seed: int) -> dict[str, dict]:
    out = {}
    probe_players = None
    for opp in cfg.eval.opponents:
        if opp == "heuristic" and not has_heuristic(cfg.env_id):
            continue
        opponent = RandomPolicy(seed) if opp == "random" else HeuristicPolicy(seed)
        if probe_players is None:
            probe_players = make_game(cfg.env_id, **cfg.game).num_players
        n = -(-games // probe_players) * probe_players  # every seat the same number of games
        res = evaluate_vs(cfg.env_id, cfg.game, policy, opponent, n, seed, cfg.max_decisions)
        out[opp] = res["kinds"]
    return out


def init_ray(address: str | None, num_cpus: int | None, cfg: RLlibConfig) -> bool:
    """Connect to (``address``) or start a local Ray; False when the caller had
    already initialised Ray (then it also shuts it down)."""
    if ray.is_initialized():
        return False
    if address:
        # a cluster: the nodes bring their own CPUs; every node needs this package
        # installed (pip install -e '.[rllib]') in the same Python environment
        ray.init(address=address, log_to_driver=True)
        return True
    need = 1 + int(cfg.env_runners) * float(cfg.cpus_per_env_runner)
    # a local instance may be asked for more env runners than cores (to measure
    # scaling); Ray then time-shares them instead of waiting forever for a CPU
    cpus = num_cpus or max(os.cpu_count() or 1, int(-(-need // 1)))
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
             object_store_memory=200 * 1024 * 1024, configure_logging=True, logging_level="warning")
    return True


def _scalar(result: dict, *path, default=None):
    node: Any = result
    for p in path:
        if not isinstance(node, dict) or p not in node:
            return default
        node = node[p]
    return node


def train(cfg: RLlibConfig | dict, out: str | None = None, resume: bool = False, quiet: bool = False,
          address: str | None = None, num_cpus: int | None = None) -> dict:
    """Run (or resume) an RLlib self-play run; returns the final results dict. ``cfg``
    may also be a mapping of the same options (checked like a loaded config)."""
    cfg = config_mod.coerce(RLlibConfig, cfg)
    out = out or os.path.join("runs", f"rllib_{cfg.env_id}")
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(int(cfg.torch_threads))
    league = League(cfg)
    started_ray = init_ray(address, num_cpus, cfg)
    algo = build_config(cfg, league).build_algo()
    history: list[dict] = []
    steps_log: list[dict] = []
    ckpt = os.path.join(out, "checkpoint")
    if resume:
        if not os.path.isdir(ckpt):
            raise FileNotFoundError(f"--resume: no {ckpt} to resume from")
        algo.restore_from_path(ckpt)
        with open(os.path.join(out, "league.json")) as f:
            saved = json.load(f)
        if saved["env_id"] != league.env_id:
            raise ValueError(f"{out} is a run of {saved['env_id']}, not {league.env_id}")
        league.load(saved["league"])
        history, steps_log = saved["history"], saved["steps"]
        # the env runners get the trained modules at the next weight sync; the
        # frozen slots are never synced by RLlib, so push them now
        push_to_env_runners(algo, frozen_states(algo, league))
    else:
        # frozen slots start as copies of the initial network
        for _ in range(league.slots):
            fill_snapshot(algo, league, 0)
        league.snapshots_taken, league.filled = [], 0

    def save_all() -> None:
        algo.save_to_path(ckpt)
        with open(os.path.join(out, "league.json"), "w") as f:
            json.dump({"env_id": league.env_id, "cfg": config_mod.to_dict(cfg), "league": league.state(), "history": history,
                       "steps": steps_log}, f, indent=1)

    total_iters = int(cfg.iterations)
    lg, ev = cfg.league, cfg.eval
    train_seconds = sum(s["seconds"] for s in steps_log)
    start_steps = steps_log[-1]["env_steps"] if steps_log else 0
    while algo.iteration < total_iters:
        t0 = time.monotonic()
        result = algo.train()
        dt = time.monotonic() - t0
        it = int(algo.iteration)
        env_steps = int(_scalar(result, "env_runners", "num_env_steps_sampled_lifetime", default=0) or 0)
        sample_t = _scalar(result, "timers", "env_runner_sampling_timer")
        steps_log.append({"iteration": it, "env_steps": env_steps, "seconds": round(dt, 3),
                          "sample_seconds": round(float(sample_t), 3) if sample_t else None})
        train_seconds += dt
        if not quiet:
            ret = _scalar(result, "env_runners", "module_episode_returns_mean", default={}) or {}
            ret = {k: round(float(v), 2) for k, v in ret.items() if k.startswith("main")}
            print(f"[iter {it}/{total_iters}] env steps {env_steps} ({dt:.1f}s); mean return {ret}", flush=True)
        if league.slots and lg.snapshot_every and it % int(lg.snapshot_every) == 0:
            fill_snapshot(algo, league, it)
        if ev.every and it % int(ev.every) == 0 and it < total_iters:
            info = {"iteration": it, "env_steps": env_steps}
            pol = learner_policies(algo, league, ev.deterministic, info, out, "latest")
            vs = evaluate(pol, cfg, int(ev.games), seed_ranges.PERIODIC_EVAL.start + it)
            history.append({"timesteps": env_steps, "iteration": it, "vs": vs})
            if not quiet:
                print(f"[iter {it}] " + "; ".join(f"{k} vs {o} {v['rate']:.0%}" for o, ks in vs.items()
                                                  for k, v in ks.items()), flush=True)
        if cfg.checkpoint_every and it % int(cfg.checkpoint_every) == 0:
            save_all()
    env_steps = steps_log[-1]["env_steps"] if steps_log else 0
    info = {"iteration": int(algo.iteration), "env_steps": env_steps, "train_seconds": round(train_seconds, 1)}
    final_policy = learner_policies(algo, league, ev.deterministic, info, out, "final")
    t0 = time.monotonic()
    final = evaluate(final_policy, cfg, int(ev.final_games), seed_ranges.FINAL_EVAL.start)
    eval_seconds = time.monotonic() - t0
    save_all()
    run_steps = env_steps - start_steps
    throughput = {
        "env_runners": int(cfg.env_runners), "envs_per_runner": int(cfg.envs_per_runner),
        "iterations": int(algo.iteration), "env_steps": env_steps,
        "train_seconds": round(train_seconds, 1),
        "env_steps_per_second": round(env_steps / train_seconds, 1) if train_seconds else None,
        # RLlib's smoothed sampling time per iteration (the env runners' share)
        "sampling_seconds_per_iteration": steps_log[-1]["sample_seconds"] if steps_log else None,
        "this_session_env_steps": run_steps,
    }
    with open(os.path.join(out, "throughput.json"), "w") as f:
        json.dump(throughput, f, indent=1)
    results = {"env_id": league.env_id, "config": league.game_config, "num_players": league.num_players,
               "policies": cfg.policies, "iterations": int(algo.iteration), "env_steps": env_steps,
               "train_seconds": round(train_seconds, 1), "eval_seconds": round(eval_seconds, 1),
               "throughput": throughput, "vs": final,
               "checkpoints": sorted(os.path.join(out, "policies", f"{m}_final.pt") for m in league.learner_ids()),
               "algorithm_checkpoint": ckpt}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(out, "history.json"), "w") as f:
        json.dump(history, f, indent=1)
    if history:
        try:
            plot_learning_curve(history, os.path.join(out, "learning_curve.png"), f"{league.env_id} RLlib self-play")
        except ImportError:  # matplotlib is in the train extra, not the rllib one
            pass
    text = final_table(
        f"{league.env_id} (RLlib PPO, {cfg.policies} policies, {cfg.env_runners} env runners): "
        f"{env_steps} env steps in {train_seconds:.0f}s ({throughput['env_steps_per_second']} env steps/s); "
        f"final evaluation ({ev.final_games} games per opponent)",
        league.kinds, final)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text + "\n")
    if not quiet:
        print(text)
    algo.stop()
    if started_ray:  # a cluster stays up; only this driver disconnects
        ray.shutdown()
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command-line arguments: the same as ``spyenvs train`` (whose Ray options
    --iterations, --address and --num-cpus serve this trainer)."""
    add_train_arguments(parser)


def run(args) -> int:
    overrides = train_overrides(args)
    if getattr(args, "iterations", None) is not None:
        overrides["iterations"] = args.iterations
    path = args.config or default_config_path(args.env_id)
    cfg = load_config(path, args.env_id, overrides)
    if getattr(args, "timesteps", None) is not None and getattr(args, "iterations", None) is None:
        # `spyenvs train --timesteps N --backend rllib`: env steps -> whole iterations
        batch = int(cfg.ppo.get("train_batch_size_per_learner", 4000))
        cfg.iterations = max(1, -(-int(args.timesteps) // batch))
    train(cfg, args.out, resume=args.resume, quiet=args.quiet, address=getattr(args, "address", None),
          num_cpus=getattr(args, "num_cpus", None))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spyenvs.experiments.rllib_selfplay", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "rllib_selfplay"))
