"""Agent turn (§5.1): movement, reports, the Gun's abilities, objectives, escape."""

import pytest

from spyenvs.games.specter_ops import board as B
from spyenvs.games.specter_ops.belief import LAST_SEEN, SEEN
from spyenvs.games.specter_ops.data import (
    A1, A3, A5, CHAR0, COBRA, DIR0, FLASH, H2, H6, NO, POSTCOG, S2, S3, STEALTH, SURGE, YES,
)

from .helpers import C, ScriptedDice, make, place, walk


def test_c7_start_space_counts_for_last_seen():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet"), agent="Q5", hunters=["Q10", "A1"])
    walk(g, "R5", "S5")
    assert g.pa[0].sight_kind == LAST_SEEN and g.pa[0].sight_cell == C("Q5")
    assert g.pa[0].char_known == 3  # her figure was placed: character revealed


def test_s5_1_seen_at_end_of_move_places_the_figure():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet"), agent="R5", hunters=["Q10", "A1"])
    walk(g, "Q6")
    assert g.pa[0].sight_kind == SEEN and g.pa[0].sight_cell == C("Q6") and g.pa[0].public_now


def test_s5_1_unseen_move_publishes_nothing():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet"), agent="S5", hunters=["Q10", "A1"])
    walk(g, "T5")
    assert g.pa[0].sight_cell == -1 and g.pa[0].char_known == -1


def test_c53_agent_never_steps_onto_a_hunter_but_may_stay_under_one():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet"), agent="R5", hunters=["Q6", "R5"])
    assert g.dec == A3
    assert not g.mask[C("Q6")] and g.mask[NO] and g.mask[C("S5")]


def test_s2_1_agent_moves_at_most_four_steps():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet"), agent="S5", hunters=["A1", "A1"])
    for c in ("T5", "U5", "V5", "W5"):
        g.step(C(c))
    assert g.dec != A3  # the turn moved on after the 4th step
    assert g.ag[0].steps == 4 and g.ag[0].moved3


def test_c9_quick_draw_rolls_against_the_last_seen_marker():
    g = place(make(agent="Orangutan", hunters="Gun,Beast"), agent="Q5", hunters=["Q10", "A1"])
    g.rng = ScriptedDice([6, 1])  # exploding 6: total 7 >= distance 5
    walk(g, "R5", "S5")
    assert g.ag[0].hp == g.ag[0].maxhp - 1 and g.pa[0].damage == 1


def test_c9_quick_draw_misses_on_a_one():
    g = place(make(agent="Orangutan", hunters="Gun,Beast"), agent="Q5", hunters=["Q10", "A1"])
    g.rng = ScriptedDice([1])
    walk(g, "R5", "S5")
    assert g.ag[0].hp == g.ag[0].maxhp


def test_c10_sniper_shot_damage_stacks_with_quick_draw():
    g = place(make(agent="Orangutan", hunters="Gun,Beast"), agent="Q5", hunters=["Q10", "A1"])
    g.sniper[0] = 0  # north
    g.rng = ScriptedDice([6, 1])
    walk(g, "R5", "S5")
    assert g.ag[0].hp == g.ag[0].maxhp - 2


def test_c10_flag_sniper_shot_replaces_quick_draw():
    g = make(agent="Orangutan", hunters="Gun,Beast", sniper_stacks_with_quick_draw=False)
    place(g, agent="Q5", hunters=["Q10", "A1"])
    g.sniper[0] = 0
    g.rng = ScriptedDice([6, 1])
    walk(g, "R5", "S5")
    assert g.ag[0].hp == g.ag[0].maxhp - 1


def test_c46_stunned_or_riding_gun_does_not_quick_draw():
    g = place(make(agent="Orangutan", hunters="Gun,Beast"), agent="Q5", hunters=["Q10", "A1"])
    g.stunned[0] = True
    g._start_agent_turn(0)
    g.rng = ScriptedDice([6, 6, 6])
    walk(g, "R5", "S5")
    assert g.ag[0].hp == g.ag[0].maxhp


