"""Spy Games rules tests: mission and exposure resolution (§2.4, §4.6, §4.7), Analyst,
end of game and scoring (§6), payoffs (C41), hidden information (§7, §9.5)."""

import numpy as np

from spyenvs.games.spy_games import data as D
from spyenvs.games.spy_games.game import SpyGamesGame

from .helpers import (
    WIN_I, exposure, mission, win,
    BONUS, CIRCLE, CODE, DEMO, INTER, LIQ, PENALTY, PROV, SAFE, SQUARE, TRIANGLE, K, MISSION,
    REF_FREE, arrange, do, game, strengthen_turn,
)


def test_s4_6_safecracker_mission_steals_and_spy_cases_return_home_c10():
    g = mission(K(SAFE), 2)
    win(g)
    assert g.zone[1][1] == 6 and g.base[0][1] == 2 and g.base[0][0] == 2
    assert g.spy_loc[0][0] == -1 and g.disc_up[K(SAFE)] == 1 and g.stage == D.S_MAIN


def test_s2_4_demolitionist_mission_destroys_then_steals():
    g = mission(K(DEMO), 3)
    win(g)
    assert g.zone[1][1] == 3 and g.removed[1] == 3 and g.base[0][1] == 2 and g.base[0][0] == 3


def test_s2_4_interceptor_raid_picks_colours_in_the_victims_base_then_snatches():
    g = game()
    arrange(g, hands={1: [K(CODE, TRIANGLE, 3)]}, spies=[(0, 0, 1, 1, 2, K(INTER))], deck_top=WIN_I)
    g.zone[2][0] -= 1
    g.base[1][2] += 1
    g.zone[1][0] -= 3
    g.base[1][1] += 3
    g._resync()
    do(g, MISSION(0))
    win(g)
    assert g.stage == D.S_RAID and g.decider == 0
    assert set(g.legal_actions()) == {D.A_RAID + 1, D.A_RAID + 2}
    do(g, D.A_RAID + 2)
    assert g.base[0][2] == 1 and set(g.legal_actions()) == {D.A_RAID + 1}
    do(g, D.A_RAID + 1)
    assert g.base[0][1] == 1 and g.base[1] == [0, 2, 0, 0]
    assert g.h.hands[0][K(CODE, TRIANGLE, 3)] == 1 and g.hsize[1] == 0  # SNATCH 1
    assert g.h.pins[1][0] == {K(CODE, TRIANGLE, 3): 1}


def test_s2_4_interceptor_l3_seizes_kompromat():
    g = mission(K(INTER), 3)
    g.komp[1] = True
    g.komp_supply = 1
    g._resync()
    win(g)
    assert g.stage == D.S_KOMP and g.decider == 1
    do(g, D.A_KOMP)  # the defender holds its kompromat and loses it to SEIZE-K
    assert g.komp[0] and not g.komp[1] and g.komp_supply == 1


def test_s2_4_liquidator_purges_another_players_spy_then_steals():
    other = [(2, 1, 1, 1, 2, K(CODE)), (3, 2, 1, 1, 1, K(DEMO)), (0, 3, 1, 1, 1, K(SAFE, SQUARE))]
    g = mission(K(LIQ), 3, extra=other)
    win(g)
    assert g.stage == D.S_PURGE and g.decider == 0
    opts = set(g.legal_actions())
    assert opts == {D.A_PURGE + 5 * 1 + 1, D.A_PURGE + 5 * 2 + 2}  # never A's own spy
    shown = g.observe(1)[g._slices["pick_options"]][4:].reshape(4, 5)  # seen by player 1
    assert shown[1, 1] == 1 and shown[2, 2] == 1 and shown.sum() == 2
    do(g, D.A_PURGE + 5 * 1 + 1)
    assert g.spy_loc[2][1] == -1 and g.base[0][2] == 2 and g.disc_up[K(CODE)] == 1
    assert g.spy_loc[3][2] >= 0 and g.spy_loc[0][3] >= 0
    assert g.base[0][1] == 1  # STEAL 1


def test_s2_4_liquidator_without_other_spies_steals_two_instead():
    g = mission(K(LIQ), 3)
    win(g)
    assert g.base[0][1] == 2 and g.stage == D.S_MAIN


def test_s2_5_agent4_amplify_raises_the_mission_level():
    g = mission(K(SAFE), 2, extra=[(2, 3, 1, 1, 1, K(DEMO))])
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)
    assert g.stage == D.S_A4 and g.decider == 2 and g.res_plan == K(SAFE)
    do(g, BONUS)
    assert g.base[0][1] == 3


