"""Rules tests for arrows, missions, end-of-turn scoring, free mission operations,
turn order and the end rules (rules file 3, 4.1, 4.2, 5, C9, C10, C28-C32, C38, C42,
C47, C48)."""

import pytest

from spyenvs.core import GameStateError

from spyenvs.games.the_agents import data as D
from spyenvs.games.the_agents import rules as R

from .helpers import STEP, agent, arrange, board, fslot, legal, mission, mslot, play, seat, ori

M, AS, AB, EX, HA, TE, DE, AC, ME, IN, JA = D.FACTION_TYPES
GU, RE, ST, MC, TR, UN, IT = D.FREE_TYPES


def test_3_setup_counts_per_player_count():
    for n, deck_a, deck_m in ((2, 30, 18), (3, 27, 17), (5, 21, 15)):
        from spyenvs.games.the_agents.game import TheAgentsGame

        g = TheAgentsGame(num_players=n)
        g.reset(1)
        assert len(g.deck_a) == deck_a and len(g.deck_m) == deck_m
        assert all(g.na[p] == 3 and len(g.hand_m[p]) == 1 and g.ip[p] == 5 for p in range(n))
        assert g.cap == (7 if n == 2 else 5) and all(row == [] for row in g.fac)


def test_5_1_worked_example_arrow_values():
    # four alive cards all with data toward the first member (commands toward P1)
    g = arrange(2, fac={0: [(M, 1), (EX, 1), (HA, 1), (AS, 1)]})
    assert g.arrows(0)[:2] == (6, 0)
    g.fac[0][2] = (g.fac[0][2][0], 0)  # turn the Hacker
    assert g.arrows(0)[:2] == (2, 0)


def test_5_1_mixed_arrow_is_worth_one_and_halves_follow_the_facing_player():
    # data toward P1 (second member): pair = (L(card j), R(card j+1))
    g = arrange(2, fac={0: [(HA, 0), (M, 0)]})  # L(Hacker)=B, R(Marksman)=B -> 2
    assert g.arrows(0) == (0, 2, 0, 0)
    g = arrange(2, fac={0: [(TE, 0), (M, 0)]})  # L(Temptress)=W, R(Marksman)=B -> mixed 1
    assert g.arrows(0) == (0, 1, 0, 1)
    g = arrange(2, fac={0: [(TE, 0), (M, -1)]})  # no arrow through a dead card
    assert g.arrows(0) == (0, 0, 0, 0)


def test_5_2_end_of_turn_scores_arrows_and_missions_of_active_player_only():
    g = arrange(2, fac={0: [(M, 1), (EX, 1)], 1: [(M, 0), (EX, 0)]},
                att={(0, 0): [D.CODE_OF_HONOR]}, ip=[0, 0], phase="end")
    play(g, R.A_DONE)
    assert g.ip == [2, 0]  # 2 arrow points; Code of Honor: no alive card faces P0
    assert g.active == 1 and g.decider == 1  # C42: next seat clockwise


def test_4_2_attach_needs_a_card_and_no_duplicate_and_at_most_two():
    g = arrange(2, missions={0: [D.BLOODBATH, D.MAN_DOWN, D.STAND_UNITED]}, ip=[5, 5])
    assert STEP["ATTACH"] not in legal(g)  # both factions empty (10.21)
    g = arrange(2, fac={0: [(M, 0)]}, missions={0: [D.BLOODBATH, D.MAN_DOWN, D.STAND_UNITED]},
                att={(0, 0): [D.BLOODBATH]}, ip=[5, 5])
    play(g, STEP["ATTACH"])
    assert legal(g) == {mission(D.MAN_DOWN), mission(D.STAND_UNITED)}
    play(g, mission(D.MAN_DOWN))
    assert legal(g) == {fslot(0)}  # F1 is empty
    play(g, fslot(0))
    assert [c >> 1 for c in g.att[0][0]] == [D.BLOODBATH, D.MAN_DOWN]
    assert STEP["ATTACH"] not in legal(g)  # two already on F0, F1 empty
    # RECALL returns it to hand, publicly
    play(g, STEP["RECALL"], mslot(0, 0, 0))
    assert g.cnt_m[0][D.BLOODBATH] == 2 and g.tag_m[1][g.hand_m[0][-1]] == R.KNOWN


