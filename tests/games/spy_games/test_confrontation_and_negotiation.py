"""Spy Games rules tests: confrontations (§4.5), negotiation (§5), abilities 1 and 5."""

import numpy as np

from spyenvs.games.spy_games import data as D

from .helpers import (
    A1_I_PLUS, CIRCLE, CODE, DEMO, K, PROV, SAFE, SQUARE, TRIANGLE, CARD, DEMAND, EXPOSE, INFIL, MISSION,
    PAY_FROM, REF_FREE, REF_OFFER, STANDDOWN, WITHDRAW, arrange, do, game, legal,
)

WIN_I = [K(PROV, SQUARE, 3), K(PROV, TRIANGLE, 1)]  # face-ups in a square zone with circle as 2nd trump


def mission_setup(n=4, negotiation="off", deck_top=(), hands=None, extra_spies=()):
    g = game(n=n, negotiation=negotiation)
    arrange(g, hands=hands or {}, spies=[(0, 0, 1, 1, 1, K(SAFE))] + list(extra_spies), deck_top=deck_top)
    return g


def test_s4_5_referee_is_first_non_participant_clockwise_from_initiator():
    g = mission_setup(deck_top=WIN_I)
    do(g, MISSION(0))
    assert g.cf_ref == 2 and g.stage == D.S_REF_CHOICE and g.decider == 2
    g = game()
    arrange(g, spies=[(0, 0, 3, 1, 1, K(SAFE))])
    do(g, MISSION(0))
    assert g.cf_ref == 1
    g = game(n=3)
    arrange(g, spies=[(1, 0, 0, 1, 1, K(SAFE))])
    do(g, EXPOSE(1, 0))
    assert g.cf_ref == 2


def test_s4_5_totals_count_pips_of_trump_suits_only_and_winner_resolves_c37():
    g = mission_setup(deck_top=[K(SAFE, TRIANGLE, 3), K(DEMO, SQUARE, 1)], hands={0: [K(CODE, CIRCLE, 2)]})
    do(g, MISSION(0), REF_FREE(0))  # circle becomes the second trump
    assert g.cf_trump2 == CIRCLE
    do(g, CARD(K(CODE, CIRCLE, 2)))
    assert g.cf_added == [True, False] and g.h.add[0] == K(CODE, CIRCLE, 2)
    do(g, D.A_NO_CARD)
    # I: triangle 3 (no trump) + circle 2 = 2; D: square 1 = 1 -> the mission resolves (STEAL 1)
    assert g.zone[1][1] == 7 and g.base[0][1] == 1 and g.base[0][0] == 1 and g.spy_loc[0][0] == -1
    for kind in (K(SAFE, TRIANGLE, 3), K(DEMO, SQUARE, 1), K(CODE, CIRCLE, 2), K(SAFE)):
        assert g.disc_up[kind] == 1


def test_s4_5_unpledged_tie_is_decided_by_the_referee_c36_failure_costs_only_the_slot():
    g = mission_setup(deck_top=[K(SAFE, SQUARE, 2), K(CODE, CIRCLE, 2)])
    do(g, MISSION(0), REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)
    assert g.stage == D.S_TIE and g.decider == 2
    do(g, D.A_TIE_D)
    assert g.spy_loc[0][0] == 4 and g.spy_c[0][0] == 1 and g.zone[1][1] == 8
    assert g.stage == D.S_MAIN and g.active == 1


def test_s5_2_accepted_bribe_pays_referee_fixes_suit_and_pledges_the_tie():
    g = mission_setup(negotiation="structured", deck_top=[K(SAFE, SQUARE, 1), K(CODE, TRIANGLE, 1)])
    do(g, MISSION(0), D.A_OFFER_NONE)
    assert g.stage == D.S_REF_OFFER and g.decider == 0
    do(g, D.A_OFFER_NONE)
    assert g.decider == 1
    do(g, REF_OFFER(1, 1, 0))  # triangle, 1 case from zone 1
    assert legal(g) == {D.A_REF_ACCEPT_D, REF_FREE(0), REF_FREE(1)}
    do(g, D.A_REF_ACCEPT_D)
    assert g.zone[1][0] == 9 and g.base[2][1] == 1 and g.cf_trump2 == TRIANGLE and g.cf_pledge == 1
    do(g, D.A_NO_CARD, D.A_NO_CARD)  # 1 vs 1: the tie goes to the pledged defender, no TIE decision
    assert g.spy_loc[0][0] >= 0 and g.stage == D.S_MAIN and g.active == 1


