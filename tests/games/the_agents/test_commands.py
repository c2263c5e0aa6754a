"""Rules tests for placement and every command (rules file 4.3-4.6, C11-C25, C35,
C37, C43, C45, C46), each from an explicit state."""

from spyenvs.games.the_agents import data as D
from spyenvs.games.the_agents import rules as R

from .helpers import (STEP, agent, arrange, board, fslot, gap, hand_types, legal, mslot, ori, play,
                      seat, types)

M, AS, AB, EX, HA, TE, DE, AC, ME, IN, JA = D.FACTION_TYPES
GU, RE, ST, MC, TR, UN, IT = D.FREE_TYPES


def place(g, t, slot, o, where):
    return play(g, STEP["PLAY_FACTION_AGENT"], agent(t), fslot(slot), ori(o), gap(where))


def test_4_3_faction_agent_stays_when_command_not_executable():
    g = arrange(2, hands={0: [M, HA]}, ip=[5, 5])
    place(g, M, 0, 0, 0)  # OTHER (F1) is empty: nothing to kill
    assert types(g.fac[0]) == [(M, 0)]
    assert g.decision == R.D_STEP and g.decider == 0
    assert g.stack[0][2] == 1  # one action used


def test_4_5_marksman_kills_in_executors_other_faction():
    # N=3: P0 owns F0 (with P1) and F2 (with P2); OTHER of F0 for P0 is F2
    g = arrange(3, hands={0: [M]}, fac={2: [(HA, 2), (ME, 0)], 1: [(AS, 1)]}, ip=[5, 5, 5])
    place(g, M, 0, 0, 0)
    assert g.decision == R.D_TARGET and g.decider == 0
    assert legal(g) == {board(2, 0), board(2, 1)}
    play(g, board(2, 1))
    assert types(g.fac[2]) == [(HA, 2), (ME, -1)]


def test_4_4_command_facing_neighbour_is_run_by_neighbour():
    # P0 places a Marksman facing P1: P1 executes with P1's OTHER faction (F1)
    g = arrange(3, hands={0: [M]}, fac={1: [(AS, 1)], 2: [(HA, 2)]}, ip=[5, 5, 5])
    place(g, M, 0, 1, 0)
    assert g.decider == 1 and legal(g) == {board(1, 0)}
    play(g, board(1, 0))
    assert g.fac[1][0][1] == -1 and g.decider == 0


def test_4_5_assassin_targets_only_non_adjacent_alive_cards():
    g = arrange(2, hands={0: [AS]}, fac={0: [(M, 0), (HA, 0), (EX, 1)], 1: [(ME, 1)]}, ip=[5, 5])
    place(g, AS, 0, 1, 3)  # right end, command to P1
    assert g.decider == 1 and legal(g) == {board(0, 0), board(0, 1)}
    play(g, board(0, 0))
    assert g.fac[0][0][1] == -1


def test_4_5_abductor_takes_any_card_of_other_faction_and_dead_becomes_ordinary():
    g = arrange(2, hands={0: [AB]}, fac={1: [(ME, -1)]}, att={(1, 1): [D.MAN_DOWN]}, ip=[5, 5])
    place(g, AB, 0, 0, 0)
    assert legal(g) == {board(1, 0)}
    play(g, board(1, 0))
    assert hand_types(g, 0) == [ME]
    # 4.6: the faction emptied, so the mission attached to it went home (public)
    assert g.fac[1] == [] and g.att[1][1] == [] and g.cnt_m[1][D.MAN_DOWN] == 1


def test_4_5_extractor_non_adjacent_in_this_faction_to_executor_hand():
    g = arrange(2, hands={0: [EX]}, fac={0: [(M, 0), (HA, 1), (TE, 1)]}, ip=[5, 5])
    place(g, EX, 0, 1, 3)
    assert g.decider == 1 and legal(g) == {board(0, 0), board(0, 1)}
    play(g, board(0, 1))
    assert hand_types(g, 1) == [HA] and types(g.fac[0]) == [(M, 0), (TE, 1), (EX, 1)]


