"""Policy checkpoints: round trips, agreement with the trained SB3 network, and clear
errors for foreign or corrupt files (which must never execute code)."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

from spyenvs.agents.checkpoint import CheckpointError, load_policy, save_policy
from spyenvs.agents.torch_policy import TorchPolicy
from tests.core.toy_game import HighCard


def _meta(obs_dim=12, n_actions=2, kinds=("player",)):
    return {"env_id": HighCard.env_id, "config": {}, "roles": ["player_0", "player_1", "player_2"],
            "role_kinds": list(kinds), "obs_dim": obs_dim, "num_actions": n_actions, "activation": "tanh"}


def _weights(rng, sizes=(12, 16, 2)):
    return [(rng.normal(size=(o, i)).astype(np.float32), rng.normal(size=o).astype(np.float32))
            for i, o in zip(sizes, sizes[1:])]


@pytest.mark.parametrize("suffix", [".npz", ".pt"])
def test_round_trip_keeps_weights_and_metadata(tmp_path, suffix):
    if suffix == ".pt":
        pytest.importorskip("torch")
    w = _weights(np.random.default_rng(0))
    path = tmp_path / f"p{suffix}"
    save_policy(path, w, _meta())
    w2, meta = load_policy(path)
    assert meta["env_id"] == HighCard.env_id and meta["layers"] == 2
    for (a, b), (c, d) in zip(w, w2):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    pol = TorchPolicy.load(path).bind(HighCard(num_players=3), 1)
    obs = np.random.default_rng(1).random(12).astype(np.float32)
    expected = np.tanh(obs @ w[0][0].T + w[0][1]) @ w[1][0].T + w[1][1]
    assert pol.act(obs, np.array([1, 1], np.int8)) == int(np.argmax(expected))
    assert pol.act(obs, np.array([0, 1], np.int8)) == 1


def test_foreign_and_corrupt_files_give_clear_errors(tmp_path):
    torch = pytest.importorskip("torch")
    missing = tmp_path / "nope.pt"
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        load_policy(missing)
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(os.urandom(300))
    with pytest.raises(CheckpointError, match="cannot read"):
        load_policy(garbage)
    foreign = tmp_path / "foreign.pt"
    torch.save({"weight": torch.zeros(3)}, foreign)
    with pytest.raises(CheckpointError, match="no metadata"):
        load_policy(foreign)
    good = tmp_path / "good.pt"
    save_policy(good, _weights(np.random.default_rng(0)), _meta())
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:200])
    with pytest.raises(CheckpointError):
        load_policy(truncated)
    npz = tmp_path / "other.npz"
    np.savez(npz, x=np.zeros(2))
    with pytest.raises(CheckpointError, match="no metadata"):
        load_policy(npz)


class _Boom:
    def __reduce__(self):
        return (os.system, ("touch " + os.environ.get("SPYENVS_BOOM", "/tmp/spyenvs_boom"),))


def test_a_pickle_with_code_is_refused_not_executed(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    flag = tmp_path / "boom"
    monkeypatch.setenv("SPYENVS_BOOM", str(flag))
    path = tmp_path / "evil.pt"
    torch.save({"__meta__": "{}", "x": _Boom()}, path, pickle_protocol=pickle.DEFAULT_PROTOCOL)
    with pytest.raises(CheckpointError, match="cannot read"):
        load_policy(path)
    assert not flag.exists()


def test_checkpoint_for_another_game_or_config_is_refused(tmp_path):
    path = tmp_path / "p.npz"
    save_policy(path, _weights(np.random.default_rng(0)), _meta())
    pol = TorchPolicy.load(path)
    with pytest.raises(CheckpointError, match="expects obs"):
        pol.bind(HighCard(num_players=2), 0)  # 2 players: a smaller observation


def test_a_trained_mlp_ships_in_half_precision(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from spyenvs.experiments.export import save_trained
    from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv
    from spyenvs.agents import RandomPolicy

    venv = VecSelfPlayEnv("unrest_v0", opponents=[RandomPolicy(0)], num_envs=2, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=16, seed=0, device="cpu")
    meta = {"env_id": "unrest_v0", "config": {}, "roles": ["rebel", "empire"], "role_kinds": ["rebel", "empire"],
            "obs_dim": venv.obs_size, "num_actions": 60, "activation": "tanh", "name": "t"}
    save_trained(str(tmp_path / "half.npz"), model.policy, None, meta, dtype="float16")
    with np.load(tmp_path / "half.npz", allow_pickle=False) as z:
        assert z["w0"].dtype == np.float16


def test_a_prior_weight_per_role_kind_is_read_per_seat_and_checked(tmp_path):
    """meta["prior"]["weight"] may map each role kind to its weight: each seat's kind
    picks its own; a mapping that is not exactly the file's role kinds, or a weight
    that is not positive, is a CheckpointError naming the file."""
    w = _weights(np.random.default_rng(0), sizes=(14, 4, 2))
    meta = dict(_meta(kinds=("agent", "hunter")), prior={"kind": "heuristic", "weight": {"agent": 2, "hunter": 10}})
    policy = TorchPolicy(w, meta)
    assert policy.prior_weights == [2.0, 10.0]
    for kind_index, weight in enumerate((2.0, 10.0)):
        policy.kind_index = kind_index
        assert policy.prior_weight == weight
    assert TorchPolicy(w, dict(meta, prior={"kind": "heuristic", "weight": 3})).prior_weight == 3.0
    for bad, why in [({"agent": 2}, "no weight for role kind 'hunter'"), ({"agent": 2, "hunter": 1, "spy": 1}, "'spy'"),
                     ({"agent": 2, "hunter": 0}, "positive number"), ({}, "a weight for each role kind"),
                     ([2, 10], "a positive number or a mapping")]:
        path = tmp_path / "bad.npz"
        save_policy(path, w, dict(meta, prior={"kind": "heuristic", "weight": bad}))
        with pytest.raises(CheckpointError, match=f"bad.npz: the prior's weight .*{why}") as err:
            TorchPolicy.load(path)
        assert "\n" not in str(err.value)


# ------------------------------------------------------------ one network per role kind
def _unrest_file(path, seed, hidden=16):
    from spyenvs.registry import make_game

    game = make_game("unrest_v0")
    meta = {"env_id": "unrest_v0", "config": game.config, "roles": list(game.roles), "role_kinds": ["rebel", "empire"],
            "obs_dim": game.observation_size, "num_actions": game.num_actions, "activation": "tanh",
            "name": f"run{seed}"}
    save_policy(path, _weights(np.random.default_rng(seed), sizes=(game.observation_size + 2, hidden, game.num_actions)),
                meta)
    return path


def test_a_per_kind_file_plays_each_role_kind_with_the_network_of_its_own_file(tmp_path):
    """compose_per_kind: the base file's network for every kind but those replaced, each
    replaced kind's from its own file; each seat's logits are exactly its source file's."""
    from spyenvs.agents.torch_policy import compose_per_kind
    from spyenvs.registry import make_game

    base, other = _unrest_file(tmp_path / "base.npz", 0), _unrest_file(tmp_path / "other.npz", 1, hidden=8)
    meta = compose_per_kind(base, {"rebel": other}, tmp_path / "both.npz")
    assert meta["arch"] == "per_kind" and sorted(meta["kind_nets"]) == ["empire", "rebel"]
    assert meta["kind_nets"]["rebel"]["name"] == "run1"
    sources = {"rebel": TorchPolicy.load(other), "empire": TorchPolicy.load(base)}
    both = TorchPolicy.load(tmp_path / "both.npz")
    game = make_game("unrest_v0")
    game.reset(5)
    seen = set()
    for _ in range(60):
        if game.is_over:
            break
        seat = game.current_player
        kind = "rebel" if game.roles[seat].startswith("rebel") else "empire"
        obs, mask = game.observe(seat), game.legal_mask()
        want = sources[kind].bind(game, seat).action_logits(obs, mask)
        np.testing.assert_array_equal(both.bind(game, seat).action_logits(obs, mask), want)
        seen.add(kind)
        game.step(int(np.flatnonzero(mask)[0]))
    assert seen == {"rebel", "empire"}
    # a batch of rows of both kinds takes each row through its own kind's network
    x = np.random.default_rng(2).normal(size=(4, game.observation_size + 2)).astype(np.float32)
    x[:, -2:] = [[1, 0], [0, 1], [0, 1], [1, 0]]
    np.testing.assert_allclose(both.net.logits(x)[[0, 3]], sources["rebel"].net.logits(x[[0, 3]]), rtol=1e-6)
    np.testing.assert_allclose(both.net.logits(x)[[1, 2]], sources["empire"].net.logits(x[[1, 2]]), rtol=1e-6)


