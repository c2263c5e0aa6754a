"""Where a run with ``net.prior=heuristic`` starts, per prior weight: the untrained
policy (its residual's last layer is zero, so its logits are ``weight * scores``)
against the heuristic, playing greedily (how evaluation plays it) and sampling from
its distribution (how PPO's rollouts play it), in the game's default config, every
role, seats rotated, Wilson 95% intervals, beside the heuristic's own score in the same
seats and games.

Greedy play does not depend on the weight (the scores' argmax); sampled play does: a
weight whose sampled policy loses far more than the greedy one makes PPO learn from
games the evaluation never plays. Saved to ``docs/prior/<env_id>.json``; the table of
all saved probes goes into docs/results/policies.md between ``<!-- results: prior -->``.

    python scripts/prior_weight_probe.py specter_ops_v0 --weights 1 4 10 --games 100
    python scripts/prior_weight_probe.py --tables
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

from spyenvs.agents import make_policy
from spyenvs.agents.torch_policy import TorchPolicy
from spyenvs.experiments.evaluate import evaluate_vs, games_for, load_average, pct, pin_blas_threads
from spyenvs.experiments.leaderboard import rewrite_between
from spyenvs.experiments.league import SnapshotLeague
from spyenvs.experiments.train_selfplay import Learner, RunState, describe_game, load_config, make_model, make_vec_env
from spyenvs.registry import ENV_IDS, make_game
from spyenvs.tools.arguments import add_saved_results_arguments, non_negative_int, positive_float, positive_int, run_reporting_errors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "docs", "prior")
RESULTS_MD = os.path.join(ROOT, "docs", "results", "policies.md")
MARKER = "prior"
#: opponents' seed offset: these games are disjoint from the trainer's evaluations
SEED = 50_000


def untrained_prior(env_id: str, weight: float, folder: str) -> tuple[str, dict, int]:
    """The default config's network with ``net.prior=heuristic`` at ``weight``, untrained,
    exported as the trainer exports it; returns (the file, the game config, the decision cap)."""
    cfg = load_config(None, env_id, {"net.prior": "heuristic", "net.prior_weight": weight, "clone_reg.coef": 0.0,
                                      "n_envs": 1})
    spec = describe_game(cfg)
    venv = make_vec_env(cfg, spec, env_id, SnapshotLeague(cfg.league, 0, True).pool())
    learner = Learner(cfg, spec, make_model(cfg, spec, venv, folder), RunState())
    path = os.path.join(folder, f"prior_{weight:g}.npz")
    learner.save_policy(path, f"{env_id}_prior_{weight:g}")
    return path, dict(cfg.game), cfg.max_decisions


def probe(env_id: str, weights: list[float], games: int, seed: int = SEED) -> dict:
    """The untrained prior at each weight, greedy and sampled, and the heuristic in its
    seats, ``games`` games per role each against the heuristic."""
    pin_blas_threads()
    t0, load_start = time.monotonic(), load_average()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for weight in weights:
            path, config, max_decisions = untrained_prior(env_id, weight, folder)
            total = games_for(make_game(env_id, **config), games)  # evaluate_vs counts games over all roles
            # greedy play is the argmax of weight * scores: the same at every weight
            for mode in ("greedy", "sampled") if weight == weights[0] else ("sampled",):
                policy = TorchPolicy.load(path, deterministic=mode == "greedy", seed=seed + 1)
                res = evaluate_vs(env_id, config, policy, make_policy("heuristic", seed=seed), total, seed,
                                  max_decisions)
                rows.append({"weight": weight, "mode": mode, "kinds": res["kinds"]})
                print(f"{env_id} weight {weight:g} {mode}: "
                      + ", ".join(f"{k} {pct(v['rate'], v['low'], v['high'])}" for k, v in res["kinds"].items()),
                      file=sys.stderr, flush=True)
        own = evaluate_vs(env_id, config, make_policy("heuristic", seed=seed + 1), make_policy("heuristic", seed=seed),
                          total, seed, max_decisions)
    return {"env_id": env_id, "config": config, "games": games, "seed": seed, "rows": rows,
            "heuristic_vs_heuristic": own["kinds"], "seconds": round(time.monotonic() - t0, 1),
            "load": {"start": load_start, "end": load_average()},
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def results_section(folder: str = FOLDER) -> str:
    files = sorted(f for f in os.listdir(folder) if f.endswith(".json")) if os.path.isdir(folder) else []
    if not files:
        return "(no prior probe saved yet)"
    lines = ["| env | role | policy | vs heuristic [95% CI] | heuristic's own vs heuristic | games | load |",
             "|---|---|---|---|---|---|---|"]
    for name in files:
        with open(os.path.join(folder, name)) as f:
            res = json.load(f)
        load = f"{res['load']['start']} -> {res['load']['end']}"
        for kind, own in res["heuristic_vs_heuristic"].items():
            for row in res["rows"]:
                v = row["kinds"][kind]
                what = "greedy (any weight)" if row["mode"] == "greedy" else f"sampled, weight {row['weight']:g}"
                lines.append(f"| {res['env_id']} | {kind} | {what} | {pct(v['rate'], v['low'], v['high'])} | "
                             f"{pct(own['rate'], own['low'], own['high'])} | {v['games']} | {load} |")
    return "\n".join(lines)


def write_table(results_md: str = RESULTS_MD, folder: str = FOLDER) -> None:
    rewrite_between(results_md, MARKER, results_section(folder))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/prior_weight_probe.py", description=__doc__.split("\n")[0])
    ap.add_argument("env_id", nargs="?", choices=ENV_IDS)
    ap.add_argument("--weights", nargs="+", type=positive_float, default=[1.0, 4.0, 10.0, 30.0])
    ap.add_argument("--games", type=positive_int, default=100, help="games per role (default 100)")
    ap.add_argument("--seed", type=non_negative_int, default=SEED)
    add_saved_results_arguments(ap, FOLDER, RESULTS_MD, quiet=False)
    args = ap.parse_args(argv)
    if not args.tables:
        if args.env_id is None:
            raise ValueError("give an env id (or --tables)")
        res = probe(args.env_id, args.weights, args.games, args.seed)
        os.makedirs(args.folder, exist_ok=True)
        with open(os.path.join(args.folder, f"{args.env_id}.json"), "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")
    write_table(args.results_md, args.folder)
    print(f"wrote the table into {args.results_md}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "prior_weight_probe"))
