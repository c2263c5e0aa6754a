"""The warm start (spyenvs.experiments.warm_start): the teacher's recorded decisions,
cloning them into the actor, the decaying cloning term during PPO, and a training run
that starts from a clone."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from spyenvs.agents import HeuristicPolicy  # noqa: E402
from spyenvs.experiments.train_selfplay import (  # noqa: E402
    DEMO_PART,
    DEMOS_FILE,
    WarmStart,
    demonstration_part,
    describe_game,
    load_config,
    train,
)
from spyenvs.experiments.warm_start import (  # noqa: E402
    CloneRegulariser,
    behaviour_clone,
    collect_demonstrations,
    join_demonstrations,
    load_demonstrations,
)
from tests.core.toy_game import HighCard  # noqa: E402


def _demos(games=200, rounds=1):
    return collect_demonstrations(lambda: HighCard(num_players=2, rounds=rounds), _teacher(), games, seed=3,
                                  learner_kinds=["player"], kinds=["player"], scale=None, gamma=0.5)


def _teacher():
    return HeuristicPolicy(0)  # the toy heuristic registered in conftest: keep a high card


def test_demonstrations_hold_the_teachers_choices_with_discounted_outcomes():
    demos = _demos(games=60, rounds=2)
    n = len(demos["actions"])
    assert n > 60 and demos["obs"].shape[0] == demos["masks"].shape[0] == demos["returns"].shape[0] == n
    assert demos["masks"].all()  # both actions legal in HighCard: every decision is a choice
    # the teacher keeps a card in the top half (deck 6: cards 3..5) and swaps otherwise
    cards = demos["obs"][:, :6].argmax(axis=1)
    np.testing.assert_array_equal(demos["actions"], np.where(cards >= 3, 0, 1))
    # outcomes are +-1, discounted by 0.5 per later decision of the same seat
    assert set(np.round(np.abs(demos["returns"]), 6)) <= {1.0, 0.5}


def test_behaviour_clone_fits_the_actor_to_the_teacher():
    from sb3_contrib import MaskablePPO

    from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv

    venv = VecSelfPlayEnv(HighCard, {"num_players": 2}, opponents=[HeuristicPolicy(1)], num_envs=2,
                          scale_observations=False)
    model = MaskablePPO("MlpPolicy", venv, seed=0, n_steps=32, batch_size=32, policy_kwargs={"net_arch": [32]})
    demos = _demos()
    # one role kind: the env appends no role one-hot, so the recorded rows fit as they are
    assert demos["obs"].shape[1] == venv.observation_space.shape[0]
    stats = behaviour_clone(model.policy, demos, epochs=30, batch_size=64, lr=1e-2)
    assert stats["agreement"] >= 0.95 and stats["samples"] == len(demos["actions"])


def test_clone_term_weight_decays_linearly_to_zero_and_then_stops():
    reg = CloneRegulariser(_demos(games=10), coef=0.5, decay_steps=1000, steps=2, batch_size=8)
    assert reg.weight(0) == 0.5 and reg.weight(500) == pytest.approx(0.25)
    assert reg.weight(1000) == 0.0 and reg.weight(5000) == 0.0

    class Model:
        num_timesteps = 1000

    assert reg.apply(Model()) is None  # weight 0: no cloning step is taken


def test_training_with_a_warm_start_reports_the_clone(tmp_path):
    cfg = load_config(None, HighCard.env_id, {"total_timesteps": 256, "n_envs": 2, "ppo.n_steps": 64,
                                              "ppo.batch_size": 64, "ppo.n_epochs": 1, "eval.games": 0,
                                              "eval.final_games": 10, "warm_start.games": 80,
                                              "warm_start.epochs": 20, "clone_reg.coef": 0.5,
                                              "game.num_players": 2})
    res = train(cfg, str(tmp_path), quiet=True, game=HighCard)
    ws = res["warm_start"]
    assert ws["samples"] > 0 and ws["agreement"] >= 0.9


def test_a_resumed_run_reads_its_cloning_term_demonstrations_back(tmp_path, monkeypatch):
    """The demonstrations the cloning term uses are kept in the run folder, so --resume
    does not play the teacher's games again (a search teacher takes seconds a game)."""
    opts = {"total_timesteps": 128, "n_envs": 2, "ppo.n_steps": 64, "ppo.batch_size": 64, "ppo.n_epochs": 1,
            "league.snapshot_every": 128, "eval.games": 0, "eval.final_games": 4, "warm_start.games": 10,
            "warm_start.epochs": 1,
            "clone_reg.coef": 0.5, "game.num_players": 2}
    train(load_config(None, HighCard.env_id, opts), str(tmp_path), quiet=True, game=HighCard)
    kept, teacher = load_demonstrations(str(tmp_path / DEMOS_FILE))
    assert len(kept["actions"]) > 10 and teacher == "heuristic"

    def no_teacher_games(self, *args, **kwargs):
        raise AssertionError("the resumed run played the teacher's games again")

    monkeypatch.setattr(WarmStart, "demonstrations", no_teacher_games)
    res = train(load_config(None, HighCard.env_id, dict(opts, total_timesteps=256)), str(tmp_path), resume=True,
                quiet=True, game=HighCard)
    assert res["timesteps"] >= 256


