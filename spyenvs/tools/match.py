"""`spyenvs match`: a quick random-vs-random match on one env, printed as a readable
summary (win share per seat with Wilson 95% intervals, game length)."""

from __future__ import annotations

import random

import numpy as np

from ..core.stats import wilson_interval
from ..registry import make_game


def play_random_match(env_id: str, games: int, seed: int = 0, config=None, progress=None):
    """Play ``games`` random-vs-random games on the bare game; returns a summary dict."""
    if games < 1:
        raise ValueError(f"games must be a positive integer, got {games}")
    config = config or {}
    probe = make_game(env_id, **config)
    roles = probe.roles
    score = {r: 0.0 for r in roles}
    lengths = []
    pick = random.Random(seed)
    for g in range(games):
        game = make_game(env_id, **config)
        game.reset(seed + g)
        n = 0
        while not game.is_over:
            legal = np.flatnonzero(game.legal_mask())
            game.step(int(legal[pick.randrange(len(legal))]))
            n += 1
        lengths.append(n)
        for role, r in zip(roles, game.outcome()):
            score[role] += 1.0 if r > 0 else (0.5 if r == 0 else 0.0)
        if progress:
            progress(g + 1)
    return {"env_id": env_id, "config": probe.config, "games": games, "roles": list(roles),
            "score": score, "lengths": lengths}


def format_summary(summary) -> str:
    n = summary["games"]
    lines = [
        f"{summary['env_id']} — {n} games, random vs random",
        "config: " + ", ".join(f"{k}={v}" for k, v in summary["config"].items()),
        f"{'role':12s} {'win share':>10s}   95% interval",
    ]
    for role in summary["roles"]:
        w = summary["score"][role]
        lo, hi = wilson_interval(w, n)
        lines.append(f"{role:12s} {w / n:10.1%}   [{lo:.1%}, {hi:.1%}]")
    lens = summary["lengths"]
    lines.append(f"decisions per game: mean {np.mean(lens):.0f}, min {min(lens)}, max {max(lens)}")
    return "\n".join(lines)