def test_4_5_hacker_turns_alive_card_of_other_faction():
    g = arrange(2, hands={0: [HA]}, fac={1: [(M, 0), (AS, -1)]}, ip=[5, 5])
    place(g, HA, 0, 0, 0)
    assert legal(g) == {board(1, 0)}  # dead cards cannot be turned
    play(g, board(1, 0))
    assert types(g.fac[1]) == [(M, 1), (AS, -1)]


def test_4_5_temptress_turns_non_adjacent_in_this_faction():
    g = arrange(2, hands={0: [TE]}, fac={0: [(M, 0), (AS, 0)]}, ip=[5, 5])
    place(g, TE, 0, 0, 2)
    assert legal(g) == {board(0, 0)}
    play(g, board(0, 0))
    assert types(g.fac[0]) == [(M, 1), (AS, 0), (TE, 0)]


def test_c25_decoy_swap_keeps_orientation_relative_to_executor():
    # N=3, P0 executes: THIS = F0 (P0,P1), OTHER = F2 (P2,P0)
    g = arrange(3, hands={0: [DE]}, fac={0: [(M, 1), (HA, 0)], 2: [(AS, 2), (TE, 0)]}, ip=[5, 5, 5])
    place(g, DE, 0, 0, 2)
    assert g.decision == R.D_DECOY1 and legal(g) == {board(0, 0)}
    play(g, board(0, 0))
    assert legal(g) == {board(2, 0), board(2, 1)}
    play(g, board(2, 0))
    # the Marksman faced the other member (P1), so it now faces P2; the Assassin faced P2 -> P1
    assert types(g.fac[2]) == [(M, 2), (TE, 0)]
    assert types(g.fac[0]) == [(AS, 1), (HA, 0), (DE, 0)]


def test_c25_decoy_card_facing_executor_still_faces_executor():
    g = arrange(3, hands={0: [DE]}, fac={0: [(M, 0), (HA, 0)], 2: [(AS, 2), (TE, 0)]}, ip=[5, 5, 5])
    place(g, DE, 0, 0, 2)
    play(g, board(0, 0), board(2, 1))
    assert types(g.fac[2]) == [(AS, 2), (M, 0)] and types(g.fac[0])[0] == (TE, 0)


def test_4_5_activist_swaps_two_cards_of_other_faction_keeping_orientation():
    g = arrange(2, hands={0: [AC]}, fac={1: [(M, 0), (AS, -1), (HA, 1)]}, ip=[5, 5])
    place(g, AC, 0, 0, 0)
    assert legal(g) == {board(1, 0), board(1, 1), board(1, 2)}
    play(g, board(1, 0))
    assert legal(g) == {board(1, 1), board(1, 2)}
    play(g, board(1, 1))
    assert types(g.fac[1]) == [(AS, -1), (M, 0), (HA, 1)]


def test_c24_medic_picks_dead_card_then_orientation():
    g = arrange(2, hands={0: [ME]}, fac={1: [(M, -1), (HA, 1)]}, ip=[5, 5])
    place(g, ME, 0, 0, 0)
    assert g.decision == R.D_MEDIC_T and legal(g) == {board(1, 0)}
    play(g, board(1, 0))
    assert g.decision == R.D_MEDIC_ORI and legal(g) == {ori(0), ori(1)}
    play(g, ori(1))
    assert types(g.fac[1]) == [(M, 1), (HA, 1)]
    assert g.decision == R.D_STEP  # reviving never runs the revived command (4.4.7)


def test_c43_infiltrator_neighbour_command_runs_for_infiltrators_executor():
    # the Marksman faces P1, but the Infiltrator's executor P0 runs it, in P0's frame
    g = arrange(3, hands={0: [IN]}, fac={0: [(M, 1)], 2: [(HA, 2)], 1: [(AS, 1)]}, ip=[5, 5, 5])
    place(g, IN, 0, 0, 1)
    assert g.decision == R.D_INFIL and g.decider == 0 and legal(g) == {board(0, 0)}
    play(g, board(0, 0))
    assert g.decision == R.D_TARGET and g.decider == 0 and legal(g) == {board(2, 0)}
    play(g, board(2, 0))
    assert g.fac[2][0][1] == -1


