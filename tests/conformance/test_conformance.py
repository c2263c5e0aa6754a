"""Conformance suite: every registered env id and each of its TEST_CONFIGS."""

from __future__ import annotations

import time

import pytest

from spyenvs.registry import ENV_IDS, game_class

from . import checks

CASES = [
    pytest.param(game_class(env_id), cfg, id=f"{env_id}-{'-'.join(f'{k}={v}' for k, v in cfg.items()) or 'default'}")
    for env_id in ENV_IDS
    for cfg in game_class(env_id).TEST_CONFIGS
]
GAMES = [pytest.param(game_class(env_id), id=env_id) for env_id in ENV_IDS]


@pytest.mark.parametrize("game_cls,config", CASES)
def test_pettingzoo_api(game_cls, config):
    checks.run_api_test(game_cls, config)


@pytest.mark.parametrize("game_cls,config", CASES)
def test_pettingzoo_seed(game_cls, config):
    checks.run_seed_test(game_cls, config)


@pytest.mark.parametrize("game_cls,config", CASES)
def test_random_play_to_end_with_invariants(game_cls, config, fuzz_seeds):
    """``--fuzz-seeds N`` (or SPYENVS_FUZZ_SEEDS) runs N seeds per config; run with -s
    to see each config's crash count and time."""
    start = time.perf_counter()
    lengths = checks.run_random_play(game_cls, config, seeds=fuzz_seeds)
    print(f"\nfuzz {game_cls.env_id} {config}: {fuzz_seeds} seeds, 0 crashes, "
          f"{sum(lengths)} decisions, {time.perf_counter() - start:.1f}s")


@pytest.mark.parametrize("game_cls,config", CASES)
def test_hidden_information_does_not_leak(game_cls, config):
    checks.run_leak_test(game_cls, config)


@pytest.mark.parametrize("game_cls,config", CASES)
def test_who_acts_when_depends_only_on_public_information(game_cls, config):
    leaking = checks.leaking_options(game_cls, config)
    if leaking:
        pytest.skip(f"config opts into a documented who-acts-when leak: {leaking}")
    checks.run_sequence_leak_test(game_cls, config)


@pytest.mark.parametrize("game_cls,config", CASES)
def test_resample_depends_only_on_what_the_viewer_knows(game_cls, config):
    checks.run_resample_distribution_test(game_cls, config)


@pytest.mark.parametrize("game_cls,config", CASES)
def test_inputs_declared_constant_never_change(game_cls, config):
    if checks.run_constant_inputs_test(game_cls, config) is None:
        pytest.skip("the game declares every observation entry as varying")


@pytest.mark.parametrize("game_cls,config", CASES)
def test_a_state_rebuilt_from_an_observation_is_the_one_it_shows(game_cls, config):
    if checks.run_rebuild_test(game_cls, config) is None:
        pytest.skip("the game rebuilds no state from an observation")


@pytest.mark.parametrize("game_cls,config", CASES)
def test_clone_is_independent(game_cls, config):
    checks.run_clone_test(game_cls, config)


@pytest.mark.parametrize("game_cls,config", CASES)
def test_records_replay_exactly(game_cls, config, tmp_path):
    checks.run_replay_test(game_cls, config, tmp_path)


@pytest.mark.parametrize("game_cls,config", CASES)
def test_illegal_action_raises_and_leaves_state(game_cls, config):
    checks.run_illegal_action_test(game_cls, config)


@pytest.mark.parametrize("game_cls,config", CASES)
def test_illegal_action_penalize(game_cls, config):
    checks.run_penalize_test(game_cls, config)


@pytest.mark.parametrize("game_cls,config", CASES)
def test_render_modes(game_cls, config):
    checks.run_render_test(game_cls, config)


@pytest.mark.parametrize("game_cls", GAMES)
def test_bad_config_raises_value_error(game_cls):
    checks.run_bad_config_test(game_cls)
