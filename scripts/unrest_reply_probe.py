"""How much of the search's gain as the Unrest Rebel comes from foreseeing the heuristic
Empire's reply to her PLAY (docs/design_notes.md, "The Unrest Rebel against expert iteration").

The Rebel is ``lookahead:play_cards:through=assign_card:dets=D``
(:mod:`spyenvs.agents.lookahead`): the heuristic, except at PLAY, where for each legal
play, on D determinizations of what she knows (never the true deck order), the heuristic
Empire's two tokens and then her heuristic's own assignments are played out and scored
by the game's state evaluation. ``--dets 0`` is the heuristic itself on the same games.
The Empire is the heuristic. Games are seeded 10,000,000 + i, the Rebel in seat 0.

    python scripts/unrest_reply_probe.py --games 400 --dets 4 --workers 2
"""

from __future__ import annotations

import argparse
import sys
import time

from spyenvs.agents.arena import score
from spyenvs.agents.registry import make_policy
from spyenvs.core.stats import wilson_interval
from spyenvs.experiments.evaluate import load_average, map_jobs, pct, pin_blas_threads
from spyenvs.registry import make_game
from spyenvs.tools.arguments import run_reporting_errors

REBEL, EMPIRE = 0, 1


def rebel_spec(dets: int) -> str:
    return "heuristic" if dets == 0 else f"lookahead:play_cards:through=assign_card:dets={dets}"


def play(job: tuple) -> tuple[float, int, int]:
    """One game: the Rebel's score, the plays the look-ahead changed, the plays it weighed."""
    i, dets = job
    pin_blas_threads()
    g = make_game("unrest_v0")
    g.reset(10_000_000 + i)
    rebel = make_policy(rebel_spec(dets), seed=i, env_id="unrest_v0").bind(g, REBEL)
    empire = make_policy("heuristic", seed=i, env_id="unrest_v0").bind(g, EMPIRE)
    while not g.is_over:
        p = g.current_player
        g.step(int((empire if p == EMPIRE else rebel).act(g.observe(p), g.legal_mask())))
    return score(g.outcome()[REBEL]), getattr(rebel, "deviations", 0), getattr(rebel, "looked", 0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=400, help="games (default 400)")
    ap.add_argument("--dets", type=int, default=4, help="determinizations per play; 0: the heuristic alone")
    ap.add_argument("--workers", type=int, default=1, help="processes")
    args = ap.parse_args(argv)
    if args.games < 1 or args.dets < 0 or args.workers < 1:
        raise ValueError("--games and --workers must be at least 1, --dets at least 0")
    t0 = time.monotonic()
    results = list(map_jobs(play, [(i, args.dets) for i in range(args.games)], args.workers))
    wins = sum(r[0] for r in results)
    print(f"{rebel_spec(args.dets)} as the Rebel vs the heuristic Empire: "
          f"{pct(wins / args.games, *wilson_interval(wins, args.games))} (n={args.games}); plays changed "
          f"{sum(r[1] for r in results)} of {sum(r[2] for r in results)}; {time.monotonic() - t0:.0f} s with "
          f"{args.workers} process(es), load {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, prog="unrest_reply_probe"))
