"""Evaluation that fits each game (issue 15): a team role plays every seat of its team,
every role gets the asked number of games, N-player games report the win share."""

from __future__ import annotations

import numpy as np

from spyenvs.agents import RandomPolicy
from spyenvs.agents.policy import BasePolicy
from spyenvs.experiments.evaluate import evaluate_vs, games_for, seat_groups
from spyenvs.registry import make_game


def test_rules_8_1_hunters_are_one_team_seat_group_and_the_agent_plays_alone():
    for n, hunters in ((2, [1, 2]), (4, [1, 2, 3])):
        g = make_game("specter_ops_v0", num_players=n)
        assert seat_groups(g) == [[0], hunters]
    assert seat_groups(make_game("spy_games_v0", num_players=4)) == [[0], [1], [2], [3]]
    assert seat_groups(make_game("unrest_v0")) == [[0], [1]]


def test_every_role_gets_at_least_the_asked_games():
    assert games_for(make_game("unrest_v0"), 200) == 400          # rebel 200, empire 200
    assert games_for(make_game("the_agents_v0"), 200) == 200      # one kind, two seats
    assert games_for(make_game("spy_games_v0", num_players=4), 200) == 200
    assert games_for(make_game("specter_ops_v0"), 200) == 400     # agent 200, hunter team 200


def test_with_kinds_only_those_roles_are_played():
    assert games_for(make_game("unrest_v0"), 200, kinds=["empire"]) == 200
    assert games_for(make_game("specter_ops_v0"), 200, kinds=["hunter"]) == 200
    res = evaluate_vs("unrest_v0", {}, RandomPolicy(0), RandomPolicy(1), 6, seed=0, kinds=["empire"])
    assert list(res["kinds"]) == ["empire"] and res["kinds"]["empire"]["games"] == 6
    try:
        games_for(make_game("unrest_v0"), 10, kinds=["spy"])
    except ValueError as exc:
        assert "allowed: rebel, empire" in str(exc)
    else:
        raise AssertionError("an unknown kind was accepted")


class SeatRecorder(BasePolicy):
    """A random player that records which seats it was bound to in each game."""

    name = "recorder"

    def __init__(self):
        self.rng = np.random.default_rng(0)
        self.seats = []

    def bind(self, game, seat):
        self.seats.append((len(self.seats), seat))
        return RandomPolicy(seat)


def test_a_team_candidate_takes_every_hunter_seat():
    cand = SeatRecorder()
    res = evaluate_vs("specter_ops_v0", {"num_players": 2}, cand, RandomPolicy(1), 2, seed=0, max_decisions=60)
    assert [s for _, s in cand.seats] == [0, 1, 2]  # game 0: the agent; game 1: both hunters
    assert res["kinds"]["agent"]["games"] == 1 and res["kinds"]["hunter"]["games"] == 1
    assert res["sides"] == 2


def test_n_player_rate_is_the_win_share():
    res = evaluate_vs("spy_games_v0", {"num_players": 4}, RandomPolicy(0), RandomPolicy(1), 8, seed=0)
    v = res["kinds"]["player"]
    assert v["games"] == 8 and v["rate"] == v["score"] / 8


class TraitorWatcher(BasePolicy):
    """Records, per game, each seat it plays and the traitor's seat at that moment."""

    name = "traitor_watcher"

    def __init__(self):
        self.moves: list[tuple[int, int]] = []

    def bind(self, game, seat):
        recorder = self

        class Bound(BasePolicy):
            def act(self, observation, mask):
                recorder.moves.append((seat, game._h_traitor))
                return int(np.flatnonzero(mask)[0])

        return Bound()


def test_s4_at_five_players_the_candidate_plays_every_seat_of_its_side_the_traitor_included():
    agent_side, loyal_side = TraitorWatcher(), TraitorWatcher()
    evaluate_vs("specter_ops_v0", {"num_players": 5}, agent_side, RandomPolicy(1), 2, seed=0, max_decisions=300,
                kinds=["agent"])
    evaluate_vs("specter_ops_v0", {"num_players": 5}, loyal_side, RandomPolicy(1), 2, seed=0, max_decisions=300,
                kinds=["hunter"])
    dealt = [(seat, t) for seat, t in agent_side.moves if t >= 0]
    assert {seat for seat, t in dealt} == {0} | {t + 1 for _, t in dealt}  # her seat and her traitor's
    assert any(seat > 0 for seat, _ in dealt)
    assert all(seat != t + 1 for seat, t in loyal_side.moves if t >= 0)  # never the traitor once dealt
    assert len({seat for seat, t in loyal_side.moves if t >= 0}) >= 3  # the three loyal hunters
