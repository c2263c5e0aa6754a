"""Pictures of every registered game for the README, drawn by the games' own
``render_rgb``: ``python -m spyenvs.tools.pictures [OUT_DIR] [--view ROLE]`` writes
``OUT_DIR/<env_id>.png`` (default ``docs/``) of a seeded random game part-way through."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from ..core.png import write_png
from ..registry import replay
from ..registry import ENV_IDS, make_game


def game_picture(env_id: str, seed: int = 0, fraction: float = 0.4, view: str | None = None,
                 config: dict | None = None) -> np.ndarray:
    """``render_rgb`` of a random game (seeded) after ``fraction`` of its decisions,
    from ``view`` (a role; None: omniscient)."""
    game = make_game(env_id, **(config or {}))
    game.reset(seed)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        legal = np.flatnonzero(game.legal_mask())
        game.step(int(legal[rng.integers(legal.size)]))
    rec = game.to_record()
    state = replay(rec, upto=int(len(rec["actions"]) * fraction))
    v = None if view in (None, "omniscient") else state.roles.index(view)
    return state.render_rgb(v)


def write_pictures(out_dir: str | Path = "docs", env_ids=None, seed: int = 0, view: str | None = None) -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for env_id in env_ids or ENV_IDS:
        path = out / f"{env_id}.png"
        write_png(path, game_picture(env_id, seed=seed, view=view))
        paths.append(path)
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m spyenvs.tools.pictures", description=__doc__.split("\n")[0])
    ap.add_argument("out_dir", nargs="?", default="docs")
    ap.add_argument("--env", action="append", choices=ENV_IDS, help="env id (repeatable; default all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--view", default=None, help="role whose view to draw (default omniscient)")
    args = ap.parse_args(argv)
    for path in write_pictures(args.out_dir, args.env, args.seed, args.view):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
