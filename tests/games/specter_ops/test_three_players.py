"""§4's set-up table: the 3-player game differs from the 2-player one only in who holds
the two hunters (two players, or one player both), which the game never encodes. So
every role sees, may do and acts exactly as in the 2-player game, and a policy trained
on the one serves the other (``POLICY_EQUIVALENT_VALUES``)."""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.agents import make_policy
from spyenvs.agents.pretrained import find_table, table_name
from spyenvs.registry import make_game


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_s4_three_players_play_as_two_move_by_move(seed):
    two, three = make_game("specter_ops_v0", num_players=2), make_game("specter_ops_v0", num_players=3)
    two.reset(seed)
    three.reset(seed)
    assert two.roles == three.roles and two.num_actions == three.num_actions
    rng = np.random.default_rng(seed)
    decisions = 0
    while not two.is_over and decisions < 400:
        assert three.current_player == two.current_player and three.decision_name() == two.decision_name()
        assert np.array_equal(three.legal_mask(), two.legal_mask())
        for seat in range(len(two.roles)):
            assert np.array_equal(three.observe(seat), two.observe(seat)), f"seat {seat} at decision {decisions}"
        action = int(rng.choice(np.flatnonzero(two.legal_mask())))
        two.step(action)
        three.step(action)
        decisions += 1
    assert decisions == 400 or (three.is_over and three.outcome() == two.outcome())


def test_s4_three_players_take_the_two_player_policy():
    assert make_game("specter_ops_v0", num_players=3).policy_config() == make_game("specter_ops_v0").policy_config()
    assert table_name("specter_ops_v0", {"num_players": 3}) == "specter_ops_v0"
    assert find_table("specter_ops_v0", {"num_players": 3}) == "specter_ops_v0"
    game = make_game("specter_ops_v0", num_players=3)
    game.reset(4)
    policy = make_policy("pretrained", seed=0).bind(game, 0)
    assert game.legal_mask()[policy.act(game.observe(0), game.legal_mask())]


def test_s4_four_players_are_another_table():
    assert make_game("specter_ops_v0", num_players=4).policy_config() != make_game("specter_ops_v0").policy_config()
    assert table_name("specter_ops_v0", {"num_players": 4}) == "specter_ops_v0-4p"
