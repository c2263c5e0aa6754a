"""Where a game's default training run spends its time: the process's start-up (imports,
games, nets, before ``learn()``), then inside ``learn()`` the learner's forward passes
during collection, the opponents' moves, the prior's scores, the rest of the games
(rules, observations, the vec env's bookkeeping), SB3's own collection bookkeeping, and
the PPO update; each in seconds and as a share of the whole process.

The run is the one ``spyenvs bench --train`` times (the game's default config, no warm
start, no evaluation), in this process, with timers wrapped around those calls (each
call counted once, not again inside itself); a run with the games split over worker
processes counts this process's shard only, and the wait for the workers as its own
line. Each result is saved as ``docs/speed/profile-<env_id>.json``, and the table of
all saved ones goes into docs/results/speed.md between its ``<!-- results: profile -->``
markers. Run from the repository root, one game at a time, on a quiet machine:

    python scripts/training_profile.py the_agents_v0 --steps 65536
    python scripts/training_profile.py --tables
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
import time

T_START = time.perf_counter()

from spyenvs.experiments.evaluate import load_average  # noqa: E402
from spyenvs.experiments.leaderboard import rewrite_between  # noqa: E402
from spyenvs.registry import ENV_IDS  # noqa: E402
from spyenvs.tools.arguments import positive_int, run_reporting_errors  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "docs", "speed")
RESULTS_MD = os.path.join(ROOT, "docs", "results", "speed.md")
MARKER = "profile"
#: the parts of the run, in the table's order
PARTS = ("start-up", "learner forward passes", "opponents' moves", "prior scores", "games and vec env",
         "waiting for env workers", "SB3 collection bookkeeping", "PPO update")


class Timers:
    """Self time by part: a wrapped call's seconds go to its part, less the seconds of
    the wrapped calls made inside it, which go to theirs (a profiler's self time, over
    the few calls that matter)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self._stack: list[str] = []
        self._since = 0.0

    def _charge(self, now: float) -> None:
        if self._stack:
            part = self._stack[-1]
            self.seconds[part] = self.seconds.get(part, 0.0) + now - self._since
        self._since = now

    def wrap(self, owner: type, name: str, part: str) -> None:
        inner = getattr(owner, name)

        @functools.wraps(inner)
        def timed(*args, **kwargs):
            self._charge(time.perf_counter())
            self._stack.append(part)
            try:
                return inner(*args, **kwargs)
            finally:
                self._charge(time.perf_counter())
                self._stack.pop()

        setattr(owner, name, timed)


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub] + _subclasses(sub)
    return out


def profile(env_id: str, steps: int) -> dict:
    """One bench-sized default run of ``env_id`` with the timers on (module docstring)."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from spyenvs.agents.policy import BasePolicy
    from spyenvs.experiments import train_selfplay
    from spyenvs.wrappers.vec_processes import ProcessVecSelfPlayEnv
    from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv

    timers = Timers()
    timers.wrap(VecSelfPlayEnv, "step_wait", "env")
    timers.wrap(VecSelfPlayEnv, "_write_prior", "prior scores")
    timers.wrap(ProcessVecSelfPlayEnv, "step_wait", "env (split)")
    timers.wrap(ProcessVecSelfPlayEnv, "_ask_all", "waiting for env workers")
    for cls in {MaskableActorCriticPolicy, *_subclasses(MaskableActorCriticPolicy)}:
        if "forward" in cls.__dict__:
            timers.wrap(cls, "forward", "learner forward passes")
    for cls in {BasePolicy, *_subclasses(BasePolicy)}:
        if "act_batch" in cls.__dict__:
            timers.wrap(cls, "act_batch", "opponents' moves")
    timers.wrap(MaskablePPO, "train", "PPO update")
    timers.wrap(MaskablePPO, "learn", "learn")
    cfg = train_selfplay.load_config(train_selfplay.default_config_path(env_id), env_id, {
        "total_timesteps": steps, "eval.final_games": 0, "eval.games": 0, "eval.every": 10**12,
        "warm_start.games": 0, "selection.snapshots": 1})
    with tempfile.TemporaryDirectory() as out:
        results = train_selfplay.train(cfg, out, quiet=True)
    wall = time.perf_counter() - T_START
    s = timers.seconds
    learn = sum(s.values())  # every wrapped call runs inside learn()
    parts = {"start-up": wall - learn, "learner forward passes": s.get("learner forward passes", 0.0),
             "opponents' moves": s.get("opponents' moves", 0.0), "prior scores": s.get("prior scores", 0.0),
             "games and vec env": s.get("env", 0.0) + s.get("env (split)", 0.0),
             "waiting for env workers": s.get("waiting for env workers", 0.0),
             "SB3 collection bookkeeping": s.get("learn", 0.0), "PPO update": s.get("PPO update", 0.0)}
    return {"env_id": env_id, "steps": int(results["timesteps"]), "wall_s": round(wall, 2),
            "learn_s": round(learn, 2), "steps_per_s": round(results["timesteps"] / wall, 1),
            "parts": {k: round(v, 2) for k, v in parts.items()},
            "env_processes": cfg.env_processes, "torch_threads": cfg.torch_threads,
            "load": load_average(), "date": time.strftime("%Y-%m-%d", time.gmtime())}


def profile_table(folder: str = FOLDER) -> str:
    """Every saved profile as one table: seconds per part and its share of the process."""
    records = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if name.startswith("profile-") and name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                records.append(json.load(f))
    if not records:
        return "(no saved profile yet)"
    lines = ["| game | steps | whole process s | " + " | ".join(PARTS) + " | processes | date, load |",
             "|---|---|---|" + "---|" * len(PARTS) + "---|---|"]
    for r in records:
        cells = [f"{r['parts'].get(p, 0.0):.1f} ({r['parts'].get(p, 0.0) / r['wall_s']:.0%})" for p in PARTS]
        lines.append(f"| {r['env_id']} | {r['steps']:,} | {r['wall_s']:.1f} | " + " | ".join(cells)
                     + f" | {r['env_processes']} | {r['date']}, {r['load']} |")
    return "\n".join(lines)


def write_table(results_md: str = RESULTS_MD, folder: str = FOLDER) -> None:
    rewrite_between(results_md, MARKER, profile_table(folder))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/training_profile.py", description=__doc__.split("\n")[0])
    ap.add_argument("env_id", nargs="?", choices=ENV_IDS)
    ap.add_argument("--steps", type=positive_int, default=65_536, help="learner steps (default 65536)")
    ap.add_argument("--tables", action="store_true", help="rewrite docs/results/speed.md's profile table alone")
    args = ap.parse_args(argv)
    if not args.tables:
        if args.env_id is None:
            raise ValueError("give an env id (or --tables to rewrite the table alone)")
        res = profile(args.env_id, args.steps)
        os.makedirs(FOLDER, exist_ok=True)
        with open(os.path.join(FOLDER, f"profile-{args.env_id}.json"), "w") as f:
            json.dump(res, f, indent=1)
        print(json.dumps(res["parts"]), file=sys.stderr)
    write_table()
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "training_profile"))
