"""`spyenvs bench`: random legal play through the public ``env()`` path (observation
and mask built every step) for each env, interleaved with PettingZoo's
``connect_four_v3`` in the same process; prints steps/s and the ratio to
connect_four, in decisions and in whole games (a padded Specter Ops turn is more
decisions for the same game). Ratios are paired per repeat (env and connect_four timed back to back)
and the median is reported, which is what survives a noisy machine."""

from __future__ import annotations

import importlib.util
import random
import sys
import time
import types
from dataclasses import dataclass

import numpy as np

from ..core.stats import median
from ..registry import ENV_IDS, game_class, make


def _measure(make_env, seconds: float, seed: int) -> tuple[float, float]:
    """(decisions/s, games/s) of random masked play for about ``seconds``. Games/s is
    decisions/s over the mean length of the games finished in the run, so a long game
    cut at the deadline does not count as a fraction."""
    env = make_env()
    pick = random.Random(seed)
    steps = 0
    finished_games = 0
    finished_steps = 0
    episode = 0
    start = time.perf_counter()
    deadline = start + seconds
    out_of_time = False
    while not out_of_time:
        env.reset(seed=seed * 100_003 + episode)
        episode += 1
        game_steps = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[pick.randrange(len(legal))])
                steps += 1
                game_steps += 1
                if steps & 255 == 0 and time.perf_counter() > deadline:
                    out_of_time = True
                    break
            env.step(action)
        else:
            finished_games += 1
            finished_steps += game_steps
            out_of_time = time.perf_counter() > deadline
    rate = steps / (time.perf_counter() - start)
    games = rate / (finished_steps / finished_games) if finished_games else float("nan")
    return rate, games


def connect_four():
    """PettingZoo's connect_four_v3 (render_mode None). Its module imports pygame at
    the top for its renderer only; pygame comes with the dev extra, not the train
    one, so without it a placeholder module stands in while the import runs (we
    never render) and is removed again at once."""
    # late: pettingzoo's classic envs are the dev extra, needed only for this baseline
    if importlib.util.find_spec("pygame") is not None:
        from pettingzoo.classic import connect_four_v3
    else:
        missing = object()
        saved = sys.modules.get("pygame", missing)
        sys.modules["pygame"] = types.ModuleType("pygame")
        try:
            from pettingzoo.classic import connect_four_v3
        finally:
            if saved is missing:
                del sys.modules["pygame"]
            else:
                sys.modules["pygame"] = saved
    return connect_four_v3.env()


@dataclass
class BenchRow:
    env_id: str
    config: dict
    steps_per_s: float
    baseline_steps_per_s: float
    ratio: float
    games_per_s: float = float("nan")
    baseline_games_per_s: float = float("nan")
    games_ratio: float = float("nan")


def bench_configs(env_ids=None, players=None):
    """(env_id, config) pairs: each env at each player count of its test configs."""
    out = []
    for env_id in env_ids or ENV_IDS:
        cls = game_class(env_id)
        counts = sorted({c.get("num_players") for c in cls.TEST_CONFIGS if "num_players" in c})
        if "num_players" not in cls.CONFIG:
            out.append((env_id, {}))
            continue
        for n in counts or [cls.CONFIG["num_players"].default]:
            if players is None or n in players:
                out.append((env_id, {"num_players": n}))
    return out


def run_bench(env_ids=None, players=None, seconds: float = 1.0, repeats: int = 3, extra=None, progress=None):
    configs = bench_configs(env_ids, players)
    if not configs:
        raise ValueError("no env/player-count matches the bench selection")
    samples = {i: [] for i in range(len(configs))}
    base = {i: [] for i in range(len(configs))}
    for r in range(repeats):
        for i, (env_id, cfg) in enumerate(configs):
            kwargs = dict(cfg, **(extra or {}))
            b = _measure(connect_four, seconds, seed=r)
            s = _measure(lambda e=env_id, k=kwargs: make(e, **k), seconds, seed=r)
            base[i].append(b)
            samples[i].append(s)
            if progress:
                progress(f"repeat {r + 1}/{repeats} {env_id} {cfg}: {s[0]:,.0f} decisions/s vs connect_four {b[0]:,.0f}")
    rows = []
    for i, (env_id, cfg) in enumerate(configs):
        steps = [s for s, _ in samples[i]]
        games = [g for _, g in samples[i]]
        base_steps = [b for b, _ in base[i]]
        base_games = [g for _, g in base[i]]
        rows.append(BenchRow(env_id, cfg, median(steps), median(base_steps),
                             median([s / b for s, b in zip(steps, base_steps)]), median(games), median(base_games),
                             median([g / b for g, b in zip(games, base_games)])))
    return rows


def format_rows(rows) -> str:
    lines = [f"{'env':22s} {'config':18s} {'decisions/s':>12s} {'connect_four':>13s} {'ratio':>7s} "
             f"{'games/s':>9s} {'c4 games/s':>11s} {'ratio':>8s}"]
    for row in rows:
        cfg = ",".join(f"{k}={v}" for k, v in row.config.items()) or "default"
        lines.append(
            f"{row.env_id:22s} {cfg:18s} {row.steps_per_s:12,.0f} {row.baseline_steps_per_s:13,.0f} {row.ratio:6.2f}x "
            f"{row.games_per_s:9,.1f} {row.baseline_games_per_s:11,.1f} {row.games_ratio:7.3f}x"
        )
    return "\n".join(lines)