def test_edge7_saboteur_mission_dampened_below_three_has_no_effect_but_spy_goes_home():
    g = mission(K(PROV), 3, extra=[(2, 3, 1, 1, 1, K(DEMO))], hands={1: [K(CODE)]})
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD, PENALTY)
    assert g.zone[1][1] == 8 and g.hsize[1] == 1 and g.base[0][0] == 3 and g.spy_loc[0][0] == -1


def test_c09_exposure_of_a_low_scout_captures_its_cases():
    g = exposure(K(SAFE), 2)
    win(g)
    assert g.base[0][1] == 2 and g.spy_loc[1][1] == -1 and g.disc_up[K(SAFE)] == 1


def test_s2_4_scout_l3_reaction_escapes_and_codebreaker_draws():
    g = exposure(K(CODE), 3)
    win(g)
    assert g.base[0][1] == 0 and g.base[1][1] == 3 and g.hsize[1] == 1


def test_edge7_scout_reaction_amplified_from_two_to_three_escapes():
    g = exposure(K(SAFE), 2, extra=[(2, 3, 0, 1, 1, K(DEMO))])
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)
    assert g.stage == D.S_A4 and g.decider == 2
    do(g, BONUS)
    assert g.base[1][1] == 2 and g.base[0][1] == 0


def test_c16_spy_owners_own_analyst_answers_its_exposure():
    g = exposure(K(SAFE), 2, j=3)  # the exposed spy is itself agent 4
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)
    assert g.stage == D.S_A4 and g.decider == 1


def test_s2_4_demolitionist_reaction_self_destructs_and_destroys_the_exposers_zone():
    g = exposure(K(DEMO), 1)
    win(g)
    assert g.removed[1] == 1 and g.zone[0][1] == 6 and g.removed[0] == 2 and g.base[0] == [0, 0, 0, 0]


def test_s2_4_provocateur_reaction_escapes_and_snatches_from_the_exposer():
    g = exposure(K(PROV), 2, hands={0: [K(SAFE, TRIANGLE, 2), K(CODE, CIRCLE, 3), K(DEMO, SQUARE, 2)]})
    win(g)
    assert g.hsize[0] == 1 and g.hsize[1] == 2 and g.base[1][1] == 2
    assert sum(g.h.pins[0][1].values()) == 2


def test_s2_4_liquidator_reaction_counter_steals_from_the_exposer():
    g = exposure(K(LIQ), 3)
    win(g)
    assert g.zone[0][1] == 6 and g.base[1][0] == 2 and g.base[1][1] == 3


def test_s6_endgame_discards_for_unrevealed_spies_and_sends_them_home():
    g = game()
    arrange(g, spies=[(0, 0, 1, 0, 3, K(SAFE)), (2, 1, 1, 0, 2, K(DEMO)), (3, 0, 0, 2, 1, K(CODE))])
    g.round = 2
    strengthen_turn(g, 3, used=3)
    do(g, D.A_TAKE_CARD)
    assert g.is_over
    assert g.zone[1][0] == 5 and g.removed[1] == 5  # 3 + 2 cases discarded from player 1's zone 1
    assert g.zone[0][2] == 5 and g.removed[0] == 1
    assert g.base[0][0] == 3 and g.base[2][2] == 2 and g.base[3][3] == 1
    assert all(loc < 0 for row in g.spy_loc for loc in row)


def test_c26_endgame_discards_beyond_the_zone_are_ignored():
    g = game()
    arrange(g, spies=[(0, 0, 1, 2, 3, K(SAFE)), (2, 0, 1, 2, 3, K(CODE))])
    g.removed[1] += 4
    g.zone[1][2] = 2
    g.round = 2
    strengthen_turn(g, 3, used=3)
    do(g, D.A_TAKE_CARD)
    assert g.zone[1][2] == 0 and g.removed[1] == 6


def test_s6_score_example_is_29():
    g = game()
    g.init[0] = [10, 8, 6]
    g.zone[0] = [7, 6, 3]
    g.base[0] = [4, 5, 0, 0]
    assert g.penalty(0) == 6 and g.vp(0) == 29


def _final(g, zones, bases):
    for p in range(g.n):
        g.zone[p] = list(zones[p])
        g.base[p] = list(bases[p])
    g.stage = D.S_OVER
    g.vp_final = [g.vp(p) for p in range(g.n)]


