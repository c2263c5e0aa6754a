"""``spyenvs bench --train``: training speed of each game's default config against
PettingZoo's SB3 action-mask tutorial setup (sb3-contrib ``MaskablePPO`` on
``connect_four_v3`` through a Gymnasium-style wrapper and ``ActionMasker``), both run
as whole processes with the same step budget, one after the other, in the same run.

It prints learner steps/s (steps the learner's network decided, over the process's
wall time: imports, set-up and training) and the ratio to the tutorial, and beside it the same for the training loop alone
(``learn()``; imports and set-up left out). The final
evaluation and the warm start's teacher games are switched off: both are fixed costs
outside the PPO loop (``spyenvs train`` reports them apart), and the tutorial has
neither. Each game's target is its ``INFO.train_speed_target``
(:class:`spyenvs.core.info.GameInfo`).

    python -m spyenvs.experiments.train_bench [--env ENV] [--steps N] [--repeats K]

Also ``python -m spyenvs.experiments.train_bench --tutorial N`` runs the tutorial
setup alone for N steps (what the benchmark times as its baseline process).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from spyenvs.registry import ENV_IDS, game_info
from spyenvs.tools.arguments import run_reporting_errors


def run_tutorial(steps: int, seed: int = 0) -> int:
    """The tutorial's training set-up: one connect_four_v3 env behind an AEC-to-Gymnasium
    wrapper that strips the mask out of the observation, ActionMasker for the mask,
    MaskablePPO with its default policy and hyper-parameters, ``learn(steps)``."""
    # late: sb3-contrib is the train extra, and the timed process pays these imports itself
    import gymnasium
    import pettingzoo.utils
    from pettingzoo.classic import connect_four_v3
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    class MaskedAEC(pettingzoo.utils.BaseWrapper, gymnasium.Env):
        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            actor = self.agent_selection
            super().step(action)
            return (self.observe(self.agent_selection), self._cumulative_rewards[actor],
                    self.terminations[actor], self.truncations[actor], self.infos[actor])

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    env = MaskedAEC(connect_four_v3.env())
    env.reset(seed=seed)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, verbose=0)
    model.set_random_seed(seed)
    t0 = time.perf_counter()
    model.learn(total_timesteps=steps)
    return int(model.num_timesteps), time.perf_counter() - t0


def _timed(cmd: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
        raise RuntimeError(f"{' '.join(cmd[:4])} ... failed: {tail[0]}")
    return wall, proc.stdout


def bench_tutorial(steps: int) -> dict:
    wall, out = _timed([sys.executable, "-m", "spyenvs.experiments.train_bench", "--tutorial", str(steps)])
    done, learn_s = out.strip().splitlines()[-1].split()
    done = int(done)
    return {"name": "pettingzoo SB3 tutorial (connect_four_v3)", "steps": done, "wall_s": round(wall, 2),
            "steps_per_s": round(done / wall, 1), "train_steps_per_s": round(done / float(learn_s), 1)}


def bench_game(env_id: str, steps: int, opts: list[str] | None = None) -> dict:
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "spyenvs.experiments.train_selfplay", env_id, "--timesteps", str(steps),
               "--quiet", "--out", out, "--opt", "eval.final_games=0", "--opt", "eval.games=0",
               "--opt", f"eval.every={10**12}", "--opt", "warm_start.games=0",
               "--opt", "selection.snapshots=1"]  # selection games are evaluation, not training
        for opt in opts or []:
            cmd += ["--opt", opt]
        wall, _ = _timed(cmd)
        with open(os.path.join(out, "results.json")) as f:
            res = json.load(f)
    done = int(res["timesteps"])
    name = env_id + (" " + " ".join(opts) if opts else "")
    return {"name": name, "steps": done, "wall_s": round(wall, 2), "steps_per_s": round(done / wall, 1),
            "train_steps_per_s": res["steps_per_second"], "env_stats": res.get("env_stats", {})}


def run_bench(env_ids, steps: int, progress=None, opts: list[str] | None = None, repeat: int = 1) -> list[dict]:
    """Tutorial first, then each game, each as its own process; each row gets its ratio.
    ``opts`` (KEY=VALUE) change every game's config, e.g. to compare vec env sizes.
    ``repeat`` > 1 plays that many rounds (tutorial, then every game, again and again)
    and reports each process's median wall and loop time, and each game's ratio as the
    median of its rounds' ratios to the same round's tutorial, with their spread (min,
    max): a neighbour's burst of work then moves one round, not the ratio, and a wide
    spread says the machine, not the code, moved."""
    say = progress or (lambda m: None)
    rounds: list[list[dict]] = []
    for k in range(int(repeat)):
        tag = f" (round {k + 1} of {repeat})" if repeat > 1 else ""
        say(f"tutorial baseline, {steps} steps{tag} ...")
        row = [bench_tutorial(steps)]
        for env_id in env_ids:
            say(f"{env_id}, {steps} steps{tag} ...")
            row.append(bench_game(env_id, steps, opts))
        rounds.append(row)
    rows = [_median_row([r[i] for r in rounds]) for i in range(len(rounds[0]))]
    for key in ("steps_per_s", "train_steps_per_s"):  # the tutorial's own speed and its spread
        rows[0][f"{key}_range"] = _spread([r[0][key] for r in rounds])
    for i, (env_id, row) in enumerate(zip(env_ids, rows[1:]), start=1):
        for name, key in (("ratio", "steps_per_s"), ("loop_ratio", "train_steps_per_s")):
            paired = [r[i][key] / r[0][key] for r in rounds]
            row[name] = round(float(np.median(paired)), 2)
            row[f"{name}_range"] = _spread(paired)
        row["target"] = game_info(env_id).train_speed_target
    return rows


def _spread(values: list[float]) -> list[float]:
    return [round(float(min(values)), 2), round(float(max(values)), 2)]


def _median_row(runs: list[dict]) -> dict:
    """One process's runs as one row: median wall time and median loop speed."""
    if len(runs) == 1:
        return runs[0]
    row = dict(runs[0])
    row["wall_s"] = round(float(np.median([r["wall_s"] for r in runs])), 2)
    row["steps_per_s"] = round(row["steps"] / row["wall_s"], 1)
    row["train_steps_per_s"] = round(float(np.median([r["train_steps_per_s"] for r in runs])), 1)
    row["runs"] = len(runs)
    return row


