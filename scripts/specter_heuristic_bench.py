"""Per-decision cost of the Specter Ops heuristics (agent and hunters), and a lockstep
check of the fast module against the frozen reference (issue 11: training speed).

Games of ``specter_ops_v0`` with the default config (padded agent turns) at 2 players
and a few at 3-5 players; every seat is a heuristic, except that with ``--random P``
each seat is a random player with probability P per game (more varied states, as in
early self-play). Only real choices (more than one legal action) are timed, in CPU time
of this process (``time.process_time``: the machine is shared, and wall time would count
the other processes' time slices).

    python -m scripts.specter_heuristic_bench [--impl fast|ref] [--games N] [--keep] [--profile]
    python -m scripts.specter_heuristic_bench --check --games 40

``--check`` also times the reference, decision by decision beside the fast one (the
fairest comparison on a loaded machine).

Run it from the repository root (``-m`` puts it on the path): the reference lives in
tests/agents/_specter_ops_reference.py. A profiling one-off, not part of the wheel.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time

import numpy as np

import spyenvs
from spyenvs.agents.heuristics import specter_ops as FAST
from spyenvs.games.specter_ops.data import DECISIONS
from tests.agents import _specter_ops_reference as REF

#: (num_players, share of the games): mostly 2 players, as in the default training run
PLAYERS = ((2, 6), (3, 1), (4, 1), (5, 2))


def game_plan(games: int) -> list[int]:
    """Player counts of ``games`` games, in the PLAYERS shares."""
    cycle = [n for n, share in PLAYERS for _ in range(share)]
    return [cycle[i % len(cycle)] for i in range(games)]


def _seats(module, game, seed):
    """One heuristic per seat, all on one random stream (as HeuristicPolicy.bind shares it)."""
    rng = np.random.default_rng(seed)
    return [module.make(game.layout, game.config, r, rng) for r in game.roles]


def play(module, players: int, seed: int, random_share: float, times: dict, check=None, kept=None) -> int:
    """One game; every real decision of a heuristic seat is timed into ``times[role kind]``.
    ``check``: a second module whose heuristics must take the same decisions (lockstep).
    ``kept``: a dict keeping the policies per player count from game to game (as the
    vectorised self-play env keeps a bound opponent: warm per-policy caches)."""
    game = spyenvs.make_game("specter_ops_v0", num_players=players)
    game.reset(seed)
    pick = np.random.default_rng([seed, 7])
    randoms = [pick.random() < random_share for _ in game.roles]
    other = np.random.default_rng([seed, 8])
    if kept is not None and players in kept:
        pols, twins = kept[players]
    else:
        pols = _seats(module, game, seed)
        twins = None if check is None else _seats(check, game, seed)
        if kept is not None:
            kept[players] = pols, twins
    decisions = 0
    while not game.is_over:
        seat = game.current_player
        obs, mask = game.observe(seat), game.legal_mask()
        if randoms[seat]:
            legal = np.flatnonzero(mask)
            a = int(legal[other.integers(legal.size)])
        else:
            real = np.count_nonzero(mask) > 1
            kind = "agent" if seat == 0 else "hunter"
            name = DECISIONS[int(np.argmax(game.layout.view(obs, "decision")))]
            # with a twin, alternate who goes first (the second finds the observation in cache)
            runs = [(pols, kind)]
            if twins is not None:
                runs.append((twins, f"{kind} ({check.__name__.rsplit('.', 1)[-1]})"))
                if decisions % 2:
                    runs.reverse()
            chosen = {}
            for policies, label in runs:
                o, m = obs.copy(), mask.copy()
                t0 = time.process_time()
                chosen[label] = policies[seat].act(o, m)
                if real:
                    times.setdefault(label, []).append(time.process_time() - t0)
                    times.setdefault(f"{label} {name}", []).append(time.process_time() - t0)
            decisions += real
            a = chosen[kind]
            if len(set(chosen.values())) > 1:
                raise AssertionError(f"{players}p seed {seed} seat {seat} {name}: {chosen}")
        game.step(a)
    return decisions


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--impl", choices=("fast", "ref"), default="fast")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--random", type=float, default=0.25, help="chance per seat and game of a random player")
    ap.add_argument("--profile", action="store_true", help="cProfile the run and print the top functions")
    ap.add_argument("--check", action="store_true", help="lockstep: fast and reference must decide alike")
    ap.add_argument("--keep", action="store_true",
                    help="keep the policies from game to game per player count (warm caches, as in training)")
    args = ap.parse_args(argv)
    module = FAST if args.impl == "fast" else REF
    check = REF if args.check else None
    times: dict[str, list[float]] = {}
    prof = cProfile.Profile() if args.profile else None
    t0 = time.perf_counter()
    if prof:
        prof.enable()
    total = 0
    kept = {} if args.keep else None
    for i, n in enumerate(game_plan(args.games)):
        total += play(module, n, args.seed + i, args.random, times, check, kept)
    if prof:
        prof.disable()
    wall = time.perf_counter() - t0
    print(f"impl={args.impl} games={args.games} keep={args.keep} real decisions={total} wall={wall:.1f}s "
          f"load={os.getloadavg()[0]:.2f}" + (" check=ok" if check else ""))
    for kind, ts in sorted(times.items()):
        if len(ts) < 100:
            continue
        ts = np.array(ts) * 1e3
        print(f"  {kind:6s} n={ts.size:6d} mean={ts.mean():.3f} ms  median={np.median(ts):.3f} ms  "
              f"p95={np.percentile(ts, 95):.3f} ms  total={ts.sum() / 1e3:.2f} s")
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