def test_a_run_clones_the_demonstrations_another_run_kept(tmp_path):
    """warm_start.demos: a kept demos.npz is cloned instead of playing the teacher's
    games; a file of another teacher, or rows of another width, is a one-line error."""
    opts = {"total_timesteps": 64, "n_envs": 2, "ppo.n_steps": 32, "ppo.batch_size": 32, "ppo.n_epochs": 1,
            "eval.games": 0, "eval.final_games": 2, "warm_start.games": 20, "warm_start.epochs": 20,
            "warm_start.teacher": "random", "game.num_players": 2}
    first = train(load_config(None, HighCard.env_id, opts), str(tmp_path / "a"), quiet=True, game=HighCard)
    kept = str(tmp_path / "a" / DEMOS_FILE)  # a teacher other than the heuristic: kept
    again = train(load_config(None, HighCard.env_id, dict(opts, **{"warm_start.games": 0, "warm_start.demos": kept})),
                  str(tmp_path / "b"), quiet=True, game=HighCard)
    assert again["warm_start"]["samples"] == first["warm_start"]["samples"]
    with pytest.raises(ValueError, match="holds random's games; set warm_start.teacher=random") as err:
        train(load_config(None, HighCard.env_id, dict(opts, **{"warm_start.teacher": "heuristic",
                                                               "warm_start.demos": kept})),
              str(tmp_path / "c"), quiet=True, game=HighCard)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="this run's are"):
        train(load_config(None, HighCard.env_id, dict(opts, **{"warm_start.demos": kept, "game.num_players": 3})),
              str(tmp_path / "d"), quiet=True, game=HighCard)


class _Swapper:
    """Always swaps (action 1), whatever the card: a student that plays badly."""

    name = "swapper"

    def __init__(self):
        self.calls = 0

    def bind(self, game, seat):
        return self

    def act(self, obs, mask):
        self.calls += 1
        return 1


def test_dagger_games_are_played_by_the_student_and_labelled_by_the_teacher():
    student = _Swapper()
    demos = collect_demonstrations(lambda: HighCard(num_players=2, rounds=2), _teacher(), 40, seed=3,
                                   learner_kinds=["player"], kinds=["player"], scale=None, gamma=0.5,
                                   student=student)
    n = len(demos["actions"])
    # every recorded decision was played by the student (HighCard: every decision is a choice) ...
    assert n > 40 and student.calls == n
    # ... and labelled with the teacher's choice: keep a card in the top half, else swap
    cards = demos["obs"][:, :6].argmax(axis=1)
    np.testing.assert_array_equal(demos["actions"], np.where(cards >= 3, 0, 1))
    assert (demos["actions"] == 0).any()  # so the labels are not the student's moves


def test_training_with_dagger_rounds_clones_on_the_aggregated_labels(tmp_path):
    cfg = load_config(None, HighCard.env_id, {"total_timesteps": 256, "n_envs": 2, "ppo.n_steps": 64,
                                              "ppo.batch_size": 64, "ppo.n_epochs": 1, "eval.games": 0,
                                              "eval.final_games": 10, "warm_start.games": 40,
                                              "warm_start.epochs": 20, "warm_start.dagger_rounds": 2,
                                              "warm_start.dagger_games": 30, "warm_start.dagger_epochs": 10,
                                              "clone_reg.coef": 0.5, "game.num_players": 2})
    first = train(dict(cfg, warm_start=dict(cfg["warm_start"], dagger_rounds=0)), str(tmp_path / "bc"), quiet=True,
                  game=HighCard)["warm_start"]
    res = train(cfg, str(tmp_path / "dagger"), quiet=True, game=HighCard)
    ws = res["warm_start"]
    assert ws["dagger_rounds"] == 2 and ws["agreement"] >= 0.9
    assert ws["samples"] > first["samples"]  # the DAgger labels joined the teacher's


def test_a_part_of_a_collection_plays_the_games_of_its_numbers():
    """Game numbers pick the kind of game: even ones put the teacher in every seat (both
    seats recorded), odd ones one teacher seat against random."""
    def part(first, games):
        return collect_demonstrations(lambda: HighCard(num_players=2, rounds=1), _teacher(), games, seed=3,
                                      learner_kinds=["player"], kinds=["player"], scale=None, first=first)

    assert len(part(0, 1)["actions"]) == 2 and len(part(1, 1)["actions"]) == 1


