"""How much of the search's gain as the Unrest Rebel comes from foreseeing the heuristic
Empire's reply to her PLAY (docs/results.md, "The Unrest Rebel against expert iteration").

The Rebel plays the heuristic, except at PLAY where, with ``--dets`` above 0, she looks
one round ahead: for each legal play, on ``--dets`` determinizations of what she knows
(``resample_hidden``: never the true deck order), the heuristic Empire's two tokens and
then her heuristic's own assignments, scored by the game's state evaluation; she plays
the best (the heuristic's move where it ties). ``--dets 0`` is the heuristic itself on the
same games. The Empire is the heuristic. Games are seeded 10,000,000 + i, the Rebel in
seat 0; a scratch probe of a teacher, not a policy (it needs the live game).

    python scripts/unrest_reply_probe.py --games 400 --dets 4 --workers 2
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from spyenvs.agents.arena import score
from spyenvs.agents.evaluations import state_value_for
from spyenvs.agents.registry import make_policy
from spyenvs.core.stats import wilson_interval
from spyenvs.experiments.evaluate import load_average, map_jobs, pct, pin_blas_threads
from spyenvs.registry import make_game
from spyenvs.tools.arguments import run_reporting_errors

REBEL, EMPIRE = 0, 1


def reply_value(game, play: int, dets: int, model, value, rng) -> float:
    """The Rebel's mean state value after ``play``, the heuristic Empire's reply and her
    heuristic's assignments, over ``dets`` determinizations of her information."""
    total = 0.0
    for _ in range(dets):
        d = game.resample_hidden(REBEL, rng)
        d.step(int(play))
        bound = {}
        while not d.is_over and (d.current_player == EMPIRE or d.decision_name() == "assign_card"):
            p = d.current_player
            if p not in bound:
                bound[p] = model.bind(d, p)
            d.step(int(bound[p].act(d.observe(p), d.legal_mask())))
        total += d.outcome()[REBEL] if d.is_over else value(d)[REBEL]
    return total / dets


def play(job: tuple) -> tuple[float, int, int]:
    """One game: the Rebel's score, the plays the look-ahead changed, the PLAY decisions."""
    i, dets = job
    pin_blas_threads()
    g = make_game("unrest_v0")
    heuristic = make_policy("heuristic", seed=i, env_id="unrest_v0")
    model = make_policy("heuristic", seed=10_000 + i, env_id="unrest_v0")  # her model of the Empire
    value = state_value_for(g)
    rng = np.random.default_rng(i)
    g.reset(10_000_000 + i)
    rebel, empire = heuristic.bind(g, REBEL), heuristic.bind(g, EMPIRE)
    changed = plays = 0
    while not g.is_over:
        p, mask = g.current_player, g.legal_mask()
        obs = g.observe(p)
        a = int((empire if p == EMPIRE else rebel).act(obs, mask))
        if p == REBEL and dets > 0 and g.decision_name() == "play_cards" and mask.sum() > 1:
            legal = np.flatnonzero(mask)
            values = np.array([reply_value(g, b, dets, model, value, rng) for b in legal])
            best = legal[values >= values.max() - 1e-9]
            plays += 1
            if a not in best:
                a, changed = int(best[0]), changed + 1
        g.step(a)
    return score(g.outcome()[REBEL]), changed, plays


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
    rate = wins / args.games
    who = "the heuristic Rebel" if args.dets == 0 else f"the Rebel with the reply look-ahead ({args.dets} dets)"
    print(f"{who} vs the heuristic Empire: {pct(rate, *wilson_interval(wins, args.games))} (n={args.games}); plays changed {sum(r[1] for r in results)} of "
          f"{sum(r[2] for r in results)}; {time.monotonic() - t0:.0f} s with {args.workers} process(es), "
          f"load {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, prog="unrest_reply_probe"))
