"""Self-play games split over processes: the same steps as one process (rows, masks,
rewards, dones, infos), the pool reaching the workers (new policies reseeded there),
summed counts, one-line errors from a worker that fails or dies, and a training run on
it."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from spyenvs.agents.policy import BasePolicy  # noqa: E402
from spyenvs.agents.prior import make_prior  # noqa: E402
from spyenvs.wrappers.vec_processes import ProcessVecSelfPlayEnv, can_fork, shard_sizes  # noqa: E402
from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv  # noqa: E402
from tests.wrappers.test_vec_selfplay import FirstLegal, _learner_action  # noqa: E402

#: tests of the workers themselves (elsewhere the env runs every game in one process)
needs_workers = pytest.mark.skipif(not can_fork() or not os.path.isdir("/proc"),
                                   reason="worker processes are forked (and watched through /proc) on Linux")


class LastLegal(BasePolicy):
    name = "last_legal"

    def act(self, observation, mask):
        return int(np.flatnonzero(mask)[-1])


class NeedsReseedInAWorker(BasePolicy):
    """Raises in a worker unless reseeded there; plays the legal move its seed picks."""

    name = "needs_reseed"

    def __init__(self):
        self.home = os.getpid()
        self.seeded: int | None = None

    def reseed(self, seed: int) -> None:
        self.seeded = int(seed)

    def act(self, observation, mask):
        if os.getpid() != self.home and self.seeded is None:
            raise ValueError("played on the trainer's random stream")
        legal = np.flatnonzero(mask)
        return int(legal[(self.seeded or 0) % legal.size])


class FailsInAWorker(BasePolicy):
    """Plays first-legal in the process that made it and raises in any other."""

    name = "fails_in_a_worker"

    def __init__(self):
        self.home = os.getpid()

    def act(self, observation, mask):
        if os.getpid() != self.home:
            raise ValueError("no moves here\nsecond line")
        return int(np.flatnonzero(mask)[0])


def _play(venv, steps, switch_at=None, pool=None):
    """``steps`` learner steps with a deterministic learner; every step's arrays copied;
    at step ``switch_at`` the pool becomes ``pool`` (default: a new LastLegal)."""
    out = []
    obs = venv.reset().copy()
    for t in range(steps):
        if t == switch_at:
            venv.env_method("set_opponents", pool if pool is not None else [(LastLegal(), 1.0)])
        masks = np.stack(venv.env_method("action_masks"))
        actions = np.array([_learner_action(obs[i], masks[i]) for i in range(venv.num_envs)])
        obs, rewards, dones, infos = venv.step(actions)
        obs = obs.copy()
        kept = [{k: v for k, v in info.items() if k != "episode"} for info in infos]
        out.append((obs, masks, rewards.copy(), dones.copy(), kept))
    return out


def _one_and_split(env_id, opponents, processes=2, **options):
    """The same games in one process and split over ``processes``."""
    return (VecSelfPlayEnv(env_id, {}, opponents, **options),
            ProcessVecSelfPlayEnv(env_id, {}, opponents, processes=processes, **options))


def _assert_same_steps(a, b):
    assert len(a) == len(b)
    for (oa, ma, ra, da, ia), (ob, mb, rb, db, ib) in zip(a, b):
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ma, mb)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)
        for x, y in zip(ia, ib):
            assert x.keys() == y.keys()
            for key in x:
                np.testing.assert_array_equal(x[key], y[key])


@pytest.mark.parametrize("env_id", ["unrest_v0", "the_agents_v0"])
def test_games_split_over_processes_play_the_steps_of_one_process(env_id):
    one, split = _one_and_split(env_id, [FirstLegal()], num_envs=5, max_decisions=300, seed=7)
    try:
        _assert_same_steps(_play(one, 60), _play(split, 60))
        # each process batches its own games: more opponent calls, the same decisions
        got, want = split.stats, dict(one.stats)
        assert got.pop("opponent_calls") >= want.pop("opponent_calls")
        assert got == want
    finally:
        split.close()


def test_with_a_prior_the_split_rows_carry_the_same_prior_columns():
    one, split = _one_and_split("unrest_v0", [FirstLegal()], processes=3, num_envs=4, max_decisions=300, seed=3,
                                prior=make_prior("heuristic", seed=1))
    try:
        assert split.row_layout() == one.row_layout() and split.row_layout()["prior"] > 0
        _assert_same_steps(_play(one, 40), _play(split, 40))
    finally:
        split.close()


def test_a_new_pool_reaches_every_process():
    one, split = _one_and_split("unrest_v0", [FirstLegal()], num_envs=4, max_decisions=300, seed=5)
    try:
        want, got = _play(one, 120, switch_at=20), _play(split, 120, switch_at=20)
        _assert_same_steps(want, got)
        assert any(info.get("opponent") == "last_legal" for step in got for info in step[4][2:])
        assert split.pool_names() == ["last_legal"]
    finally:
        split.close()


def test_a_policy_already_sent_goes_by_its_key_and_plays_as_in_one_process():
    first = FirstLegal()
    one, split = _one_and_split("unrest_v0", [first], num_envs=4, max_decisions=300, seed=9)
    try:
        last = LastLegal()
        pool = [(first, 1.0, "first"), (last, 1.0, "last")]
        _assert_same_steps(_play(one, 150, switch_at=10, pool=pool), _play(split, 150, switch_at=10, pool=pool))
        assert [key for key, _ in split._sent_policies.values()] == [0, 1]
    finally:
        split.close()


def test_one_process_plays_the_steps_of_the_one_process_env():
    one, split = _one_and_split("the_agents_v0", [FirstLegal()], processes=1, num_envs=3, max_decisions=300, seed=2)
    _assert_same_steps(_play(one, 40), _play(split, 40))
    split.close()
    assert split.processes == 1 and split.stats["learner_decisions"] == 120


@needs_workers
def test_a_policy_sent_later_is_reseeded_in_each_worker_and_plays_reproducibly():
    runs = []
    for _ in range(2):
        split = ProcessVecSelfPlayEnv("unrest_v0", {}, [FirstLegal()], num_envs=4, processes=2, seed=4)
        try:
            runs.append(_play(split, 150, switch_at=5, pool=[NeedsReseedInAWorker()]))
        finally:
            split.close()
    _assert_same_steps(*runs)


@needs_workers
def test_a_dead_worker_is_a_one_line_error_and_the_env_then_only_closes():
    split = ProcessVecSelfPlayEnv("unrest_v0", {}, [FirstLegal()], num_envs=2, processes=2, seed=1)
    try:
        split.reset()
        os.kill(split._procs[0].pid, signal.SIGKILL)
        split._procs[0].join(5)
        with pytest.raises(RuntimeError, match=r"^vec env worker 1: died \(exit code -9\)$"):
            split.step(np.array([int(np.flatnonzero(m)[0]) for m in split.action_masks()]))
        with pytest.raises(RuntimeError, match="worker 1: died"):
            split.reset()
    finally:
        split.close()
    assert split.stats["learner_decisions"] <= 2


def test_counts_are_summed_over_processes_and_kept_after_close():
    split = ProcessVecSelfPlayEnv("the_agents_v0", {}, [FirstLegal()], num_envs=4, processes=2, seed=1)
    _play(split, 10)
    split.close()
    assert split.stats["learner_decisions"] == 40
    assert split.stats["opponent_decisions"] > 0


@needs_workers
def test_a_workers_error_arrives_as_one_line():
    split = ProcessVecSelfPlayEnv("unrest_v0", {}, [FailsInAWorker()], num_envs=2, processes=2, seed=1)
    try:
        with pytest.raises(RuntimeError, match=r"^vec env worker 1: ValueError: no moves here$"):
            _play(split, 50)
    finally:
        split.close()


def test_processes_must_be_between_one_and_the_number_of_games():
    with pytest.raises(ValueError, match="processes must be between 1 and num_envs"):
        ProcessVecSelfPlayEnv("unrest_v0", {}, [FirstLegal()], num_envs=2, processes=3)
    assert shard_sizes(5, 2) == [3, 2] and shard_sizes(64, 2) == [32, 32]


def test_env_processes_option_is_checked():
    pytest.importorskip("sb3_contrib")
    from spyenvs.experiments.config import TrainConfig

    with pytest.raises(ValueError, match=r"'env_processes' must be at least 1, got 0"):
        TrainConfig(env_id="unrest_v0", env_processes=0)


def test_a_training_run_on_two_processes_trains_and_reports_every_games_count(tmp_path):
    pytest.importorskip("sb3_contrib")
    from spyenvs.experiments.train_selfplay import load_config, train

    cfg = load_config(None, "unrest_v0", {"total_timesteps": 256, "n_envs": 4, "env_processes": 2, "flush_denormals": True,
                                          "ppo.n_steps": 64, "ppo.batch_size": 128, "ppo.n_epochs": 1, "eval.every": 10**9, "eval.games": 0,
                                          "eval.final_games": 0, "warm_start.games": 0, "selection.snapshots": 1,
                                          "league.snapshot_every": 128})
    res = train(cfg, str(tmp_path), quiet=True)
    assert res["timesteps"] == 256
    assert res["env_stats"]["learner_decisions"] == 256  # both processes' games
    assert os.listdir(tmp_path / "snapshots")  # a snapshot joined the pool: a TorchPolicy sent to the worker


def test_more_env_processes_than_games_uses_one_per_game():
    pytest.importorskip("sb3_contrib")
    from spyenvs.experiments.train_selfplay import describe_game, load_config, make_vec_env

    cfg = load_config(None, "the_agents_v0", {"n_envs": 2, "env_processes": 4})
    venv = make_vec_env(cfg, describe_game(cfg, None), "the_agents_v0", [FirstLegal()])
    try:
        assert venv.processes == 2 and venv.num_envs == 2
    finally:
        venv.close()



@needs_workers
def test_a_worker_ends_when_its_trainer_is_killed():
    import subprocess
    import sys
    import time

    script = (
        "import time\n"
        "from spyenvs.wrappers.vec_processes import ProcessVecSelfPlayEnv\n"
        "from tests.wrappers.test_vec_selfplay import FirstLegal\n"
        "env = ProcessVecSelfPlayEnv('unrest_v0', {}, [FirstLegal()], num_envs=2, processes=2, seed=1)\n"
        "env.reset()\n"
        "print(env._procs[0].pid, flush=True)\n"
        "time.sleep(120)\n"
    )
    trainer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    worker = int(trainer.stdout.readline())
    trainer.kill()
    trainer.wait(10)

    def running() -> bool:  # an exited worker no one has reaped yet is a zombie ("Z"): gone too
        try:
            with open(f"/proc/{worker}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and running():
        time.sleep(0.1)
    gone = not running()
    if not gone:
        os.kill(worker, signal.SIGKILL)
    assert gone
