"""Spy Games rules tests: components, setup, phase structure (rules/spy_games.md §2-§4.4)."""

import numpy as np

from spyenvs.games.spy_games import data as D
from spyenvs.games.spy_games.game import SpyGamesGame
from spyenvs.games.spy_games.rules import PH_SPY, PH_STRENGTHEN

from .helpers import (
    CODE, DEMO, INFIL, K, MISSION, PICK_AGENT, RECALL, SAFE, STRENGTHEN, CARD, EXPOSE, arrange, do, game, legal,
    main_turn, strengthen_turn, BONUS, PENALTY,
)


def test_s2_2_penalty_track_cumulative_costs():
    assert [D.PENALTY[10][10 - i] for i in range(11)] == [0, 0, 0, 0, 1, 2, 4, 6, 9, 12, 16]
    assert [D.PENALTY[8][8 - i] for i in range(9)] == [0, 0, 1, 2, 4, 6, 9, 12, 16]
    assert [D.PENALTY[6][6 - i] for i in range(7)] == [0, 1, 3, 5, 8, 11, 15]


def test_s2_3_deck_has_72_cards_24_per_suit_pips_1_1_2_3():
    deck = D.FULL_DECK
    assert len(deck) == 72
    for suit in range(3):
        pips = sorted(D.KIND_PIPS[k] for k in deck if D.KIND_SUIT[k] == suit)
        assert len(pips) == 24 and pips.count(1) == 12 and pips.count(2) == 6 and pips.count(3) == 6
    for t in range(6):
        assert sum(1 for k in deck if D.KIND_TYPE[k] == t) == 12


def test_s3_setup_fixed_allocation_hands_and_kompromat():
    for n in (2, 3, 4):
        g = SpyGamesGame(num_players=n, allocation="fixed")
        g.reset(3)
        assert all(g.zone[p] == [10, 8, 6] for p in range(n))
        assert all(g.hsize[p] == 6 for p in range(n))  # 3 dealt + 3 in round 1's draw phase
        assert g.komp_supply == 2 and not any(g.komp)
        assert g.stage == D.S_MAIN and g.phase == PH_SPY and g.decider == g.first


def test_c02_allocation_is_secret_until_all_have_chosen():
    g = SpyGamesGame(num_players=3)
    g.reset(1)
    assert g.stage == D.S_ALLOC and g.decider == 0
    before = g.observe(1).copy()
    g.step(D.A_ALLOC + 5)  # (6, 8, 10)
    assert g.decider == 1
    init = g._slices["initial"]
    own = g._slices["own_alloc"]
    assert not g.observe(1)[init].any()
    assert np.array_equal(g.observe(1)[own], before[own])  # 1 does not see 0's choice
    assert g.observe(0)[own][5] == 1
    g.step(D.A_ALLOC + 0)
    g.step(D.A_ALLOC + 2)
    assert g.init == [[6, 8, 10], [10, 8, 6], [8, 10, 6]]
    assert g.zone == g.init and g.alloc_done and g.stage == D.S_MAIN


def test_s4_2_slots_are_4_4_5_per_round():
    g = game(n=2)
    arrange(g, hands={0: [K(SAFE)], 1: [K(SAFE, 1)]})
    for r, slots in enumerate((4, 4, 5)):
        main_turn(g, g.first, round_=r)
        assert g.slots_left(0) == slots
        for _ in range(2 * slots):
            assert g.phase == PH_SPY
            do(g, D.A_PASS)
        assert g.phase == PH_STRENGTHEN


def test_s4_2_infiltration_moves_a_case_and_hides_the_plan():
    g = game()
    plan = K(CODE, 2, 3)
    arrange(g, hands={0: [plan, K(SAFE)]})
    do(g, INFIL(1, 1))
    assert g.stage == D.S_INFIL_AGENT
    do(g, PICK_AGENT(2), CARD(plan))
    assert g.spy_loc[0][2] == 1 * 3 + 1 and g.spy_c[0][2] == 1
    assert g.zone[0] == [10, 7, 6] and g.h.plans[0][2] == plan and g.hsize[0] == 1
    assert g.active == 1 and g.stage == D.S_MAIN  # the slot is used


