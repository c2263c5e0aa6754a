"""The core (adapter, records, checks) on a toy game, independent of any real game."""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.core import GameStateError, IllegalActionError, SpyAECEnv
from tests.conformance import checks

from .toy_game import HighCard

CONFIGS = HighCard.TEST_CONFIGS


@pytest.mark.parametrize("config", CONFIGS)
def test_toy_game_passes_conformance(config, tmp_path):
    checks.run_api_test(HighCard, config)
    checks.run_seed_test(HighCard, config)
    checks.run_random_play(HighCard, config, seeds=20)
    checks.run_leak_test(HighCard, config)
    checks.run_clone_test(HighCard, config)
    checks.run_illegal_action_test(HighCard, config)
    checks.run_render_test(HighCard, config)
    checks.run_bad_config_test(HighCard)


def test_leak_test_catches_a_leaking_observation():
    class Leaky(HighCard):
        def observe(self, p):
            obs = super().observe(p)
            obs[self.layout.slices()["my_card"]][self.hands[(p + 1) % 2]] = 1
            return obs

        def clone(self):
            new = super().clone()
            new.__class__ = Leaky
            return new

    with pytest.raises(AssertionError, match="depends on hidden state"):
        checks.run_leak_test(Leaky, {})


def test_truncation_after_max_steps():
    e = SpyAECEnv(HighCard(num_players=3), max_steps=1)
    e.reset(seed=0)
    e.step(0)
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert all(r == 0 for r in e._cumulative_rewards.values())


def test_terminal_rewards_are_outcome():
    e = SpyAECEnv(HighCard())
    e.reset(seed=4)
    e.step(0)
    e.step(0)
    assert all(e.terminations.values())
    assert [e._cumulative_rewards[a] for a in e.possible_agents] == e.game.outcome()


def test_adapter_errors_before_reset_and_bad_kwargs():
    e = SpyAECEnv(HighCard())
    with pytest.raises(GameStateError):
        e.step(0)
    with pytest.raises(ValueError, match="allowed"):
        SpyAECEnv(HighCard(), render_mode="svg")
    with pytest.raises(ValueError, match="allowed"):
        SpyAECEnv(HighCard(), illegal_action="ignore")


def test_illegal_action_error_names_action_decision_and_legal():
    g = HighCard()
    g.reset(0)
    with pytest.raises(IllegalActionError) as info:
        g.step(5)
    msg = str(info.value)
    assert "5" in msg and "stay_or_swap" in msg and "0=stay" in msg
    assert info.value.legal == [0, 1]


def test_observation_layout_views():
    g = HighCard()
    g.reset(1)
    obs = g.observe(0)
    assert g.layout.view(obs, "my_card").shape == (6,)
    assert g.layout.view(np.stack([obs, obs]), "turn").shape == (2, 2)
