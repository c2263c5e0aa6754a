"""The second algorithm family measured beside PPO self-play: every game × {dmc, nfsp}
(``python -m spyenvs.experiments.algorithms``) at the default recipe's wall-clock
budget, each result a score card; then the algorithm × game × role table written into
docs/results/algorithms.md between its ``<!-- results: algorithms -->`` markers.

The default budget of a game is the training time of its shipped pretrained policy
(``agents/pretrained/<env_id>.json``, ``training.train_seconds``: the PPO recipe's
training seconds, evaluation excluded), so the three algorithms get the same wall
clock. The PPO row of each game is the score card of that shipped policy
(``pretrained``). Run from the repository root, on a quiet machine (the budget is wall
clock: a loaded machine gives every algorithm fewer steps; the load average is saved
with every figure):

    python scripts/algorithm_table.py                               # every game and algorithm, then the table
    python scripts/algorithm_table.py --env unrest_v0 --algo dmc    # one run (the table is rewritten from all saved)
    python scripts/algorithm_table.py --minutes 1                   # another budget for every game
    python scripts/algorithm_table.py --tables                      # the table alone, from docs/algorithms/*.json
    python scripts/algorithm_table.py --env the_agents_v0 --rescore # cards again on a remade ladder, no training

Each run's result (its ``results.json`` with the score card inside) is saved as
``docs/algorithms/<env_id>-<algo>.json`` and its learning curve as
``docs/algorithms/<env_id>-<algo>.png``; the runs' own folders (checkpoints, history)
go under ``runs/algorithms/``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time

from spyenvs.agents.pretrained import available, pretrained_path
from spyenvs.experiments.algo_common import pin_torch_threads, write_scorecard
from spyenvs.experiments.algorithms import ALGORITHMS, make_config, run_algorithm
from spyenvs.experiments.evaluate import load_average, pct
from spyenvs.experiments.leaderboard import rewrite_between
from spyenvs.experiments.scorecard import capped_search_games
from spyenvs.registry import ENV_IDS
from spyenvs.tools.arguments import add_saved_results_arguments, non_negative_int, parse_key_values, positive_float, positive_int, run_reporting_errors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "docs", "algorithms")
RESULTS_MD = os.path.join(ROOT, "docs", "results", "algorithms.md")
MARKER = "algorithms"
#: the PPO row: the shipped pretrained policy (the default recipe's run)
PPO = "ppo"


def recipe_training(env_id: str) -> dict:
    """The ``training`` record of the game's shipped pretrained policy."""
    path = os.path.splitext(pretrained_path(env_id))[0] + ".json"
    if not os.path.isfile(path):
        raise ValueError(f"{env_id}: no shipped pretrained policy ({path}), so no default budget: give --minutes")
    with open(path) as f:
        return json.load(f)["training"]


def recipe_minutes(env_id: str) -> float:
    """The default recipe's wall-clock training budget of ``env_id``, in minutes."""
    return round(float(recipe_training(env_id)["train_seconds"]) / 60.0, 2)


def save_result(path: str, res: dict) -> str:
    """One result as ``docs/algorithms`` keeps it (indented JSON, a final newline)."""
    with open(path, "w") as f:
        json.dump(res, f, indent=1, default=str)
        f.write("\n")
    return path