def test_c34_infiltrating_an_empty_zone_is_allowed_but_not_from_an_empty_own_zone():
    g = game()
    arrange(g, hands={0: [K(SAFE)]})
    g.removed[1] += g.zone[1][2]
    g.zone[1][2] = 0
    g.removed[0] += g.zone[0][0]
    g.zone[0][0] = 0
    g._resync()
    acts = legal(g)
    assert INFIL(1, 2) in acts
    assert INFIL(1, 0) not in acts and INFIL(2, 0) not in acts


def test_s4_2_infiltration_needs_a_card_and_an_agent_in_reserve():
    g = game()
    arrange(g, hands={0: []})
    assert not any(D.A_INFIL <= a < D.A_MISSION for a in legal(g))
    plans = [K(SAFE, 1, 1), K(SAFE, 1, 2), K(SAFE, 1, 3), K(CODE, 0, 2), K(CODE, 0, 3)]
    arrange(g, hands={0: [K(SAFE)]}, spies=[(0, j, 1 + j % 2, 0, 1, plans[j]) for j in range(5)])
    assert not any(D.A_INFIL <= a < D.A_MISSION for a in legal(g))


def test_c44_draw_empty_only_with_empty_hand_and_cards_to_draw():
    g = game()
    arrange(g, hands={0: [K(SAFE)]})
    assert D.A_DRAW_EMPTY not in legal(g)
    arrange(g, hands={0: []})
    assert D.A_DRAW_EMPTY in legal(g)
    do(g, D.A_DRAW_EMPTY)
    assert g.hsize[0] == 3 and g.active == 1  # [C14] draws 3 and uses the slot
    g = game()
    arrange(g, hands={0: []}, rest_to=1)
    assert D.A_DRAW_EMPTY not in legal(g) and D.A_PASS in legal(g)


def test_s4_2_saboteur_mission_needs_three_cases_scout_does_not():
    g = game()
    arrange(g, hands={0: [K(SAFE)]}, spies=[(0, 0, 1, 0, 2, K(DEMO)), (0, 1, 1, 0, 1, K(SAFE))])
    acts = legal(g)
    assert MISSION(0) not in acts and MISSION(1) in acts
    arrange(g, hands={0: [K(SAFE)]}, spies=[(0, 0, 1, 0, 3, K(DEMO))])
    assert MISSION(0) in legal(g)


def test_s4_2_mission_declared_at_two_cases_sets_public_known_scout_flag():
    g = game()
    arrange(g, hands={0: []}, spies=[(0, 0, 1, 0, 2, K(SAFE)), (0, 1, 2, 0, 3, K(CODE))])
    do(g, MISSION(0))
    assert g.spy_ks[0][0]
    ks = g._slices["agent_known_scout"]
    assert g.observe(2)[ks].reshape(4, 5)[2, 0] == 1  # player 0 is offset 2 from player 2


def test_c24_c25_recall_is_free_cases_go_home_plan_face_down():
    g = game()
    plan = K(CODE, 1, 2)
    arrange(g, hands={0: []}, spies=[(0, 3, 2, 2, 2, plan)])
    do(g, RECALL(3))
    assert g.spy_loc[0][3] == -1 and g.base[0][0] == 2
    assert g.h.disc_down == [plan] and g.disc_up[plan] == 0
    assert g.stage == D.S_MAIN and g.active == 0 and g.t == 0  # the slot is not used


def test_s4_2_only_spies_in_own_zones_can_be_exposed():
    g = game()
    arrange(g, spies=[(1, 0, 0, 2, 1, K(SAFE)), (1, 1, 2, 0, 1, K(CODE)), (2, 4, 0, 1, 1, K(DEMO))])
    acts = legal(g)
    assert EXPOSE(1, 0) in acts and EXPOSE(2, 4) in acts
    assert EXPOSE(1, 1) not in acts


