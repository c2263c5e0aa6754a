"""The SB3 trainer's opponent league: random, the heuristic, fixed policy files
(``league.fixed``) and the learner's frozen snapshots, each drawn per episode by weight
(:mod:`spyenvs.experiments.train_selfplay`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from spyenvs.agents.checkpoint import CheckpointError
from spyenvs.agents.heuristics import HeuristicPolicy
from spyenvs.agents.policy import RandomPolicy
from spyenvs.agents.torch_policy import TorchPolicy
from spyenvs.experiments.config import LeagueConfig


class SnapshotLeague:
    """The opponents and their weights, and the learner's recent scores against each."""

    def __init__(self, cfg: LeagueConfig, seed: int, has_heuristic: bool, make_game: Callable[[], Any] | None = None):
        """``make_game``: a fresh game of the run, every seat of which each fixed policy
        must play (else a one-line ValueError before the run starts)."""
        self.cfg = cfg
        self.loaded: dict[str, Any] = {}  # snapshot path -> policy, loaded once
        self.vs_scores: dict[str, list[float]] = {}  # opponent name -> recent training scores
        self.random_retired = False
        self.base_pool: list[tuple[Any, float, str]] = [(RandomPolicy(seed), cfg.random_weight, "random")]
        if has_heuristic and cfg.heuristic_weight > 0:
            self.base_pool.append((HeuristicPolicy(seed + 1), cfg.heuristic_weight, "heuristic"))
        game = make_game() if cfg.fixed and make_game is not None else None  # one probe game for every file
        for i, path in enumerate(cfg.fixed):
            # sampled, as the snapshots are, and each with a seed of its own
            policy = TorchPolicy.load(path, deterministic=False, seed=seed + 101 + i)
            name = "fixed:" + os.path.splitext(os.path.basename(path))[0]
            if game is not None:
                try:
                    for seat in range(game.num_players):
                        policy.bind(game, seat)
                except CheckpointError as exc:
                    raise ValueError(f"training option 'league.fixed': {path} does not play this game: {exc}") from None
            self.base_pool.append((policy, cfg.fixed_weight / len(cfg.fixed), name))
        self.snapshots: list[str] = []  # checkpoint paths, oldest first

    def pool(self) -> list[tuple[Any, float, str]]:
        """The opponents and their weights now: random until the learner beats it
        (``league.retire_random_at``), the heuristic, and the snapshots, sharing
        ``snapshot_weight`` by how often the learner still loses to each
        (``league.prioritise``: weight ~ (1 - score)^2 + 0.05)."""
        entries = [e for e in self.base_pool if not (e[2] == "random" and self.random_retired)]
        if self.snapshots:
            names = [os.path.splitext(os.path.basename(p))[0] for p in self.snapshots]
            if self.cfg.prioritise:
                raw = [(1.0 - self.recent_score(nm, default=0.5)) ** 2 + 0.05 for nm in names]
            else:
                raw = [1.0] * len(names)
            total = sum(raw)
            for path, nm, r in zip(self.snapshots, names, raw):
                policy = self.loaded.get(path)
                if policy is None:
                    # frozen opponents sample from their policy: a deterministic
                    # snapshot would be too easy to exploit
                    policy = self.loaded[path] = TorchPolicy.load(path, deterministic=False, seed=len(self.loaded) + 7)
                entries.append((policy, self.cfg.snapshot_weight * r / total, nm))
        return [e for e in entries if e[1] > 0]  # a weight of 0 leaves its opponent out

    def recent_score(self, name: str, default: float | None = None) -> float | None:
        scores = self.vs_scores.get(name)
        return float(np.mean(scores)) if scores else default

    def record_episode(self, opponent: str, score_: float) -> None:
        scores = self.vs_scores.setdefault(opponent, [])
        scores.append(score_)
        if len(scores) > 400:
            del scores[:-200]

    def update(self) -> bool:
        """Retire random once beaten; True when the pool's make-up or weights changed."""
        at = self.cfg.retire_random_at
        if not self.random_retired and at is not None and at <= 1:
            scores = self.vs_scores.get("random", [])
            if len(scores) >= 200 and float(np.mean(scores[-200:])) >= at:
                self.random_retired = True
                return True
        return bool(self.snapshots) and bool(self.cfg.prioritise)

    def add_snapshot(self, path: str) -> None:
        """Keep ``path`` as the newest snapshot (the last ``max_snapshots`` stay)."""
        self.snapshots.append(path)
        self.snapshots = self.snapshots[-int(self.cfg.max_snapshots):]

    def keep_existing(self, paths: list[str]) -> None:
        """The snapshots of a resumed run that are still on disk."""
        self.snapshots = [p for p in paths if os.path.isfile(p)]
