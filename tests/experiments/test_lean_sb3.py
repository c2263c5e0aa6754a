"""``LeanAdam`` (experiments/lean_sb3.py): the same updates as torch's fused Adam,
checkpoints in torch's format, and a training process that never imports
``torch._dynamo`` (the import it exists to avoid)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from spyenvs.experiments.lean_sb3 import LeanAdam  # noqa: E402


def _net(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(7, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))


def _train(net, opt, steps, seed=0):
    g = torch.Generator().manual_seed(seed)
    for i in range(steps):
        x = torch.randn(32, 7, generator=g)
        loss = net(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        for group in opt.param_groups:  # SB3 writes the scheduled learning rate here
            group["lr"] = 1e-2 / (1 + i)
        opt.step()


def test_lean_adam_updates_equal_torch_fused_adam_bit_for_bit():
    a, b = _net(0), _net(0)
    _train(a, LeanAdam(a.parameters(), lr=1e-2, weight_decay=1e-3), 6)
    _train(b, torch.optim.Adam(b.parameters(), lr=1e-2, weight_decay=1e-3, fused=True), 6)
    for pa, pb in zip(a.parameters(), b.parameters()):
        assert torch.equal(pa, pb)


def test_lean_adam_checkpoint_loads_into_torch_adam_and_back():
    a, b = _net(1), _net(1)
    opt_a = LeanAdam(a.parameters(), lr=1e-2)
    _train(a, opt_a, 3)
    b.load_state_dict(a.state_dict())
    opt_b = torch.optim.Adam(b.parameters(), lr=1e-2, fused=True)
    opt_b.load_state_dict(opt_a.state_dict())
    _train(a, opt_a, 3, seed=1)
    _train(b, opt_b, 3, seed=1)
    for pa, pb in zip(a.parameters(), b.parameters()):
        assert torch.equal(pa, pb)
    back = LeanAdam(_net(2).parameters())
    back.load_state_dict(opt_b.state_dict())
    assert back.param_groups[0]["lr"] == opt_b.param_groups[0]["lr"]
    assert len(back.state) == len(list(a.parameters()))


def test_lean_adam_refuses_a_parameter_list_that_does_not_match():
    opt = LeanAdam(_net(0).parameters())
    with pytest.raises(ValueError, match="parameter groups"):
        opt.load_state_dict(LeanAdam(torch.nn.Linear(2, 2).parameters()).state_dict())


def test_a_training_run_never_imports_torch_dynamo():
    pytest.importorskip("sb3_contrib")
    script = textwrap.dedent("""
        import sys, tempfile
        from tests.core.toy_game import HighCard
        from spyenvs.experiments.train_selfplay import load_config, train
        cfg = load_config(None, HighCard.env_id, {"total_timesteps": 256, "n_envs": 2, "ppo.n_steps": 128,
                          "ppo.batch_size": 64, "ppo.n_epochs": 1, "eval.every": 10**9, "eval.games": 0,
                          "eval.final_games": 0, "game.num_players": 2})
        train(cfg, tempfile.mkdtemp(), quiet=True, game=HighCard)
        print("torch._dynamo" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_lean_rollout_buffer_hands_out_the_same_minibatches():
    import gymnasium as gym
    import numpy as np
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    from spyenvs.experiments.lean_sb3 import LeanRolloutBuffer

    obs_space, act_space = gym.spaces.Box(-1, 1, (5,), np.float32), gym.spaces.Discrete(4)
    buffers = [cls(8, obs_space, act_space, n_envs=2) for cls in (MaskableRolloutBuffer, LeanRolloutBuffer)]
    rng = np.random.default_rng(0)
    for rollout in range(2):  # the second in the lean buffer's kept observation array
        for b in buffers:
            b.reset()
        for _ in range(8):
            row = (rng.random((2, 5), dtype=np.float32), rng.integers(0, 4, (2, 1)), rng.random(2),
                   np.array([False, True]), torch.rand(2), torch.rand(2), rng.random((2, 4)) > 0.3)
            for b in buffers:
                b.add(*row[:6], action_masks=row[6])
        last_values = torch.rand(2)
        for b in buffers:
            b.compute_returns_and_advantage(last_values, np.array([False, False]))
        for epoch in range(2):  # PPO reads the buffer once per epoch
            batches = []
            for b in buffers:
                np.random.seed(3 + epoch)  # SB3 shuffles with numpy's global generator
                batches.append(list(b.get(batch_size=5)))
            assert len(batches[0]) == len(batches[1]) == 4
            for theirs, ours in zip(*batches):
                for x, y in zip(theirs, ours):
                    assert torch.equal(x, y), (rollout, epoch)