def test_c5_objective_completion_is_optional_and_from_distance_one():
    g = make(agent="Orangutan", hunters="Beast,Puppet")
    o = g._h_obj[0]
    near = B.NEIGH[o][0]
    place(g, agent=B.name(near), hunters=["A1", "A1"])
    assert g.dec == A1
    g.step(YES)
    assert g.completed == [0]


def test_c38_blue_jay_completes_from_distance_two():
    g = make(agent="Blue Jay", hunters="Beast,Puppet")
    o = g._h_obj[0]
    two = next(c for c in B.cells_of(B.BALL[2][o]) if B.dist(c, o) == 2)
    place(g, agent=B.name(two), hunters=["A1", "A1"])
    assert g.dec == A1


def test_c22_pre_cognition_binds_the_next_completion():
    g = make(agent="Orangutan", hunters="Prophet,Beast")
    o = g._h_obj[0]
    near = B.NEIGH[o][0]
    place(g, agent=B.name(near), hunters=["A1", "A1"])
    assert g.dec != A1  # no announcement last round: no completion with the Prophet in play
    walk(g)
    assert g.dec == A5
    g.step(YES)
    assert g.precog
    # hunters pass their turns
    while g.round == 1:
        g.step(NO if g.mask[NO] else int(g.mask.nonzero()[0][0]))
    assert g.completed == [0]  # completed automatically at the start of round 2


def test_c39_escape_needs_three_objectives_and_wins_at_once():
    g = make(agent="Orangutan", hunters="Beast,Puppet")
    place(g, agent="N2", hunters=["A1", "A1"])
    walk(g, "N1")
    assert not g.is_over
    g = make(agent="Orangutan", hunters="Beast,Puppet")
    g.completed = [0, 1, 2]
    place(g, agent="N2", hunters=["A1", "A1"])
    walk(g, "N1")
    assert g.is_over and g.winner == "agents" and g.outcome() == [1.0, -1.0, -1.0]


def test_c34_game_ends_after_the_agents_phase_of_the_last_round():
    g = make(agent="Orangutan", hunters="Beast,Puppet", max_rounds=1)
    place(g, agent="S5", hunters=["A1", "A1"])
    walk(g)
    assert g.is_over and g.winner == "hunters"


def test_s4_setup_decisions_and_card_limits():
    from spyenvs.games.specter_ops.game import SpecterOpsGame

    g = SpecterOpsGame(num_players=4)
    g.reset(1)
    for _ in range(3):
        g.step(int(g.mask.nonzero()[0][-1]))  # hunters pick characters
    assert g.dec == S2
    g.step(CHAR0 + 3)  # Orangutan
    assert g.ag[0].maxhp == 8  # 4 players: +2
    picks = 0
    while g.dec == S3:
        legal = g.mask.nonzero()[0].tolist()
        assert 742 + 4 not in legal and 742 + 5 not in legal and 742 + 7 not in legal  # other agents' unique cards
        g.step(742 + 1 if 742 + 1 in legal else legal[0])  # Flash Bang while copies remain
        picks += 1
    assert picks == 5 and sum(1 for c in g.ag[0].hand if c[0] == 1) == 2


def test_c63_post_cognition_not_in_round_one_then_reveals_turn_r_minus_2():
    g = make(agent="Orangutan", hunters="Prophet,Beast", hunter_order="seat")
    place(g, agent="S5", hunters=["A1", "A1"])
    walk(g, "T5")
    assert g.dec == H2 and not g.mask[POSTCOG]
    g.step(C("A1"))
    g.step(C("A1"))  # Beast stays
    walk(g, "U5")  # round 2
    assert g.mask[POSTCOG]
    g.step(POSTCOG)
    assert g.postcog_answer == C("S5")  # row 00: where she started
    g.step(C("A1"))
    walk(g, "V5")  # round 3
    g.step(POSTCOG)
    assert g.postcog_answer == C("T5")  # after her turn 1
    assert C("V5") in B.cells_of(g.bel[0].union())
    assert all(B.dist(c, C("T5")) <= 8 for c in B.cells_of(g.bel[0].union()))


