"""Spy Games rules tests added by the rules audit: the remaining effect rows of §2.4,
ability ordering and eligibility (§2.5, C17, C18), immunity masks (§4.2, §5.1),
2-3 player masks (C42), effect amounts (C43), the face-down addition's visibility
(§7) and its resampling (§9.5), and the §11 edge cases not covered elsewhere."""

import numpy as np

from spyenvs.games.spy_games import data as D

from .helpers import (
    WIN_I, exposure, mission, win,
    A1_NONE, BONUS, CIRCLE, CODE, DEMO, INFIL, INTER, LIQ, PENALTY, PROV, SAFE, SQUARE, STANDDOWN, TRIANGLE,
    CARD, EXPOSE, K, MISSION, REF_FREE, REF_OFFER, arrange, do, game, legal, main_turn, strengthen_turn,
)


# ------------------------------------------------------------- §2.4 effect rows
def test_s2_4_codebreaker_mission_l2_snatches_two_then_steals_one():
    hand = [K(SAFE), K(DEMO), K(LIQ, TRIANGLE, 2)]
    g = mission(K(CODE), 2, hands={1: hand})
    win(g)
    assert g.hsize[0] == 2 and g.hsize[1] == 1
    assert g.zone[1][1] == 7 and g.base[0][1] == 1 and g.base[0][0] == 2
    # the victim knows exactly which two of its cards were taken
    assert sum(g.h.pins[1][0].values()) == 2 and all(g.h.hands[0][k] for k in g.h.pins[1][0])


def test_s2_4_provocateur_mission_l3_steals_force_discards_revealed_and_seizes_kompromat():
    hand = [K(SAFE), K(DEMO), K(PROV, TRIANGLE, 2)]
    g = mission(K(PROV), 3, hands={1: hand})
    g.komp[1] = True
    g.komp_supply = 1
    g._resync()
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD, D.A_KOMP)  # the defender keeps its kompromat
    assert g.zone[1][1] == 5 and g.base[0][1] == 3  # STEAL 3
    assert g.hsize[1] == 1 and sum(g.disc_up[k] for k in hand) == 2  # FORCE-DISCARD 2, face up
    assert g.komp[0] and not g.komp[1] and g.komp_supply == 1  # SEIZE-K


def test_edge5_seize_k_when_the_spy_owner_already_holds_one_returns_it_to_the_supply():
    g = mission(K(INTER), 3)
    g.komp[0] = g.komp[1] = True
    g.komp_supply = 0
    g._resync()
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD, D.A_KOMP, D.A_KOMP)  # both hold
    assert g.komp == [True, False, False, False] and g.komp_supply == 1


def test_s2_4_liquidator_l4_purge_all_removes_every_other_players_spy_then_steals_two():
    other = [(2, 3, 1, 1, 1, K(DEMO)), (3, 1, 1, 1, 2, K(CODE)), (0, 2, 1, 1, 1, K(SAFE, SQUARE))]
    g = mission(K(LIQ), 3, extra=other)
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)
    assert g.stage == D.S_A4 and g.decider == 2  # the Analyst that will be purged still answers
    do(g, BONUS)  # L4: PURGE-ALL, no PURGE_PICK decision
    assert g.spy_loc[2][3] == -1 and g.spy_loc[3][1] == -1 and g.spy_loc[0][2] >= 0
    assert g.base[0] == [3, 2, 1, 2]  # own 3 home, STEAL 2, purged cases of colours 2 and 3
    assert g.disc_up[K(DEMO)] == 1 and g.disc_up[K(CODE)] == 1 and g.stage == D.S_MAIN


def test_s2_4_l4_scout_reactions_safecracker_counter_steals_interceptor_snatches():
    g = exposure(K(SAFE), 3, extra=[(2, 3, 0, 1, 1, K(DEMO))])
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD, BONUS)
    assert g.base[1] == [1, 3, 0, 0] and g.zone[0][1] == 7 and g.base[0] == [0, 0, 0, 0]
    g = exposure(K(INTER), 3, extra=[(2, 3, 0, 1, 1, K(DEMO))], hands={0: [K(SAFE)]})
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD, BONUS)
    assert g.base[1] == [0, 3, 0, 0] and g.hsize[0] == 0 and g.h.hands[1][K(SAFE)] == 1


def test_edge7_saboteur_reaction_dampened_to_zero_is_captured():
    g = exposure(K(DEMO), 1, extra=[(2, 3, 0, 1, 1, K(SAFE))])
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD, PENALTY)
    assert g.base[0] == [0, 1, 0, 0] and g.removed == [0, 0, 0, 0] and g.zone[0][1] == 8


