"""The Specter Ops board network (spyenvs.experiments.nets) and its numpy actor
(spyenvs.agents.board_net): same logits in torch and numpy, masks respected, trainable
by MaskablePPO on the vectorised self-play env, weights-only round trips."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import spyenvs  # noqa: E402
from spyenvs.agents.checkpoint import CheckpointError, read_checkpoint, save_arrays  # noqa: E402
from spyenvs.agents.board_net import BoardActor  # noqa: E402
from spyenvs.agents.registry import make_policy  # noqa: E402
from spyenvs.agents.torch_policy import MLPActor, TorchPolicy, policy_input  # noqa: E402
from spyenvs.experiments.nets import (  # noqa: E402
    BoardActorCriticPolicy,
    CardTableActorCriticPolicy,
    KeepColumns,
    LeanMaskablePolicy,
    policy_kwargs_for,
)
from spyenvs.experiments.export import export_actor, inference_policy, save_trained  # noqa: E402

ENV = "specter_ops_v0"
SMALL = {"channels": 8, "dilations": [1, 2], "vec_hidden": [32], "head_hidden": 32}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """One torch and one BLAS thread, as the trainer pins them: on a busy 2-core machine
    more threads make these small convolutions tens of times slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with the train extra
        yield
    else:
        with threadpool_limits(1):
            yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def game():
    return spyenvs.make_game(ENV)


@pytest.fixture(scope="module")
def observations(game):
    """Raw observations of both role kinds along a random game."""
    g = spyenvs.make_game(ENV)
    g.reset(5)
    rng = np.random.default_rng(0)
    rows, kinds, masks = [], [], []
    for _ in range(60):
        p = g.current_player
        rows.append(g.observe(p))
        kinds.append(0 if p == 0 else 1)
        mask = g.legal_mask()
        masks.append(mask)
        g.step(int(rng.choice(np.flatnonzero(mask))))
    return np.stack(rows), np.array(kinds), np.stack(masks)


def _policy(game, net=None, seed=0):
    torch.manual_seed(seed)
    cls, kw = policy_kwargs_for(ENV, game, net)
    assert cls is BoardActorCriticPolicy
    obs_space = gym.spaces.Box(-np.inf, np.inf, (game.observation_size + 2,), np.float32)
    pol = cls(obs_space, gym.spaces.Discrete(game.num_actions), lambda _: 3e-4, **kw)
    with torch.no_grad():  # the init makes the logits almost flat; spread them so a mismatch shows
        for p in pol.actor.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return pol


def _meta(game, extra):
    return {"env_id": game.env_id, "config": game.config, "roles": list(game.roles), "role_kinds": ["agent", "hunter"],
            "obs_dim": game.observation_size, "num_actions": game.num_actions, "activation": "tanh", "name": "t",
            **extra}


def _inputs(observations, scale=None):
    obs, kinds, _ = observations
    x = obs if scale is None else (obs - scale[0]) * scale[1]
    return np.stack([policy_input(o, k, 2) for o, k in zip(x.astype(np.float32), kinds)])


def _torch_logits(pol, x):
    with torch.no_grad():
        return pol.get_distribution(torch.as_tensor(x)).distribution.logits.numpy()


def _normalised(z):
    return z - z.max(axis=-1, keepdims=True)


def test_numpy_actor_gives_the_torch_logits(game, observations):
    pol = _policy(game)
    arrays, extra = export_actor(pol)
    cnn = TorchPolicy.from_arrays(arrays, _meta(game, extra))
    assert isinstance(cnn.net, BoardActor)
    x = _inputs(observations)[::4]
    ref = _torch_logits(pol, x)
    assert np.ptp(ref) > 0.1
    np.testing.assert_allclose(_normalised(cnn.net.logits(x)), _normalised(ref), atol=1e-4)
    np.testing.assert_allclose(_normalised(cnn.net.logits(x[3])), _normalised(ref[3]), atol=1e-4)
    # the bound player adds each seat's role-kind input itself: raw observations in,
    # the training network's logits on the legal actions out
    obs, kinds, masks = observations
    for seat in (0, 1):  # seat 0 the agent, seat 1 a hunter
        rows = np.flatnonzero(kinds[::4] == seat)
        got = cnn.bind(game, seat)._masked_logits(obs[::4][rows], np.ones_like(masks[::4][rows]))
        np.testing.assert_allclose(_normalised(got), _normalised(ref[rows]), atol=1e-4)