def test_s4_3_strengthen_once_per_round_from_zone_with_spy_zone_index_c12_c13():
    g = game()
    arrange(g, hands={0: []}, spies=[(0, 1, 2, 2, 1, K(SAFE))])
    strengthen_turn(g, 0)
    assert STRENGTHEN(1) in legal(g) and D.A_PASS not in legal(g)
    do(g, STRENGTHEN(1))
    assert g.spy_c[0][1] == 2 and g.zone[0] == [10, 8, 4] and g.spy_str[0][1]
    assert STRENGTHEN(1) not in legal(g) and D.A_TAKE_CARD in legal(g)
    do(g, D.A_TAKE_CARD, D.A_TAKE_CARD, D.A_TAKE_CARD)
    assert g.hsize[0] == 3 and g.active == 1 and g.s_used == 0


def test_c39_strengthen_pass_only_when_nothing_else_is_legal():
    g = game()
    arrange(g, hands={0: []}, rest_to=1)
    strengthen_turn(g, 0)
    assert legal(g) == {D.A_PASS}
    g = game()
    arrange(g, hands={0: []}, spies=[(0, 0, 1, 0, 1, K(SAFE))], rest_to=1)
    strengthen_turn(g, 0)
    assert legal(g) == {STRENGTHEN(0), RECALL(0)}


def test_s4_3_strengthen_flags_are_cleared_when_phase_3_begins():
    g = game(n=2)
    arrange(g, spies=[(0, 0, 1, 0, 1, K(SAFE))])
    g.spy_str[0][0] = True
    main_turn(g, 1)
    g.t = 7
    g._resync()
    do(g, D.A_PASS)
    assert g.phase == PH_STRENGTHEN and not g.spy_str[0][0]


def test_s2_5_agent3_assist_draws_and_block_cancels_the_strengthening():
    g = game()
    arrange(g, hands={0: []}, spies=[(0, 0, 1, 0, 1, K(SAFE)), (2, 2, 1, 0, 1, K(CODE)), (3, 2, 1, 0, 1, K(DEMO))])
    strengthen_turn(g, 0)
    do(g, STRENGTHEN(0))
    assert g.stage == D.S_A3 and g.decider == 2
    do(g, BONUS)
    assert g.decider == 3 and g.hsize[0] == 1
    do(g, PENALTY)
    assert g.spy_c[0][0] == 1 and g.zone[0][0] == 9 and g.spy_str[0][0]  # blocked: no case moved
    assert g.s_used == 1 and g.stage == D.S_STRENGTHEN


def test_s2_5_agent2_welcome_draws_and_obstruct_discards_revealed():
    g = game()
    plan, other = K(SAFE, 0, 2), K(CODE, 2, 3)
    arrange(g, hands={0: [plan, other]}, spies=[(2, 1, 1, 0, 1, K(DEMO)), (3, 1, 1, 0, 1, K(5))])
    do(g, INFIL(1, 0), PICK_AGENT(0), CARD(plan))
    assert g.stage == D.S_A2 and g.decider == 2
    do(g, PENALTY)
    assert g.hsize[0] == 0 and g.disc_up[other] == 1  # the only card, discarded face up
    assert g.decider == 3
    do(g, BONUS)
    assert g.hsize[0] == 1 and g.stage == D.S_MAIN and g.active == 1


def test_s2_5_own_abilities_do_not_trigger_on_own_actions():
    g = game()
    plan = K(SAFE, 0, 2)
    arrange(g, hands={0: [plan]}, spies=[(0, 1, 1, 0, 1, K(DEMO))])
    do(g, INFIL(1, 0), PICK_AGENT(0), CARD(plan))
    assert g.stage == D.S_MAIN and g.active == 1


def test_auto_forced_skips_single_option_decisions():
    g = game(auto_forced=True)
    plan = K(SAFE, 0, 2)
    plans = [K(CODE, 0, 3), K(CODE, 0, 2), K(DEMO, 1, 3), K(DEMO)]
    arrange(g, hands={0: [plan]}, spies=[(0, j, 2, 0, 1, plans[j]) for j in range(4)])
    g._settle()
    do(g, INFIL(1, 0))  # only agent 5 is in reserve and only one card in hand: both picks are forced
    assert g.spy_loc[0][4] == 3 and g.h.plans[0][4] == plan and g.active == 1