# ------------------------------------------------------------ §2.5 abilities
def test_c17_informants_answer_in_seat_order_from_the_initiator():
    g = game()
    arrange(g, spies=[(2, 1, 0, 1, 1, K(SAFE)), (1, 0, 0, 1, 1, K(DEMO)), (3, 0, 0, 1, 1, K(CODE))],
            deck_top=WIN_I)
    main_turn(g, 2)
    do(g, MISSION(1), REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)  # I = 2, D = 0, referee = 3
    assert g.stage == D.S_A1 and g.decider == 3  # clockwise from seat 2: seat 3 before seat 1
    do(g, A1_NONE)
    assert g.stage == D.S_A1 and g.decider == 1


def test_c18_edge9_referee_fixer_is_not_asked_and_later_fixers_are_skipped_after_a_take_over():
    # referee is seat 2; seats 2 and 3 both have a Fixer in the zone
    g = mission(K(SAFE), 1, extra=[(2, 4, 1, 1, 1, K(DEMO)), (3, 4, 1, 1, 1, K(CODE))])
    assert g.stage == D.S_FIXER and g.decider == 3 and g.cf_ref == 2
    do(g, D.A_FIXER)  # decline: the normal referee chooses
    assert g.stage == D.S_REF_CHOICE and g.decider == 2 and g.cf_fix == 0
    # initiator 2, defender 1: the referee is seat 3, whose Fixer is not asked; seat 0's is
    g = game()
    arrange(g, spies=[(2, 0, 1, 1, 1, K(SAFE)), (3, 4, 1, 1, 1, K(DEMO)), (0, 4, 1, 1, 1, K(CODE))],
            deck_top=WIN_I)
    main_turn(g, 2)
    do(g, MISSION(0))
    assert g.cf_ref == 3 and g.stage == D.S_FIXER and g.decider == 0 and not g.queue
    do(g, D.A_FIXER + 1)
    assert g.cf_ref == 0 and g.cf_fix == 1 and g.stage == D.S_REF_CHOICE and g.decider == 0


def test_c18_c31_two_players_defender_fixer_replaces_the_suit_coin_and_the_coin_keeps_ties():
    g = game(n=2, negotiation="structured")
    arrange(g, spies=[(1, 1, 0, 1, 1, K(SAFE)), (1, 4, 0, 1, 1, K(DEMO))],
            deck_top=[K(SAFE, SQUARE, 2), K(CODE, SQUARE, 2)])
    do(g, EXPOSE(1, 1), D.A_OFFER_NONE)
    assert g.stage == D.S_FIXER and g.decider == 1
    do(g, D.A_FIXER + 1)
    assert g.stage == D.S_REF_CHOICE and g.decider == 1 and legal(g) == {REF_FREE(0), REF_FREE(1)}
    do(g, REF_FREE(1), D.A_NO_CARD, D.A_NO_CARD)  # 2 vs 2: a coin, never a TIE decision
    assert g.cf_trump2 == -1 and not g.cf_on and g.stage == D.S_MAIN


def test_edge24_own_spies_in_the_zone_stay_silent_during_own_mission():
    own = [(0, j, 1, 1, 1, K(CODE, CIRCLE, j % 3 + 1)) for j in (3, 4)] + [(0, 1, 1, 1, 1, K(SAFE, TRIANGLE))]
    g = mission(K(SAFE), 1, extra=own)
    assert g.stage == D.S_REF_CHOICE  # own Fixer not asked
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)  # own Informant (agent 1 is j=0: the mission spy) and Analyst
    assert g.stage == D.S_MAIN and g.base[0][1] == 1


# ------------------------------------------------------ §4.2, §5.1 immunity
def test_s4_2_edge13_mission_and_expose_are_masked_against_an_immune_player_pass_stays():
    g = game(negotiation="structured")
    arrange(g, hands={0: [K(SAFE)]},
            spies=[(0, 0, 1, 1, 1, K(SAFE, SQUARE)), (1, 0, 0, 2, 1, K(CODE)), (2, 0, 0, 2, 1, K(DEMO))])
    assert {MISSION(0), EXPOSE(1, 0), EXPOSE(2, 0)} <= legal(g)
    do(g, INFIL(1, 0), STANDDOWN(1, 0), D.A_ACCEPT)
    acts = legal(g)
    assert MISSION(0) not in acts and EXPOSE(1, 0) not in acts and INFIL(1, 2) not in acts
    assert EXPOSE(2, 0) in acts and D.A_PASS in acts and g.t == 0
    do(g, D.A_PASS)
    assert not any(g.immune) and g.active == 1  # immunities end with the turn


