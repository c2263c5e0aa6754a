"""Per-decision time of the Unrest heuristic (issue 11), and a profile.

Records the decisions of some ``unrest_v0`` games (both roles, heuristic moves with
random detours, every test config or the default one), then replays them through
fresh heuristic instances: per-call CPU time overall and per decision kind, cold
(memos emptied before each pass, as a new process would start). With
``--reference FILE`` it times another implementation of the same ``make`` too (the
pre-rewrite one is ``tests/agents/_unrest_heuristic_reference.py``) and checks the
two decide alike; ``--profile`` prints cProfile's top functions.

    python -m scripts.unrest_heuristic_speed --games 40 \\
        --reference tests/agents/_unrest_heuristic_reference.py --profile

Run it from the repository root. A profiling one-off, not part of the wheel.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import pstats
import time
from collections import defaultdict

import numpy as np

import spyenvs
from spyenvs.agents.heuristics import unrest as current
from spyenvs.agents.heuristics import unrest_boards as boards
from spyenvs.games.unrest.game import UnrestGame


def record(games: int, configs, seed: int = 0, detour: float = 0.25):
    """(config index, seat, decision name, obs, mask) of every decision in ``games``
    games per config, moves chosen by the current heuristic or, with chance
    ``detour``, at random."""
    out = []
    rng = np.random.default_rng(seed)
    for ci, config in enumerate(configs):
        g = spyenvs.make_game("unrest_v0", **config)
        players = [current.make(g.layout, g.config, role, np.random.default_rng(s)) for s, role in enumerate(g.roles)]
        for k in range(games):
            g.reset(seed=seed + 1000 * ci + k)
            while not g.is_over:
                p = g.current_player
                obs, mask = g.observe(p), g.legal_mask()
                out.append((ci, p, g.decision_name(), obs.copy(), mask.copy()))
                a = players[p].act(obs, mask)
                legal = np.flatnonzero(mask)
                g.step(int(legal[rng.integers(legal.size)]) if rng.random() < detour else int(a))
    return out


def replay(module, states, configs, warmup=()):
    """Fresh players of ``module`` per (config, seat), first run untimed over the
    ``warmup`` states (memos filled as in a long run); their actions on ``states``
    and per-kind times."""
    players = {}
    boards._TABLES.clear()  # the Rebel's progress tables are the process's: start them cold too
    for ci, config in enumerate(configs):
        g = spyenvs.make_game("unrest_v0", **config)
        for s, role in enumerate(g.roles):
            players[ci, s] = module.make(g.layout, g.config, role, np.random.default_rng(s))
    for ci, p, _name, obs, mask in warmup:
        players[ci, p].act(obs, mask)
    actions = []
    times = defaultdict(float)
    counts = defaultdict(int)
    clock = time.process_time  # CPU time: less distorted by other load than wall time
    for ci, p, name, obs, mask in states:
        t0 = clock()
        a = players[ci, p].act(obs, mask)
        dt = clock() - t0
        actions.append(int(a))
        times[name] += dt
        counts[name] += 1
    return actions, times, counts


def replay_batched(module, states, configs, batch: int) -> float:
    """Seconds per decision through ``act_batch``, ``batch`` states of one (config,
    seat) at a time, as the vec env groups one bound policy's pending decisions
    (timing only: the rng draws come in another order than ``replay``'s)."""
    groups = defaultdict(list)
    for ci, p, _name, obs, mask in states:
        groups[ci, p].append((obs, mask))
    total = 0.0
    for (ci, p), items in groups.items():
        g = spyenvs.make_game("unrest_v0", **configs[ci])
        player = module.make(g.layout, g.config, g.roles[p], np.random.default_rng(p))
        for i in range(0, len(items), batch):
            obs = np.stack([o for o, _ in items[i : i + batch]])
            masks = np.stack([m for _, m in items[i : i + batch]])
            t0 = time.process_time()
            player.act_batch(obs, masks)
            total += time.process_time() - t0
    return total / len(states)


def _load(path: str):
    spec = importlib.util.spec_from_file_location("unrest_heuristic_other", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _report(label, times, counts):
    total, n = sum(times.values()), sum(counts.values())
    print(f"{label}: {1e6 * total / n:8.1f} us/decision over {n} decisions")
    for name in sorted(counts):
        print(f"    {name:18s} {counts[name]:6d}  {1e6 * times[name] / counts[name]:8.1f} us")
    return total / n


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40, help="games per config")
    ap.add_argument("--all-configs", action="store_true", help="every test config, not only the default")
    ap.add_argument("--warmup", type=int, default=0,
                    help="games per config (other seeds) to play untimed first: a long run's warm memos")
    ap.add_argument("--repeats", type=int, default=3, help="timed passes (the fastest is reported)")
    ap.add_argument("--reference", help="a file with another make(layout, config, role, rng) to compare")
    ap.add_argument("--profile", action="store_true", help="cProfile one pass of each implementation")
    ap.add_argument("--batch", type=int, default=0, help="also time act_batch on batches of this size")
    args = ap.parse_args(argv)
    configs = UnrestGame.TEST_CONFIGS if args.all_configs else [{}]
    states = record(args.games, configs)
    warmup = record(args.warmup, configs, seed=10**6) if args.warmup else ()
    impls = [("current", current)] + ([("reference", _load(args.reference))] if args.reference else [])
    best = {}
    for _ in range(args.repeats):  # interleaved, so a change in the other load hits both alike
        for label, module in impls:
            run = replay(module, states, configs, warmup)
            if label not in best or sum(run[1].values()) < sum(best[label][1].values()):
                best[label] = run
    results = {label: run[0] for label, run in best.items()}
    per = {label: _report(label, run[1], run[2]) for label, run in best.items()}
    if args.warmup:
        print(f"(after warming up on {len(warmup)} decisions of {args.warmup} other games per config)")
    if args.reference:
        same = sum(a == b for a, b in zip(results["current"], results["reference"]))
        print(f"identical decisions: {same}/{len(states)}; speed-up {per['reference'] / per['current']:.1f}x")
    if args.batch:
        for label, module in impls:
            fastest = min(replay_batched(module, states, configs, args.batch) for _ in range(args.repeats))
            print(f"{label}: {1e6 * fastest:8.1f} us/decision through act_batch, batches of {args.batch}")
    if args.profile:
        for label, module in impls:
            prof = cProfile.Profile()
            prof.runcall(replay, module, states, configs)
            print(f"--- profile: {label}")
            pstats.Stats(prof).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