def test_a_per_kind_file_is_refused_from_files_of_another_game_or_prior(tmp_path):
    from spyenvs.agents.torch_policy import compose_per_kind

    base = _unrest_file(tmp_path / "base.npz", 0)
    primed = tmp_path / "primed.npz"
    raw = [(w, b) for w, b in _weights(np.random.default_rng(3), sizes=(TorchPolicy.load(base).meta["obs_dim"] + 2,
                                                                         4, TorchPolicy.load(base).meta["num_actions"]))]
    save_policy(primed, raw, dict(TorchPolicy.load(base).meta, prior={"kind": "heuristic", "weight": 10.0}))
    with pytest.raises(CheckpointError, match="primed.npz and .*base.npz differ in prior") as err:
        compose_per_kind(base, {"rebel": primed}, tmp_path / "x.npz")
    assert "\n" not in str(err.value)
    with pytest.raises(CheckpointError, match="no role kind 'agent'"):
        compose_per_kind(base, {"agent": base}, tmp_path / "x.npz")
    assert not os.path.exists(tmp_path / "x.npz")


def test_a_per_kind_file_keeps_each_kinds_own_weight_on_the_prior(tmp_path):
    """Runs that weighed the heuristic prior differently still compose: each role kind
    plays with its own run's weight (the prior's weight per role kind)."""
    from spyenvs.agents.torch_policy import compose_per_kind

    base, other = _unrest_file(tmp_path / "base.npz", 0), _unrest_file(tmp_path / "other.npz", 1)
    for path, weight in ((base, 10.0), (other, 5.0)):
        policy = TorchPolicy.load(path)
        save_policy(path, [(w.T, b) for w, b in policy.net.weights],
                    dict({k: v for k, v in policy.meta.items() if k not in ("layers", "format", "version")},
                         prior={"kind": "heuristic", "weight": weight}))
    meta = compose_per_kind(base, {"rebel": other}, tmp_path / "both.npz")
    assert meta["prior"] == {"kind": "heuristic", "weight": {"rebel": 5.0, "empire": 10.0}}
    assert TorchPolicy.load(tmp_path / "both.npz").prior_weights == [5.0, 10.0]