def test_exported_actor_folds_the_input_scale(game, observations):
    """Trained on (obs - low) * inv, the exported actor reads raw observations (the
    vector part folded into the first layer, the board part shipped when not identity)."""
    rng = np.random.default_rng(1)
    n = game.observation_size
    scale = (rng.uniform(-0.5, 0.5, n).astype(np.float32), rng.uniform(0.5, 2.0, n).astype(np.float32))
    pol = _policy(game, SMALL)
    arrays, extra = export_actor(pol, scale)
    assert "board_low" in arrays
    cnn = TorchPolicy.from_arrays(arrays, _meta(game, extra))
    ref = _torch_logits(pol, _inputs(observations, scale))
    np.testing.assert_allclose(_normalised(cnn.net.logits(_inputs(observations))), _normalised(ref), atol=1e-4)


def test_cell_logits_sit_at_the_cell_actions(game):
    """Action i < 736 is board cell i (row * 23 + col): raising one cell of the own-position
    plane moves the cell logits there, not the others."""
    from spyenvs.games.specter_ops.observe import PLANES

    g = spyenvs.make_game(ENV)
    g.reset(0)
    assert g.action_label(0).endswith("A1") and g.action_label(24).endswith("B2")
    pol = _policy(game, dict(SMALL, dilations=[1]))
    for p in pol.actor.parameters():
        torch.nn.init.zeros_(p)
    with torch.no_grad():
        pol.actor.convs[0].bias.fill_(1.0)
        pol.actor.cell.weight.fill_(1.0)
    x = np.zeros((1, game.observation_size + 2), np.float32)
    plane = [name for name, _ in PLANES].index("own_position")
    h, w = 32, 23
    cell = 5 * w + 7
    x[0, plane * h * w + cell] = 1.0
    with torch.no_grad():
        pol.actor.convs[0].weight[:, plane, 1, 1] = 5.0  # only the centre tap: the cell itself
    logits = _torch_logits(pol, x)[0]
    assert int(np.argmax(logits[: h * w])) == cell


def test_masked_actions_are_never_chosen(game, observations):
    pol = _policy(game, SMALL)
    arrays, extra = export_actor(pol)
    obs, kinds, masks = observations
    for det in (True, False):
        player = TorchPolicy.from_arrays(arrays, _meta(game, extra), deterministic=det, seed=3).bind(game, 0)
        for o, m in zip(obs, masks):
            assert m[player.act(o, m)]
        acts = player.act_batch(obs, masks)
        assert masks[np.arange(len(acts)), acts].all()
    x = torch.as_tensor(_inputs(observations))
    with torch.no_grad():
        for _ in range(5):
            a = pol.get_distribution(x, action_masks=masks).get_actions().numpy()
            assert masks[np.arange(len(a)), a].all()
        actions, _, logp = pol(x, action_masks=masks)
        assert masks[np.arange(len(actions)), actions.numpy()].all() and torch.isfinite(logp).all()


def test_tiny_maskable_ppo_learn_runs_on_vec_selfplay(game):
    from sb3_contrib import MaskablePPO

    from spyenvs.agents import RandomPolicy
    from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv

    cls, kw = policy_kwargs_for(ENV, game, SMALL)
    venv = VecSelfPlayEnv(ENV, {}, [RandomPolicy(0)], num_envs=4, scale_observations=True, seed=0)
    model = MaskablePPO(cls, venv, n_steps=64, batch_size=64, n_epochs=1, device="cpu", seed=0, policy_kwargs=kw)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    venv.close()
    assert model.num_timesteps >= 256
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))


