"""The shipped pretrained policies, their measured results, and the tables made from them.

Five jobs, each one command:

* ``--ship RUN_DIR``: copy a training run's ``final.npz`` into
  ``agents/pretrained/<env_id>.npz`` (what ``make_policy("pretrained")`` loads) and
  measure it: against random and against the heuristic, per role, at least
  ``--games`` (default 200) games per role with the candidate's seats rotated (a team
  role takes every seat of its team; N-player games give the win share), Wilson 95%
  intervals, each beside the heuristic's own score in the same seats, against the
  same opponents, on the same games, and beside the run's training figures, its
  choice among its last snapshots and its evaluation history. Written to
  ``agents/pretrained/<env_id>.json``.
* ``--backfill-heuristic ENV``: add the heuristic's own scores to a record shipped
  without them, on the games its evaluation played (the trainer's final evaluation
  for a record that does not say).
* ``--remeasure ENV``: measure a shipped file again as ``--ship`` does, at ``--games``
  per role (default 400, the issue's bar), and rewrite its figures; the file is
  unchanged, so its ladders stay valid.
* ``ENV [ENV ...]`` (the leaderboard): a round-robin of ``random``, ``heuristic``,
  ``pretrained``, ``ismcts:SIMS`` and ``expert`` on each game's default config
  (``--games`` per ordered pair, ``--search-games`` for pairs with a search bot,
  ``--workers`` processes), with Elo anchored at random = 1000 and per-match
  intervals, written to ``docs/leaderboard/<env_id>.json``. With
  ``--ladder`` it also freezes the score card's ladder, ``agents/ladder/<env_id>.json``
  (:mod:`spyenvs.agents.ladder`): Elo refitted over the matches among the ladder bots
  (:data:`LADDER_BOTS`) only, random pinned at 1000. ``--ladder --from-saved`` makes
  the ladder from the saved round-robin instead of playing one. This script is the
  only writer of ladder files.
* ``--tables``: regenerate the shipped policies' table, the leaderboard and the
  learning curves (``docs/img/learning_curve_<env_id>.png``: win rate against the
  heuristic over training per role, the heuristic's own level as a dashed line) in
  ``docs/results/policies.md``, the search figures in ``docs/results/search.md`` and
  the ladder in ``docs/benchmarking.md`` from those saved files (between their
  ``<!-- results: ... -->`` markers), never by hand.

    python -m spyenvs.experiments.leaderboard --ship runs/the_agents_v0
    python -m spyenvs.experiments.leaderboard --backfill-heuristic unrest_v0
    python -m spyenvs.experiments.leaderboard --remeasure unrest_v0 --games 400
    python -m spyenvs.experiments.leaderboard the_agents_v0 unrest_v0 --games 100 --search-games 40 --workers 2
    python -m spyenvs.experiments.leaderboard unrest_v0 --games 200 --ladder
    python -m spyenvs.experiments.leaderboard --ladder --from-saved
    python -m spyenvs.experiments.leaderboard --tables
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time

from spyenvs.agents import make_policy
from spyenvs.agents.ladder import FORMAT as LADDER_FORMAT
from spyenvs.agents.ladder import is_search, pretrained_digest, read_ladder
from spyenvs.agents.pretrained import available, pretrained_path
from spyenvs.agents.torch_policy import TorchPolicy
from spyenvs.experiments.evaluate import (fit_elo, games_for, heuristic_reference, heuristic_seed, load_average, pct,
                                          pin_blas_threads, plot_learning_curve, reference_levels, tournament,
                                          vs_opponents)
from spyenvs.experiments.seed_ranges import FINAL_EVAL, SHIP_EVAL
from spyenvs.core.progress import progress_bar
from spyenvs.registry import ENV_IDS, game_info, make_game
from spyenvs.tools.arguments import run_reporting_errors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRETRAINED = os.path.join(ROOT, "agents", "pretrained")
LEADERBOARD = os.path.join(ROOT, "docs", "leaderboard")
LADDER = os.path.join(ROOT, "agents", "ladder")
SEARCH = os.path.join(ROOT, "docs", "search")
#: the score card's opponents, weakest first. Adding a bot (``expert``) is: name it
#: here, then rerun ``ENV --ladder``; the score card reads its bots from the file
LADDER_BOTS = ("random", "heuristic", "pretrained", "expert")
#: the ladder bot pinned at 1000
LADDER_ANCHOR = "random"
#: the decision cap of ``--ship``'s own measurement (evaluate_vs's default when it was written)
SHIP_MAX_DECISIONS = 5000
#: the learning-curve pictures ``--tables`` draws from the shipped records
CURVES = os.path.join(ROOT, "docs", "img")



def _met(value: dict | None, goal) -> str:
    if value is None or goal is None:
        return "n/a"
    rate, low = goal
    ok = value["rate"] >= rate if rate is not None else True
    if low is not None:
        ok = ok and value["low"] > low
    return "yes" if ok else "no"


#: issue 22's bar: beat the heuristic's own score against the heuristic by this much...
BEAT_HEURISTIC_BY = 0.05
#: ...and stay within this much of its own score against random
NEAR_HEURISTIC_VS_RANDOM = 0.01


def beats_heuristic(vs: dict, heuristic_vs: dict | None, kind: str) -> str:
    """Whether a role meets the bar set against the heuristic's own scores in the
    same seats and games (at least its score vs heuristic + 5 points, and vs random -
    1 point), and by how many points it misses where it does not; "-" without them."""
    gaps = []
    for opp, margin in (("heuristic", BEAT_HEURISTIC_BY), ("random", -NEAR_HEURISTIC_VS_RANDOM)):
        v = vs.get(opp, {}).get(kind)
        h = (heuristic_vs or {}).get(opp, {}).get(kind)
        if v is None or h is None:
            return "-"
        # rounded so an exact tie on the bar is not a miss by float error
        gap = round(v["rate"] - (h["rate"] + margin), 9)
        if gap < 0:
            gaps.append(f"{gap * 100:+.1f} pts vs {opp}")
    return "yes" if not gaps else "no (" + ", ".join(gaps) + ")"


def _goal_text(goal) -> str:
    rate, low = goal
    return f">= {rate:.1%}" + (f", low > {low:.0%}" if low is not None else "")


def ship(run_dir: str, games: int, seed: int = SHIP_EVAL.start, progress=None, reevaluate: bool = False) -> dict:
    """Copy ``run_dir``'s final policy into the package with its measured results
    (module docstring). The run's final evaluation already played that very file; it
    is reused when it has ``games`` games per role, else the file is measured again
    (with the heuristic's own scores on the same games). The record also keeps the
    run's choice among its last snapshots, the evaluation's plan (seeds, games,
    decision cap) and the run's evaluation history (the learning curve)."""
    with open(os.path.join(run_dir, "results.json")) as f:
        run = json.load(f)
    env_id = run["env_id"]
    src = os.path.join(run_dir, "final.npz")
    if not os.path.isfile(src):
        raise FileNotFoundError(f"{src}: no final.npz in {run_dir} (a run of spyenvs train writes one)")
    os.makedirs(PRETRAINED, exist_ok=True)
    dst = os.path.join(PRETRAINED, f"{env_id}.npz")
    shutil.copyfile(src, dst)
    vs = run.get("vs") or {}
    enough = vs and all(v["games"] >= games for opp in ("random", "heuristic") for v in vs.get(opp, {}).values())
    load = run.get("load", "?")
    reference, evaluation = run.get("heuristic_vs"), run.get("evaluation")
    if reevaluate or not enough:
        vs, reference, evaluation, load = measure_file(env_id, run["config"], dst, games, seed, progress)
    record = {"env_id": env_id, "config": run["config"], "num_players": run["num_players"], "vs": vs,
              "games_per_role": games, "load": load,
              "training": {k: run.get(k) for k in ("timesteps", "train_seconds", "eval_seconds", "steps_per_second",
                                                   "warm_start", "env_stats")},
              "file_bytes": os.path.getsize(dst)}
    for key, value in (("heuristic_vs", reference), ("evaluation", evaluation), ("selection", run.get("selection")),
                       ("options", run.get("options")), ("history", read_history(run_dir))):
        if value:
            record[key] = value
    write_record(record)
    return record


def measure_file(env_id: str, config: dict, path: str, games: int, seed: int = SHIP_EVAL.start,
                 progress=None) -> tuple[dict, dict, dict, str]:
    """A policy file and, in its seats on the same games, the heuristic, each against
    random and the heuristic, ``games`` games per role from ``seed`` (seats rotated,
    team roles as a team). Returns (its results, the heuristic's, the plan, the load)."""
    policy = TorchPolicy.load(path)
    n = games_for(make_game(env_id, **config), games)
    opponents = {"random": seed, "heuristic": seed + 1}
    if progress:
        progress(f"{env_id}: pretrained and heuristic vs random and heuristic, {n} games each")
    vs = vs_opponents(env_id, config, policy, n, seed, SHIP_MAX_DECISIONS, opponents)
    reference = heuristic_reference(env_id, config, n, seed, SHIP_MAX_DECISIONS, opponents)
    evaluation = {"seed": seed, "games": n, "opponent_seeds": opponents, "max_decisions": SHIP_MAX_DECISIONS,
                  "deterministic": True, "heuristic_seed": heuristic_seed(opponents)}
    return vs, reference, evaluation, load_average()


def remeasure(env_id: str, games: int, folder: str | None = None, progress=None) -> dict:
    """Measure a shipped file again at ``games`` games per role (:func:`measure_file`,
    the ship's seeds) and put the figures in its record; the file, its training record
    and every ladder that rated it stay as they are (the file is unchanged)."""
    record = read_record(env_id, folder)
    vs, reference, evaluation, load = measure_file(env_id, record["config"], pretrained_path(env_id), games,
                                                   progress=progress)
    record.update(vs=vs, heuristic_vs=reference, evaluation=evaluation, games_per_role=games, load=load)
    write_record(record, folder)
    return record


def read_history(run_dir: str) -> list[dict] | None:
    """A run's periodic evaluations (``history.json``), the points of its learning curve."""
    path = os.path.join(run_dir, "history.json")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def read_record(env_id: str, folder: str | None = None) -> dict:
    """The shipped record ``agents/pretrained/<env_id>.json`` (or ``folder``'s)."""
    with open(os.path.join(folder or PRETRAINED, f"{env_id}.json")) as f:
        return json.load(f)


def write_record(record: dict, folder: str | None = None) -> str:
    path = os.path.join(folder or PRETRAINED, f"{record['env_id']}.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
    return path


def trainer_evaluation_plan(record: dict) -> dict:
    """The plan of a shipped record's evaluation: its own, or for a file shipped
    before plans were recorded, the trainer's final evaluation, which every such file
    reused (``scripts/replay_shipped_evaluations.py`` replays it: the
    :data:`~spyenvs.experiments.seed_ranges.FINAL_EVAL` seed for the games and both
    opponents, the game's default config's ``max_decisions``)."""
    if record.get("evaluation"):
        return record["evaluation"]
    from spyenvs.experiments.config import TrainConfig, default_config_path, load

    env_id = record["env_id"]
    seed = FINAL_EVAL.start
    return {"seed": seed, "games": games_for(make_game(env_id, **record["config"]), record["games_per_role"]),
            "opponent_seeds": {"random": seed, "heuristic": seed},
            "max_decisions": load(TrainConfig, default_config_path(env_id), env_id).max_decisions,
            "deterministic": True,
            "source": "not recorded when shipped: the trainer's final evaluation, which --ship reused"}


def backfill_heuristic(env_id: str, folder: str | None = None, progress=None) -> dict:
    """Add the heuristic's own scores to a shipped record that lacks them: the
    heuristic in the policy's seats, against the same opponents, on the same games
    (:func:`trainer_evaluation_plan`); the plan is written beside them."""
    record = read_record(env_id, folder)
    plan = dict(trainer_evaluation_plan(record))
    if progress:
        progress(f"{env_id}: heuristic vs {', '.join(plan['opponent_seeds'])}, {plan['games']} games each")
    record["heuristic_vs"] = heuristic_reference(env_id, record["config"], plan["games"], plan["seed"],
                                                 plan["max_decisions"], plan["opponent_seeds"])
    plan["heuristic_seed"] = heuristic_seed(plan["opponent_seeds"])
    plan["heuristic_load"] = load_average()
    record["evaluation"] = plan
    write_record(record, folder)
    return record


def leaderboard(env_id: str, games: int, sims: int, seed: int = 7, progress: bool = False,
                search_games: int | None = None,
                workers: int = 1, expert: bool = True) -> dict:
    """Round-robin of random, heuristic, pretrained, ismcts:SIMS (uniform playouts) and
    ``expert`` on the default config: ``games`` per ordered pair, ``search_games``
    (default ``games``) for a pair with a search bot in it; Elo with random at 1000."""
    names = ["random", "heuristic"] + (["pretrained"] if env_id in available() else []) + [f"ismcts:{sims}"]
    names += ["expert"] if expert else []
    names += [b for b in LADDER_BOTS if b not in names and b != "pretrained"]
    seeds = {nm: seed + i for i, nm in enumerate(names)}
    population = {nm: make_policy(nm, seed=seeds[nm]) for nm in names}  # checks every name before playing
    per_search = search_games or games
    pair_games = lambda a, b: per_search if is_search(a) or is_search(b) else games  # noqa: E731
    total = sum(pair_games(a, b) for a in names for b in names if a != b)
    t0 = time.monotonic()
    with progress_bar(total, f"{env_id} leaderboard games", enabled=progress) as bar:
        res = tournament(env_id, {}, population, games, seed, progress=bar.update, workers=workers,
                         policy_seeds=seeds, pair_games=pair_games)
    res["search_games_per_match"] = per_search
    if "pretrained" in names:  # the file that played, for the ladder made from these games
        res["pretrained_sha256"] = pretrained_digest(env_id)
    res["seconds"] = round(time.monotonic() - t0, 1)
    res["workers"] = workers
    res["load"] = load_average()
    os.makedirs(LEADERBOARD, exist_ok=True)
    with open(os.path.join(LEADERBOARD, f"{env_id}.json"), "w") as f:
        json.dump(res, f, indent=1)
    return res


# ------------------------------------------------------------------- ladder
def ladder_from_round_robin(res: dict, source: str, seconds: float | None = None, load: str | None = None) -> dict:
    """The score card's ladder from a round-robin (:func:`leaderboard`'s result): Elo
    of the :data:`LADDER_BOTS` it holds, refitted over their matches with each other
    only, :data:`LADDER_ANCHOR` pinned at 1000. ``seconds`` (default: those matches'
    own time) and ``load`` (default: the round-robin's) describe the games."""
    bots = [b for b in LADDER_BOTS if b in res["population"]]
    if LADDER_ANCHOR not in bots or len(bots) < 2:
        raise ValueError(f"{res['env_id']}: a ladder needs {LADDER_ANCHOR} and another bot; the round-robin has "
                         f"{', '.join(res['population'])}")
    matches = [{"candidate": m["candidate"], "opponent": m["opponent"], "games": m["games"],
                "score": sum(v["score"] for v in m["kinds"].values())}
               for m in res["matches"] if m["candidate"] in bots and m["opponent"] in bots]
    sides = res["matches"][0]["sides"]
    # 10x fit_elo's default iterations: a ladder is fixed for good, so fit it to convergence
    # (the default stops ~25 points short when a bot never beats another)
    ratings = fit_elo([(m["candidate"], m["opponent"], m["score"], m["games"]) for m in matches], bots, sides,
                      anchor=LADDER_ANCHOR, iters=20_000)
    ratings = {b: round(ratings[b], 1) for b in bots}
    date = time.strftime("%Y-%m-%d", time.gmtime())
    # the date it was made and a digest of its games and ratings: one version, one set of numbers
    digest = hashlib.sha256(json.dumps([res["env_id"], res["config"], bots, matches, ratings], sort_keys=True).encode())
    ladder = {"format": LADDER_FORMAT, "ladder_version": f"{date}.{digest.hexdigest()[:8]}", "env_id": res["env_id"],
              "config": res["config"], "num_players": res["num_players"], "sides": sides, "bots": bots,
              "ratings": ratings, "anchor": LADDER_ANCHOR,
              "games_per_pair": res["games_per_match"], "matches": matches, "date": date,
              "seconds": round(seconds if seconds is not None else sum(m.get("seconds", 0.0) for m in res["matches"]
                                                                       if m["candidate"] in bots
                                                                       and m["opponent"] in bots), 1),
              "load": load if load is not None else res.get("load", "?"), "source": source}
    if res.get("pretrained_sha256"):  # recorded when the round-robin was played
        ladder["pretrained_sha256"] = res["pretrained_sha256"]
    return ladder


def write_ladder(ladder: dict, folder: str = LADDER) -> str:
    """Write ``ladder`` as ``<env_id>.json`` (a ladder is for the game's default config)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{ladder['env_id']}.json")
    with open(path, "w") as f:
        json.dump(ladder, f, indent=1)
        f.write("\n")
    read_ladder(path)  # what the score card will read back
    return path


def ladder_from_saved(env_id: str) -> dict:
    """The ladder refitted from the saved round-robin ``docs/leaderboard/<env_id>.json``,
    without playing a game."""
    path = os.path.join(LEADERBOARD, f"{env_id}.json")
    with open(path) as f:
        res = json.load(f)
    source = (f"refitted from the saved round-robin docs/leaderboard/{env_id}.json "
              f"({res['games_per_match']} games per ordered pair, population {', '.join(res['population'])}; "
              f"load {res.get('load', '?')} while it ran) by leaderboard --ladder --from-saved")
    return ladder_from_round_robin(res, source)


def ladder_section() -> str:
    """Per game: the frozen ladder ratings a score card is measured against."""
    lines = ["| env | ladder version | bot | Elo | games per ordered pair | made |", "|---|---|---|---|---|---|"]
    for name in sorted(os.listdir(LADDER)) if os.path.isdir(LADDER) else []:
        if not name.endswith(".json"):
            continue
        lad = read_ladder(os.path.join(LADDER, name))
        for bot in lad["bots"]:
            lines.append(f"| {lad['env_id']} | {lad['ladder_version']} | {bot} | {lad['ratings'][bot]:.0f} "
                         f"| {lad['games_per_pair']} | {lad['date']} |")
    return "\n".join(lines)


# ------------------------------------------------------------------- tables
def shipped_records(folder: str | None = None) -> list[dict]:
    """The shipped records (``agents/pretrained/*.json``), by env id."""
    folder = folder or PRETRAINED
    records = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                records.append(json.load(f))
    return records


def _steps_cell(rec: dict) -> str:
    """Training steps, and the snapshot that ships when selection chose an earlier one."""
    steps = f"{rec['training'].get('timesteps') or 0:,}"
    sel = rec.get("selection")
    if sel and sel.get("chosen") != "final":
        steps += f" (ships the snapshot at {sel['chosen_timesteps']:,})"
    return steps


def results_table(folder: str | None = None) -> str:
    """The README's table: each shipped policy vs random and vs heuristic per role,
    each beside the heuristic's own score in the same seats, against the same
    opponents, on the same games ("-" where the record has none), with the goal and
    whether it is met, and whether the role beats the heuristic
    (:func:`beats_heuristic`), from ``agents/pretrained/*.json``."""
    lines = ["| env | role | vs random [95% CI] | heuristic vs random | goal | met | vs heuristic [95% CI] "
             "| heuristic vs heuristic | goal | met | beats the heuristic | training steps | training time | recipe | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for rec in shipped_records(folder):
        env_id = rec["env_id"]
        players = rec["config"].get("num_players", rec["num_players"])
        recipe = recipe_cell(rec)
        for kind, goals in game_info(env_id).learning_goals.items():
            cells = []
            for opp, goal in zip(("random", "heuristic"), goals):
                v = rec["vs"].get(opp, {}).get(kind)
                h = rec.get("heuristic_vs", {}).get(opp, {}).get(kind)
                cells += [f"{pct(v['rate'], v['low'], v['high'])} (n={v['games']})" if v else "n/a",
                          pct(h["rate"], h["low"], h["high"]) if h else "-",
                          _goal_text(goal), _met(v, goal)]
            cells.append(beats_heuristic(rec["vs"], rec.get("heuristic_vs"), kind))
            tr = rec["training"]
            minutes = f"{(tr['train_seconds'] or 0) / 60:.1f} min" if tr.get("train_seconds") else "n/a"
            lines.append(f"| {env_id} ({players}p) | {kind} | " + " | ".join(cells)
                         + f" | {_steps_cell(rec)} | {minutes} | {recipe} | {rec.get('load', '?')} |")
    return "\n".join(lines)


def recipe_cell(rec: dict) -> str:
    """Which config made a shipped policy: the game's default config file, or another of
    its config files (:func:`game_config_files`), when the run's options (recorded by the
    trainer since 2026-12-03) are exactly it, else the default and the options that
    differ (teacher's games kept from another run are named after it); older records did
    not keep them."""
    options = rec.get("options")
    if not options:
        return "not recorded"
    from spyenvs.experiments.config import TrainConfig, default_config_path, load, to_dict

    path = default_config_path(rec["env_id"])
    ran = _flat(options)
    # the teacher's games kept from an earlier run (warm_start.demos): where they came
    # from, not what the recipe is
    kept = ran.pop("warm_start.demos", "")
    suffix = f", its teacher's games kept from `{kept}`" if kept else ""

    def differ(config_path):
        made = _flat(to_dict(load(TrainConfig, config_path, rec["env_id"])))
        return {k: v for k, v in ran.items() if made.get(k) != v}

    for other in game_config_files(path):  # a longer documented config it ran exactly
        if not differ(other):
            return f"`{os.path.relpath(other, ROOT)}`{suffix}"
    name = os.path.relpath(path, ROOT) if path else "defaults"
    extra = differ(path)
    if not extra:
        return f"`{name}`{suffix}"
    return f"`{name}` with " + ", ".join(f"`{k}={json.dumps(v)}`" for k, v in sorted(extra.items())) + suffix


def game_config_files(default: str | None) -> list[str]:
    """The game's other PPO config files beside its default (``configs/<game>_*.yaml``,
    e.g. a longer documented config), sorted."""
    if not default:
        return []
    stem = os.path.splitext(os.path.basename(default))[0]
    folder = os.path.dirname(default)
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if f.startswith(stem + "_") and f.endswith(".yaml"))


def _flat(options: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in options.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def curve_levels(rec: dict) -> dict[tuple[str, str], float]:
    """The heuristic's own level against the heuristic, per role, for the curve."""
    return {key: rate for key, rate in reference_levels(rec.get("heuristic_vs")).items() if key[0] == "heuristic"}


def write_curves(folder: str | None = None, img: str = CURVES) -> dict[str, str]:
    """Per shipped record with a training history: ``img/learning_curve_<env_id>.png``,
    the win rate against the heuristic over training per role, with the heuristic's
    own level as a dashed line where the record has it. Returns env id -> path."""
    written = {}
    for rec in shipped_records(folder):
        if not rec.get("history"):
            continue
        path = os.path.join(img, f"learning_curve_{rec['env_id']}.png")
        plot_learning_curve(rec["history"], path, f"{rec['env_id']}: the shipped run against the heuristic",
                            opponents=("heuristic",), levels=curve_levels(rec))
        written[rec["env_id"]] = path
    return written


def curves_section(written: dict[str, str], records: list[dict], page_dir: str) -> str:
    """docs/results.md's pictures: one per shipped record with a history, a line for the others."""
    out = []
    for rec in records:
        env_id = rec["env_id"]
        if env_id in written:
            rel = os.path.relpath(written[env_id], page_dir).replace(os.sep, "/")
            line = "" if curve_levels(rec) else " (no heuristic level recorded: no line)"
            out.append(f"**{env_id}**{line}\n\n![{env_id} learning curve]({rel})\n")
        else:
            out.append(f"**{env_id}**: no training history in the shipped file (shipped before `--ship` kept it)\n")
    return "\n".join(out) if out else "(no shipped policy yet)"


def leaderboard_section() -> str:
    """Per game: Elo of the round-robin and every match's per-role result."""
    out = []
    files = sorted(os.listdir(LEADERBOARD)) if os.path.isdir(LEADERBOARD) else []
    for name in files:
        if not name.endswith(".json"):
            continue
        with open(os.path.join(LEADERBOARD, name)) as f:
            res = json.load(f)
        search = res.get("search_games_per_match")
        pairs = (f"{res['games_per_match']} games per ordered pair"
                 + (f", {search} with a search bot" if search and search != res["games_per_match"] else ""))
        out.append(f"### {res['env_id']} ({pairs}, {res.get('seconds', '?')} s with {res.get('workers', 1)} "
                   f"process(es) at load {res.get('load', '?')})\n")
        out.append("| policy | Elo |\n|---|---|")
        for nm, r in sorted(res["elo"].items(), key=lambda kv: -kv[1]):
            out.append(f"| {nm} | {r:.0f} |")
        out.append("\n| candidate | opponent | role | score [95% CI] | games |\n|---|---|---|---|---|")
        for m in res["matches"]:
            for kind, v in m["kinds"].items():
                out.append(f"| {m['candidate']} | {m['opponent']} | {kind} | {pct(v['rate'], v['low'], v['high'])} "
                           f"| {v['games']} |")
        out.append("")
    return "\n".join(out) if out else "(no leaderboard run yet)"


def search_section() -> str:
    """docs/results.md's Search section: ``bench --search``'s saved speeds and the
    strength table (:mod:`spyenvs.experiments.search_strength`), from docs/search/."""
    from spyenvs.experiments.search_bench import format_rows
    from spyenvs.experiments.search_strength import strength_table

    out = []
    bench = os.path.join(SEARCH, "bench.json")
    if os.path.isfile(bench):
        with open(bench) as f:
            rec = json.load(f)
        out += [f"Speed (`spyenvs bench --search --save docs/search/bench.json`, {rec['repeats']} repeats, "
                f"{rec['date']}):\n", format_rows(rec["rows"], rec["load"]), ""]
    strength = os.path.join(SEARCH, "strength.json")
    if os.path.isfile(strength):
        with open(strength) as f:
            rec = json.load(f)
        out += [f"Strength (`python -m spyenvs.experiments.search_strength --games {rec['games_per_role']}`, "
                f"{rec['date']}, {rec['seconds']} s with {rec['workers']} process(es), load average "
                f"{rec['load']}):\n", strength_table(rec), ""]
    return "\n".join(out) if out else "(no search measurements saved yet)"


def replace_between(text: str, marker: str, body: str) -> str:
    start, end = f"<!-- results: {marker} -->", f"<!-- /results: {marker} -->"
    if start not in text or end not in text:
        raise ValueError(f"markers {start} ... {end} not found")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}\n{end}{tail}"


def rewrite_between(path: str, marker: str, body: str) -> None:
    """``path``'s section between its ``marker`` markers replaced by ``body``."""
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(replace_between(text, marker, body))


def write_tables(policies_md: str = os.path.join(ROOT, "docs", "results", "policies.md"),
                 search_md: str = os.path.join(ROOT, "docs", "results", "search.md"),
                 benchmarking_md: str = os.path.join(ROOT, "docs", "benchmarking.md"),
                 folder: str | None = None, img: str = CURVES) -> None:
    """Every generated table and picture, from the saved files (``folder``: the
    shipped records, default agents/pretrained): the shipped policies' table, curves
    and leaderboard into ``policies_md``, the search figures into ``search_md``, the
    ladder into ``benchmarking_md``."""
    table = results_table(folder)
    with open(policies_md) as f:
        text = f.read()
    text = replace_between(text, "pretrained", table)
    curves = curves_section(write_curves(folder, img), shipped_records(folder),
                            os.path.dirname(os.path.abspath(policies_md)))
    text = replace_between(text, "curves", curves)
    text = replace_between(text, "leaderboard", leaderboard_section())
    with open(policies_md, "w") as f:
        f.write(text)
    rewrite_between(search_md, "search", search_section())
    with open(benchmarking_md) as f:
        text = f.read()
    with open(benchmarking_md, "w") as f:
        f.write(replace_between(text, "ladder", ladder_section()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m spyenvs.experiments.leaderboard", description=__doc__.split("\n")[0])
    ap.add_argument("envs", nargs="*", help="env ids for the round-robin leaderboard")
    ap.add_argument("--ship", metavar="RUN_DIR", action="append", help="ship and measure a run's final policy")
    ap.add_argument("--games", type=int, default=None,
                    help="--ship: games per role (default 200); leaderboard: games per ordered pair (default 40)")
    ap.add_argument("--ismcts", type=int, default=50,
                    help="simulations per move of the leaderboard's plain ismcts:SIMS (uniform playouts)")
    ap.add_argument("--search-games", type=int, default=None,
                    help="leaderboard: games per ordered pair with a search bot in it (default: --games)")
    ap.add_argument("--no-expert", action="store_true", help="leaderboard: leave expert out")
    ap.add_argument("--workers", type=int, default=1,
                    help="leaderboard: matches played at once in worker processes (each pinned to one BLAS thread)")
    ap.add_argument("--reevaluate", action="store_true", help="--ship: measure the file again, not the run's figures")
    ap.add_argument("--remeasure", metavar="ENV", action="append", default=[],
                    help="measure the shipped ENV file again at --games per role (default 400) and rewrite its "
                         "figures (repeatable)")
    ap.add_argument("--ladder", action="store_true",
                    help="also freeze the score card's ladder agents/ladder/ENV.json from the round-robin")
    ap.add_argument("--from-saved", action="store_true",
                    help="--ladder: refit it from docs/leaderboard/ENV.json (every saved one without ENV) "
                         "instead of playing")
    ap.add_argument("--tables", action="store_true",
                    help="regenerate the docs/results/policies.md, docs/results/search.md and docs/benchmarking.md "
                         "tables and docs/img's learning curves")
    ap.add_argument("--backfill-heuristic", metavar="ENV", action="append", default=[],
                    help="add the heuristic's own scores (same seats, opponents and games as the shipped "
                         "evaluation) to agents/pretrained/ENV.json (repeatable)")
    args = ap.parse_args(argv)
    pin_blas_threads()
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    bad = [e for e in args.envs if e not in ENV_IDS]
    if bad:
        raise SystemExit(f"spyenvs: error: unknown env id {bad[0]!r}; available: {', '.join(ENV_IDS)}")
    for name in ("games", "search_games"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise SystemExit(f"spyenvs: error: --{name.replace('_', '-')} must be at least 1")
    if args.workers < 1:
        raise SystemExit("spyenvs: error: --workers must be at least 1")
    if args.from_saved and not args.ladder:
        raise SystemExit("spyenvs: error: --from-saved goes with --ladder")
    bad = [e for e in args.backfill_heuristic + args.remeasure if e not in available()]
    if bad:
        raise SystemExit(f"spyenvs: error: no shipped policy for {bad[0]!r}; shipped: {', '.join(available())}")
    for run_dir in args.ship or []:
        rec = ship(run_dir, args.games or 200, progress=say, reevaluate=args.reevaluate)
        say(f"shipped {rec['env_id']} ({rec['file_bytes'] // 1024} KiB)")
    if args.from_saved:
        saved = sorted(f[: -len(".json")] for f in os.listdir(LEADERBOARD) if f.endswith(".json"))
        for env_id in args.envs or saved:
            say(f"wrote {write_ladder(ladder_from_saved(env_id))}")
    for env_id in [] if args.from_saved else args.envs:
        say(f"{env_id}: leaderboard ...")
        res = leaderboard(env_id, args.games or 40, args.ismcts, progress=True,
                          search_games=args.search_games, workers=args.workers, expert=not args.no_expert)
        say(f"{env_id}: {res['seconds']} s at load {res['load']}")
        if args.ladder:
            source = (f"played by leaderboard {env_id} --ladder: a round-robin of {', '.join(res['population'])}, "
                      f"{res['games_per_match']} games per ordered pair, also saved as docs/leaderboard/{env_id}.json")
            say(f"wrote {write_ladder(ladder_from_round_robin(res, source))}")
    for env_id in args.backfill_heuristic:
        rec = backfill_heuristic(env_id, progress=say)
        say(f"{env_id}: " + "; ".join(f"heuristic {k} vs {o} {v['rate']:.1%}" for o, ks in rec["heuristic_vs"].items()
                                      for k, v in ks.items()))
    for env_id in args.remeasure:
        rec = remeasure(env_id, args.games or 400, progress=say)
        say(f"{env_id}: " + "; ".join(f"pretrained {k} vs {o} {v['rate']:.1%} (heuristic's own "
                                      f"{rec['heuristic_vs'][o][k]['rate']:.1%})"
                                      for o, ks in rec["vs"].items() for k, v in ks.items()) + f", load {rec['load']}")
    if args.tables:
        write_tables()
    if not (args.ship or args.envs or args.tables or args.from_saved or args.backfill_heuristic or args.remeasure):
        ap.print_usage(sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "leaderboard"))