def test_c35_infiltrator_may_enter_any_gap():
    g = arrange(2, hands={0: [IN, M]}, fac={0: [(HA, 0), (TE, 0), (AB, 0)]}, ip=[5, 5])
    play(g, STEP["PLAY_FACTION_AGENT"], agent(IN), fslot(0), ori(0))
    assert legal(g) == {gap(0), gap(1), gap(2), gap(3)}
    g2 = arrange(2, hands={0: [IN, M]}, fac={0: [(HA, 0), (TE, 0), (AB, 0)]}, ip=[5, 5])
    play(g2, STEP["PLAY_FACTION_AGENT"], agent(M), fslot(0), ori(0))
    assert legal(g2) == {gap(0), gap(3)}


def test_c53_gap_index_is_the_new_cards_position():
    g = arrange(2, hands={0: [IN]}, fac={0: [(HA, -1), (TE, -1)]}, ip=[5, 5])
    place(g, IN, 0, 0, 1)
    assert types(g.fac[0]) == [(HA, -1), (IN, 0), (TE, -1)]


def test_4_5_jack_reactivates_command_facing_the_opponent():
    g = arrange(2, hands={0: [JA]}, fac={0: [(HA, 1), (TE, 0)], 1: [(M, 0)]}, ip=[5, 5])
    place(g, JA, 0, 0, 2)
    assert g.decision == R.D_JACK and legal(g) == {board(0, 0)}  # the Temptress faces P0
    play(g, board(0, 0))
    assert g.decider == 0 and legal(g) == {board(1, 0)}  # Hacker in P0's frame: OTHER = F1
    play(g, board(1, 0))
    assert types(g.fac[1]) == [(M, 1)]


def test_c22_chain_never_runs_a_card_twice():
    # Jack -> Infiltrator -> (Marksman only: the Jack is already in the chain)
    g = arrange(2, hands={0: [JA]}, fac={0: [(M, 1), (IN, 1)], 1: [(HA, 1)]}, ip=[5, 5])
    place(g, JA, 0, 0, 2)
    assert legal(g) == {board(0, 0), board(0, 1)}
    play(g, board(0, 1))
    assert g.decision == R.D_INFIL and legal(g) == {board(0, 0)}
    assert g.stack[-1][6] == (1 << 2) | (1 << 1)  # chain: the Jack and the Infiltrator
    play(g, board(0, 0), board(1, 0))
    assert g.fac[1][0][1] == -1


def test_c21_reactivated_command_may_hit_the_triggering_jack():
    g = arrange(2, hands={0: [JA]}, fac={0: [(AS, 1), (HA, 0)]}, ip=[5, 5])
    place(g, JA, 0, 0, 2)
    play(g, board(0, 0))  # the Assassin (pos 0) runs for P0: non-adjacent = the Jack itself
    assert legal(g) == {board(0, 2)}
    play(g, board(0, 2))
    assert types(g.fac[0])[2] == (JA, -1)


def test_c19_reactivate_needs_an_executable_command():
    g = arrange(2, fac={0: [(M, 0)]}, ip=[5, 5])
    assert STEP["REACTIVATE"] not in legal(g)  # F1 is empty: nothing to kill
    g = arrange(2, fac={0: [(M, 0)], 1: [(HA, 1)]}, ip=[5, 5])
    assert STEP["REACTIVATE"] in legal(g)
    play(g, STEP["REACTIVATE"])
    assert legal(g) == {board(0, 0)}
    play(g, board(0, 0), board(1, 0))
    assert g.fac[1][0][1] == -1