def test_c28_c41_winner_tie_breaks_and_payoff_modes():
    g = game(n=3)
    _final(g, [[10, 8, 6], [10, 8, 2], [10, 8, 6]], [[0, 1, 0], [0, 0, 2], [0, 0, 0]])
    assert g.final_scores() == [27, 18, 24] and g.outcome() == [1.0, -1.0, -1.0]
    _final(g, [[10, 8, 6], [10, 8, 6], [10, 8, 6]], [[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    assert g.outcome() == [0.0, 0.0, -1.0]  # shared win after identical tie-breaks
    g.config = dict(g.config, reward="rank")
    assert g.outcome() == [0.5, 0.5, -1.0]
    g.config = dict(g.config, reward="relative")
    assert g.outcome() == [1.5, 1.5, -3.0]
    g.config = dict(g.config, reward="raw")
    assert g.outcome() == [27.0, 27.0, 24.0]
    g.config = dict(g.config, reward="win_loss")
    # equal VP (27): more foreign cases wins
    _final(g, [[10, 8, 6], [10, 6, 6], [10, 8, 6]], [[0, 1, 0], [0, 0, 2], [0, 0, 0]])
    assert g.final_scores()[:2] == [27, 27] and g.outcome() == [-1.0, 1.0, -1.0]
    # equal VP and foreign cases: lower total penalty wins
    _final(g, [[10, 8, 6], [10, 8, 4], [10, 8, 6]], [[0, 1, 0], [1, 5, 0], [0, 0, 0]])
    assert g.final_scores()[:2] == [27, 27] and g.outcome() == [1.0, -1.0, -1.0]


def test_s7_observation_does_not_depend_on_other_hands_or_plans():
    g = game()
    arrange(g, hands={0: [K(SAFE)], 1: [K(CODE, SQUARE, 3)]}, spies=[(1, 0, 2, 0, 1, K(DEMO))])
    before = g.observe(0).copy()
    arrange(g, hands={0: [K(SAFE)], 1: [K(PROV, TRIANGLE, 2)]}, spies=[(1, 0, 2, 0, 1, K(LIQ, CIRCLE, 3))])
    assert np.array_equal(g.observe(0), before)
    own = g._slices["own_plans"]
    assert not g.observe(0)[own].any() and g.observe(1)[own].reshape(5, -1)[0, K(LIQ, CIRCLE, 3)] == 1


def test_s9_5_resample_keeps_pins_known_scouts_and_the_viewers_cards():
    g = game(negotiation="structured")
    card = K(CODE, TRIANGLE, 3)
    arrange(g, hands={0: [card, K(SAFE)], 1: [K(DEMO)]}, spies=[(1, 0, 2, 0, 2, K(SAFE, SQUARE, 2))])
    g.spy_ks[1][0] = True
    g._resync()
    g._card_transfer(0, 1, 2)  # player 0 pays both cards to player 1: pinned
    g.check_invariants()
    assert g.h.pins[0][1] == {card: 1, K(SAFE): 1}
    rng = np.random.default_rng(0)
    changed = False
    for _ in range(30):
        r = g.resample_hidden(0, rng)
        r.check_invariants()
        assert r.h.hands[1][card] >= 1 and r.h.hands[1][K(SAFE)] >= 1
        assert D.KIND_SCOUT[r.h.plans[1][0]]
        assert np.array_equal(r.observe(0), g.observe(0))
        changed |= r.hidden_key(0) != g.hidden_key(0)
    assert changed


def test_s9_2_bound_random_games_end_well_under_the_decision_bound():
    for n in (2, 3, 4):
        g = SpyGamesGame(num_players=n)
        g.reset(5)
        rng = np.random.default_rng(5)
        steps = 0
        while not g.is_over:
            g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
            steps += 1
        assert steps < 2200


def test_clone_copies_every_mutable_state_field():
    g = SpyGamesGame(num_players=4)
    g.reset(2)
    rng = np.random.default_rng(2)
    for _ in range(60):
        g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    twin = g.clone()
    for key, value in g.__dict__.items():
        if isinstance(value, list):
            assert twin.__dict__[key] is not value, key
            assert key == "actions" or key in SpyGamesGame._FLAT or key in SpyGamesGame._NESTED, key
    assert twin.pub is not g.pub and twin.h is not g.h and twin.h.hf[0] is not g.h.hf[0]