def _ratio_cell(row: dict, name: str) -> str:
    """``4.32x (4.20-4.41)``: the median ratio and, over several rounds, its spread."""
    if name not in row:
        return "1.00x"
    low, high = row.get(f"{name}_range", (None, None))
    return f"{row[name]:.2f}x" + (f" ({low:.2f}-{high:.2f})" if row.get("runs", 1) > 1 else "")


def _speed_cell(row: dict, key: str) -> str:
    """Steps/s, with the tutorial's spread over the rounds beside it."""
    low, high = row.get(f"{key}_range", (None, None))
    return f"{row.get(key) or 0:,.0f}" + (f" ({low:,.0f}-{high:,.0f})" if low is not None and row.get("runs", 1) > 1 else "")


#: how far above its target a game's whole-process ratio must be for the goal to hold: a
#: change of machine moved the ratios by 10% and more (the tutorial's speed moves with the
#: machine's update speed, the games' with its Python speed)
GOAL_MARGIN = 0.10


def holds_goal(row: dict) -> bool:
    """Whether a game's whole-process ratio is its target plus :data:`GOAL_MARGIN` or more."""
    return bool(row.get("target")) and row.get("ratio", 0.0) >= row["target"] * (1 + GOAL_MARGIN) - 1e-9


def _goal_cell(row: dict) -> str:
    if not row.get("target") or "ratio" not in row:
        return ""
    return "yes" if holds_goal(row) else "no"


def _margin_cell(row: dict, name: str) -> str:
    """How far the median ratio is above (or below) the game's target, in percent."""
    if not row.get("target") or name not in row:
        return ""
    return f"{(row[name] / row['target'] - 1) * 100:+.0f}%"


def format_rows(rows: list[dict]) -> str:
    """The bench as markdown: per process its speeds, and per game its ratios to the
    tutorial (median over the rounds, their spread in brackets), their margins over
    the target and whether the whole process holds the goal's margin (:data:`GOAL_MARGIN`);
    the tutorial's own steps/s (and spread) in its row."""
    lines = ["| process | steps | wall s | learner steps/s (whole process) | ratio to tutorial | target | margin "
             f"| {GOAL_MARGIN:.0%} margin held | steps/s in the training loop | loop ratio | loop margin |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        target = f">= {r['target']:g}x" if r.get("target") else ""
        lines.append(f"| {r['name']} | {r['steps']} | {r['wall_s']:.1f} | {_speed_cell(r, 'steps_per_s')} "
                     f"| {_ratio_cell(r, 'ratio')} | {target} | {_margin_cell(r, 'ratio')} | {_goal_cell(r)} "
                     f"| {_speed_cell(r, 'train_steps_per_s')} | {_ratio_cell(r, 'loop_ratio')} "
                     f"| {_margin_cell(r, 'loop_ratio')} |")
    rounds = rows[0].get("runs", 1)
    if rounds > 1:
        lines.append(f"\nRatios: the median over {rounds} rounds of each round's game against the same round's "
                     "tutorial, (min-max) over the rounds; the tutorial's steps/s: median (min-max).")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="spyenvs bench --train", description=__doc__.split("\n")[0])
    ap.add_argument("--env", action="append", choices=ENV_IDS, help="env id (repeatable; default all)")
    ap.add_argument("--steps", type=int, default=20_480, help="learner steps per process (default 20480)")
    ap.add_argument("--opt", action="append", metavar="KEY=VALUE", help="training config override for every game")
    ap.add_argument("--repeats", type=int, default=3,
                    help="rounds of tutorial and games; each process's medians are reported (default 3)")
    ap.add_argument("--tutorial", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.tutorial is not None:
        steps, learn_s = run_tutorial(args.tutorial)
        print(steps, f"{learn_s:.3f}")
        return 0
    if args.steps < 1:
        raise SystemExit("spyenvs: error: --steps must be at least 1")
    if args.repeats < 1:
        raise SystemExit("spyenvs: error: --repeats must be at least 1")
    rows = run_bench(args.env or list(ENV_IDS), args.steps, progress=lambda m: print(m, file=sys.stderr), opts=args.opt,
                     repeat=args.repeats)
    print(format_rows(rows))
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "train_bench"))