def test_s5_2_rejected_bribe_moves_nothing():
    g = mission_setup(negotiation="structured", deck_top=WIN_I)
    do(g, MISSION(0), D.A_OFFER_NONE, REF_OFFER(0, 2, 1), D.A_OFFER_NONE, REF_FREE(1))
    assert g.zone[0] == [10, 7, 6] and sum(g.base[2]) == 0 and g.cf_pledge == -1 and g.cf_trump2 == TRIANGLE


def test_c31_two_players_coin_picks_the_trump_and_breaks_ties():
    for seed in range(6):
        g = game(n=2)
        arrange(g, spies=[(0, 0, 1, 1, 1, K(SAFE))], deck_top=[K(SAFE, SQUARE, 2), K(CODE, SQUARE, 2)])
        g.rng = np.random.default_rng(seed)
        do(g, MISSION(0))
        assert g.stage == D.S_ADD_CARD and g.cf_ref == -1 and g.cf_trump2 in (CIRCLE, TRIANGLE)
        do(g, D.A_NO_CARD, D.A_NO_CARD)
        assert g.stage != D.S_TIE and not g.cf_on


def test_c20_single_kompromat_wins_and_returns_to_supply():
    g = mission_setup(deck_top=[K(SAFE, TRIANGLE, 1), K(CODE, SQUARE, 3)])
    g.komp[0] = True
    g.komp_supply = 1
    g._resync()
    do(g, MISSION(0), REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)
    assert g.stage == D.S_KOMP and g.decider == 0
    do(g, D.A_KOMP + 1)
    assert g.komp_supply == 2 and not g.komp[0]
    assert g.spy_loc[0][0] == -1 and g.base[0][1] == 1  # 0 vs 3, but kompromat wins the mission


def test_c20_both_kompromat_cancel_and_totals_decide():
    g = mission_setup(deck_top=[K(SAFE, TRIANGLE, 1), K(CODE, SQUARE, 3)])
    g.komp[0] = g.komp[1] = True
    g.komp_supply = 0
    g._resync()
    do(g, MISSION(0), REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD, D.A_KOMP + 1)
    assert g.decider == 1
    do(g, D.A_KOMP + 1)
    assert g.komp_supply == 2 and g.spy_loc[0][0] >= 0  # defender's 3 beats 0


def test_s2_5_agent1_informant_modifies_totals_after_the_reveal():
    g = mission_setup(deck_top=[K(SAFE, SQUARE, 1), K(CODE, SQUARE, 1)], extra_spies=[(3, 0, 1, 1, 1, K(DEMO))])
    do(g, MISSION(0), REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)
    assert g.stage == D.S_A1 and g.decider == 3
    do(g, A1_I_PLUS)
    assert g.spy_loc[0][0] == -1 and g.base[0][1] == 1  # 2 vs 1 after the +1


def test_c18_fixer_non_participant_takes_over_as_referee():
    g = mission_setup(deck_top=WIN_I, extra_spies=[(3, 4, 1, 1, 1, K(DEMO))])
    do(g, MISSION(0))
    assert g.stage == D.S_FIXER and g.decider == 3
    do(g, D.A_FIXER + 1)
    assert g.cf_ref == 3 and g.cf_fix == 1 and g.stage == D.S_REF_CHOICE and g.decider == 3


def test_c18_defender_fixer_picks_the_suit_skips_the_bribe_and_referee_keeps_ties():
    g = game(negotiation="structured")
    arrange(g, spies=[(1, 1, 0, 1, 1, K(SAFE)), (1, 4, 0, 1, 1, K(DEMO))],
            deck_top=[K(SAFE, SQUARE, 2), K(CODE, SQUARE, 2)])
    do(g, EXPOSE(1, 1), D.A_OFFER_NONE)
    assert g.stage == D.S_FIXER and g.decider == 1
    do(g, D.A_FIXER + 1)
    assert g.cf_fix == 2 and g.cf_ref == 2
    assert g.stage == D.S_REF_CHOICE and g.decider == 1 and legal(g) == {REF_FREE(0), REF_FREE(1)}
    do(g, REF_FREE(1), D.A_NO_CARD, D.A_NO_CARD)
    assert g.stage == D.S_TIE and g.decider == 2