# ------------------------------------------------------------------ C42, C43
def test_c42_unseated_offsets_are_masked_with_two_and_three_players():
    g = game(n=2, negotiation="structured")
    arrange(g, hands={0: [K(SAFE)], 1: [K(CODE)]})
    g.zone[0][0] -= 2
    g.base[1][0] += 2  # colour offset +1 from player 1; offsets +2/+3 are unseated
    g._resync()
    acts = legal(g)
    infil = {a for a in acts if D.A_INFIL <= a < D.A_MISSION}
    assert infil == {INFIL(1, k) for k in range(3)}
    do(g, INFIL(1, 0))
    acts = legal(g)
    assert STANDDOWN(2, 3) in acts and not any(STANDDOWN(1, s) in acts for s in (4, 5))
    g = game(n=3)
    arrange(g, hands={0: [K(SAFE)]})
    assert {a for a in legal(g) if D.A_INFIL <= a < D.A_MISSION} == {INFIL(o, k) for o in (1, 2) for k in range(3)}
    g.round = 0
    strengthen_turn(g, 2, used=3)
    do(g, D.A_TAKE_CARD)
    assert g.stage == D.S_FIRST and legal(g) == {D.A_FIRST, D.A_FIRST + 1, D.A_FIRST + 2}


def test_c43_steal_takes_what_the_zone_holds():
    g = game()
    arrange(g, spies=[(0, 0, 1, 1, 3, K(SAFE))], deck_top=WIN_I)
    g.removed[1] += 7
    g.zone[1][1] = 1
    g._resync()
    do(g, MISSION(0))
    win(g)
    assert g.zone[1][1] == 0 and g.base[0][1] == 1 and g.base[0][0] == 3


def test_edge4_c43_raid_stops_when_the_victims_base_is_empty():
    g = game()
    arrange(g, spies=[(0, 0, 1, 1, 3, K(INTER))], deck_top=WIN_I)
    g.zone[2][0] -= 1
    g.base[1][2] += 1
    g._resync()
    do(g, MISSION(0))
    win(g)
    assert g.stage == D.S_RAID and legal(g) == {D.A_RAID + 2}
    do(g, D.A_RAID + 2)  # RAID 3 finds one case: one pick, then SNATCH/SEIZE-K and home
    assert g.stage == D.S_MAIN and g.base[0] == [3, 0, 1, 0] and g.active == 1


def test_edge22_bribe_paid_from_the_contested_zone_leaves_less_to_steal():
    g = game(negotiation="structured")
    arrange(g, spies=[(0, 0, 1, 1, 2, K(SAFE))], deck_top=[K(SAFE, SQUARE, 3), K(CODE, CIRCLE, 1)])
    g.removed[1] += 6
    g.zone[1][1] = 2
    g._resync()
    do(g, MISSION(0), D.A_OFFER_NONE, D.A_OFFER_NONE, REF_OFFER(0, 1, 1), D.A_REF_ACCEPT_D)
    assert g.zone[1][1] == 1 and g.base[2][1] == 1
    do(g, D.A_NO_CARD, D.A_NO_CARD)  # 3 vs 1: the mission wins, STEAL 2 finds one case
    assert g.zone[1][1] == 0 and g.base[0][1] == 1


# ---------------------------------------------------- §7, §9.5 face-down card
def test_s7_face_down_addition_is_known_only_to_its_player_until_the_reveal():
    add = K(CODE, CIRCLE, 3)
    g = mission(K(SAFE), 1, hands={0: [add]})
    do(g, REF_FREE(0), CARD(add))
    mine = g._slices["my_added_card"]
    added = g._slices["conf_added"]
    assert g.observe(0)[mine][add] == 1
    for p in (1, 2, 3):
        obs = g.observe(p)
        assert not obs[mine].any() and obs[added][0] == 1
        assert not obs[g._slices["conf_added_kinds"]].any()
    do(g, D.A_NO_CARD)  # reveal: 6 vs 0, the mission resolves and the cards go face up
    assert g.disc_up[add] == 1 and not g.cf_on


def test_s9_5_resample_redeals_the_other_participants_addition_and_keeps_the_viewers():
    add = K(CODE, CIRCLE, 3)
    g = mission(K(SAFE), 1, hands={0: [add, K(SAFE, SQUARE, 2)], 1: [K(DEMO, SQUARE, 2)]})
    do(g, REF_FREE(0), CARD(add))
    assert g.stage == D.S_ADD_CARD and g.decider == 1
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(20):
        r = g.resample_hidden(1, rng)  # the defender does not know the initiator's addition
        r.check_invariants()
        assert r.h.add[0] >= 0 and r.hsize[0] == 1 and r.h.hands[1] == g.h.hands[1]
        assert np.array_equal(r.observe(1), g.observe(1))
        seen.add(r.h.add[0])
    assert len(seen) > 1
    for _ in range(5):
        assert g.resample_hidden(0, rng).h.add[0] == add  # the initiator keeps its own