@pytest.mark.parametrize("suffix,dtype", [(".pt", "float32"), (".npz", "float32"), (".npz", "float16")])
def test_checkpoint_round_trip_plays_a_game(tmp_path, game, observations, suffix, dtype):
    pol = _policy(game, SMALL)
    meta = _meta(game, {})
    path = str(tmp_path / f"cnn{suffix}")
    save_trained(path, pol, None, meta, dtype=dtype)
    loaded = TorchPolicy.load(path)
    assert isinstance(loaded.net, BoardActor) and read_checkpoint(path)[1]["arch"] == "board_cnn"
    x = _inputs(observations)
    ref = inference_policy(pol, None, meta).net.logits(x)
    tol = 1e-5 if dtype == "float32" else 2e-2 * max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(_normalised(loaded.net.logits(x)), _normalised(ref), atol=tol)
    g = spyenvs.make_game(ENV)
    g.reset(2)
    players = [make_policy(path, seed=1).bind(g, s) for s in range(g.num_players)]
    steps = 0
    while not g.is_over and steps < 3000:
        p = g.current_player
        g.step(players[p].act(g.observe(p), g.legal_mask()))  # an illegal move would raise
        steps += 1
    assert steps > 10


def test_mlp_checkpoints_still_load_as_before(tmp_path, game):
    from spyenvs.agents.checkpoint import load_policy, save_policy

    rng = np.random.default_rng(0)
    d = game.observation_size + 2
    weights = [(rng.normal(size=(4, d)).astype(np.float32), np.zeros(4, np.float32)),
               (rng.normal(size=(game.num_actions, 4)).astype(np.float32), np.zeros(game.num_actions, np.float32))]
    save_policy(tmp_path / "m.npz", weights, _meta(game, {}))
    w2, meta = load_policy(tmp_path / "m.npz")
    assert "arch" not in meta and all(np.array_equal(a, b) for (a, _), (b, _) in zip(weights, w2))
    loaded = TorchPolicy.load(tmp_path / "m.npz")
    assert type(loaded) is TorchPolicy and type(loaded.net) is MLPActor


def test_malformed_board_checkpoints_are_clear_errors(tmp_path, game):
    pol = _policy(game, SMALL)
    arrays, extra = export_actor(pol)
    meta = _meta(game, extra)
    bad = dict(arrays)
    del bad["cell.w"]
    save_arrays(tmp_path / "missing.npz", bad, meta)
    with pytest.raises(CheckpointError, match="lacks 'cell.w'"):
        TorchPolicy.load(tmp_path / "missing.npz")
    bad = dict(arrays, **{"conv1.w": arrays["conv1.w"][:, :3]})
    save_arrays(tmp_path / "shape.npz", bad, meta)
    with pytest.raises(CheckpointError, match="malformed board_cnn"):
        TorchPolicy.load(tmp_path / "shape.npz")
    save_arrays(tmp_path / "arch.npz", arrays, dict(meta, arch="transformer"))
    with pytest.raises(CheckpointError, match="unknown network arch 'transformer'"):
        TorchPolicy.load(tmp_path / "arch.npz")
    with pytest.raises(CheckpointError, match="not an MLP"):
        from spyenvs.agents.checkpoint import load_policy

        save_arrays(tmp_path / "ok.npz", arrays, meta)
        load_policy(tmp_path / "ok.npz")


def test_policy_kwargs_for_picks_the_board_net_only_where_there_is_a_board(game):
    cls, kw = policy_kwargs_for(ENV, game)
    assert cls is BoardActorCriticPolicy and kw["board_shape"] == (19, 32, 23) and kw["cell_actions"] == 736
    cls, kw = policy_kwargs_for(ENV, game, {"arch": "mlp", "hidden": [64], "activation": "relu"})
    assert cls is LeanMaskablePolicy and kw["net_arch"] == {"pi": [64], "vf": [64]}
    other = spyenvs.make_game("unrest_v0")
    assert policy_kwargs_for("unrest_v0", other, {"arch": "mlp"})[0] is LeanMaskablePolicy
    assert policy_kwargs_for("unrest_v0", other)[0] is CardTableActorCriticPolicy  # auto: Unrest's own net
    with pytest.raises(ValueError, match="needs a game with board planes"):
        policy_kwargs_for("unrest_v0", other, {"arch": "board_cnn"})
    with pytest.raises(ValueError, match="net.arch must be"):
        policy_kwargs_for(ENV, game, {"arch": "resnet"})