def run_all(envs, algos, minutes: float | None = None, seed: int = 0, points: int = 6, curve_games: int = 40,
            scorecard_games: int = 100, ppo: bool = True, folder: str = FOLDER,
            runs: str = os.path.join("runs", "algorithms"), overrides: dict | None = None,
            quiet: bool = False, scorecard_search_games: int | None = None) -> list[str]:
    """Every ``envs`` × ``algos`` run (and, with ``ppo``, the shipped policy's score
    card), each saved into ``folder``; returns the JSON files written."""
    os.makedirs(folder, exist_ok=True)
    written = []
    for env_id in envs:
        budget = minutes if minutes is not None else recipe_minutes(env_id)
        for algo in algos:
            stem = f"{env_id}-{algo}"
            cfg = make_config(algo, env_id, seed, None, (overrides or {}).get(algo))
            res = run_algorithm(algo, cfg, os.path.join(runs, stem), minutes=budget, points=points,
                                curve_games=curve_games, scorecard_games=scorecard_games, quiet=quiet,
                                scorecard_search_games=scorecard_search_games)
            with open(os.path.join(runs, stem, "scorecard.json")) as f:
                res["scorecard"] = json.load(f)
            path = save_result(os.path.join(folder, f"{stem}.json"), res)
            picture = os.path.join(runs, stem, "curve.png")
            if os.path.isfile(picture):
                shutil.copyfile(picture, os.path.join(folder, f"{stem}.png"))
            written.append(path)
            print(f"wrote {path}", file=sys.stderr)
        if ppo and env_id in available():
            written.append(ppo_card(env_id, scorecard_games, seed, folder, os.path.join(runs, f"{env_id}-{PPO}"),
                                    quiet, scorecard_search_games))
    return written