def test_c20_card_placed_this_turn_can_be_reactivated():
    g = arrange(2, hands={0: [HA]}, fac={1: [(M, 1)]}, ip=[0, 0], deck_a=[], dump=1)
    place(g, HA, 0, 0, 0)
    play(g, board(1, 0))  # turned toward P0
    assert STEP["REACTIVATE"] in legal(g)
    play(g, STEP["REACTIVATE"], board(0, 0), board(1, 0))
    assert types(g.fac[1]) == [(M, 1)]


def test_4_5_gunner_kills_anywhere_and_pays_its_ip_after_the_command():
    g = arrange(3, hands={0: [GU]}, fac={1: [(M, 1)]}, ip=[5, 5, 5])
    play(g, STEP["PLAY_FREE_AGENT"], agent(GU))
    assert legal(g) == {seat(1), seat(2)}
    play(g, seat(1))
    assert legal(g) == {ori(0), ori(1)}
    play(g, ori(0))  # command to P0, IP to P1
    assert g.decider == 0 and legal(g) == {board(1, 0)} and [e[0] >> 1 for e in g.transit] == [GU]
    play(g, board(1, 0))
    assert g.fac[1][0][1] == -1 and g.ip == [5, 8, 5]
    assert [c >> 1 for c in g.ret_a] == [GU] and not g.transit


def test_4_5_undercover_turns_any_alive_card():
    g = arrange(3, hands={0: [UN]}, fac={1: [(M, 1)]}, ip=[5, 5, 5])
    play(g, STEP["PLAY_FREE_AGENT"], agent(UN), seat(2), ori(1))  # command to P2, IP to P0
    assert g.decider == 2 and legal(g) == {board(1, 0)}
    play(g, board(1, 0))
    assert types(g.fac[1]) == [(M, 2)] and g.ip[0] == 8


def test_c14_recruiter_draws_up_to_two_reshuffling_between_draws():
    g = arrange(2, hands={0: [RE]}, deck_a=[HA], ret_a=[GU], ip=[0, 0], dump=1)
    play(g, STEP["PLAY_FREE_AGENT"], agent(RE), seat(1), ori(0))
    assert hand_types(g, 0) == [HA, GU] or hand_types(g, 0) == sorted([HA, GU])
    # the Recruiter retired onto an empty deck: the invariant made it the new deck
    assert [c >> 1 for c in g.deck_a] == [RE] and g.ret_a == [] and g.ip == [0, 3]


def test_c12_strategist_target_is_the_ip_recipient_and_steals_attached():
    g = arrange(2, hands={0: [ST]}, fac={0: [(M, 0)]}, att={(0, 1): [D.MAN_DOWN]},
                missions={1: [D.BLOODBATH]}, ip=[5, 5])
    play(g, STEP["PLAY_FREE_AGENT"], agent(ST), seat(1))
    assert legal(g) == {ori(0)}  # toward P1 the target would be P0, who owns no mission
    play(g, ori(0))
    assert legal(g) == {mslot(0, 1, 0), R.A_RANDOM}
    play(g, mslot(0, 1, 0))
    assert g.cnt_m[0][D.MAN_DOWN] == 1 and g.att[0][1] == [] and g.ip == [5, 8]


def test_c12_strategist_random_from_hand_pins_for_victim_only():
    g = arrange(3, hands={0: [ST]}, missions={1: [D.BLOODBATH]}, ip=[5, 5, 5])
    play(g, STEP["PLAY_FREE_AGENT"], agent(ST), seat(1), ori(0), R.A_RANDOM)
    assert g.cnt_m[0][D.BLOODBATH] == 1 and g.hand_m[1] == []
    c = g.hand_m[0][0]
    assert g.tag_m[1][c] == R.KNOWN  # T knows what was taken (K_T(E))
    assert g.tag_m[2][c] != R.KNOWN  # a third party does not


