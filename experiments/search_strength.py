"""How strong the search is, measured as the learning results are: each candidate
(``expert`` by default) plays every role of each game's default config against the
heuristic, seats rotated, a team role in every seat of its team, Wilson 95%
intervals; beside it, in the same run, on the same seeds, the heuristic's and the
pretrained policy's own scores against the heuristic in the same roles.

Results go to ``docs/search/strength.json`` (``--out``); ``leaderboard --tables`` turns
them, with ``bench --search``'s saved figures, into docs/results/search.md.

    python -m spyenvs.experiments.search_strength [--env ENV] [--games 100] [--workers 2] [--chunks 4] [--players N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from spyenvs.agents.pretrained import available, table_name
from spyenvs.agents.registry import make_policy
from spyenvs.core.progress import progress_bar
from spyenvs.core.stats import wilson_interval
from spyenvs.experiments.evaluate import (beat_bar, evaluate_vs, games_for, load_average, map_jobs, pct, pin_blas_threads,
                                          seat_groups)
from spyenvs.registry import ENV_IDS, make_game
from spyenvs.tools.arguments import run_reporting_errors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "search")
#: the margin over the heuristic's and the pretrained policy's own scores that the
#: search issue set as the goal, in points
MARGIN = 0.05
#: Specter Ops' flagship bar (issue 41): the heuristic's own score + 10 points, or half
#: the way from it to 100% where its own is above 80%
FLAGSHIP_BEAT_BY = 0.10
FLAGSHIP_HALF_WAY_ABOVE = 0.80


def _job(job: tuple) -> tuple[str, str, dict]:
    env_id, candidate, first, count, seed, config = job
    pin_blas_threads()
    res = evaluate_vs(env_id, config, make_policy(candidate, seed=seed), make_policy("heuristic", seed=seed + 1), count,
                      seed + first)
    return env_id, candidate, res


def chunk_bounds(total: int, sides: int, chunks: int) -> list[tuple[int, int]]:
    """``total`` games cut into at most ``chunks`` runs of whole rotations (``sides``
    games each), as (first game, games): game ``first + j`` of a chunk played from
    seed ``seed + first`` is game ``first + j`` of the whole match, same seats, same seed."""
    rotations = total // sides
    chunks = max(1, min(chunks, rotations))
    cuts = [rotations * c // chunks * sides for c in range(chunks + 1)]
    return [(a, b - a) for a, b in zip(cuts, cuts[1:])]


def merge_results(parts: list[dict]) -> dict:
    """One :func:`evaluate_vs` result from its chunks' (scores, games, seconds and
    decisions summed; intervals recomputed)."""
    out = dict(parts[0])
    kinds: dict = {}
    for part in parts:
        for k, v in part["kinds"].items():
            total = kinds.setdefault(k, [0.0, 0])
            total[0] += v["score"]
            total[1] += v["games"]
    out["kinds"] = {}
    for k, (score, games) in kinds.items():
        low, high = wilson_interval(score, games)
        out["kinds"][k] = {"score": score, "games": games, "rate": score / games, "low": low, "high": high}
    for key in ("games", "seconds", "decisions"):
        out[key] = sum(p[key] for p in parts)
    return out


def measure(envs, candidates, games: int, seed: int = 2026, workers: int = 1, progress: bool = False,
            players: int | None = None, chunks: int = 1) -> dict:
    """``{env_id: {candidate: evaluate_vs result}}`` against the heuristic, with the
    heuristic and (where shipped for the table) the pretrained policy as references;
    ``players``: at that player count instead of each game's default. ``chunks``
    cuts each match into that many runs of whole seat rotations (:func:`chunk_bounds`),
    so that ``workers`` share one slow candidate's games; every name is cut alike, so
    the references still play the candidate's games. Each chunk makes its policies
    afresh from the seed."""
    jobs = []
    for env_id in envs:
        config = {} if players is None else {"num_players": players}
        probe = make_game(env_id, **config)
        total = games_for(probe, games)
        bounds = chunk_bounds(total, len(seat_groups(probe)), chunks)
        names = list(candidates) + ["heuristic"] + (["pretrained"] if table_name(env_id, config) in available() else [])
        jobs += [(env_id, name, first, count, seed, config) for name in names for first, count in bounds]
    parts: dict = {e: {} for e in envs}
    t0 = time.monotonic()
    with progress_bar(len(jobs), "strength matches", enabled=progress) as bar:
        for env_id, name, res in map_jobs(_job, jobs, workers):
            parts[env_id].setdefault(name, []).append(res)
            bar.update()
    out = {e: {name: merge_results(rs) for name, rs in by_name.items()} for e, by_name in parts.items()}
    return {"games_per_role": games, "seed": seed, "workers": workers, "chunks": chunks, "players": players,
            "seconds": round(time.monotonic() - t0, 1), "load": load_average(),
            "date": time.strftime("%Y-%m-%d", time.gmtime()), "results": out}


def strength_table(record: dict) -> str:
    """Per game and role: each candidate's score against the heuristic beside the
    heuristic's and the pretrained policy's, and whether it clears both by the margin."""
    lines = ["| env | role | candidate vs heuristic [95% CI] | heuristic vs heuristic | pretrained vs heuristic | "
             "goal (+5 points over both) | met | s per game |", "|---|---|---|---|---|---|---|---|"]
    for env_id, by_name in record["results"].items():
        refs = {k: by_name.get(k) for k in ("heuristic", "pretrained")}
        for name, res in by_name.items():
            if name in refs:
                continue
            for kind, v in res["kinds"].items():
                ref = [r["kinds"][kind]["rate"] for r in refs.values() if r and kind in r["kinds"]]
                goal = max(ref) + MARGIN if ref else None
                cells = [f"{pct(r['kinds'][kind]['rate'], r['kinds'][kind]['low'], r['kinds'][kind]['high'])}"
                         if r and kind in r["kinds"] else "n/a" for r in refs.values()]
                met = "n/a" if goal is None else ("yes" if v["rate"] >= goal else
                                                  f"no ({(goal - v['rate']) * 100:.1f} points short)")
                lines.append(f"| {env_id} | {kind} | `{name}` {pct(v['rate'], v['low'], v['high'])} (n={v['games']}) | "
                             + " | ".join(cells) + f" | {'n/a' if goal is None else f'>= {goal:.1%}'} | {met} | "
                             f"{res['seconds'] / max(res['games'], 1):.1f} |")
    return "\n".join(lines)


def flagship_table(record: dict) -> str:
    """Per table and role: each candidate's score against the heuristic beside the
    heuristic's own (and the pretrained policy's) on the same games, against the
    flagship bar (:data:`FLAGSHIP_BEAT_BY`, half the way above
    :data:`FLAGSHIP_HALF_WAY_ABOVE`), with seconds per game."""
    lines = ["| env | players | role | candidate vs heuristic [95% CI] | heuristic's own | pretrained's own | bar | "
             "met | s per game |", "|---|---|---|---|---|---|---|---|---|"]
    for env_id, by_name in record["results"].items():
        refs = [by_name.get(k) for k in ("heuristic", "pretrained")]
        for name, res in by_name.items():
            if name in ("heuristic", "pretrained"):
                continue
            for kind, v in res["kinds"].items():
                cells = [pct(r["kinds"][kind]["rate"], r["kinds"][kind]["low"], r["kinds"][kind]["high"])
                         if r and kind in r["kinds"] else "n/a" for r in refs]
                own = refs[0]["kinds"][kind]["rate"] if refs[0] and kind in refs[0]["kinds"] else None
                bar = None if own is None else beat_bar(own, FLAGSHIP_BEAT_BY, FLAGSHIP_HALF_WAY_ABOVE)
                met = "n/a" if bar is None else ("yes" if v["rate"] >= bar - 1e-9 else
                                                 f"no ({(bar - v['rate']) * 100:.1f} points short)")
                players = res.get("config", {}).get("num_players", res["num_players"])  # the table's count, not its seats
                lines.append(f"| {env_id} | {players} | {kind} | `{name}` "
                             f"{pct(v['rate'], v['low'], v['high'])} (n={v['games']}) | " + " | ".join(cells)
                             + f" | {'n/a' if bar is None else f'>= {bar:.1%}'} | {met} | "
                             f"{res['seconds'] / max(res['games'], 1):.1f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m spyenvs.experiments.search_strength", description=__doc__.split("\n")[0])
    ap.add_argument("--env", action="append", choices=ENV_IDS, help="env id (repeatable; default all)")
    ap.add_argument("--candidate", action="append", help="policy spec to measure (repeatable; default expert)")
    ap.add_argument("--games", type=int, default=100, help="games per role (default 100)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=1, help="matches played at once in worker processes")
    ap.add_argument("--players", type=int, help="player count (default: each game's default config)")
    ap.add_argument("--chunks", type=int, default=1,
                    help="cut each match into this many runs of whole seat rotations, to share one slow "
                         "candidate's games among --workers (the same games, seats and seeds)")
    ap.add_argument("--out", default=OUT, help="folder for strength.json (default docs/search)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.chunks < 1:
        raise SystemExit("spyenvs: error: --games, --workers and --chunks must be at least 1")
    candidates = args.candidate or ["expert"]
    for spec in candidates:
        make_policy(spec)  # a bad spec fails here, in one line, before any game
    pin_blas_threads()
    record = measure(args.env or list(ENV_IDS), candidates, args.games, args.seed, args.workers, not args.quiet,
                     args.players, args.chunks)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "strength.json"), "w") as f:
        json.dump(record, f, indent=1)
    print(strength_table(record))
    print(f"\n{record['seconds']} s with {args.workers} process(es), load average {record['load']}")
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "search_strength"))
