"""The bring-your-own-algorithm examples (docs/byo_algorithm.md) run end to end at a
tiny budget: each trains, saves its weights, and writes a score card that names the
env and the policy; the `spyenvs scorecard` command finds ``examples.<name>:make_policy``
from the repository root, as the page says; and the OpenSpiel example's observation
(the bridge's observation tensor) is the PettingZoo env's, as the page says."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def read_card(out: Path, spec: str) -> dict:
    from spyenvs.experiments.scorecard import file_stem

    path = out / (file_stem("unrest_v0", spec) + ".json")
    assert path.exists(), f"no score card at {path}: {sorted(p.name for p in out.iterdir())}"
    return json.loads(path.read_text())


def check_card(card: dict, spec: str, games: int) -> None:
    assert card["env_id"] == "unrest_v0" and card["policy"] == spec
    from spyenvs.agents.ladder import load_ladder

    assert [o["opponent"] for o in card["opponents"]] == load_ladder("unrest_v0")["bots"]
    assert card["games_per_role"] == games and card["ladder"]["version"]
    assert card["rating"] is not None and np.isfinite(card["rating"]["elo"])


def test_torchrl_example_trains_masked_ppo_and_writes_its_score_card(tmp_path, monkeypatch):
    pytest.importorskip("torchrl", reason="the TorchRL example needs the torchrl extra: pip install -e '.[torchrl]'")
    from examples import torchrl_masked

    weights = tmp_path / "torchrl.pt"
    monkeypatch.setenv(torchrl_masked.WEIGHTS_VAR, str(weights))  # restored after the test
    rc = torchrl_masked.main(["--steps", "300", "--frames-per-batch", "150", "--games", "2",
                              "--weights", str(weights), "--out", str(tmp_path / "cards")])
    assert rc == 0 and weights.exists()
    check_card(read_card(tmp_path / "cards", torchrl_masked.POLICY_SPEC), torchrl_masked.POLICY_SPEC, 2)
    # the exported actors play only legal actions, each role with its own network
    from spyenvs.registry import make_game

    policy, game = torchrl_masked.make_policy(), make_game("unrest_v0")
    game.reset(3)
    bound = [policy.bind(game, seat) for seat in range(game.num_players)]
    while not game.is_over:
        seat = game.current_player
        action = bound[seat].act(game.observe(seat), game.legal_mask())
        assert isinstance(action, int) and game.legal_mask()[action]
        game.step(action)


def test_openspiel_example_trains_a2c_through_the_bridge_and_writes_its_score_card(tmp_path, monkeypatch):
    pytest.importorskip("pyspiel", reason="the OpenSpiel example needs the openspiel extra")
    from examples import openspiel_algorithm

    weights = tmp_path / "a2c.pt"
    monkeypatch.setenv(openspiel_algorithm.WEIGHTS_VAR, str(weights))
    rc = openspiel_algorithm.main(["--steps", "600", "--games", "2", "--weights", str(weights),
                                   "--out", str(tmp_path / "cards")])
    assert rc == 0 and weights.exists()
    check_card(read_card(tmp_path / "cards", openspiel_algorithm.POLICY_SPEC), openspiel_algorithm.POLICY_SPEC, 2)

    # the command the page gives, typed in the repository root: `examples` is found there
    spyenvs_script = Path(sys.executable).parent / "spyenvs"
    command = [str(spyenvs_script)] if spyenvs_script.exists() else [shutil.which("spyenvs") or "spyenvs"]
    env = {**os.environ, openspiel_algorithm.WEIGHTS_VAR: str(weights)}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([*command, "scorecard", "unrest_v0", openspiel_algorithm.POLICY_SPEC, "--games", "1",
                           "--out", str(tmp_path / "cli"), "--quiet"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    check_card(read_card(tmp_path / "cli", openspiel_algorithm.POLICY_SPEC), openspiel_algorithm.POLICY_SPEC, 1)


def test_the_bridge_gives_openspiel_agents_our_observation_and_mask():
    """What the OpenSpiel example's policy is trained on (rl_environment's "info_state",
    the bridge's observation_tensor) is what `act` gets in a score card: the env's
    flat float32 observation; and its legal actions are the env's mask."""
    pytest.importorskip("pyspiel", reason="needs the openspiel extra")
    from open_spiel.python import rl_environment

    import spyenvs
    from spyenvs.openspiel import load_game

    env = rl_environment.Environment(load_game("unrest_v0", seed=7))
    assert env.use_observation  # no information-state tensor: the observation tensor
    time_step = env.reset()
    pz = spyenvs.make("unrest_v0")
    pz.reset(seed=env.get_state.spy_game.seed)  # the same deal
    rng = np.random.default_rng(0)
    while not time_step.last():
        player = time_step.observations["current_player"]
        assert pz.agent_selection == pz.possible_agents[player]
        obs = pz.observe(pz.agent_selection)
        for p, agent in enumerate(pz.possible_agents):
            np.testing.assert_array_equal(np.asarray(time_step.observations["info_state"][p], np.float32),
                                          pz.observe(agent)["observation"])
        assert time_step.observations["legal_actions"][player] == np.flatnonzero(obs["action_mask"]).tolist()
        action = int(rng.choice(time_step.observations["legal_actions"][player]))
        time_step = env.step([action])
        pz.step(action)
    assert time_step.rewards == [pz.rewards[a] for a in pz.possible_agents]