def test_c11_mercenary_bonus_action_runs_before_its_ip_and_costs_no_action():
    g = arrange(2, hands={0: [MC]}, ip=[5, 5])
    play(g, STEP["PLAY_FREE_AGENT"], agent(MC), seat(1), ori(1))  # command to P1, IP to P0
    assert g.decider == 1 and g.decision == R.D_STEP
    assert g.ip == [5, 5] and g.stack[0][2] == 2  # no IP yet, P0's actions untouched
    assert STEP["ATTACH"] not in legal(g)  # C26: no mission operations in a bonus context
    play(g, STEP["BUY_AGENT_DECK"])
    assert g.ip == [8, 4] and g.decider == 0 and g.stack[0][2] == 2
    assert [c >> 1 for c in g.ret_a] == [MC]


def test_c26_no_mission_operations_in_own_bonus_context():
    g = arrange(2, hands={0: [MC, M]}, missions={0: [D.BLOODBATH]}, fac={0: [(HA, 0)]}, ip=[5, 5])
    assert STEP["ATTACH"] in legal(g)
    play(g, STEP["PLAY_FREE_AGENT"], agent(MC), seat(1), ori(0))
    assert g.decider == 0 and len(g.stack) == 3 and STEP["ATTACH"] not in legal(g)


def test_c45_emergency_draw_bars_the_actor_for_the_turn():
    g = arrange(2, ip=[0, 0], missions={}, dump=None)
    assert legal(g) == {STEP["EMERGENCY_DRAW"]}
    play(g, STEP["EMERGENCY_DRAW"])
    assert g.na[0] == 1 and g.barred == 1 and g.decision == R.D_END


def test_c17_emergency_draw_needs_no_agent_cards_and_zero_ip():
    g = arrange(2, ip=[1, 0])
    assert STEP["EMERGENCY_DRAW"] not in legal(g)
    g = arrange(2, hands={0: [M]}, ip=[0, 0])
    assert STEP["EMERGENCY_DRAW"] not in legal(g)


def test_c37_mercenary_cannot_face_a_barred_player():
    g = arrange(2, hands={0: [MC, MC]}, ip=[5, 0])
    play(g, STEP["PLAY_FREE_AGENT"], agent(MC), seat(1), ori(1))
    assert g.decider == 1 and legal(g) == {STEP["EMERGENCY_DRAW"]}
    play(g, STEP["EMERGENCY_DRAW"])
    assert g.decider == 0 and g.ip[0] == 8 and g.barred == 2  # P0 keeps its actions (C45)
    play(g, STEP["PLAY_FREE_AGENT"], agent(MC), seat(1))
    assert legal(g) == {ori(0)}


def test_c15_tracker_takes_a_type_from_the_deck_then_shuffles():
    g = arrange(2, hands={0: [TR]}, deck_a=[M, HA, HA], ip=[5, 5], dump=1)
    play(g, STEP["PLAY_FREE_AGENT"], agent(TR), seat(1), ori(0))
    assert g.decision == R.D_TRACK and legal(g) == {agent(M), agent(HA)}
    obs = g.observe(0)
    pv = g.layout.view(obs, "private_view")
    assert pv[M] == 1 and pv[HA] == 2  # the executor sees the deck
    assert g.layout.view(g.observe(1), "private_view").sum() == 0
    play(g, agent(HA))
    assert hand_types(g, 0) == [HA] and sorted(c >> 1 for c in g.deck_a) == [M, HA]


def test_c13_interrogator_sees_target_agents_and_takes_one():
    g = arrange(3, hands={0: [IT], 2: [GU, ME]}, ip=[5, 5, 5], deck_a=[], dump=1)
    play(g, STEP["PLAY_FREE_AGENT"], agent(IT), seat(1), ori(0))
    assert g.decision == R.D_INT_SEAT and legal(g) == {seat(1), seat(2)}
    play(g, seat(2))
    assert legal(g) == {agent(GU), agent(ME)}
    pv = g.layout.view(g.observe(0), "private_view")
    assert pv[GU] == 1 and pv[ME] == 1 and g.layout.view(g.observe(1), "private_view").sum() == 0
    play(g, agent(ME))
    assert hand_types(g, 0) == [ME] and hand_types(g, 2) == [GU]
    # C49 rule 4: E pins T's remaining cards, T pins the taken card, P1 pins nothing
    gu = g.hand_a[2][0]
    me = g.hand_a[0][0]
    assert g.tag_a[0][gu] == R.KNOWN and g.tag_a[2][me] == R.KNOWN and g.tag_a[1][me] != R.KNOWN


