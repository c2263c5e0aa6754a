"""The state evaluations search scores cut playouts with (agents/evaluations), from
explicit states: each rewards what the rules make decisive, and stays in -1 .. +1."""

from __future__ import annotations

from spyenvs.agents.evaluations import state_value_for
from spyenvs.registry import make_game


def _game(env_id, seed=0):
    g = make_game(env_id)
    g.reset(seed)
    return g


def test_the_agents_s8_more_ip_than_the_best_rival_is_worth_more():
    g = _game("the_agents_v0")
    value = state_value_for(g)
    g.ip = [20, 10]
    ahead = value(g)
    g.ip = [10, 20]
    behind = value(g)
    assert ahead[0] > 0 > behind[0] and ahead[1] < 0 < behind[1]
    assert all(-1 <= v <= 1 for v in ahead + behind)


def test_unrest_s7_4_liberations_ahead_of_the_deck_favour_the_rebel():
    g = _game("unrest_v0")
    value = state_value_for(g)
    before = value(g)
    g.pub.lib = [0, 1]  # two districts liberated with the deck still full
    after = value(g)
    assert after[0] > before[0] and after[1] == -after[0]


def test_spy_games_c27_the_vp_leader_is_valued_above_the_others():
    g = _game("spy_games_v0")
    value = state_value_for(g)
    g.vp_final = [9, 5, 4, 2]  # the final scores the evaluation reads
    v = value(g)
    assert v[0] > 0 and all(x < 0 for x in v[1:]) and v[1] > v[3]


def test_specter_ops_s8_objectives_ahead_of_the_clock_favour_the_agent_side():
    g = _game("specter_ops_v0")
    value = state_value_for(g)
    before = value(g)
    g.completed = [0, 1]
    after = value(g)
    assert after[0] > before[0] and after[1] < before[1]
    g.ag[0].hp, g.ag[0].maxhp = 1, 4  # badly hurt: the hunters' side gains
    hurt = value(g)
    assert hurt[0] < after[0] and hurt[1] == -hurt[0]