def test_4_2_move_to_the_other_faction():
    g = arrange(2, fac={0: [(M, 0)], 1: [(HA, 0)]}, att={(0, 0): [D.BLOODBATH]}, ip=[5, 5])
    play(g, STEP["MOVE"], mslot(0, 0, 0))
    assert g.att[0][0] == [] and [c >> 1 for c in g.att[1][0]] == [D.BLOODBATH]


def test_c48_at_most_eight_free_mission_operations_per_window():
    g = arrange(2, fac={0: [(M, 0)]}, missions={0: [D.BLOODBATH]}, ip=[5, 5])
    for _ in range(4):
        play(g, STEP["ATTACH"], mission(D.BLOODBATH), fslot(0), STEP["RECALL"], mslot(0, 0, 0))
    assert g.stack[0][4] == 8 and STEP["ATTACH"] not in legal(g)
    play(g, STEP["BUY_AGENT_DECK"])  # a top-level action opens a new window
    assert STEP["ATTACH"] in legal(g)


def mission_score(mt, fac, n=2, owner=0, f=0, m=0, extra=None):
    att = {(f, m): [mt]}
    att.update(extra or {})
    g = arrange(n, fac=fac, att=att)
    arrows = {x: g.arrows(x) for x in range(g.nf)}
    return g.mission_points(owner, f, mt, arrows)


def test_5_3_bloodbath_pays_once_for_neighbouring_dead_cards():
    assert mission_score(D.BLOODBATH, {0: [(M, -1), (HA, -1), (AS, -1), (TE, -1)]}) == 3
    assert mission_score(D.BLOODBATH, {0: [(M, -1), (HA, 0), (AS, -1)]}) == 0


def test_c28_chosen_few_needs_strictly_fewer_cards():
    assert mission_score(D.CHOSEN_FEW, {0: [(M, 0)], 1: [(HA, 0), (AS, -1)]}) == 1
    assert mission_score(D.CHOSEN_FEW, {0: [(M, 0), (TE, 1)], 1: [(HA, 0), (AS, -1)]}) == 0


def test_5_3_code_breaker_counts_mixed_arrows_in_both_factions():
    fac = {0: [(TE, 1), (M, 1)], 1: [(TE, 1), (M, 1), (HA, 0)]}
    # F0, data to P0: (R(Temptress)=B, L(Marksman)=B) -> same; use (Hacker, Assassin) for mixed
    fac = {0: [(HA, 1), (M, 1)], 1: [(HA, 1), (M, 1)]}  # (R(H)=W, L(M)=B): mixed in both
    assert mission_score(D.CODE_BREAKER, fac) == 2


def test_5_3_code_of_honor_counts_alive_cards_facing_owner():
    assert mission_score(D.CODE_OF_HONOR, {0: [(M, 0), (HA, 0), (AS, 1), (TE, -1)]}) == 2


def test_5_3_man_down_counts_dead_cards():
    assert mission_score(D.MAN_DOWN, {0: [(M, -1), (HA, 0), (AS, -1)]}) == 2


def test_c30_meet_your_match_compares_this_faction_only():
    assert mission_score(D.MEET_YOUR_MATCH, {0: [(M, 0)], 1: [(M, 1), (EX, 1)]}) == 2  # 0 == 0
    assert mission_score(D.MEET_YOUR_MATCH, {0: [(M, 1), (EX, 1)]}) == 0  # 2 vs 0


def test_5_3_poor_mans_game_needs_zero_arrow_points_in_both_factions():
    assert mission_score(D.POOR_MANS_GAME, {0: [(M, 0), (EX, 0)], 1: [(HA, 0)]}) == 3
    assert mission_score(D.POOR_MANS_GAME, {0: [(M, 0)], 1: [(M, 1), (EX, 1)]}) == 0


def test_5_3_reinforcements_same_verb_and_group_facing_owner():
    assert mission_score(D.REINFORCEMENTS, {0: [(M, 0), (HA, 1), (AS, 0)]}) == 4  # KILL pair
    assert mission_score(D.REINFORCEMENTS, {0: [(IN, 0), (JA, 0)]}) == 4  # REACTIVATE pair
    assert mission_score(D.REINFORCEMENTS, {0: [(ME, 0), (IN, 0)]}) == 0  # verbs differ
    assert mission_score(D.REINFORCEMENTS, {0: [(M, 0), (AS, 1)]}) == 0  # one faces P1