def ppo_card(env_id: str, games: int, seed: int, folder: str = FOLDER,
             out: str = os.path.join("runs", "algorithms", "pretrained"), quiet: bool = False,
             search_games: int | None = None) -> str:
    """The score card of the shipped pretrained policy, saved like a run's result."""
    from spyenvs.agents.registry import make_policy

    pin_torch_threads(1)
    t0 = time.monotonic()
    load_start = load_average()
    card = write_scorecard(env_id, {}, "pretrained", make_policy("pretrained", seed=seed), games, seed, out,
                           quiet=quiet, search_games=search_games)
    training = recipe_training(env_id)
    res = {"algorithm": PPO, "env_id": env_id, "config": card["config"],
           "budget": {"minutes": round(training["train_seconds"] / 60.0, 2), "steps": None},
           "timesteps": training["timesteps"], "train_seconds": training["train_seconds"],
           "steps_note": "learner decisions (one seat), as the recipe counts them",
           "policy": "pretrained", "load": {"start": load_start, "end": load_average()},
           "elo": card["rating"], "scorecard": card, "seconds": round(time.monotonic() - t0, 1),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    path = save_result(os.path.join(folder, f"{env_id}-{PPO}.json"), res)
    print(f"wrote {path}", file=sys.stderr)
    return path


def rescore(env_id: str, algo: str, games: int, search_games: int | None = None, folder: str = FOLDER,
            runs: str = os.path.join("runs", "algorithms"), quiet: bool = False) -> str:
    """The saved run's score card played again on the ladder shipped now, from the
    trained file its result names (``runs/algorithms/<env_id>-<algo>/final.npz``, kept
    from the run): a remade ladder moves every Elo, and this puts an old run on the new
    scale without training it again. The training record is kept as it was; the new
    card, its Elo and its load replace the old ones. ``ppo`` plays the shipped file."""
    from spyenvs.agents.registry import make_policy

    path = os.path.join(folder, f"{env_id}-{algo}.json")
    if not os.path.isfile(path):
        raise ValueError(f"no saved {algo} result for {env_id} ({path}): run it first")
    with open(path) as f:
        res = json.load(f)
    if algo == PPO:
        return ppo_card(env_id, games, int(res["scorecard"]["seed"]), folder, os.path.join(runs, f"{env_id}-{PPO}"),
                        quiet, search_games)
    checkpoint = res["checkpoint"]
    if not os.path.isfile(checkpoint):
        raise ValueError(f"{path}: its trained file {checkpoint} is gone (runs/ is not kept in git): "
                         f"train it again with --env {env_id} --algo {algo}")
    pin_torch_threads(1)
    seed = int(res["scorecard"]["seed"])
    card = write_scorecard(env_id, res["config"], res["policy"], make_policy(res["policy"], seed=seed), games, seed,
                           os.path.dirname(checkpoint), res["scorecard"]["max_decisions"], quiet=quiet,
                           search_games=search_games)
    res.update(scorecard=card, elo=card["rating"],
               rescored=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    save_result(path, res)
    print(f"wrote {path} (score card played again on ladder {(card.get('ladder') or {}).get('version')})",
          file=sys.stderr)
    return path


# ------------------------------------------------------------------- the table
def _cell(kinds: dict, kind: str) -> str:
    v = kinds.get(kind)
    return pct(v["rate"], v["low"], v["high"]) if v else "n/a"


def _elo(rating: dict | None) -> str:
    if not rating:
        return "n/a"
    text = f"{rating['elo']:.0f} ± {rating['plus_minus']:.0f}"
    return text + (" (bound)" if rating.get("bound") else "")


def search_note(card: dict) -> str:
    """`` (expert: 20)`` when the card gave its search bots fewer games."""
    search = capped_search_games(card)
    return f" (expert: {search})" if search else ""


def load_results(folder: str) -> list[dict]:
    files = sorted(f for f in os.listdir(folder) if f.endswith(".json")) if os.path.isdir(folder) else []
    out = []
    for name in files:
        with open(os.path.join(folder, name)) as f:
            res = json.load(f)
        res["_stem"] = name[: -len(".json")]
        out.append(res)
    return out


def results_section(folder: str, link_prefix: str | None = None) -> str:
    """Every saved result in ``folder`` as markdown for docs/results.md: the algorithm
    × game × role table (win rates against each ladder bot and the Elo on the fixed
    ladder), which algorithm rates highest per game, and links to the curves."""
    results = load_results(folder)
    if not results:
        return "(no algorithm run saved yet)"
    order = {a: i for i, a in enumerate((PPO, *ALGORITHMS))}
    results.sort(key=lambda r: (r["env_id"], order.get(r["algorithm"], 99)))
    bots: list[str] = []
    for r in results:
        for o in r["scorecard"]["opponents"]:
            if o["opponent"] not in bots:
                bots.append(o["opponent"])
    head = ("| env | algorithm | role | " + " | ".join(f"vs {b} [95% CI]" for b in bots)
            + " | Elo (ladder) | ladder version | budget | steps | score-card games | load (run; card) |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    best: dict[str, tuple[float, str]] = {}
    links = []
    for r in results:
        card = r["scorecard"]
        by_bot = {o["opponent"]: o["kinds"] for o in card["opponents"]}
        kinds = list(next(iter(by_bot.values()), {}))
        budget = r["budget"]
        budget_text = f"{budget['minutes']:g} min" if budget.get("minutes") else f"{budget.get('steps')} steps"
        steps = f"{r['timesteps']:,}" + (" (learner)" if r["algorithm"] == PPO else "")
        load = f"{r['load']['start']}; {card['load']}"
        ladder_version = (card.get("ladder") or {}).get("version", "none")
        for kind in kinds:
            cells = " | ".join(_cell(by_bot.get(b, {}), kind) for b in bots)
            lines.append(f"| {r['env_id']} | {r['algorithm']} | {kind} | {cells} | {_elo(r.get('elo'))} | "
                         f"{ladder_version} | {budget_text} | {steps} | "
                         f"{card['games_per_role']} per role{search_note(card)} | {load} |")
        if r.get("elo") and r["algorithm"] != PPO:
            elo = r["elo"]["elo"]
            if r["env_id"] not in best or elo > best[r["env_id"]][0]:
                best[r["env_id"]] = (elo, r["algorithm"])
        picture = f"{r['_stem']}.png"
        if link_prefix is not None and os.path.isfile(os.path.join(folder, picture)):
            links.append(f"[{r['env_id']} {r['algorithm']}]({link_prefix.rstrip('/')}/{picture})")
    out = lines
    if best:
        per_algo: dict[str, list[float]] = {}
        for r in results:
            if r.get("elo") and r["algorithm"] != PPO:
                per_algo.setdefault(r["algorithm"], []).append(r["elo"]["elo"])
        out += ["", "Higher Elo of the second family, per game: "
                + "; ".join(f"{env}: {algo} ({elo:.0f})" for env, (elo, algo) in sorted(best.items())) + ".",
                "Mean Elo over the games run: "
                + "; ".join(f"{a} {sum(v) / len(v):.0f} over {len(v)}" for a, v in sorted(per_algo.items())) + "."]
    if links:
        out += ["", "Learning curves (win rate against random and the heuristic, per role, against training "
                "decisions): " + ", ".join(links) + "."]
        out += ["", curve_gallery(results, folder, link_prefix)]
    return "\n".join(out)


def curve_gallery(results: list[dict], folder: str, link_prefix: str) -> str:
    """The curve pictures inline: a row per game, a column per algorithm."""
    algos = [a for a in ALGORITHMS if any(r["algorithm"] == a for r in results)]
    lines = ["| env | " + " | ".join(algos) + " |", "|---|" + "---|" * len(algos)]
    for env_id in sorted({r["env_id"] for r in results}):
        cells = []
        for algo in algos:
            picture = f"{env_id}-{algo}.png"
            found = os.path.isfile(os.path.join(folder, picture))
            cells.append(f"![{env_id} {algo}]({link_prefix.rstrip('/')}/{picture})" if found else "n/a")
        lines.append(f"| {env_id} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_table(results_md: str = RESULTS_MD, folder: str = FOLDER) -> None:
    """The table of every result in ``folder`` into ``results_md`` between its markers."""
    link = os.path.relpath(folder, os.path.dirname(os.path.abspath(results_md)))
    rewrite_between(results_md, MARKER, results_section(folder, link_prefix=link))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/algorithm_table.py", description=__doc__.split("\n")[0])
    ap.add_argument("--env", action="append", choices=ENV_IDS, help="env id (repeatable; default every game)")
    ap.add_argument("--algo", action="append", choices=ALGORITHMS, help="algorithm (repeatable; default both)")
    ap.add_argument("--minutes", type=positive_float, default=None,
                    help="training budget of every run (default: each game's recipe time, agents/pretrained/*.json)")
    ap.add_argument("--seed", type=non_negative_int, default=0)
    ap.add_argument("--points", type=positive_int, default=6, help="evaluations on each curve")
    ap.add_argument("--curve-games", type=non_negative_int, default=40, help="games per role of each curve point")
    ap.add_argument("--scorecard-games", type=positive_int, default=100, help="score-card games per role and bot")
    ap.add_argument("--scorecard-search-games", type=positive_int, default=None,
                    help="score-card games per role against a search bot (expert: seconds a game), "
                         "default --scorecard-games")
    ap.add_argument("--ppo", action=argparse.BooleanOptionalAction, default=True,
                    help="also the score card of each game's shipped PPO policy (default on)")
    ap.add_argument("--dmc-opt", action="append", metavar="KEY=VALUE", help="a DMC option for every run")
    ap.add_argument("--nfsp-opt", action="append", metavar="KEY=VALUE", help="an NFSP option for every run")
    ap.add_argument("--rescore", action="store_true",
                    help="no training: play each saved run's score card again on the ladder shipped now, from "
                         "its kept runs/ file (after a ladder is remade)")
    add_saved_results_arguments(ap, FOLDER, RESULTS_MD, os.path.join("runs", "algorithms"))
    args = ap.parse_args(argv)
    if args.rescore and not args.tables:
        for env_id in args.env or ENV_IDS:
            for algo in ([PPO] if args.ppo else []) + list(args.algo or ALGORITHMS):
                if os.path.isfile(os.path.join(args.folder, f"{env_id}-{algo}.json")):
                    rescore(env_id, algo, args.scorecard_games, args.scorecard_search_games, args.folder, args.runs,
                            args.quiet)
    elif not args.tables:
        overrides = {"dmc": parse_key_values(args.dmc_opt, "--dmc-opt"),
                     "nfsp": parse_key_values(args.nfsp_opt, "--nfsp-opt")}
        run_all(args.env or ENV_IDS, args.algo or ALGORITHMS, args.minutes, args.seed, args.points, args.curve_games,
                args.scorecard_games, args.ppo, args.folder, args.runs, overrides, args.quiet,
                args.scorecard_search_games)
    write_table(args.results_md, args.folder)
    print(f"wrote the table into {args.results_md}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "algorithm_table"))