def test_s5_1_standdown_offer_sources_are_masked_and_acceptance_makes_target_immune():
    g = game(negotiation="structured")
    arrange(g, hands={0: [K(SAFE)], 1: [K(CODE)]})
    do(g, INFIL(1, 0))
    assert g.stage == D.S_BUY_OFFER and g.decider == 1
    acts = legal(g)
    assert STANDDOWN(3, 2) in acts and STANDDOWN(1, 6) in acts and STANDDOWN(2, 6) not in acts
    assert STANDDOWN(1, 3) not in acts  # empty base colour
    assert not any(D.A_WITHDRAW <= a < D.A_REJECT for a in acts)
    do(g, STANDDOWN(2, 2))
    assert g.stage == D.S_BUY_REPLY and g.decider == 0 and legal(g) == {D.A_REJECT, D.A_ACCEPT}
    do(g, D.A_ACCEPT)
    assert g.zone[1][2] == 4 and g.base[0][1] == 2 and g.immune[1]
    assert g.stage == D.S_MAIN and g.decider == 0 and g.t == 0
    acts = legal(g)
    assert INFIL(1, 0) not in acts and INFIL(2, 0) in acts


def test_s5_1_withdraw_pays_and_recalls_the_spy_card_payment_pins_c29():
    g = game(negotiation="structured")
    card = K(CODE, 2, 3)
    arrange(g, hands={1: [card]}, spies=[(0, 0, 1, 1, 1, K(SAFE))])
    do(g, MISSION(0))
    do(g, WITHDRAW(1, 6), D.A_ACCEPT)
    assert g.spy_loc[0][0] == -1 and g.base[0][0] == 1 and g.h.disc_down == [K(SAFE)]
    assert g.h.hands[0][card] == 1 and g.hsize[1] == 0 and g.immune[1]
    assert g.h.pins[1][0] == {card: 1}  # the payer knows where its card went
    assert g.h.pins[2][0] == {}


def test_s5_1_demand_is_paid_by_the_exposer_and_the_spy_is_recalled():
    g = game(negotiation="structured")
    arrange(g, spies=[(1, 0, 0, 2, 2, K(SAFE))])
    do(g, EXPOSE(1, 0))
    assert {DEMAND(1), DEMAND(2), DEMAND(3)} <= legal(g)
    do(g, DEMAND(2))
    acts = legal(g)
    assert D.A_REJECT in acts and PAY_FROM(0) in acts and PAY_FROM(6) not in acts
    do(g, PAY_FROM(0))
    assert g.zone[0][0] == 8 and g.base[1][0] == 2 and g.base[1][1] == 2 and g.spy_loc[1][0] == -1
    assert g.immune[1] and g.stage == D.S_MAIN


def test_s5_1_rejected_or_none_offer_locks_the_declaration():
    g = game(negotiation="structured")
    arrange(g, spies=[(1, 0, 0, 2, 1, K(SAFE))], deck_top=WIN_I)
    do(g, EXPOSE(1, 0), STANDDOWN(1, 0), D.A_REJECT)
    assert g.cf_on and g.stage == D.S_REF_OFFER and g.zone[1][0] == 10


def test_s5_payment_from_foreign_cases_in_the_base():
    g = game(negotiation="structured")
    arrange(g, hands={0: [K(SAFE)]})
    g.zone[3][0] -= 2
    g.base[1][3] += 2  # colour 3 is offset +2 from player 1: source 4
    g._resync()
    do(g, INFIL(1, 1))
    acts = legal(g)
    assert STANDDOWN(2, 4) in acts and STANDDOWN(3, 4) not in acts and STANDDOWN(1, 3) not in acts
    do(g, STANDDOWN(2, 4), D.A_ACCEPT)
    assert g.base[1][3] == 0 and g.base[0][3] == 2


def test_s5_mode_off_has_no_offer_stages():
    g = mission_setup(negotiation="off", deck_top=WIN_I)
    do(g, MISSION(0))
    assert g.stage == D.S_REF_CHOICE and legal(g) == {REF_FREE(0), REF_FREE(1)}
    assert all(not (D.A_OFFER_NONE <= a <= D.A_REF_ACCEPT_D) for a in legal(g))