def test_c29_stand_united_counts_alive_neighbours_of_the_same_type():
    g = arrange(2, fac={0: [(M, 0), (M, 1)]}, att={(0, 0): [D.STAND_UNITED]})
    assert g.mission_points(0, 0, D.STAND_UNITED, {0: g.arrows(0), 1: g.arrows(1)}) == 4
    g = arrange(2, fac={0: [(M, 0), (M, -1)]}, att={(0, 0): [D.STAND_UNITED]})
    assert g.mission_points(0, 0, D.STAND_UNITED, {0: g.arrows(0), 1: g.arrows(1)}) == 0


def test_c32_same_mission_on_both_factions_scores_twice():
    g = arrange(2, fac={0: [(M, -1)], 1: [(HA, -1)]},
                att={(0, 0): [D.MAN_DOWN], (1, 0): [D.MAN_DOWN]}, ip=[0, 0], phase="end")
    play(g, R.A_DONE)
    assert g.ip[0] == 2


def test_c31_moral_high_ground_reveal_scores_and_pins():
    g = arrange(2, fac={0: [(HA, -1)]}, att={(0, 0): [D.MORAL_HIGH_GROUND]},
                hands={0: [GU, GU, M, RE]}, ip=[0, 0], phase="end")
    play(g, R.A_DONE)
    asked = []
    while g.decision == R.D_MHG:
        asked.append(max(legal(g)) - R.A_COUNT)
        play(g, max(legal(g)))
    # Marksman, Assassin, Hacker, Temptress, Gunner, Undercover: all six asked, in id order
    assert asked == [1, 0, 0, 0, 2, 0]
    assert g.ip[0] == 3
    pins = g.layout.view(g.observe(1), "pins_agents")[0]
    assert pins[GU] == 2 and pins[M] == 1 and pins[RE] == 0


def test_c31_without_moral_high_ground_there_is_no_reveal_step():
    g = arrange(2, fac={0: [(HA, -1)]}, hands={0: [GU]}, ip=[0, 0], phase="end")
    play(g, R.A_DONE)
    assert g.active == 1


def test_c9_free_agent_ip_can_make_a_non_active_player_win_at_once():
    g = arrange(2, hands={0: [GU]}, fac={0: [(M, 0)]}, ip=[5, 38])
    play(g, STEP["PLAY_FREE_AGENT"], agent(GU), seat(1), ori(0), board(0, 0))
    assert g.is_over and g.outcome() == [-1.0, 1.0]
    # C47: the Free Agent stays in transit in the terminal state
    assert [e[0] >> 1 for e in g.transit] == [GU]


def test_5_4_end_of_turn_gain_wins_immediately():
    g = arrange(2, fac={0: [(M, 1), (EX, 1)]}, ip=[38, 0], phase="end")
    play(g, R.A_DONE)
    assert g.is_over and g.winners == [0]


def test_c10_equal_turns_plays_out_the_round_then_highest_wins():
    g = arrange(2, fac={0: [(M, 1), (EX, 1)]}, ip=[38, 0], phase="end", end_rule="equal_turns")
    play(g, R.A_DONE)
    assert not g.is_over and g.reached == [0] and g.active == 1
    g.ip[1] = 45
    g.stack = [[R.END, 1, 0]]
    g._advance()
    g._set_mask()
    play(g, R.A_DONE)
    assert g.is_over and g.outcome() == [-1.0, 1.0]


def test_c10_tie_goes_to_earliest_reacher_else_shared():
    g = arrange(2, ip=[41, 41], active=1, phase="end", end_rule="equal_turns")
    g.reached = [1, 0]
    g._end_turn(1)
    assert g.winners == [1]
    g = arrange(3, ip=[39, 39, 30], active=2, phase="end", end_rule="equal_turns")
    g.reached = [2]
    g._end_turn(2)
    assert g.winners == [0, 1] and g.outcome() == [1.0, 1.0, -1.0]


def test_c38_max_turns_truncates_without_a_winner():
    g = arrange(2, ip=[0, 0], phase="end", max_turns=1)
    play(g, R.A_DONE)
    assert g.is_over and g.truncated and g.outcome() == [0.0, 0.0]


def test_c38_max_decisions_per_turn_truncates():
    g = arrange(2, fac={0: [(M, 0)]}, missions={0: [D.BLOODBATH]}, ip=[5, 5], max_decisions_per_turn=3)
    play(g, STEP["ATTACH"], mission(D.BLOODBATH), fslot(0))
    assert not g.is_over
    with pytest.raises(GameStateError):
        play(g, STEP["RECALL"], mslot(0, 0, 0), STEP["ATTACH"])
    assert g.is_over and g.truncated