def test_c46_free_agent_in_transit_is_out_of_the_players_hand():
    # the Interrogator was P0's only agent card: P1 as executor has nobody to interrogate
    g = arrange(2, hands={0: [IT]}, ip=[5, 5], deck_a=[M], dump=1)
    play(g, STEP["PLAY_FREE_AGENT"], agent(IT), seat(1))
    assert legal(g) == {ori(0)}


def test_4_3_buy_costs_and_retired_top_is_public():
    g = arrange(2, ip=[10, 0], ret_a=[GU, RE], ret_m=[D.BLOODBATH], deck_m=[D.MAN_DOWN, D.CHOSEN_FEW],
                dump=1)
    assert {STEP[k] for k in ("BUY_AGENT_DECK", "BUY_AGENT_RETIRED", "BUY_MISSION_DECK",
                              "BUY_MISSION_RETIRED")} <= legal(g)
    play(g, STEP["BUY_AGENT_RETIRED"])
    assert g.ip[0] == 8 and hand_types(g, 0) == [RE]
    assert g.tag_a[1][g.hand_a[0][0]] == R.KNOWN  # C49 rule 1: a public entry pins
    play(g, STEP["BUY_MISSION_RETIRED"])
    assert g.ip[0] == 4 and g.cnt_m[0][D.BLOODBATH] == 1


def test_c27_swap_mission_needs_a_non_empty_mission_deck():
    g = arrange(2, missions={0: [D.BLOODBATH]}, ip=[1, 1], deck_m=[], dump=1)
    assert STEP["SWAP_MISSION"] not in legal(g)
    g = arrange(2, missions={0: [D.BLOODBATH]}, ip=[1, 1], deck_m=[D.MAN_DOWN], dump=1)
    play(g, STEP["SWAP_MISSION"], R.A_MISSION + D.BLOODBATH)
    assert g.cnt_m[0][D.MAN_DOWN] == 1
    # the deck emptied and the discard became the new deck at once (C16)
    assert [c >> 1 for c in g.deck_m] == [D.BLOODBATH] and g.ret_m == []


def test_c16_eager_reshuffle_when_draw_deck_empties():
    g = arrange(2, deck_a=[HA], ret_a=[GU, UN], ip=[3, 0], dump=1)
    play(g, STEP["BUY_AGENT_DECK"])
    assert g.ret_a == [] and sorted(c >> 1 for c in g.deck_a) == [GU, UN]
    pool = g.tag_a[1][g.deck_a[0]]
    assert pool != R.KNOWN and all(g.tag_a[v][c] == pool for v in (0, 1) for c in g.deck_a)


def test_c18_no_legal_action_forfeits_to_the_end_window():
    g = arrange(2, ip=[0, 0], deck_a=[], deck_m=[], dump=1)
    assert g.decision == R.D_END and legal(g) == {R.A_DONE}


def test_c22_jack_inside_a_chain_skips_cards_already_in_it():
    # Jack1 -> Infiltrator -> Jack2: Jack2 may not pick the Infiltrator again
    g = arrange(2, hands={0: [JA]}, fac={0: [(M, 1), (IN, 1), (JA, 0)], 1: [(HA, 1)]}, ip=[5, 5])
    place(g, JA, 0, 0, 3)
    assert legal(g) == {board(0, 0), board(0, 1)}
    play(g, board(0, 1))  # Jack1 picks the Infiltrator (faces P1)
    assert legal(g) == {board(0, 0), board(0, 2)}
    play(g, board(0, 2))  # the Infiltrator picks Jack2
    assert g.decision == R.D_JACK and legal(g) == {board(0, 0)}
