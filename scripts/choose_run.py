"""Which of two training runs of one table should ship: each run's figures on the
trainer's final-evaluation games (the same seeds in every run of a table), held against
the bar, and the run whose worst role and opponent comes closer to it (or clears it by
more) wins. The chosen file is then measured on the ship range, which chose nothing
(``leaderboard --ship``, or ``--remeasure`` where the ship reused the final games).

    python scripts/choose_run.py runs/the_agents_v0-3p runs/the_agents_v0-3p-long
    python scripts/choose_run.py docs/seeds/specter_ops_v0-seed1-agentopen.json runs/specter_ops_v0-2p-long --flagship

Prints each run's gaps to the bar in points; exits 0 when the second run should ship,
1 when the first should stay. The bar is issue 42's (the heuristic's own score + 5
points, half the way to 100% above 90%; its own - 1 point against random), or with
``--flagship`` issue 41's for Specter Ops at 2 and 4 players (+ 10, half the way above 80%).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from spyenvs.experiments.leaderboard import BEAT_HEURISTIC_BY, HALF_WAY_ABOVE, bar_gap
from spyenvs.experiments.search_strength import FLAGSHIP_BEAT_BY, FLAGSHIP_HALF_WAY_ABOVE
from spyenvs.tools.arguments import run_reporting_errors


def read_run(path: str) -> dict:
    """A run folder's results.json (or the file itself: a saved docs/seeds record)."""
    file = os.path.join(path, "results.json") if os.path.isdir(path) else path
    if not os.path.isfile(file):
        raise FileNotFoundError(f"{file}: not a finished run of spyenvs train (it writes results.json)")
    with open(file) as f:
        try:
            run = json.load(f)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{file}: not a spyenvs train results.json (not JSON: {exc})") from None
    if not isinstance(run, dict) or not isinstance(run.get("vs"), dict):
        raise ValueError(f"{file}: not a spyenvs train results.json (no win rates under 'vs')")
    return run


def gaps(run: dict, by: float = BEAT_HEURISTIC_BY, half_way_above: float = HALF_WAY_ABOVE) -> dict[str, float]:
    """Points above (+) or below (-) the bar, per role kind and opponent."""
    if not run.get("heuristic_vs"):
        raise ValueError("the run has no heuristic scores beside its own (an evaluation without the heuristic)")
    out = {}
    try:
        for opp in ("heuristic", "random"):
            for kind, v in run["vs"][opp].items():
                own = run["heuristic_vs"][opp][kind]["rate"]
                out[f"{kind} vs {opp}"] = round(100 * bar_gap(v["rate"], own, opp, by, half_way_above), 1)
    except (KeyError, TypeError, AttributeError):
        raise ValueError("not a spyenvs train results.json: it lacks a win rate against random or the heuristic, "
                         "its own or the heuristic's, for some role") from None
    return out


def same_games(a: dict, b: dict) -> bool:
    """Both runs' final evaluations played the same games (seeds and count)."""
    keys = ("seed", "games", "opponent_seeds")
    ea, eb = a.get("evaluation") or {}, b.get("evaluation") or {}
    return all(ea.get(k) == eb.get(k) for k in keys) and a.get("config") == b.get("config")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/choose_run.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("current", help="the run whose file ships now (folder or results.json)")
    ap.add_argument("candidate", help="the new run (folder or results.json)")
    ap.add_argument("--flagship", action="store_true",
                    help="issue 41's bar (+10 points, half the way above 80%%) instead of issue 42's (+5, above 90%%)")
    args = ap.parse_args(argv)
    current, candidate = read_run(args.current), read_run(args.candidate)
    if not same_games(current, candidate):
        raise ValueError("the two runs' final evaluations played different games or tables: no fair choice")
    bar = (FLAGSHIP_BEAT_BY, FLAGSHIP_HALF_WAY_ABOVE) if args.flagship else (BEAT_HEURISTIC_BY, HALF_WAY_ABOVE)
    worst = {}
    for name, run in (("current", current), ("candidate", candidate)):
        g = gaps(run, *bar)
        worst[name] = min(g.values())
        print(f"{name} {getattr(args, name)}: worst {worst[name]:+.1f} pts; " + ", ".join(f"{k} {v:+.1f}" for k, v in g.items()))
    ships = worst["candidate"] > worst["current"]
    print(f"ships: {'candidate' if ships else 'current'}")
    return 0 if ships else 1


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "choose_run"))
