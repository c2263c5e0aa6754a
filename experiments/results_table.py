"""Collects the ``results.json`` of training runs into one markdown table (per game
and role: win rate against random and against the heuristic with Wilson 95%
intervals, training steps, wall time and env steps/s during training).

    python -m spyenvs.experiments.results_table runs/the_agents_v0 runs/unrest_v0 ... > docs/results.md
"""

from __future__ import annotations

import json
import os
import sys

from spyenvs.experiments.evaluate import pct


def rows(run_dir: str) -> list[str]:
    with open(os.path.join(run_dir, "results.json")) as f:
        res = json.load(f)
    out = []
    kinds = list(next(iter(res["vs"].values())).keys()) if res["vs"] else []
    seats = res.get("num_players")
    players = res.get("config", {}).get("num_players", seats)
    n = f"{players} ({seats} seats)" if players != seats else f"{players}"
    for kind in kinds:
        cells = []
        for opp in ("random", "heuristic"):
            v = res["vs"].get(opp, {}).get(kind)
            cells.append(f"{pct(v['rate'], v['low'], v['high'])} (n={v['games']})" if v else "n/a")
        out.append(f"| {res['env_id']} | {n} | {kind} | {cells[0]} | {cells[1]} | {res['timesteps']:,} | "
                   f"{res['train_seconds'] / 60:.1f} min | {res['steps_per_second']} |")
    return out


HEADER = ["| env | players | role | vs random [95% CI] | vs heuristic [95% CI] | training steps | "
          "training wall time | env steps/s |", "|---|---|---|---|---|---|---|---|"]


def main(argv=None) -> int:
    dirs = (argv if argv is not None else sys.argv[1:])
    if not dirs:
        print(__doc__, file=sys.stderr)
        return 2
    lines = list(HEADER)
    for d in dirs:
        lines += rows(d)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