def test_games_against_an_opponent_record_one_teacher_seat_each_game():
    """warm_start.opponent: every game puts the teacher in one learner seat (rotating)
    against that policy, so only that seat's decisions are recorded."""
    class Counting(_Swapper):
        name = "counting"

    opponent = Counting()
    demos = collect_demonstrations(lambda: HighCard(num_players=2, rounds=1), _teacher(), 6, seed=3,
                                   learner_kinds=["player"], kinds=["player"], scale=None, opponent=opponent)
    assert len(demos["actions"]) == 6 and opponent.calls == 6  # one decision each per game, the other seat its
    cards = demos["obs"][:, :6].argmax(axis=1)
    np.testing.assert_array_equal(demos["actions"], np.where(cards >= 3, 0, 1))  # the teacher's labels


def test_visit_targets_are_the_search_teachers_shares_and_need_a_search():
    from spyenvs.agents.ismcts import ISMCTS

    demos = collect_demonstrations(lambda: HighCard(num_players=2, rounds=1), ISMCTS(simulations=30, seed=0), 4,
                                   seed=3, learner_kinds=["player"], kinds=["player"], scale=None, visits=True)
    targets = demos["targets"]
    assert targets.shape == demos["masks"].shape
    np.testing.assert_allclose(targets.sum(1), 1.0, rtol=1e-6)
    assert (targets[np.arange(len(targets)), demos["actions"]] == targets.max(1)).all()  # the move played leads
    with pytest.raises(ValueError, match="needs a search teacher; heuristic records no visits") as err:
        collect_demonstrations(lambda: HighCard(num_players=2, rounds=1), _teacher(), 2, seed=3,
                               learner_kinds=["player"], kinds=["player"], scale=None, visits=True)
    assert "\n" not in str(err.value)


def test_cloning_on_visit_targets_fits_the_actor_to_the_shares():
    """With targets the clone minimises the cross-entropy with the visit shares: on
    shares of 0.7 / 0.3 its probabilities come out near them, not at a one-hot."""
    from sb3_contrib import MaskablePPO

    from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv

    venv = VecSelfPlayEnv(HighCard, {"num_players": 2}, opponents=[HeuristicPolicy(1)], num_envs=2,
                          scale_observations=False)
    model = MaskablePPO("MlpPolicy", venv, seed=0, n_steps=32, batch_size=32, policy_kwargs={"net_arch": [32]})
    demos = _demos(games=100)
    demos["targets"] = np.tile(np.array([0.7, 0.3], np.float32), (len(demos["actions"]), 1))
    behaviour_clone(model.policy, demos, epochs=40, batch_size=64, lr=1e-2)
    import torch
    with torch.no_grad():
        probs = model.policy.get_distribution(torch.as_tensor(demos["obs"]),
                                              action_masks=demos["masks"]).distribution.probs.numpy()
    assert np.abs(probs[:, 0] - 0.7).max() < 0.1


def test_teacher_games_played_by_workers_are_the_parts_played_here():
    """warm_start.workers: the games are split in parts of DEMO_PART, each seeded by its
    number; two worker processes return exactly what playing the parts here does."""
    games = DEMO_PART + 3
    cfg = load_config(None, HighCard.env_id, {"game.num_players": 2, "warm_start.games": games,
                                              "warm_start.teacher": "random", "warm_start.workers": 2})
    spec = describe_game(cfg, HighCard)
    by_workers = WarmStart(cfg, spec, learner=None, quiet=True).demonstrations()
    here = join_demonstrations([demonstration_part(cfg, spec, DEMO_PART, 0),
                                demonstration_part(cfg, spec, 3, DEMO_PART)])
    for key in ("obs", "masks", "actions", "returns"):
        np.testing.assert_array_equal(by_workers[key], here[key])
    # the second part is seeded by its own number, not a continuation of the first
    assert not np.array_equal(here["obs"][:4], demonstration_part(cfg, spec, 3, DEMO_PART)["obs"][:4])


def test_dagger_games_played_by_workers_are_the_parts_played_here():
    """DAgger rounds use warm_start.workers too (a search labeller is as slow there):
    the student plays every recorded seat in the workers' parts as it does here."""
    games = DEMO_PART + 3
    cfg = load_config(None, HighCard.env_id, {"game.num_players": 2, "warm_start.workers": 2,
                                              "warm_start.teacher": "random"})  # the toy heuristic lives here only
    spec = describe_game(cfg, HighCard)
    by_workers = WarmStart(cfg, spec, learner=None, quiet=True).demonstrations(games=games, seed_offset=1000,
                                                                               student=_Swapper())
    here = join_demonstrations([demonstration_part(cfg, spec, DEMO_PART, 0, 1000, student=_Swapper()),
                                demonstration_part(cfg, spec, 3, DEMO_PART, 1000, student=_Swapper())])
    for key in ("obs", "masks", "actions", "returns"):
        np.testing.assert_array_equal(by_workers[key], here[key])
