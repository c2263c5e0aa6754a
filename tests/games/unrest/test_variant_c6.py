"""Rules tests for the variant empire_can_target_area_district_cards (C6, C22, §7.5)."""

from spyenvs.games.unrest.rules import ASSIGN, LOC_DESTROYED, LOC_DISTRICT

from .helpers import DECOYS, C, I, R, S, new_game, play_action, stage

SURV, DEST, REDIR, BLOCK = 0, 24, 48, 168


def _variant_round(area=0):
    g = new_game(1, empire_can_target_area_district_cards=True)
    stage(
        g,
        {0: [(R(6), True), (S(2), False), (C(2), True)], 3: [(S(6), True), (I(3), False), (C(3), True)]},
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 10),
        hand=[I(2), R(3), C(4), S(5), DECOYS[0]],
    )
    g.step(area)
    g.step(play_action(g, I(2), [R(3), DECOYS[0]]))
    return g


def test_c6_empire_actions_are_keyed_by_handle_and_reach_area_district_cards():
    g = _variant_round(area=0)  # area = districts 0 and 1; district 3 is outside
    legal = g.legal_actions()
    assert g.num_actions == 173
    assert SURV + 1 in legal, "face-down card in an area district"
    assert SURV + 4 not in legal, "district 3 is outside the area"
    assert DEST + 0 in legal and DEST + 2 in legal and DEST + 3 not in legal
    assert SURV + 6 not in legal, "pending slot 0 (handle 6) is face up"
    assert BLOCK + 0 in legal and BLOCK + 1 in legal and BLOCK + 2 not in legal
    g.step(DEST + 1)
    assert g.pub.hloc[1] == LOC_DESTROYED and 1 not in g.pub.dist[0]


def test_c22_redirecting_a_district_card_must_change_its_district():
    g = _variant_round(area=0)
    legal = g.legal_actions()
    assert REDIR + 5 * 0 + 0 not in legal, "handle 0 already sits in position 0"
    assert all(REDIR + 5 * 0 + p in legal for p in (1, 2, 3, 4))
    g.step(REDIR + 5 * 0 + 4)
    assert g.pub.hloc[0] == LOC_DISTRICT + 4 and g.pub.dist[4] == [0]
    assert g.pub.emp_log[-1] == (2, 0, LOC_DISTRICT + 0, 4)


def test_c6_all_three_pending_cards_can_remain_for_assignment():
    g = _variant_round(area=0)
    g.step(DEST + 0)
    g.step(REDIR + 5 * 2 + 3)
    assert g.pub.phase == ASSIGN and sum(h >= 0 for h in g.pub.pending) == 3


def test_c22_heuristics_play_the_handle_keyed_empire_layout():
    """The rule-based Empire reads §7.5 actions by handle (it used to read them as the
    §7.2 slot layout and crash on a redirect position)."""
    import numpy as np

    from spyenvs.agents.heuristics.unrest import make

    for seed in range(4):
        g = new_game(seed, empire_can_target_area_district_cards=True)
        players = [make(g.layout, g.config, role, np.random.default_rng(seed)) for role in g.roles]
        while not g.is_over:
            p = g.current_player
            mask = g.legal_mask()
            a = int(players[p].act(g.observe(p), mask))
            assert mask[a], f"seed {seed}: {g.roles[p]} chose illegal {a} in {g.decision_name()}"
            g.step(a)
