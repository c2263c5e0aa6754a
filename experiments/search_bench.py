"""``spyenvs bench --search``: simulations per second of ISMCTS, per game and search
configuration, on one core (BLAS pinned to one thread).

Each game's default config is played by its heuristic from several seeds to positions
spread over the game (every ``--stride``-th decision with more than one legal move,
from the first); each configuration searches every position with a fixed number of
simulations and no time limit, from the seat to move. The figure is simulations over
the wall time of all those searches (the determinizations, clones, tree walks,
playouts and evaluations: everything a move costs). Repeats run the whole set again
and the median is reported.

    python -m spyenvs.experiments.search_bench [--env ENV] [--spec SPEC ...] [--repeats K]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from spyenvs.agents import HeuristicPolicy
from spyenvs.agents.ismcts import parse_spec
from spyenvs.core.progress import progress_bar
from spyenvs.core.stats import median
from spyenvs.experiments.evaluate import load_average, pin_blas_threads
from spyenvs.registry import ENV_IDS, make_game
from spyenvs.tools.arguments import run_reporting_errors

#: what the benchmark reports by default: the classic search, the cut-off search with
#: random and heuristic playouts, and the expert's configuration at a fixed budget
DEFAULT_SPECS = (
    "ismcts:100",
    "ismcts:300:random:cut=10:value=heuristic",
    "ismcts:300:random:cut=10:value=heuristic:dets=32",
    "ismcts:300:heuristic:cut=10:value=heuristic:dets=32",
    "expert",
)
#: the goal of the issue that built the guided search: with cut-offs, at least this many
#: simulations a second on one core in every game
GOAL = 1000


def positions(env_id: str, count: int, stride: int, seed: int = 0) -> list:
    """``count`` positions of heuristic play, every ``stride``-th real decision, over as
    many games as it takes."""
    out = []
    game = make_game(env_id)
    g_seed = seed
    while len(out) < count:
        game.reset(g_seed)
        bound = [HeuristicPolicy(g_seed).bind(game, s) for s in range(game.num_players)]
        real = 0
        while not game.is_over and len(out) < count:
            seat = game.current_player
            mask = game.legal_mask()
            if np.count_nonzero(mask) > 1:
                if real % stride == 0:
                    out.append(game.clone())
                real += 1
            game.step(bound[seat].act(game.observe(seat), mask))
        g_seed += 1
    return out


def measure(spec: str, states: list, simulations: int | None, seed: int = 0) -> float:
    """Simulations per second of ``spec`` over ``states`` (no time limit)."""
    search = parse_spec(spec, seed)
    search.time_limit = None
    if simulations is not None:
        search.simulations = simulations
    sims = 0
    elapsed = 0.0
    for state in states:
        bound = search.bind(state, state.current_player)
        t0 = time.perf_counter()
        bound.search(state)
        elapsed += time.perf_counter() - t0
        sims += bound.last_iterations
    return sims / elapsed


def run(envs, specs, count: int, stride: int, repeats: int, simulations: int | None, progress=None) -> list[dict]:
    rows = []
    total = len(envs) * len(specs) * repeats
    with progress_bar(total, "searches", enabled=progress is not None) as bar:
        for env_id in envs:
            states = positions(env_id, count, stride)
            for spec in specs:
                rates = []
                for r in range(repeats):
                    rates.append(measure(spec, states, simulations, seed=r))
                    bar.update()
                rows.append({"env_id": env_id, "spec": spec, "sims_per_s": median(rates),
                             "min": min(rates), "max": max(rates), "positions": len(states)})
    return rows


def format_rows(rows: list[dict], load: str) -> str:
    lines = [f"ISMCTS simulations/s on one core (median of repeats; load average {load})",
             f"| env | search | sims/s | min | max | positions | >= {GOAL:,} |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['env_id']} | `{r['spec']}` | {r['sims_per_s']:,.0f} | {r['min']:,.0f} | "
                     f"{r['max']:,.0f} | {r['positions']} | {'yes' if r['sims_per_s'] >= GOAL else 'no'} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="spyenvs bench --search", description=__doc__.split("\n")[0])
    ap.add_argument("--env", action="append", choices=ENV_IDS, help="env id (repeatable; default all)")
    ap.add_argument("--spec", action="append", help=f"search spec (repeatable; default: {', '.join(DEFAULT_SPECS)})")
    ap.add_argument("--positions", type=int, default=12, help="positions per game (default 12)")
    ap.add_argument("--stride", type=int, default=7, help="real decisions between positions (default 7)")
    ap.add_argument("--simulations", type=int, default=None,
                    help="simulations per search, overriding each spec's (default: the spec's own)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--save", metavar="JSON", default=None,
                    help="also write the figures there (docs/search/bench.json feeds docs/results/search.md)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    for name in ("positions", "stride", "repeats"):
        if getattr(args, name) < 1:
            raise SystemExit(f"spyenvs: error: --{name} must be at least 1")
    if args.simulations is not None and args.simulations < 1:
        raise SystemExit("spyenvs: error: --simulations must be at least 1")
    specs = args.spec or list(DEFAULT_SPECS)
    for spec in specs:
        parse_spec(spec)  # a bad spec fails here, in one line, before any work
    pin_blas_threads()
    rows = run(args.env or list(ENV_IDS), specs, args.positions, args.stride, args.repeats, args.simulations,
               progress=None if args.quiet else True)
    load = load_average()
    print(format_rows(rows, load))
    if args.save:
        os.makedirs(os.path.dirname(os.path.abspath(args.save)), exist_ok=True)
        with open(args.save, "w") as f:
            json.dump({"rows": rows, "load": load, "repeats": args.repeats, "goal": GOAL,
                       "date": time.strftime("%Y-%m-%d", time.gmtime())}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "bench --search"))
