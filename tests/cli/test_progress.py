"""The training progress bar ends at 100%: its total is the number of steps SB3
really takes (whole rollouts of n_envs * n_steps), not the requested total."""

from __future__ import annotations

import contextlib

import pytest

from tests.core.toy_game import HighCard

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")


class RecordingBar:
    def __init__(self, total):
        self.total, self.n = total, 0

    def update(self, k=1):
        self.n += k

    def write(self, text):
        pass


def test_training_bar_total_is_the_real_number_of_steps(tmp_path, monkeypatch):
    import spyenvs.core.progress as progress
    from spyenvs.experiments.train_selfplay import load_config, train

    bars = []

    @contextlib.contextmanager
    def recording_bar(total, desc, enabled=True):
        bars.append(RecordingBar(total))
        yield bars[-1]

    monkeypatch.setattr(progress, "progress_bar", recording_bar)
    cfg = load_config(None, HighCard.env_id, {
        "total_timesteps": 100, "n_envs": 1, "ppo.n_steps": 32, "ppo.batch_size": 32,
        "ppo.n_epochs": 1, "league.heuristic_weight": 0.0, "league.snapshot_every": 10_000,
        "eval.every": 10_000, "eval.games": 2, "eval.final_games": 2, "eval.opponents": ["random"]})
    res = train(cfg, str(tmp_path), quiet=True, game=HighCard)
    [bar] = bars
    assert res["timesteps"] == 128  # four rollouts of 32 steps: the first multiple past 100
    assert bar.total == bar.n == 128
