"""End-to-end smoke test of self-play training (a few hundred steps on the toy game):
outputs, weights-only checkpoints that match the trained network, resume, and the
learning curve; plus the training config loader."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.core.toy_game import HighCard

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from spyenvs.agents.board_net import BoardActor  # noqa: E402
from spyenvs.agents.torch_policy import TorchPolicy  # noqa: E402
from spyenvs.experiments.train_selfplay import load_config, train  # noqa: E402

SMALL = {"total_timesteps": 512, "n_envs": 2, "ppo.n_steps": 128, "ppo.batch_size": 64,
         "ppo.n_epochs": 2, "league.snapshot_every": 256, "eval.every": 256, "eval.games": 12,
         "eval.final_games": 30, "game.num_players": 3}


def test_train_writes_checkpoints_results_and_resumes(tmp_path, capsys):
    cfg = load_config(None, HighCard.env_id, SMALL)
    res = train(cfg, str(tmp_path), quiet=True, game=HighCard)
    assert res["timesteps"] >= 512 and res["steps_per_second"] > 0
    v = res["vs"]["random"]["player"]
    assert v["games"] == 30 and v["low"] <= v["rate"] <= v["high"]
    assert "heuristic" in res["vs"]  # the toy heuristic is registered in conftest
    out = capsys.readouterr().out
    assert "vs random" in out and "%" in out
    for name in ("final.pt", "latest.pt", "state.pt", "results.json", "results.md", "history.json",
                 "learning_curve.png"):
        assert (tmp_path / name).is_file(), name
    assert len(list((tmp_path / "snapshots").glob("*.pt"))) >= 2
    assert list((tmp_path / "tb").rglob("events.out.tfevents*"))
    policy = TorchPolicy.load(tmp_path / "final.pt").bind(HighCard(num_players=3), 2)
    game = HighCard(num_players=3)
    game.reset(0)
    assert policy.act(game.observe(0), game.legal_mask()) in (0, 1)

    cfg2 = load_config(None, HighCard.env_id, dict(SMALL, total_timesteps=1024))
    res2 = train(cfg2, str(tmp_path), resume=True, quiet=True, game=HighCard)
    assert res2["timesteps"] >= 1024
    hist = json.loads((tmp_path / "history.json").read_text())
    assert [h["timesteps"] for h in hist] == sorted(h["timesteps"] for h in hist) and len(hist) >= 3


def test_exported_policy_matches_the_sb3_network(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    from spyenvs.experiments.export import actor_weights
    from spyenvs.wrappers import SelfPlayEnv
    from spyenvs.agents import RandomPolicy

    env = SelfPlayEnv(HighCard, {"num_players": 3}, opponents=[RandomPolicy(0)], seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, device="cpu", seed=0,
                        policy_kwargs={"net_arch": {"pi": [16, 8], "vf": [16]}})
    meta = {"env_id": HighCard.env_id, "config": {}, "roles": list(env.game.roles), "role_kinds": ["player"],
            "obs_dim": 12, "num_actions": 2, "activation": "tanh"}
    pol = TorchPolicy(actor_weights(model.policy), dict(meta, layers=3))
    obs = np.random.default_rng(0).random((5, 12)).astype(np.float32)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs))
        ref = dist.distribution.logits.numpy()
    ours = pol.net.logits(obs)
    np.testing.assert_allclose(ours - ours.max(1, keepdims=True), ref - ref.max(1, keepdims=True), atol=1e-5)


def test_config_loader_rejects_unknown_options(tmp_path):
    with pytest.raises(ValueError, match="unknown training option"):
        load_config(None, "x_v0", {"ppo.nonsense": 1})
    p = tmp_path / "c.yaml"
    p.write_text("env_id: unrest_v0\nppo:\n  n_steps: 64\n")
    cfg = load_config(str(p))
    assert cfg["env_id"] == "unrest_v0" and cfg["ppo"]["n_steps"] == 64 and cfg["ppo"]["n_epochs"] == 4
    with pytest.raises(ValueError, match="not the_agents_v0"):
        load_config(str(p), "the_agents_v0")


def test_every_shipped_config_loads():
    import pathlib

    import spyenvs

    # configs/<game>.yaml are MaskablePPO self-play configs (rllib_*.yaml belong to RLlib)
    paths = [p for p in sorted(pathlib.Path(__file__).resolve().parents[2].joinpath("configs").glob("*.yaml"))
             if not p.name.startswith("rllib_")]
    assert paths
    for p in paths:
        cfg = load_config(str(p))
        assert cfg["env_id"].endswith("_v0") and cfg["total_timesteps"] > 0
        if cfg["env_id"] in spyenvs.ENV_IDS:
            spyenvs.make_game(cfg["env_id"], **cfg["game"])  # the game config is valid


def test_the_trainer_trains_and_exports_the_board_network(tmp_path):
    cfg = load_config(None, "specter_ops_v0", {"total_timesteps": 64, "n_envs": 4, "ppo.n_steps": 16,
                                               "ppo.batch_size": 32, "ppo.n_epochs": 1, "net.arch": "board_cnn",
                                               "eval.games": 0, "eval.final_games": 0, "max_decisions": 200})
    train(cfg, str(tmp_path), quiet=True)
    policy = TorchPolicy.load(tmp_path / "final.npz")
    assert isinstance(policy.net, BoardActor)


def test_training_with_the_opponent_class_for_the_critic(tmp_path):
    cfg = load_config(None, HighCard.env_id, dict(SMALL, critic_sees_opponent=True, **{"warm_start.games": 20}))
    res = train(cfg, str(tmp_path), quiet=True, game=HighCard)
    assert res["timesteps"] >= 512 and res["warm_start"]["samples"] > 0
    policy = TorchPolicy.load(tmp_path / "final.pt").bind(HighCard(num_players=3), 0)
    game = HighCard(num_players=3)
    game.reset(1)
    assert policy.act(game.observe(0), game.legal_mask()) in (0, 1)  # reads the plain observation


def test_flushing_denormals_makes_subnormal_floats_zero_inside_and_restores_after():
    import torch

    from spyenvs.experiments.train_selfplay import flushing_denormals

    tiny = torch.tensor(1e-39, dtype=torch.float32)

    def flushed() -> bool:
        return (tiny * 1.0).item() == 0.0

    assert not flushed()
    with flushing_denormals(True):
        assert flushed()
    assert not flushed()
    torch.set_flush_denormal(True)  # a caller's own setting is left as it was, either way
    try:
        with flushing_denormals(False):
            assert flushed()
        with flushing_denormals(True):
            assert flushed()
        assert flushed()
    finally:
        torch.set_flush_denormal(False)


def test_a_fixed_league_policy_stays_in_the_pool_with_its_share_of_the_weight(tmp_path):
    from spyenvs.experiments.config import LeagueConfig
    from spyenvs.experiments.league import SnapshotLeague

    first = tmp_path / "first"
    train(load_config(None, HighCard.env_id, SMALL), str(first), quiet=True, game=HighCard)
    path = str(first / "final.npz")
    league = SnapshotLeague(LeagueConfig(fixed=[path, path], fixed_weight=3.0), seed=0, has_heuristic=False,
                            make_game=lambda: HighCard(num_players=3))
    league.add_snapshot(str(first / "final.pt"))
    fixed = [(w, name) for _, w, name in league.pool() if name.startswith("fixed:")]
    assert fixed == [(1.5, "fixed:final"), (1.5, "fixed:final")]
    assert [name for *_, name in league.pool()] == ["random", "fixed:final", "fixed:final", "final"]

    # the fixed policy the only opponent: every training game is played against it
    only_fixed = dict(SMALL, **{"league.fixed": [path], "league.random_weight": 0.0, "league.heuristic_weight": 0.0,
                                "league.snapshot_weight": 0.0, "league.fixed_weight": 1.0})
    res = train(load_config(None, HighCard.env_id, only_fixed), str(tmp_path / "second"), quiet=True, game=HighCard)
    assert res["timesteps"] >= 512 and res["env_stats"]["episodes"] > 0


def test_a_fixed_league_policy_that_is_missing_or_of_another_game_is_refused_in_one_line(tmp_path):
    import os

    import spyenvs

    with pytest.raises(ValueError, match="'league.fixed' names 'nowhere.npz', which is not a file"):
        load_config(None, HighCard.env_id, dict(SMALL, **{"league.fixed": ["nowhere.npz"]}))
    other = os.path.join(os.path.dirname(spyenvs.agents.__file__), "pretrained", "the_agents_v0.npz")
    cfg = load_config(None, HighCard.env_id, dict(SMALL, **{"league.fixed": [other]}))
    with pytest.raises(ValueError, match=r"'league.fixed': .*the_agents_v0.npz does not play this game") as err:
        train(cfg, str(tmp_path), quiet=True, game=HighCard)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "results.json").exists()


def test_training_without_torch_distribution_checks_trains_bit_identical_weights(tmp_path, monkeypatch):
    import contextlib

    import torch

    from spyenvs.experiments import train_selfplay

    def final_arrays(out):
        with np.load(out / "final.npz") as f:
            return {k: f[k].copy() for k in f.files if k != "__meta__"}  # the metadata holds the run's seconds

    # torch's default is checks on; an earlier import (torchrl's) may have turned them off
    monkeypatch.setattr(torch.distributions.Distribution, "_validate_args", True)
    train(load_config(None, HighCard.env_id, SMALL), str(tmp_path / "lean"), quiet=True, game=HighCard)
    assert torch.distributions.Distribution._validate_args  # restored after the run
    with train_selfplay.without_distribution_checks():
        assert not torch.distributions.Distribution._validate_args
    monkeypatch.setattr(train_selfplay, "without_distribution_checks", contextlib.nullcontext)
    train(load_config(None, HighCard.env_id, SMALL), str(tmp_path / "checked"), quiet=True, game=HighCard)
    lean, checked = final_arrays(tmp_path / "lean"), final_arrays(tmp_path / "checked")
    assert lean.keys() == checked.keys() and all(np.array_equal(lean[k], checked[k]) for k in lean)
