"""The shipped pretrained policies, their measured results, and the tables made from them.

Seven jobs, each one command:

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
* ``--remeasure TABLE``: measure a table's shipped file again as ``--ship`` does, at ``--games``
  per role (default 400, the issue's bar), and rewrite its figures; the file is
  unchanged, so its ladders stay valid.
* ``TABLE [TABLE ...]`` (the leaderboard): a round-robin of ``random``, ``heuristic``,
  ``pretrained``, ``ismcts:SIMS`` and ``expert`` at each table (``ENV``: the game's
  default config; ``ENV-Np``: N players) (``--games`` per ordered pair,
  ``--search-games`` for pairs with a search bot, ``--workers`` processes), with Elo
  anchored at random = 1000 and per-match intervals, written to
  ``docs/leaderboard/<table>.json``. With
  ``--ladder`` it also freezes the score card's ladder, ``agents/ladder/<table>.json``
  (:mod:`spyenvs.agents.ladder`): Elo refitted over the matches among the ladder bots
  (:data:`LADDER_BOTS`) only, random pinned at 1000. ``--ladder --from-saved`` makes
  the ladder from the saved round-robin instead of playing one. This script is the
  only writer of ladder files.
* ``--ship-kind TABLE KIND RUN_DIR``: ship a run's network for one role kind of a
  table, the table's file keeping its network for the others (one file, a network per
  role kind, where each measured better), measured as ``--ship`` measures a file on
  games of its own.
* ``--serve TABLE --players N``: ship a table's file for another player count of its
  game too (one network for several tables), measured at that count as ``--ship``
  measures a file, on games of its own; ``make_policy("pretrained")`` then binds to it.
* ``--tables``: regenerate the shipped policies' table, the leaderboard and the
  learning curves (``docs/img/learning_curve_<env_id>.png``: win rate against the
  heuristic over training per role, the heuristic's own level as a dashed line) in
  ``docs/results/policies.md``, the search figures in ``docs/results/search.md`` and
  the ladder in ``docs/benchmarking.md`` from those saved files (between their
  ``<!-- results: ... -->`` markers), never by hand.

    python -m spyenvs.experiments.leaderboard --ship runs/the_agents_v0
    python -m spyenvs.experiments.leaderboard --backfill-heuristic unrest_v0
    python -m spyenvs.experiments.leaderboard --remeasure unrest_v0 --games 400
    python -m spyenvs.experiments.leaderboard --ship-kind specter_ops_v0 agent runs/specter_ops_v0 --workers 2
    python -m spyenvs.experiments.leaderboard the_agents_v0 unrest_v0 --games 100 --search-games 40 --workers 2
    python -m spyenvs.experiments.leaderboard unrest_v0 --games 200 --ladder
    python -m spyenvs.experiments.leaderboard --ladder --from-saved
    python -m spyenvs.experiments.leaderboard --tables
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time

from spyenvs.agents import make_policy
from spyenvs.agents.ladder import FORMAT as LADDER_FORMAT
from spyenvs.agents.ladder import is_search, pretrained_digest, read_ladder
from spyenvs.agents.pretrained import (available, every_table, find_table, parse_table, player_counts, pretrained_path,
                                       table_name)
from spyenvs.agents.torch_policy import TorchPolicy, compose_per_kind
from spyenvs.experiments.evaluate import (beat_bar, fit_elo, games_for, heuristic_reference, heuristic_seed, load_average,
                                          map_jobs, pct, pin_blas_threads, plot_learning_curve, reference_levels, tournament,
                                          vs_opponents)
from spyenvs.experiments.seed_ranges import FINAL_EVAL, SHIP_EVAL
from spyenvs.core.progress import progress_bar
from spyenvs.registry import game_info, make_game
from spyenvs.tools.arguments import run_reporting_errors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRETRAINED = os.path.join(ROOT, "agents", "pretrained")
LEADERBOARD = os.path.join(ROOT, "docs", "leaderboard")
LADDER = os.path.join(ROOT, "agents", "ladder")
EXPLOIT = os.path.join(ROOT, "docs", "exploit")
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



#: issue 22's bar: beat the heuristic's own score against the heuristic by this much...
BEAT_HEURISTIC_BY = 0.05
#: ...and stay within this much of its own score against random
NEAR_HEURISTIC_VS_RANDOM = 0.01


#: where the heuristic's own score is above this, the bar is half the way from it to 100% instead
HALF_WAY_ABOVE = 0.90


def heuristic_bar(own: float) -> float:
    """The score to reach against the heuristic, given the heuristic's own in the same
    seats: its own + :data:`BEAT_HEURISTIC_BY`, or half the way to 100% where its own is
    above :data:`HALF_WAY_ABOVE` (issue 42's bar)."""
    return beat_bar(own, BEAT_HEURISTIC_BY, HALF_WAY_ABOVE)


def bar_gap(rate: float, own: float, opponent: str, by: float = BEAT_HEURISTIC_BY,
            half_way_above: float = HALF_WAY_ABOVE) -> float:
    """How far a win rate is over (+) or under (-) the bar against ``opponent``, given
    the heuristic's own rate there: :func:`~spyenvs.experiments.evaluate.beat_bar`
    against the heuristic, its own - 1 point against random. Rounded so that an exact
    tie on the bar is not a miss by float error."""
    bar = beat_bar(own, by, half_way_above) if opponent == "heuristic" else own - NEAR_HEURISTIC_VS_RANDOM
    return round(rate - bar, 9)


def beats_heuristic(vs: dict, heuristic_vs: dict | None, kind: str) -> str:
    """Whether a role meets the bar set against the heuristic's own scores in the
    same seats and games (at least :func:`heuristic_bar` against the heuristic, and
    its own score vs random - 1 point), and by how many points it misses where it does
    not; "-" without them."""
    gaps = []
    for opp in ("heuristic", "random"):
        v = vs.get(opp, {}).get(kind)
        h = (heuristic_vs or {}).get(opp, {}).get(kind)
        if v is None or h is None:
            return "-"
        gap = bar_gap(v["rate"], h["rate"], opp)
        if gap < 0:
            gaps.append(f"{gap * 100:+.1f} pts vs {opp}")
    return "yes" if not gaps else "no (" + ", ".join(gaps) + ")"


def ship(run_dir: str, games: int, seed: int = SHIP_EVAL.start, progress=None, reevaluate: bool = False,
         workers: int = 1) -> dict:
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
    table = table_name(env_id, run["config"])
    dst = pretrained_path(table)
    shutil.copyfile(src, dst)
    vs = run.get("vs") or {}
    enough = vs and all(v["games"] >= games for opp in ("random", "heuristic") for v in vs.get(opp, {}).values())
    load = run.get("load", "?")
    reference, evaluation = run.get("heuristic_vs"), run.get("evaluation")
    if reevaluate or not enough:
        vs, reference, evaluation, load = measure_file(env_id, run["config"], dst, games, seed, progress, workers)
    record = {"table": table, "env_id": env_id, "config": run["config"], "num_players": run["num_players"], "vs": vs,
              "games_per_role": games, "load": load, "file_bytes": os.path.getsize(dst)}
    for key, value in (("heuristic_vs", reference), ("evaluation", evaluation)):
        if value:
            record[key] = value
    record.update(made_by_run(run, run_dir))
    write_record(record)
    return record


#: what a shipped record keeps of the run that trained its network (:func:`made_by_run`)
PROVENANCE = ("training", "selection", "options", "history")


def made_by_run(run: dict, run_dir: str) -> dict:
    """What a shipped record keeps of the training run ``run_dir`` (its ``results.json``
    is ``run``): its training figures, and where the run has them, its choice among its
    last snapshots, its options and its evaluation history (the learning curve)."""
    made = {"training": {k: run.get(k) for k in ("timesteps", "train_seconds", "eval_seconds", "steps_per_second",
                                                 "warm_start", "env_stats")}}
    for key, value in (("selection", run.get("selection")), ("options", run.get("options")),
                       ("history", read_history(run_dir))):
        if value:
            made[key] = value
    return made


def measure_file(env_id: str, config: dict, path: str, games: int, seed: int = SHIP_EVAL.start,
                 progress=None, workers: int = 1) -> tuple[dict, dict, dict, str]:
    """A policy file and, in its seats on the same games, the heuristic, each against
    random and the heuristic, ``games`` games per role from ``seed`` (seats rotated,
    team roles as a team). Returns (its results, the heuristic's, the plan, the load).
    ``workers=2`` measures the file and the heuristic in two processes at once, with
    the same figures as one (each keeps its own random streams)."""
    n = games_for(make_game(env_id, **config), games)
    opponents = {"random": seed, "heuristic": seed + 1}
    if progress:
        progress(f"{env_id}: pretrained and heuristic vs random and heuristic, {n} games each")
    jobs = [(env_id, config, path, n, seed, opponents), (env_id, config, None, n, seed, opponents)]
    vs, reference = map_jobs(_measure_job, jobs, min(int(workers), 2))
    evaluation = {"seed": seed, "games": n, "opponent_seeds": opponents, "max_decisions": SHIP_MAX_DECISIONS,
                  "deterministic": True, "heuristic_seed": heuristic_seed(opponents)}
    return vs, reference, evaluation, load_average()


def _measure_job(job: tuple) -> dict:
    """One side of :func:`measure_file`: the file at ``path`` (None: the heuristic's own
    reference) against each opponent."""
    env_id, config, path, n, seed, opponents = job
    pin_blas_threads()
    if path is None:
        return heuristic_reference(env_id, config, n, seed, SHIP_MAX_DECISIONS, opponents)
    return vs_opponents(env_id, config, TorchPolicy.load(path), n, seed, SHIP_MAX_DECISIONS, opponents)


def remeasure(table: str, games: int, folder: str | None = None, progress=None, workers: int = 1) -> dict:
    """Measure a table's shipped file (``env_id`` or ``env_id-Np``) again at ``games``
    games per role (:func:`measure_file`, the ship's seeds) and put the figures in its
    record; the file, its training record and every ladder that rated it stay as they
    are (the file is unchanged)."""
    record = read_record(table, folder)
    vs, reference, evaluation, load = measure_file(record["env_id"], record["config"], pretrained_path(table),
                                                   games, progress=progress, workers=workers)
    record.update(vs=vs, heuristic_vs=reference, evaluation=evaluation, games_per_role=games, load=load)
    write_record(record, folder)
    return record


#: where a served player count's games start in the ship range: past the games on which
#: serving it was decided (a first look at the file there plays from the range's start)
SERVE_OFFSET = 100_000


def serve(table: str, players: int, games: int, folder: str | None = None, progress=None, workers: int = 1) -> dict:
    """Ship a table's file for another player count of its game, measured there as
    ``--ship`` measures a file (:func:`measure_file`, ``games`` per role, the heuristic's
    own scores beside it), on ship-range games of that count's own, from
    ``SHIP_EVAL.start + SERVE_OFFSET * players``; written to the record's ``serves``,
    which ``make_policy("pretrained")`` then binds to (:func:`~spyenvs.agents.pretrained.find_table`)."""
    record = read_record(table, folder)
    env_id = record["env_id"]
    config = {**record["config"], "num_players": int(players)}
    own = table_name(env_id, config)
    if os.path.isfile(os.path.join(folder or PRETRAINED, f"{own}.npz")):
        raise ValueError(f"{own} ships a file of its own: serve a table that has none")
    seed = SHIP_EVAL.start + SERVE_OFFSET * int(players)
    vs, reference, evaluation, load = measure_file(env_id, config, os.path.join(folder or PRETRAINED, f"{table}.npz"),
                                                   games, seed, progress, workers)
    record.setdefault("serves", {})[str(int(players))] = {
        "config": make_game(env_id, **config).config, "vs": vs, "heuristic_vs": reference, "evaluation": evaluation,
        "games_per_role": games, "load": load, "date": time.strftime("%Y-%m-%d", time.gmtime())}
    write_record(record, folder)
    return record


#: where a role kind's new network is measured in the ship range: past the games of the
#: served counts' (:data:`SERVE_OFFSET` per player count), and past every ship-range game
#: that chose which network plays the kind (those start at the range's start)
KIND_OFFSET = 700_000


def ship_kind(table: str, kind: str, run_dir: str, games: int, folder: str | None = None, progress=None,
              workers: int = 1) -> dict:
    """Ship ``run_dir``'s final network for one role kind of a table, the table's file
    keeping its network for every other kind (one file, a network per kind:
    :func:`~spyenvs.agents.torch_policy.compose_per_kind`), and measure the new file as
    ``--ship`` measures one (:func:`measure_file`, ``games`` per role, the heuristic's own
    beside it) on ship-range games from ``SHIP_EVAL.start + KIND_OFFSET``, games that
    chose nothing. The record keeps its training figures (the run that made the other
    kinds) and gains ``kinds_from[kind]``: the run, its training, choice of snapshot,
    options and learning curve."""
    folder = folder or PRETRAINED
    record = read_record(table, folder)
    if record.get("serves"):
        raise ValueError(f"{table}'s file also serves {', '.join(record['serves'])} players: measure the new file "
                         "there too (--serve) after shipping a role kind")
    with open(os.path.join(run_dir, "results.json")) as f:
        run = json.load(f)
    if table_name(run["env_id"], run["config"]) != table:
        raise ValueError(f"{run_dir} trained {table_name(run['env_id'], run['config'])}, not {table}")
    dst = os.path.join(folder, f"{table}.npz")
    with tempfile.TemporaryDirectory() as scratch:  # the package's file changes only once measured
        tmp = os.path.join(scratch, f"{table}.npz")
        compose_per_kind(dst, {kind: os.path.join(run_dir, "final.npz")}, tmp)
        vs, reference, evaluation, load = measure_file(record["env_id"], record["config"], tmp, games,
                                                       SHIP_EVAL.start + KIND_OFFSET, progress, workers)
        shutil.copyfile(tmp, dst)
    record.update(vs=vs, heuristic_vs=reference, evaluation=evaluation, games_per_role=games, load=load,
                  file_bytes=os.path.getsize(dst))
    record.setdefault("kinds_from", {})[kind] = {
        "run": os.path.relpath(os.path.abspath(run_dir), ROOT), "date": time.strftime("%Y-%m-%d", time.gmtime()),
        **made_by_run(run, run_dir)}
    write_record(record, folder)
    return record


def read_history(run_dir: str) -> list[dict] | None:
    """A run's periodic evaluations (``history.json``), the points of its learning curve."""
    path = os.path.join(run_dir, "history.json")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def read_record(table: str, folder: str | None = None) -> dict:
    """A table's shipped record ``agents/pretrained/<table>.json`` (or ``folder``'s)."""
    with open(os.path.join(folder or PRETRAINED, f"{table}.json")) as f:
        return json.load(f)


def record_table(record: dict) -> str:
    """The table a record belongs to (older records name no table: their game's default)."""
    return record.get("table") or table_name(record["env_id"], record["config"])


def write_record(record: dict, folder: str | None = None) -> str:
    path = os.path.join(folder or PRETRAINED, f"{record_table(record)}.json")
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


def backfill_heuristic(table: str, folder: str | None = None, progress=None) -> dict:
    """Add the heuristic's own scores to a shipped record that lacks them: the
    heuristic in the policy's seats, against the same opponents, on the same games
    (:func:`trainer_evaluation_plan`); the plan is written beside them."""
    record = read_record(table, folder)
    env_id = record["env_id"]
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


def leaderboard(table: str, games: int, sims: int, seed: int = 7, progress: bool = False,
                search_games: int | None = None,
                workers: int = 1, expert: bool = True, ismcts: bool = True) -> dict:
    """Round-robin of random, heuristic, pretrained, ismcts:SIMS (uniform playouts) and
    ``expert`` (each search bot unless turned off) at a table (``env_id``: the default
    config; ``env_id-Np``: N players, :func:`~spyenvs.agents.pretrained.parse_table`): ``games`` per ordered pair,
    ``search_games`` (default ``games``) for a pair with a search bot in it; Elo with
    random at 1000. Saved as ``docs/leaderboard/<table>.json``."""
    env_id, config = parse_table(table)
    ships = find_table(env_id, config) is not None
    names = ["random", "heuristic"] + (["pretrained"] if ships else []) + ([f"ismcts:{sims}"] if ismcts else [])
    names += ["expert"] if expert else []
    seeds = {nm: seed + i for i, nm in enumerate(names)}
    population = {nm: make_policy(nm, seed=seeds[nm]) for nm in names}  # checks every name before playing
    per_search = search_games or games
    pair_games = lambda a, b: per_search if is_search(a) or is_search(b) else games  # noqa: E731
    total = sum(pair_games(a, b) for a in names for b in names if a != b)
    t0 = time.monotonic()
    with progress_bar(total, f"{table} leaderboard games", enabled=progress) as bar:
        res = tournament(env_id, config, population, games, seed, progress=bar.update, workers=workers,
                         policy_seeds=seeds, pair_games=pair_games)
    res["table"] = table
    res["search_games_per_match"] = per_search
    if "pretrained" in names:  # the file that played, for the ladder made from these games
        res["pretrained_sha256"] = pretrained_digest(env_id, config)
    res["seconds"] = round(time.monotonic() - t0, 1)
    res["workers"] = workers
    res["load"] = load_average()
    os.makedirs(LEADERBOARD, exist_ok=True)
    with open(os.path.join(LEADERBOARD, f"{table}.json"), "w") as f:
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
              "table": res.get("table", res["env_id"]),
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
    """Write ``ladder`` as ``<table>.json``: ``<env_id>.json`` for the game's default
    config, ``<env_id>-<N>p.json`` at another player count (a score card finds a
    ladder by its config)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{ladder.get('table') or ladder['env_id']}.json")
    with open(path, "w") as f:
        json.dump(ladder, f, indent=1)
        f.write("\n")
    read_ladder(path)  # what the score card will read back
    return path


def ladder_from_saved(table: str) -> dict:
    """The ladder refitted from the saved round-robin ``docs/leaderboard/<table>.json``,
    without playing a game."""
    path = os.path.join(LEADERBOARD, f"{table}.json")
    with open(path) as f:
        res = json.load(f)
    source = (f"refitted from the saved round-robin docs/leaderboard/{table}.json "
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
            lines.append(f"| {lad.get('table', lad['env_id'])} | {lad['ladder_version']} | {bot} | {lad['ratings'][bot]:.0f} "
                         f"| {lad['games_per_pair']} | {lad['date']} |")
    return "\n".join(lines)


# ------------------------------------------------------------------- tables
def shipped_records(folder: str | None = None) -> list[dict]:
    """The shipped records (``agents/pretrained/*.json``), by game, then player count."""
    folder = folder or PRETRAINED
    records = []
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                records.append(json.load(f))
    return sorted(records, key=lambda r: (r["env_id"], r["config"].get("num_players", r["num_players"])))


def _steps_cell(rec: dict) -> str:
    """Training steps, and the snapshot that ships when selection chose an earlier one."""
    steps = f"{rec['training'].get('timesteps') or 0:,}"
    sel = rec.get("selection")
    if sel and sel.get("chosen") != "final":
        steps += f" (ships the snapshot at {sel['chosen_timesteps']:,})"
    return steps


def _players_cell(rec: dict) -> str:
    """The player counts a record's file plays: its own, and those it cannot tell from it."""
    env_id = rec["env_id"]
    game = make_game(env_id, **rec["config"])
    count = game.config.get("num_players")
    if count is None:  # a game of one player count
        return f"{rec['num_players']}p"
    also = [n for n in player_counts(env_id) if n != count
            and make_game(env_id, **{**rec["config"], "num_players": n}).policy_config() == game.policy_config()]
    return f"{count}p" + "".join(f", {n}p" for n in also)


def probe_cell(table: str, exploit_folder: str = EXPLOIT) -> str:
    """A table's exploitability probe of its pretrained policy
    (``docs/exploit/<table>-pretrained.json``): per role, how many points the best
    response wins more than the heuristic does against the policy, and the budget."""
    path = os.path.join(exploit_folder, f"{table}-pretrained.json")
    if not os.path.isfile(path):
        return "none yet"
    with open(path) as f:
        res = json.load(f)
    gaps = []
    for kind, r in res["kinds"].items():
        heuristic = r.get("references", {}).get("heuristic")
        gap = f"{(r['final']['rate'] - heuristic['rate']) * 100:+.1f}" if heuristic else "?"
        gaps.append(f"{kind} {gap}")
    return ", ".join(gaps) + f" ({res['budget']['minutes_per_kind']:g} min)"


def coverage_table(folder: str | None = None, exploit_folder: str = EXPLOIT, ladder_folder: str = LADDER) -> str:
    """Every table (game and player count) at a glance: which shipped file plays it
    (trained there, or trained at another count and measured there), whether each
    role meets the bar (:func:`beats_heuristic`; from ``agents/pretrained/*.json``),
    whether the score card's ladder has it (``agents/ladder/<table>.json``) and what
    the exploitability probe found (:func:`probe_cell`)."""
    lines = ["| env | players | pretrained file | trained at | " + "meets the bar, per role | games per role "
             "| score card ladder | best response over the heuristic, points per role (budget) |",
             "|---|---|---|---|---|---|---|---|"]
    records = shipped_records(folder)
    for table in every_table():
        env_id, config = parse_table(table)
        players = make_game(env_id, **config).config.get("num_players", 2)
        kinds = list(game_info(env_id).learning_goals)
        found = None
        for rec in records:
            if record_table(rec) == table:
                found = (rec, rec["vs"], rec.get("heuristic_vs"))
            served = rec.get("serves", {}).get(str(players))
            if served and rec["env_id"] == env_id:
                found = (rec, served["vs"], served.get("heuristic_vs"))
        counts = _players_cell(found[0]) if found and record_table(found[0]) == table else f"{players}p"
        if found is None:
            lines.append(f"| {env_id} | {counts} | none yet | | | | | |")
            continue
        rec, vs, reference = found
        games = min((v["games"] for kinds_vs in vs.values() for v in kinds_vs.values()), default=0)
        trained = rec["config"].get("num_players", rec["num_players"])
        bars = "; ".join(f"{kind}: {beats_heuristic(vs, reference, kind)}" for kind in kinds)
        ladder = "yes" if os.path.isfile(os.path.join(ladder_folder, f"{table}.json")) else "none yet"
        lines.append(f"| {env_id} | {counts} | `{record_table(rec)}.npz` | {trained}p | {bars} | {games} "
                     f"| {ladder} | {probe_cell(table, exploit_folder)} |")
    return "\n".join(lines)


def made_by(rec: dict, kind: str) -> dict:
    """The record of the run that made a role kind's network: the shipped record's own,
    or where that kind was shipped from another run (:func:`ship_kind`), that run's
    training, options and choice of snapshot."""
    source = rec.get("kinds_from", {}).get(kind)
    if source is None:
        return rec
    made = {k: v for k, v in rec.items() if k not in PROVENANCE}
    return {**made, **{k: source[k] for k in PROVENANCE if k in source}}


def played_history(rec: dict) -> list[dict]:
    """A record's learning curve, each role kind's points from the run whose network
    plays it (:func:`made_by`)."""
    rows = []
    kinds_from = rec.get("kinds_from", {})
    for row in rec.get("history") or []:
        vs = {opp: {k: v for k, v in ks.items() if k not in kinds_from} for opp, ks in row["vs"].items()}
        rows.append({**row, "vs": vs})
    for kind, source in kinds_from.items():
        for row in source.get("history") or []:
            rows.append({**row, "vs": {opp: {k: v for k, v in ks.items() if k == kind} for opp, ks in row["vs"].items()}})
    return rows


def _figure_cells(vs: dict, heuristic_vs: dict | None, kind: str) -> list[str]:
    """A role's figures vs random and vs the heuristic, each beside the heuristic's own,
    and whether it meets the bar."""
    cells = []
    for opp in ("random", "heuristic"):
        v = vs.get(opp, {}).get(kind)
        h = (heuristic_vs or {}).get(opp, {}).get(kind)
        cells += [f"{pct(v['rate'], v['low'], v['high'])} (n={v['games']})" if v else "n/a",
                  pct(h["rate"], h["low"], h["high"]) if h else "-"]
    return cells + [beats_heuristic(vs, heuristic_vs, kind)]


def _unshipped_tables(records: list[dict]) -> list[str]:
    """The tables (:func:`~spyenvs.agents.pretrained.every_table`) no record serves."""
    shipped = {record_table(r) for r in records}
    shipped |= {table_name(r["env_id"], served["config"]) for r in records for served in r.get("serves", {}).values()}
    return [t for t in every_table() if t not in shipped]


def results_table(folder: str | None = None) -> str:
    """One row per table (game and player count) and role: the shipped policy vs random
    and vs the heuristic, each beside the heuristic's own score in the same seats,
    against the same opponents, on the same games ("-" where the record has none), and
    whether it meets the bar (:func:`beats_heuristic`), with the file, the recipe that
    made it, its training and the load it was measured at; from ``agents/pretrained/*.json``.
    Tables that ship no policy yet come first, one row per role, saying so."""
    lines = ["| env | players | role | vs random [95% CI] | heuristic's own | vs heuristic [95% CI] "
             "| heuristic's own | meets the bar | file | recipe | training steps | training time | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    records = shipped_records(folder)
    rows = []  # (env id, player count, role order, the row)
    for table in _unshipped_tables(records):
        env_id, config = parse_table(table)
        players = make_game(env_id, **config).config.get("num_players", 2)
        for i, kind in enumerate(game_info(env_id).learning_goals):
            rows.append((env_id, players, i, f"| {env_id} | {players}p | {kind} | no policy shipped yet "
                                             "| | | | | | | | | |"))
    for rec in records:
        env_id = rec["env_id"]
        players = make_game(env_id, **rec["config"]).config.get("num_players", rec["num_players"])
        made = {kind: _made_cells(rec, kind) for kind in game_info(env_id).learning_goals}
        for i, kind in enumerate(game_info(env_id).learning_goals):
            cells = _figure_cells(rec["vs"], rec.get("heuristic_vs"), kind)
            rows.append((env_id, players, i, f"| {env_id} | {_players_cell(rec)} | {kind} | " + " | ".join(cells)
                         + f" | `{record_table(rec)}.npz` | {made[kind]} | {rec.get('load', '?')} |"))
        for count, served in rec.get("serves", {}).items():  # its file at another player count, measured there
            for i, kind in enumerate(game_info(env_id).learning_goals):
                rows.append((env_id, int(count), i, f"| {env_id} | {count}p | {kind} | "
                             + " | ".join(_figure_cells(served["vs"], served.get("heuristic_vs"), kind))
                             + f" | `{record_table(rec)}.npz` (trained at {players}p) | {made[kind]} "
                             f"| {served.get('load', '?')} |"))
    lines += [row for *_, row in sorted(rows, key=lambda r: r[:3])]
    return "\n".join(lines)


def _made_cells(rec: dict, kind: str) -> str:
    """The recipe, training steps and training time cells of the run that made a role
    kind's network (:func:`made_by`); a kind shipped from a run of its own names it."""
    made = made_by(rec, kind)
    tr = made["training"]
    minutes = f"{(tr['train_seconds'] or 0) / 60:.1f} min" if tr.get("train_seconds") else "n/a"
    source = rec.get("kinds_from", {}).get(kind)
    own = f" (this role's network from `{source['run']}`)" if source else ""
    return f"{recipe_cell(made)}{own} | {_steps_cell(made)} | {minutes}"


def recipe_cell(rec: dict) -> str:
    """Which config made a shipped policy: the game's default config file, or another of
    its config files (:func:`game_config_files`), when the run's options (recorded by the
    trainer since 2026-12-03) are exactly it, else the default and the options that
    differ (teacher's games kept from another run are named after it); older records did
    not keep them. An option a record lacks (added to the trainer later) counts at its
    built-in default."""
    options = rec.get("options")
    if not options:
        return "not recorded"
    from spyenvs.experiments.config import default_config_path

    path = default_config_path(rec["env_id"])
    # the teacher's games kept from an earlier run (warm_start.demos): where they came
    # from, not what the recipe is
    kept = dotted_options(options).get("warm_start.demos", "")
    suffix = f", its teacher's games kept from `{kept}`" if kept else ""
    for other in game_config_files(path):  # a longer documented config it ran exactly
        if not options_against(rec["env_id"], options, other):
            return f"`{os.path.relpath(other, ROOT)}`{suffix}"
    name = os.path.relpath(path, ROOT) if path else "defaults"
    extra = options_against(rec["env_id"], options, path)
    if not extra:
        return f"`{name}`{suffix}"
    return f"`{name}` with " + ", ".join(f"`{k}={json.dumps(v)}`" for k, v in sorted(extra.items())) + suffix


def options_against(env_id: str, options: dict, config_path: str | None) -> dict:
    """The options of a run (its recorded nested config) that differ from the config
    file at ``config_path`` as it is now, dotted, the teacher's kept games
    (``warm_start.demos``) left out. An option the record lacks (added to the trainer
    after the run) counts at its built-in default: a new option defaults to the old way."""
    from spyenvs.experiments.config import TrainConfig, load, to_dict

    ran = {k: v for k, v in dotted_options(to_dict(TrainConfig())).items() if k.split(".")[0] not in options}
    ran.update(dotted_options(options))
    ran.pop("warm_start.demos", None)
    made = dotted_options(to_dict(load(TrainConfig, config_path, env_id)))
    return {k: v for k, v in ran.items() if made.get(k) != v}


def game_config_files(default: str | None) -> list[str]:
    """The game's other PPO config files beside its default (``configs/<game>_*.yaml``,
    e.g. a longer documented config), sorted."""
    if not default:
        return []
    stem = os.path.splitext(os.path.basename(default))[0]
    folder = os.path.dirname(default)
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if f.startswith(stem + "_") and f.endswith(".yaml"))


def dotted_options(options: dict, prefix: str = "") -> dict:
    """A nested config as one level of dotted keys (``net.prior_weight``)."""
    out = {}
    for key, value in options.items():
        if isinstance(value, dict):
            out.update(dotted_options(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def curve_levels(rec: dict) -> dict[tuple[str, str], float]:
    """The heuristic's own level against the heuristic, per role, for the curve."""
    return {key: rate for key, rate in reference_levels(rec.get("heuristic_vs")).items() if key[0] == "heuristic"}


def write_curves(folder: str | None = None, img: str = CURVES) -> dict[str, str]:
    """Per shipped record with a training history: ``img/learning_curve_<table>.png``,
    the win rate against the heuristic over training per role, with the heuristic's
    own level as a dashed line where the record has it. Returns table -> path."""
    written = {}
    for rec in shipped_records(folder):
        if not rec.get("history"):
            continue
        table = record_table(rec)
        path = os.path.join(img, f"learning_curve_{table}.png")
        plot_learning_curve(played_history(rec), path,
                            f"{table}: the shipped run{'s' if rec.get('kinds_from') else ''} against the heuristic",
                            opponents=("heuristic",), levels=curve_levels(rec))
        written[table] = path
    return written


def curves_section(written: dict[str, str], records: list[dict], page_dir: str) -> str:
    """docs/results.md's pictures: one per shipped record with a history, a line for the others."""
    out = []
    for rec in records:
        table = record_table(rec)
        if table in written:
            rel = os.path.relpath(written[table], page_dir).replace(os.sep, "/")
            line = "" if curve_levels(rec) else " (no heuristic level recorded: no line)"
            out.append(f"**{table}**{line}\n\n![{table} learning curve]({rel})\n")
        else:
            out.append(f"**{table}**: no training history in the shipped file (shipped before `--ship` kept it)\n")
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
        out.append(f"### {res.get('table', res['env_id'])} ({pairs}, {res.get('seconds', '?')} s with {res.get('workers', 1)} "
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
    from spyenvs.experiments.search_strength import flagship_table, strength_table

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
    for path in sorted(glob.glob(os.path.join(SEARCH, "flagship-*.json"))):
        with open(path) as f:
            rec = json.load(f)
        names = [n for n in next(iter(rec["results"].values())) if n not in ("heuristic", "pretrained")]
        command = (f"python -m spyenvs.experiments.search_strength --env {' --env '.join(rec['results'])} "
                   + (f"--players {rec['players']} " if rec.get("players") else "")
                   + f"--games {rec['games_per_role']} --workers {rec['workers']} "
                   f"--chunks {rec.get('chunks', 1)} " + " ".join(f"--candidate '{n}'" for n in names))
        out += [f"Against the flagship bar (`{command}`, saved as `docs/search/{os.path.basename(path)}`, "
                f"{rec['date']}, {rec['seconds']} s, load average {rec['load']}):\n", flagship_table(rec), ""]
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
                 folder: str | None = None, img: str = CURVES,
                 tables_md: str = os.path.join(ROOT, "docs", "tables.md")) -> None:
    """Every generated table and picture, from the saved files (``folder``: the
    shipped records, default agents/pretrained): the shipped policies' table, curves
    and leaderboard into ``policies_md``, the search figures into ``search_md``, the
    ladder into ``benchmarking_md``, every table's coverage into ``tables_md``."""
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
    rewrite_between(tables_md, "tables", coverage_table(folder))
    with open(benchmarking_md) as f:
        text = f.read()
    with open(benchmarking_md, "w") as f:
        f.write(replace_between(text, "ladder", ladder_section()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m spyenvs.experiments.leaderboard", description=__doc__.split("\n")[0])
    ap.add_argument("envs", nargs="*", metavar="TABLE",
                    help="tables for the round-robin leaderboard: ENV (default config) or ENV-Np (N players)")
    ap.add_argument("--ship", metavar="RUN_DIR", action="append", help="ship and measure a run's final policy")
    ap.add_argument("--games", type=int, default=None,
                    help="--ship: games per role (default 200); leaderboard: games per ordered pair (default 40)")
    ap.add_argument("--ismcts", type=int, default=50,
                    help="simulations per move of the leaderboard's plain ismcts:SIMS (uniform playouts)")
    ap.add_argument("--search-games", type=int, default=None,
                    help="leaderboard: games per ordered pair with a search bot in it (default: --games)")
    ap.add_argument("--no-expert", action="store_true", help="leaderboard: leave expert out")
    ap.add_argument("--no-ismcts", action="store_true",
                    help="leaderboard: leave the plain ismcts:SIMS out (the score card's ladder does not rate it: "
                         "with --ladder, only the games the ladder reads are played)")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes at once, each pinned to one BLAS thread: the leaderboard's matches; --ship's and "
                         "--remeasure's policy and heuristic (2 at most; the same figures as 1)")
    ap.add_argument("--reevaluate", action="store_true", help="--ship: measure the file again, not the run's figures")
    ap.add_argument("--ship-kind", nargs=3, metavar=("TABLE", "KIND", "RUN_DIR"), action="append", default=[],
                    help="ship RUN_DIR's final network for one role kind of TABLE (ENV or ENV-Np), the table's file "
                         "keeping its network for the other kinds, measured on games of its own at --games per role "
                         "(default 400)")
    ap.add_argument("--remeasure", metavar="TABLE", action="append", default=[],
                    help="measure a table's shipped file (ENV or ENV-Np) again at --games per role (default 400) "
                         "and rewrite its figures (repeatable)")
    ap.add_argument("--ladder", action="store_true",
                    help="also freeze the score card's ladder agents/ladder/ENV.json from the round-robin")
    ap.add_argument("--from-saved", action="store_true",
                    help="--ladder: refit it from docs/leaderboard/ENV.json (every saved one without ENV) "
                         "instead of playing")
    ap.add_argument("--serve", metavar="TABLE", default=None,
                    help="ship TABLE's file for another player count too (--players N), measured there at --games "
                         "per role (default 400)")
    ap.add_argument("--players", type=int, action="append", default=[], help="--serve: the player count (repeatable)")
    ap.add_argument("--tables", action="store_true",
                    help="regenerate the docs/results/policies.md, docs/results/search.md and docs/benchmarking.md "
                         "tables and docs/img's learning curves")
    ap.add_argument("--backfill-heuristic", metavar="TABLE", action="append", default=[],
                    help="add the heuristic's own scores (same seats, opponents and games as the shipped "
                         "evaluation) to agents/pretrained/TABLE.json (ENV or ENV-Np; repeatable)")
    args = ap.parse_args(argv)
    pin_blas_threads()
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    for table in args.envs:
        parse_table(table)  # an unknown env id or player count: one line naming what is allowed
    for name in ("games", "search_games"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise SystemExit(f"spyenvs: error: --{name.replace('_', '-')} must be at least 1")
    if args.workers < 1:
        raise SystemExit("spyenvs: error: --workers must be at least 1")
    if args.from_saved and not args.ladder:
        raise SystemExit("spyenvs: error: --from-saved goes with --ladder")
    named = args.backfill_heuristic + args.remeasure + [table for table, _, _ in args.ship_kind]
    bad = [e for e in named if e not in available()]
    if bad:
        raise SystemExit(f"spyenvs: error: no shipped policy for {bad[0]!r}; shipped: {', '.join(available())}")
    for table, kind, run_dir in args.ship_kind:
        kinds = list(game_info(parse_table(table)[0]).learning_goals)
        if kind not in kinds:
            raise SystemExit(f"spyenvs: error: {table} has no role kind {kind!r}; its kinds: {', '.join(kinds)}")
        if not os.path.isfile(os.path.join(run_dir, "results.json")):
            raise SystemExit(f"spyenvs: error: {run_dir}: no results.json (a finished run of spyenvs train)")
        rec = ship_kind(table, kind, run_dir, args.games or 400, progress=say, workers=args.workers)
        say(f"{table}: the {kind} from {run_dir}: " + "; ".join(
            f"{k} vs {o} {v['rate']:.1%} (heuristic's own {rec['heuristic_vs'][o][k]['rate']:.1%})"
            for o, ks in rec["vs"].items() for k, v in ks.items()) + f", load {rec['load']}")
    for run_dir in args.ship or []:
        rec = ship(run_dir, args.games or 200, progress=say, reevaluate=args.reevaluate, workers=args.workers)
        say(f"shipped {record_table(rec)} ({rec['file_bytes'] // 1024} KiB)")
    if args.from_saved:
        saved = sorted(f[: -len(".json")] for f in os.listdir(LEADERBOARD) if f.endswith(".json"))
        for table in args.envs or saved:
            say(f"wrote {write_ladder(ladder_from_saved(table))}")
    for table in [] if args.from_saved else args.envs:
        say(f"{table}: leaderboard ...")
        res = leaderboard(table, args.games or 40, args.ismcts, progress=True,
                          search_games=args.search_games, workers=args.workers, expert=not args.no_expert,
                          ismcts=not args.no_ismcts)
        say(f"{table}: {res['seconds']} s at load {res['load']}")
        if args.ladder:
            source = (f"played by leaderboard {table} --ladder: a round-robin of {', '.join(res['population'])}, "
                      f"{res['games_per_match']} games per ordered pair, also saved as docs/leaderboard/{table}.json")
            say(f"wrote {write_ladder(ladder_from_round_robin(res, source))}")
    for env_id in args.backfill_heuristic:
        rec = backfill_heuristic(env_id, progress=say)
        say(f"{env_id}: " + "; ".join(f"heuristic {k} vs {o} {v['rate']:.1%}" for o, ks in rec["heuristic_vs"].items()
                                      for k, v in ks.items()))
    for env_id in args.remeasure:
        rec = remeasure(env_id, args.games or 400, progress=say, workers=args.workers)
        say(f"{env_id}: " + "; ".join(f"pretrained {k} vs {o} {v['rate']:.1%} (heuristic's own "
                                      f"{rec['heuristic_vs'][o][k]['rate']:.1%})"
                                      for o, ks in rec["vs"].items() for k, v in ks.items()) + f", load {rec['load']}")
    if args.serve:
        if not args.players:
            raise SystemExit("spyenvs: error: --serve needs --players N")
        for players in args.players:
            rec = serve(args.serve, players, args.games or 400, progress=say, workers=args.workers)
            served = rec["serves"][str(players)]
            say(f"{args.serve} at {players} players: " + "; ".join(
                f"{k} vs {o} {v['rate']:.1%} (heuristic's own {served['heuristic_vs'][o][k]['rate']:.1%})"
                for o, ks in served["vs"].items() for k, v in ks.items()) + f", load {served['load']}")
    if args.tables:
        write_tables()
    if not (args.ship or args.ship_kind or args.envs or args.tables or args.from_saved or args.backfill_heuristic
            or args.remeasure or args.serve):
        ap.print_usage(sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "leaderboard"))