def _mlp_policy(game, net):
    torch.manual_seed(0)
    cls, kw = policy_kwargs_for(ENV, game, net)
    assert cls is LeanMaskablePolicy
    obs_space = gym.spaces.Box(-np.inf, np.inf, (game.observation_size + 2,), np.float32)
    pol = LeanMaskablePolicy(obs_space, gym.spaces.Discrete(game.num_actions), lambda _: 3e-4, **kw)
    with torch.no_grad():  # spread the near-flat initial logits so a mismatch shows
        for p in pol.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return pol, kw


def test_mlp_leaves_out_the_inputs_the_game_declares_constant(game):
    pol, kw = _mlp_policy(game, {"arch": "mlp"})
    assert kw["features_extractor_class"] is KeepColumns
    first = pol.mlp_extractor.policy_net[0]
    assert first.in_features == game.varying_inputs().size + 2 < game.observation_size // 2  # + role one-hot
    _, kw = _mlp_policy(game, {"arch": "mlp", "drop_constant_inputs": False})
    assert "features_extractor_class" not in kw
    other = spyenvs.make_game("unrest_v0")  # declares every entry as varying
    assert "features_extractor_class" not in policy_kwargs_for("unrest_v0", other, {"arch": "mlp"})[1]


def test_exported_mlp_with_dropped_inputs_reads_full_observations(game, observations):
    from spyenvs.experiments.export import actor_weights

    pol, _ = _mlp_policy(game, {"arch": "mlp"})
    rng = np.random.default_rng(1)
    n = game.observation_size
    scale = (rng.uniform(-0.5, 0.5, n).astype(np.float32), rng.uniform(0.5, 2.0, n).astype(np.float32))
    x = _inputs(observations, scale)
    numpy_actor = TorchPolicy(actor_weights(pol, scale), _meta(game, {}))
    assert numpy_actor.net.weights[0][0].shape[0] == game.observation_size + 2  # stored transposed
    got = numpy_actor.net.logits(np.stack([policy_input(o, k, 2) for o, k in zip(observations[0], observations[1])]))
    np.testing.assert_allclose(_normalised(got), _normalised(_torch_logits(pol, x)), atol=1e-4)


def test_opponent_class_reaches_the_critic_and_never_the_actor(game, observations):
    from spyenvs.experiments.nets import CriticInputPolicy
    from spyenvs.experiments.export import actor_weights

    torch.manual_seed(0)
    cls, kw = policy_kwargs_for(ENV, game, {"arch": "mlp"}, critic_only_dims=3)
    assert cls is CriticInputPolicy
    obs_space = gym.spaces.Box(-np.inf, np.inf, (game.observation_size + 2 + 3,), np.float32)
    pol = cls(obs_space, gym.spaces.Discrete(game.num_actions), lambda _: 3e-4, **kw)
    with torch.no_grad():
        for p in pol.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    x = _inputs(observations)
    vs_random = torch.as_tensor(np.concatenate([x, np.tile([1, 0, 0], (len(x), 1))], 1).astype(np.float32))
    vs_snapshot = torch.as_tensor(np.concatenate([x, np.tile([0, 0, 1], (len(x), 1))], 1).astype(np.float32))
    with torch.no_grad():
        np.testing.assert_array_equal(pol.get_distribution(vs_random).distribution.logits.numpy(),
                                      pol.get_distribution(vs_snapshot).distribution.logits.numpy())
        assert not torch.allclose(pol.predict_values(vs_random), pol.predict_values(vs_snapshot))
    weights = actor_weights(pol, None)
    assert weights[0][0].shape[1] == game.observation_size + 2  # the exported actor never reads it
    logits = TorchPolicy(weights, _meta(game, {})).net.logits(x)
    np.testing.assert_allclose(_normalised(logits), _normalised(_torch_logits(pol, vs_random.numpy())), atol=1e-4)
    with pytest.raises(ValueError, match="needs net.arch mlp"):
        policy_kwargs_for(ENV, game, {"arch": "board_cnn"}, critic_only_dims=3)