def test_s4_4_fewest_tokens_gets_kompromat_and_chooses_first_player_c22():
    g = game()
    arrange(g, spies=[(0, 0, 1, 0, 2, K(SAFE))])
    strengthen_turn(g, 3, used=3)
    do(g, D.A_PASS if D.A_PASS in legal(g) else D.A_TAKE_CARD)
    # tokens: 0 -> 2, players 1, 2, 3 -> 0; the tie goes to the one latest in turn order (3)
    assert g.stage == D.S_FIRST
    assert g.decider == 3 and g.komp[3] and g.komp_supply == 1
    do(g, D.A_FIRST + 2)  # offset 2 from seat 3 = seat 1
    assert g.first == 1 and g.round == 1 and g.active == 1 and g.stage == D.S_MAIN


def test_c21_kompromat_taken_from_the_holder_with_most_tokens_when_supply_is_empty():
    g = game()
    arrange(g, spies=[(1, 0, 2, 0, 3, K(SAFE)), (2, 0, 1, 0, 1, K(CODE)), (3, 0, 1, 1, 1, K(DEMO))])
    g.komp = [False, True, True, False]
    g.komp_supply = 0
    strengthen_turn(g, 3, used=3)
    do(g, D.A_TAKE_CARD)
    assert g.decider == 0 and g.komp == [True, False, True, False] and g.komp_supply == 0


def test_s4_4_player_already_holding_kompromat_gets_nothing():
    g = game()
    arrange(g)
    g.komp = [False, False, False, True]
    g.komp_supply = 1
    strengthen_turn(g, 3, used=3)
    do(g, D.A_TAKE_CARD)
    assert g.decider == 3 and g.komp == [False, False, False, True] and g.komp_supply == 1


def test_c33_draw_reshuffles_the_discard_and_stops_when_both_are_empty():
    g = game()
    arrange(g, hands={0: []}, discard=[K(SAFE, 0, 3), K(CODE, 1, 3)], rest_to=1)
    g.h.disc_down = []
    g._resync()
    got = g._draw(0, 3)
    assert got == 2 and g.hsize[0] == 2 and not any(g.disc_up) and not g.h.deck
    g.check_invariants()


def test_s4_1_draw_phase_each_player_draws_three_in_turn_order():
    g = game()
    arrange(g, spies=[(0, 0, 1, 0, 2, K(SAFE))])
    strengthen_turn(g, 3, used=3)
    do(g, D.A_TAKE_CARD)  # player 3 ends phase 3 with 1 card
    assert g.decider == 3
    do(g, D.A_FIRST + 1)  # first player: seat 0
    assert g.round == 1 and g.hsize == [3, 3, 3, 4] and g.stage == D.S_MAIN and g.active == 0


def test_c40_first_player_is_drawn_at_random_c29_structured_is_default():
    firsts = set()
    for seed in range(12):
        g = SpyGamesGame(allocation="fixed")
        g.reset(seed)
        firsts.add(g.first)
    assert len(firsts) > 1
    assert SpyGamesGame().config["negotiation"] == "structured" and SpyGamesGame().num_players == 4


def test_s9_3_observation_is_egocentric():
    g = game()
    arrange(g, spies=[(2, 3, 1, 2, 1, K(SAFE))])
    owner = g._slices["agent_zone_owner"]
    inplay = g._slices["agent_in_play"]
    for viewer in range(4):
        obs = g.observe(viewer)
        i = (2 - viewer) % 4
        assert obs[inplay].reshape(4, 5)[i, 3] == 1
        assert obs[owner].reshape(4, 5, 4)[i, 3, (1 - viewer) % 4] == 1
        assert obs[g._slices["zones"]].reshape(4, 3)[(2 - viewer) % 4, 2] == 0.5  # 6 - 1 cases / 10
