"""Training with the Specter Ops destination macro (``macro: specter_destination``,
issue 22 point 2): the learner's env asks for one destination per agent turn and plays
the route, the warm start clones destinations, the exported file and the league's
snapshots walk the same way, and with the option off nothing changes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from spyenvs.agents.heuristics import HeuristicPolicy  # noqa: E402
from spyenvs.agents.macros import make_macro  # noqa: E402
from spyenvs.agents.torch_policy import TorchPolicy  # noqa: E402
from spyenvs.experiments.config import TrainConfig  # noqa: E402
from spyenvs.experiments.train_selfplay import describe_game, load_config, train  # noqa: E402
from spyenvs.experiments.warm_start import collect_demonstrations  # noqa: E402
from spyenvs.games.specter_ops.data import A3, NO  # noqa: E402
from spyenvs.registry import make_game  # noqa: E402
from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv  # noqa: E402


class RecordingMacro:
    """The destination macro, recording per game what its players send the env."""

    def __init__(self):
        self.inner = make_macro("specter_destination")
        self.players = []

    def bind(self, game, seat):
        player = self.inner.bind(game, seat)
        if player is None:
            return None
        rec = Recorder(player, game)
        self.players.append(rec)
        return rec


class Recorder:
    def __init__(self, player, game):
        self.player, self.game = player, game
        self.turns: list[tuple[int, list[int]]] = []  # (chosen destination, env actions of the move)

    def auto_action(self, obs, mask):
        a = self.player.auto_action(obs, mask)
        if a is not None:
            self.turns[-1][1].append(int(a))
        return a

    def decision_mask(self, obs, mask):
        return self.player.decision_mask(obs, mask)

    def env_action(self, choice):
        a = self.player.env_action(choice)
        if self.game.dec == A3:
            self.turns.append((int(choice), [int(a)]))
        return a


def move_rows(venv_obs_rows, layout):
    dec = layout.blocks["decision"].slice
    return [int(np.argmax(row[dec])) == A3 for row in venv_obs_rows]


def test_with_the_macro_the_learner_chooses_one_destination_per_agent_turn_and_the_route_gets_there():
    macro = RecordingMacro()
    venv = VecSelfPlayEnv("specter_ops_v0", {"num_players": 2}, [HeuristicPolicy(1)], num_envs=3, seed=2,
                          learner_kinds=["agent"], macro=macro)
    layout = make_game("specter_ops_v0", num_players=2).layout
    rnd = layout.blocks["round"].slice.start
    obs = venv.reset()
    rng = np.random.default_rng(0)
    last_round = [-1.0] * venv.num_envs
    episodes = [0] * venv.num_envs
    for _ in range(150):
        masks = venv.action_masks()
        for i, is_move in enumerate(move_rows(obs, layout)):
            if is_move:  # at most one movement decision per round of an episode
                assert not masks[i, NO] and obs[i, rnd] > last_round[i]
                last_round[i] = obs[i, rnd]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, _, dones, _ = venv.step(actions)
        for i, d in enumerate(dones):
            if d:
                last_round[i], episodes[i] = -1.0, episodes[i] + 1
    assert venv.stats["macro_decisions"] > 0 and sum(episodes) > 0
    turns = [t for p in macro.players for t in p.turns[:-1]]  # the last may be cut by the loop's end
    assert len(turns) > 20
    for dest, actions in turns:  # every move ends on its destination (the env took each step)
        cells = [a for a in actions if a < NO]
        assert (cells[-1] if cells else None) in (dest, None)
        assert NO not in actions[:-1] and len(cells) <= 6


def test_without_a_macro_for_its_seats_the_learner_env_plays_as_before():
    def rows(**opts):
        venv = VecSelfPlayEnv("specter_ops_v0", {"num_players": 2}, [HeuristicPolicy(1)], num_envs=2, seed=4, **opts)
        obs = venv.reset()
        rng = np.random.default_rng(1)
        out = []
        for _ in range(60):
            masks = venv.action_masks().copy()
            out.append((obs.copy(), masks))
            obs, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        return out, venv.stats

    plain, stats = rows(learner_kinds=["hunter"])
    with_macro, macro_stats = rows(learner_kinds=["hunter"], macro=make_macro("specter_destination"))
    for (o1, m1), (o2, m2) in zip(plain, with_macro):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(m1, m2)
    assert stats == macro_stats and stats["macro_decisions"] == 0
    # the option is off by default and in every shipped config: files name no macro
    assert TrainConfig().macro == "none"


def test_cloning_records_one_destination_per_agent_turn_as_the_teachers_end_cell():
    demos = collect_demonstrations(lambda: make_game("specter_ops_v0", num_players=2), HeuristicPolicy(3), 2,
                                   seed=0, learner_kinds=["agent"], kinds=["agent", "hunter"], scale=None,
                                   macro=make_macro("specter_destination"))
    layout = make_game("specter_ops_v0", num_players=2).layout
    moves = np.array(move_rows(demos["obs"], layout))
    assert moves.any()
    assert (demos["actions"][moves] < NO).all() and not demos["masks"][moves, NO].any()  # cells, no STOP
    assert demos["masks"][np.arange(len(moves)), demos["actions"]].all()
    rounds = demos["obs"][moves, layout.blocks["round"].slice.start]
    assert (np.diff(rounds) != 0).all()  # one per turn (two games: the round restarts once)


@pytest.mark.parametrize("opts, message", [
    ({"macro": "teleport"}, "training option 'macro' must be none or specter_destination"),
    ({"macro": "specter_destination", "net.prior": "heuristic", "clone_reg.coef": 0.0},
     "does not combine with net.prior"),
])
def test_bad_macro_options_are_one_line_errors(opts, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, "specter_ops_v0", opts)


def test_the_macro_is_for_specter_ops_only():
    cfg = load_config(None, "unrest_v0", {"macro": "specter_destination"})
    with pytest.raises(ValueError, match="specter_destination is for specter_ops_v0, not unrest_v0"):
        describe_game(cfg)


def test_training_with_the_macro_runs_and_its_files_and_snapshots_walk_with_it(tmp_path):
    cfg = load_config(None, "specter_ops_v0", {
        "macro": "specter_destination", "total_timesteps": 1024, "n_envs": 4, "ppo.n_steps": 64,
        "ppo.batch_size": 128, "ppo.n_epochs": 1, "net.hidden": [16], "warm_start.games": 2,
        "warm_start.epochs": 1, "warm_start.dagger_rounds": 1, "warm_start.dagger_games": 2,
        "warm_start.dagger_epochs": 1, "clone_reg.coef": 0.5, "clone_reg.steps": 1,
        "league.snapshot_every": 256, "eval.games": 0, "eval.final_games": 2})
    res = train(cfg, str(tmp_path), quiet=True)
    assert res["timesteps"] >= 1024 and res["env_stats"]["macro_decisions"] > 0
    assert res["warm_start"]["samples"] > 0 and res["vs"]["heuristic"]["agent"]["games"] >= 2
    game = make_game("specter_ops_v0", num_players=2)
    snapshots = sorted((tmp_path / "snapshots").glob("*.pt"))
    assert snapshots
    for path in [tmp_path / "final.npz", snapshots[-1]]:
        policy = TorchPolicy.load(path)
        assert policy.meta["macro"] == "specter_destination"
        assert policy.bind(game, 0).macro_player is not None