# ------------------------------------------------------------- §4.4, C44
def test_c21_kompromat_tie_between_holders_goes_to_the_nearest_clockwise_from_f():
    g = game()
    arrange(g, spies=[(1, 0, 2, 0, 2, K(SAFE)), (0, 0, 1, 0, 1, K(CODE)), (3, 0, 1, 1, 1, K(DEMO))])
    g.komp = [True, False, False, True]
    g.komp_supply = 0
    strengthen_turn(g, 3, used=3)
    do(g, D.A_TAKE_CARD)  # tokens 1/2/0/1: F = 2; holders 0 and 3 tie, 3 is nearer clockwise from 2
    assert g.decider == 2 and g.komp == [True, False, True, False] and g.komp_supply == 0


def test_edge21_the_first_player_chooser_may_pick_itself():
    g = game()
    arrange(g, spies=[(0, 0, 1, 0, 2, K(SAFE))])
    strengthen_turn(g, 3, used=3)
    do(g, D.A_TAKE_CARD, D.A_FIRST)
    assert g.first == 3 and g.round == 1 and g.active == 3


def test_c44_draw_empty_and_take_card_reshuffle_the_discard_when_the_deck_is_empty():
    g = game()
    arrange(g, hands={0: []}, discard=[K(SAFE, CIRCLE, 3), K(CODE, SQUARE, 3)], rest_to=1)
    assert not g.h.deck and D.A_DRAW_EMPTY in legal(g)
    do(g, D.A_DRAW_EMPTY)  # [C33] draws the 2 cards that exist
    assert g.hsize[0] == 2 and not any(g.disc_up) and not g.h.deck and g.active == 1
    arrange(g, hands={0: []}, spies=[(0, 0, 1, 0, 1, K(SAFE))], discard=[K(SAFE, CIRCLE, 3)], rest_to=1)
    strengthen_turn(g, 0)
    assert D.A_TAKE_CARD in legal(g)
    do(g, D.A_TAKE_CARD)
    assert g.h.hands[0][K(SAFE, CIRCLE, 3)] == 1


# ---------------------------------------------------------- C01, C04, C35
def test_c01_the_zone_suit_is_the_fixed_trump_and_the_other_two_are_the_candidates():
    g = game()
    arrange(g, spies=[(1, 1, 0, 2, 1, K(SAFE))], deck_top=[K(CODE, TRIANGLE, 2), K(DEMO, SQUARE, 3)])
    do(g, EXPOSE(1, 1))  # zone 3 of player 0: triangle
    assert g.cf_k == TRIANGLE and g.cf_cands == (CIRCLE, SQUARE)
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)  # circle: I's triangle 2 counts, D's square 3 does not
    assert g.spy_loc[1][1] == -1 and g.base[0][1] == 1  # 2 vs 0: captured


def test_c03_c04_every_case_leaving_a_zone_vacates_the_least_negative_cell():
    g = game(negotiation="structured")
    arrange(g, hands={0: [K(SAFE), K(DEMO)], 1: [K(CODE)]})
    do(g, INFIL(1, 2), D.A_OFFER_NONE, D.A_PICK_AGENT, CARD(K(SAFE)))  # 6-zone: first loss costs 1
    assert g.zone[0][2] == 5 and g.penalty(0) == 1 and g.vp(0) == 23 - 1
    do(g, D.A_PASS, D.A_PASS, D.A_PASS)  # players 1-3 pass; player 0 again
    do(g, INFIL(1, 0), STANDDOWN(3, 1), D.A_ACCEPT)  # player 1 pays 3 from its 8-zone: 0 + 1 + 1
    assert g.zone[1][1] == 5 and g.penalty(1) == 2 and g.vp(0) == 23 - 1 + 9


def test_c35_agent_pairs_are_reusable_after_removal_and_spies_may_share_a_zone():
    g = game()
    plan = K(CODE, TRIANGLE, 2)
    arrange(g, hands={0: [plan]}, spies=[(0, 0, 1, 0, 1, K(SAFE)), (2, 0, 1, 0, 1, K(DEMO))])
    do(g, D.A_RECALL)  # agent 1 back in reserve
    do(g, INFIL(1, 0), D.A_PICK_AGENT, CARD(plan))
    assert g.spy_loc[0][0] == 3 and g.spy_loc[2][0] == 3 and g.h.plans[0][0] == plan
