"""The core (adapter, records, checks) on a toy game, independent of any real game."""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.core import GameStateError, IllegalActionError, SpyAECEnv
from tests.conformance import checks

from .toy_game import HighCard

CONFIGS = HighCard.TEST_CONFIGS
#: configs where a player decides again after its first move (the sequence checks need that)
MULTI_ROUND = [c for c in CONFIGS if c.get("rounds", 1) > 1]


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


@pytest.mark.parametrize("config", MULTI_ROUND)
def test_toy_game_passes_the_sequence_and_resample_checks(config):
    assert sum(checks.run_sequence_leak_test(HighCard, config)) > 0
    assert sum(checks.run_resample_distribution_test(HighCard, config)) > 0


class _Variant(HighCard):
    """A HighCard whose clones (and so resamples) keep the subclass."""

    def clone(self):
        new = super().clone()
        new.__class__ = type(self)
        return new


class SkipsTheTopCard(_Variant):
    """Leaks through who acts: a player holding the top card is never asked (staying is
    its only sensible move), so everyone learns who holds it from agent_selection."""

    def _skip(self):
        top = self.config["deck_size"] - 1
        while not self.is_over and self.hands[self.current_player] == top:
            self.turn += 1

    def _new_game(self):
        super()._new_game()
        self._skip()

    def _apply(self, action):
        super()._apply(action)
        self._skip()


def test_sequence_check_catches_a_skipped_decision_whose_reason_is_hidden():
    config = {"num_players": 2, "rounds": 3}
    assert sum(checks.run_sequence_leak_test(HighCard, config)) > 0  # the same test passes unskipped
    with pytest.raises(AssertionError, match="who acts when leaks hidden information to player_") as info:
        checks.run_sequence_leak_test(SkipsTheTopCard, config)
    assert "'stay_or_swap'" in str(info.value) and "one:" in str(info.value)


class ReturnsTheTruth(_Variant):
    def resample_hidden(self, viewer, rng):
        new = self.clone()
        new.rng = np.random.default_rng(rng.integers(2**63))
        return new


class KeepsTheTrueHands(_Variant):
    """Reshuffles only the deck, so the whole hidden state still changes every time."""

    def resample_hidden(self, viewer, rng):
        new = self.clone()
        rng.shuffle(new.deck)
        new.rng = np.random.default_rng(rng.integers(2**63))
        return new


class FreezesAfterTheFirstRound(_Variant):
    """Re-deals in the first round only (as a fallback that gives up late would)."""

    def resample_hidden(self, viewer, rng):
        if self.turn >= len(self.roles):
            return ReturnsTheTruth.resample_hidden(self, viewer, rng)
        return super().resample_hidden(viewer, rng)


class SometimesTheTruth(_Variant):
    def resample_hidden(self, viewer, rng):
        if rng.random() < 0.5:
            return ReturnsTheTruth.resample_hidden(self, viewer, rng)
        return super().resample_hidden(viewer, rng)


@pytest.mark.parametrize("variant,message", [
    (ReturnsTheTruth, "resample_hidden never re-deals"),
    (FreezesAfterTheFirstRound, "returned the true hidden state in all 30 draws"),
    (KeepsTheTrueHands, "favours the truth: .* own hidden_key component 0 back"),
    (SometimesTheTruth, "favours the truth: .* own hidden state back"),
])
def test_resample_check_catches_a_sampler_that_falls_back_to_the_truth(variant, message):
    with pytest.raises(AssertionError, match=message):
        checks.run_resample_distribution_test(variant, {"num_players": 2, "rounds": 3})


class BreaksOnOddSeeds(_Variant):
    def check_invariants(self):
        assert self.seed % 2 == 0 or not self.actions, "odd seed broke an invariant"


class ClaimsItsCardIsConstant(_Variant):
    def varying_inputs(self):  # wrong: "my_card" (the first entries) changes with the deal
        return np.arange(self.config["deck_size"], self.observation_size)


class DeclaresItsTrulyConstantEntries(_Variant):
    def varying_inputs(self):
        return np.arange(self.observation_size)


def test_constant_inputs_check_catches_an_entry_that_does_change():
    with pytest.raises(AssertionError, match=r"entries \[.*\] changed for viewer"):
        checks.run_constant_inputs_test(ClaimsItsCardIsConstant, {"num_players": 2})
    assert checks.run_constant_inputs_test(DeclaresItsTrulyConstantEntries, {"num_players": 2}) > 0
    assert checks.run_constant_inputs_test(HighCard, {"num_players": 2}) is None


def test_random_play_reports_every_crashing_seed_with_the_count():
    with pytest.raises(AssertionError, match=r"2 of 4 seeds of random play failed") as info:
        checks.run_random_play(BreaksOnOddSeeds, {}, seeds=4)
    assert "seed 1 after 1 decisions: AssertionError: odd seed broke" in str(info.value)
    assert "seed 3 after 1 decisions" in str(info.value) and "seed 2" not in str(info.value)


def test_truncation_after_max_steps():
    e = SpyAECEnv(HighCard(num_players=3), max_steps=1)
    e.reset(seed=0)
    e.step(0)
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert all(r == 0 for r in e._cumulative_rewards.values())


def test_max_cycles_is_pettingzoos_name_for_the_step_cap():
    e = SpyAECEnv(HighCard(num_players=3), max_cycles=1)
    assert e.max_steps == 1
    e.reset(seed=0)
    e.step(0)
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert SpyAECEnv(HighCard(), max_cycles=5, max_steps=5).max_steps == 5
    with pytest.raises(ValueError, match="max_cycles and max_steps name the same step cap"):
        SpyAECEnv(HighCard(), max_cycles=5, max_steps=6)
    with pytest.raises(ValueError, match="max_cycles must be a positive int or None, got 0"):
        SpyAECEnv(HighCard(), max_cycles=0)


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