def test_lean_masked_distribution_equals_sb3_contribs():
    from sb3_contrib.common.maskable.distributions import MaskableCategorical

    from spyenvs.experiments.nets import LeanMaskableCategorical

    g = torch.Generator().manual_seed(0)
    logits = torch.randn(64, 115, generator=g) * 3
    masks = torch.rand(64, 115, generator=g) > 0.7
    masks[:, 5] = True
    actions = torch.multinomial(masks.float(), 1, generator=g).squeeze(1)
    for m in (masks, None):
        ours, theirs = LeanMaskableCategorical(logits=logits, masks=m), MaskableCategorical(logits=logits, masks=m)
        assert torch.allclose(ours.logits, theirs.logits, atol=1e-5)
        assert torch.allclose(ours.probs, theirs.probs, atol=1e-6)
        assert torch.allclose(ours.log_prob(actions), theirs.log_prob(actions), atol=1e-5)
        assert torch.allclose(ours.entropy(), theirs.entropy(), atol=1e-5)
    assert float(LeanMaskableCategorical(logits=logits, masks=masks).probs[~masks].max()) == 0.0


def test_env_side_dropped_inputs_export_to_an_actor_reading_full_observations(game, observations):
    from spyenvs.experiments.nets import env_columns_for
    from spyenvs.experiments.export import actor_weights

    cols = env_columns_for(ENV, game, {"arch": "mlp"})
    np.testing.assert_array_equal(cols, game.varying_inputs())
    assert env_columns_for(ENV, game, {"arch": "mlp", "drop_constant_inputs": False}) is None
    assert env_columns_for(ENV, game, {"arch": "board_cnn"}) is None
    assert env_columns_for("unrest_v0", spyenvs.make_game("unrest_v0"), {"arch": "mlp"}) is None
    torch.manual_seed(0)
    cls, kw = policy_kwargs_for(ENV, game, {"arch": "mlp"}, env_columns=cols)
    obs_space = gym.spaces.Box(-np.inf, np.inf, (cols.size + 2,), np.float32)
    pol = cls(obs_space, gym.spaces.Discrete(game.num_actions), lambda _: 3e-4, **kw)
    assert pol.mlp_extractor.policy_net[0].in_features == cols.size + 2
    with torch.no_grad():
        for p in pol.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    rng = np.random.default_rng(1)
    n = game.observation_size
    scale = (rng.uniform(-0.5, 0.5, n).astype(np.float32), rng.uniform(0.5, 2.0, n).astype(np.float32))
    full = _inputs(observations, scale)
    compact = np.concatenate([full[:, cols], full[:, n:]], 1)
    actor = TorchPolicy(actor_weights(pol, scale), _meta(game, {}))
    got = actor.net.logits(np.stack([policy_input(o, k, 2) for o, k in zip(observations[0], observations[1])]))
    np.testing.assert_allclose(_normalised(got), _normalised(_torch_logits(pol, compact)), atol=1e-4)


def test_vec_env_writes_only_the_given_observation_columns(game):
    from spyenvs.agents import RandomPolicy
    from spyenvs.wrappers.selfplay import observation_scale
    from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv

    cols = game.varying_inputs()
    whole = VecSelfPlayEnv(ENV, {}, [RandomPolicy(0)], num_envs=2, scale_observations=True, seed=4)
    part = VecSelfPlayEnv(ENV, {}, [RandomPolicy(0)], num_envs=2, scale_observations=True, seed=4,
                          obs_columns=cols)
    assert part.observation_space.shape[0] == cols.size + 2
    a, b = whole.reset(), part.reset()
    np.testing.assert_array_equal(a[:, cols], b[:, : cols.size])
    np.testing.assert_array_equal(a[:, game.observation_size:], b[:, cols.size:])
    low, inv = observation_scale(game.layout)
    slot = part.slots[0]
    np.testing.assert_allclose(b[0, : cols.size], (slot.game.observe(slot.seat)[cols] - low[cols]) * inv[cols])
    with pytest.raises(ValueError, match="obs_columns"):
        VecSelfPlayEnv(ENV, {}, [RandomPolicy(0)], num_envs=1, obs_columns=[game.observation_size])
