"""The single-agent self-play wrapper: Gymnasium contract, seat rotation, masks,
opponent pool, and MaskablePPO (plain and vectorised in subprocesses)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from spyenvs.agents import HeuristicPolicy, RandomPolicy
from spyenvs.wrappers import SelfPlayEnv
from tests.core.toy_game import HighCard


def test_passes_gymnasium_env_checker():
    check_env(SelfPlayEnv(HighCard, {"num_players": 3}, opponents=[RandomPolicy(0)], seed=0), skip_render_check=True)


def test_learner_seat_rotates_and_masks_match_the_game():
    env = SelfPlayEnv(HighCard, {"num_players": 3}, opponents=[RandomPolicy(0), (HeuristicPolicy(0), 2.0)], seed=1)
    seats, opponents = [], set()
    for _ in range(9):
        _, info = env.reset()
        seats.append(info["seat"])
        opponents.add(info["opponent"])
        assert env.game.current_player == env.seat
        np.testing.assert_array_equal(env.action_masks(), env.game.legal_mask().astype(bool))
        done = False
        while not done:
            _, r, term, trunc, info = env.step(0)
            done = term or trunc
        assert r == env.game.outcome()[env.seat] and info["outcome"] == r
    assert seats == [0, 1, 2] * 3
    assert opponents == {"random", "heuristic"}
    assert env.pool_names() == ["random", "heuristic"]


def test_empty_pool_and_unknown_kind_are_clear_errors():
    with pytest.raises(ValueError, match="opponent pool is empty"):
        SelfPlayEnv(HighCard).reset(seed=0)
    with pytest.raises(ValueError, match="allowed: player"):
        SelfPlayEnv(HighCard, opponents=[RandomPolicy()], learner_kinds=["rebel"])


def _make(seed):
    return SelfPlayEnv(HighCard, {"num_players": 2}, opponents=[RandomPolicy(seed)], seed=seed)


@pytest.mark.parametrize("vec", ["dummy", "subproc"])
def test_maskable_ppo_learns_a_few_hundred_steps(vec):
    pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import functools

    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    fns = [functools.partial(_make, i) for i in range(2)]
    venv = SubprocVecEnv(fns) if vec == "subproc" else DummyVecEnv(fns)
    try:
        model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(256)
        assert model.num_timesteps >= 256
    finally:
        venv.close()