@pytest.mark.parametrize("dist_roll,hit", [(3, True), (2, False)])
def test_s7_puppet_needs_a_three_at_distance_three(dist_roll, hit):
    g = make(agent="Orangutan", hunters="Puppet,Beast", hunter_order="seat")
    place(g, agent="Q5", hunters=["Q9", "A1"])
    walk(g, "R5", "Q5")  # seen from Q9 (column Q): her space is public (C49)
    g.rng = ScriptedDice([dist_roll])
    assert g.dec == H2
    g.step(C("Q8"))
    assert g.dec == H6 and g.mask[CHAR0 + 3]
    g.step(CHAR0 + 3)
    assert (g.ag[0].hp == g.ag[0].maxhp - 1) == hit


def test_c30_velocity_blade_interrupt_subtracts_three():
    g = make(agent="Cobra", hunters="Puppet,Beast", hunter_order="seat", cards=(5,))
    place(g, agent="Q5", hunters=["Q9", "A1"])
    walk(g)
    g.rng = ScriptedDice([5])
    g.step(C("Q8"))
    g.step(CHAR0 + COBRA)
    assert g.decision_name() == "I2_velocity_blade"
    g.step(YES)
    assert g.ag[0].hp == g.ag[0].maxhp  # 5 - 3 < 3
    assert g.pa[0].uses[5] == 1 and g.ag[0].charges(5) == 1


def test_c10_gun_may_choose_sniper_direction_when_nobody_is_visible():
    g = make(agent="Orangutan", hunters="Gun,Beast", hunter_order="seat")
    place(g, agent="S5", hunters=["A1", "A1"])
    walk(g)
    g.step(C("B1"))
    assert g.decision_name() == "H5_sniper_shot"
    g.step(DIR0 + 1)
    assert g.sniper[0] == 1


def _actors_until_her_next_turn(g, her_moves):
    """Acting seats from the start of her turn (her moves, then NO for her other
    decisions; hunters take their first legal action) until her next turn begins."""
    from spyenvs.games.specter_ops.data import A2

    actors = []
    moves = list(her_moves)
    seen_hunter = False
    while not g.is_over:
        if g.actor != 0:
            seen_hunter = True
        elif seen_hunter and g.dec in (A1, A2, A3):
            break
        actors.append(g.actor)
        if g.actor == 0 and g.dec == A3 and moves:
            g.step(C(moves.pop(0)))
        elif g.actor == 0 and (g.dec == A2 or NO in g.legal):
            g.step(NO)
        else:
            g.step(int(g.mask.nonzero()[0][0]))
    return actors


@pytest.mark.parametrize("cards_window", [True, False])
def test_c58_padded_agent_turn_hides_her_sub_steps_from_the_actor_sequence(cards_window):
    runs = []
    for her_moves in ([], ["T5", "U5"], ["T5", "U5", "V5", "W5"]):
        g = make(agent="Orangutan", hunters="Beast,Puppet", cards=(SURGE, STEALTH, FLASH), pad_agent_turn=True)
        place(g, agent="S5", hunters=["A1", "B1"], cards_window=cards_window)
        done = g.seg_count  # decisions place() already made in her turn
        runs.append(_actors_until_her_next_turn(g, her_moves))
    assert runs[0] == runs[1] == runs[2]
    # her turn is always 13 decisions
    assert runs[0].index(1) == 13 - done
    # without padding, the number of her decisions tells how far she walked
    plain = []
    for her_moves in ([], ["T5", "U5"]):
        g = make(agent="Orangutan", hunters="Beast,Puppet", cards=(SURGE, STEALTH, FLASH))
        place(g, agent="S5", hunters=["A1", "B1"], cards_window=cards_window)
        plain.append(_actors_until_her_next_turn(g, her_moves))
    assert plain[0] != plain[1]
