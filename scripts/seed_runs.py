"""A game's default recipe run with several seeds, every result reported: per seed,
``spyenvs train ENV --seed S`` with its final evaluation at ``--games`` per role
(default 400, seats rotated, team roles as a team) against random and the heuristic,
the heuristic's own score in the same seats and games beside it. Each run's
``results.json`` is saved as ``docs/seeds/<env_id>-seed<S>.json``; the table of all
saved runs, with the mean over each game's seeds against the bar (the heuristic's own
score + 5 points against the heuristic, - 1 point against random), goes into
docs/results/policies.md between its ``<!-- results: seeds -->`` markers.

Run from the repository root, one run at a time, on a quiet machine (the load is
saved with every run):

    python scripts/seed_runs.py the_agents_v0 --seeds 0 1 2
    python scripts/seed_runs.py specter_ops_v0 --seeds 1 --opt net.privileged_critic=true --tag privileged
    python scripts/seed_runs.py unrest_v0 --seeds 1 2 --config configs/unrest_lookahead.yaml --tag lookahead
    python scripts/seed_runs.py --tables

A run's own folder (checkpoints, curves, TensorBoard) is ``runs/seeds/<name>``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from spyenvs.experiments.evaluate import pct
from spyenvs.experiments.config import default_config_path
from spyenvs.experiments.leaderboard import (BEAT_HEURISTIC_BY, NEAR_HEURISTIC_VS_RANDOM, beats_heuristic, dotted_options,
                                             options_against, rewrite_between)
from spyenvs.registry import ENV_IDS
from spyenvs.tools.arguments import add_saved_results_arguments, non_negative_int, positive_int, run_reporting_errors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "docs", "seeds")
RESULTS_MD = os.path.join(ROOT, "docs", "results", "policies.md")
MARKER = "seeds"


def run_name(env_id: str, seed: int, tag: str | None = None) -> str:
    return f"{env_id}-seed{seed}" + (f"-{tag}" if tag else "")


def run_seed(env_id: str, seed: int, games: int, opts: list[str], tag: str | None = None, folder: str = FOLDER,
             runs: str = os.path.join("runs", "seeds"), quiet: bool = False, config: str | None = None) -> str:
    """One default run (or ``config``'s; ``opts`` on top, ``--opt`` syntax) with
    ``seed``, in its own process as a user runs it; its results saved into ``folder``.
    Returns that file."""
    name = run_name(env_id, seed, tag)
    out = os.path.join(runs, name)
    argv = [sys.executable, "-c", "import sys; from spyenvs.cli import main; sys.exit(main())", "train", env_id,
            "--out", out, "--seed", str(seed), "--opt", f"eval.final_games={games}"]
    if config:
        argv += ["--config", config]
    for opt in opts:
        argv += ["--opt", opt]
    if quiet:
        argv.append("--quiet")
    status = subprocess.run(argv).returncode
    if status:  # the run has said why, in one line: end with its status, not a traceback here
        raise SystemExit(status)
    with open(os.path.join(out, "results.json")) as f:
        res = json.load(f)
    res["seed_run"] = {"seed": seed, "tag": tag, "opts": list(opts)}
    if config:
        res["seed_run"]["config"] = config
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{name}.json")
    with open(path, "w") as f:
        json.dump(res, f, indent=1, default=str)
        f.write("\n")
    print(f"wrote {path}", file=sys.stderr)
    return path


def load_runs(folder: str = FOLDER) -> list[dict]:
    files = sorted(f for f in os.listdir(folder) if f.endswith(".json")) if os.path.isdir(folder) else []
    runs = []
    for name in files:
        with open(os.path.join(folder, name)) as f:
            runs.append(json.load(f))
    return runs


#: options every seed run sets for the protocol itself, not for the recipe
PROTOCOL_OPTIONS = ("seed", "eval.final_games")


def recipe_label(res: dict) -> str:
    """The recipe of a saved seed run against its config file as it is now: ``default``
    (or the file it ran) and the recorded options that differ, so a run made before a
    config changed says how it differs from today's; the options given at the time where
    the run recorded none, or that its record predates (an option inside a section the
    record has, e.g. ``net.prior_open``)."""
    config = res["seed_run"].get("config")
    base = f"`{config}`" if config else "default"
    given = list(res["seed_run"]["opts"])
    options = res.get("options")
    if not options:
        return base + (" + " + ", ".join(given) if given else "")
    path = os.path.join(ROOT, config) if config else default_config_path(res["env_id"])
    differ = {k: v for k, v in options_against(res["env_id"], options, path).items() if k not in PROTOCOL_OPTIONS}
    parts = [f"{k}={json.dumps(v)}" for k, v in sorted(differ.items())]
    recorded = dotted_options(options)
    for opt in given:  # what the record cannot say itself: an option it has no key for
        key = opt.split("=", 1)[0]
        if not any(k == key or k.startswith(key + ".") for k in recorded):
            parts.append(opt)
    return base + (" + " + ", ".join(parts) if parts else "")


def _mean(cells: list[dict]) -> dict:
    return {"rate": sum(c["rate"] for c in cells) / len(cells)}


def results_section(folder: str = FOLDER) -> str:
    """Every saved seed run as one markdown table, then per game, recipe and role the
    mean over its seeds against the bar."""
    runs = load_runs(folder)
    if not runs:
        return "(no seed run saved yet)"
    lines = ["| env | recipe | seed | role | vs random [95% CI] | heuristic vs random | vs heuristic [95% CI] "
             "| heuristic vs heuristic | meets the bar | steps | training time | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    groups: dict[tuple[str, str], list[dict]] = {}
    for res in sorted(runs, key=lambda r: (r["env_id"], r["seed_run"].get("tag") or "", r["seed_run"]["seed"])):
        recipe = recipe_label(res)
        groups.setdefault((res["env_id"], recipe), []).append(res)
        for kind in res["vs"]["heuristic"]:
            cells = []
            for opp in ("random", "heuristic"):
                v, h = res["vs"][opp][kind], res["heuristic_vs"][opp][kind]
                cells += [f"{pct(v['rate'], v['low'], v['high'])} (n={v['games']})", pct(h["rate"], h["low"], h["high"])]
            lines.append(f"| {res['env_id']} | {recipe} | {res['seed_run']['seed']} | {kind} | {' | '.join(cells)} | "
                         f"{beats_heuristic(res['vs'], res['heuristic_vs'], kind)} | {res['timesteps']:,} | "
                         f"{res['train_seconds'] / 60:.1f} min | {res['load']} |")
    lines += ["", "Mean over seeds (the heuristic's own scores averaged over the same runs' games):", "",
              "| env | recipe | seeds | role | mean vs random | heuristic's mean vs random | mean vs heuristic "
              "| heuristic's mean vs heuristic | meets the bar |", "|---|---|---|---|---|---|---|---|---|"]
    for (env_id, recipe), group in groups.items():
        for kind in group[0]["vs"]["heuristic"]:
            vs = {o: {kind: _mean([r["vs"][o][kind] for r in group])} for o in ("random", "heuristic")}
            own = {o: {kind: _mean([r["heuristic_vs"][o][kind] for r in group])} for o in ("random", "heuristic")}
            lines.append(f"| {env_id} | {recipe} | {', '.join(str(r['seed_run']['seed']) for r in group)} | {kind} | "
                         f"{vs['random'][kind]['rate']:.1%} | {own['random'][kind]['rate']:.1%} | "
                         f"{vs['heuristic'][kind]['rate']:.1%} | {own['heuristic'][kind]['rate']:.1%} | "
                         f"{beats_heuristic(vs, own, kind)} |")
    lines += ["", f"The bar: at least the heuristic's own score against the heuristic + "
              f"{BEAT_HEURISTIC_BY * 100:.0f} points, and against random - {NEAR_HEURISTIC_VS_RANDOM * 100:.0f} point."]
    return "\n".join(lines)


def write_table(results_md: str = RESULTS_MD, folder: str = FOLDER) -> None:
    rewrite_between(results_md, MARKER, results_section(folder))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/seed_runs.py", description=__doc__.split("\n")[0])
    ap.add_argument("env_id", nargs="?", choices=ENV_IDS)
    ap.add_argument("--seeds", type=non_negative_int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--games", type=positive_int, default=400, help="final evaluation games per role (default 400)")
    ap.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                    help="a training option on top of the default config (repeatable)")
    ap.add_argument("--tag", default=None, help="names the recipe variant in the saved files' names")
    ap.add_argument("--config", default=None, help="a config file instead of the game's default (name it with --tag)")
    add_saved_results_arguments(ap, FOLDER, RESULTS_MD, os.path.join("runs", "seeds"))
    args = ap.parse_args(argv)
    if not args.tables:
        if args.env_id is None:
            raise ValueError("give an env id (or --tables to rewrite the table alone)")
        if (args.opt or args.config) and not args.tag:
            raise ValueError("--opt and --config change the recipe: name the variant with --tag")
        for seed in args.seeds:
            run_seed(args.env_id, seed, args.games, args.opt, args.tag, args.folder, args.runs, args.quiet, args.config)
    write_table(args.results_md, args.folder)
    print(f"wrote the table into {args.results_md}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "seed_runs"))
