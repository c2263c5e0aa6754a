"""Hunters' turns (§5.2), the vehicle (§2.3), abilities of Beast, Gun, Puppet, Cobra."""

from spyenvs.games.specter_ops import board as B
from spyenvs.games.specter_ops.data import (
    CHAR0, COBRA, DRIVE, ENTER, EXIT, H2, H2V, H3, H4, H6, I1, NO, SENSOR, YES,
)
from spyenvs.games.specter_ops.rules import roll_attack

from .helpers import C, ScriptedDice, make, place, walk


def _hunters_turn(g):
    walk(g)
    assert g.dec in (H2, H2V)
    return g


def test_s2_3_vehicle_allowance_six_plus_four_split():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", vehicle="K17", hunters=[None, None])
    _hunters_turn(g)
    assert g.dec == H2V and g.mask[DRIVE]
    g.step(DRIVE)
    assert g.dec == H3 and g.mask[C("K27")] and not g.mask[C("K17")]
    g.step(C("K23"))  # 6 spaces
    assert g.vused == 6
    g.step(NO)  # stay inside
    g.step(DRIVE)
    assert g.mask[C("K27")] and not g.mask[C("K28")]  # only 4 left this round
    g.step(C("K27"))
    assert g.vused == 10
    g.step(NO)
    assert g.vused == 0  # reset for the next round


def test_c17_sensor_example_o5_to_l4_vehicle_on_n9_answers_north_west():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="O5", vehicle="N9", hunters=[None, "A1"])
    walk(g, "N4", "M4", "L4")
    g.step(SENSOR)
    assert B.SENSOR_DIRS[g.pa[0].sensor] == "NW"
    cells = B.cells_of(g.bel[0].union())
    assert C("L4") in cells
    assert all(c // 23 < C("N9") // 23 and c % 23 < C("N9") % 23 for c in cells)  # the NW cone only


def test_c17_sensor_no_motion_after_two_steps_keeps_short_paths_only():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", vehicle="N9", hunters=[None, "A1"])
    walk(g, "T5", "U5")
    g.step(SENSOR)
    assert g.pa[0].sensor == 9
    for L, M, _ in g.bel[0].hyps[-1]:
        assert M == 0 and (L >> C("U5")) & 1


def test_c17_driving_and_sensing_exclude_each_other():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", vehicle="K17", hunters=[None, None])
    _hunters_turn(g)
    g.step(DRIVE)
    g.step(C("K20"))
    assert g.dec == H4 and not g.mask[SENSOR]


def test_c55_boarding_from_the_token_space_and_c16_exit_then_attack():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", vehicle="K17", hunters=["K17", "A1"])
    _hunters_turn(g)
    assert g.mask[ENTER]
    g.step(ENTER)
    assert g.riding[0] and g.hpos[0] == -1
    # next round the rider exits next to the agent and attacks at distance 0-1
    g.step(C("A1"))
    g.ag[0].pos = C("K19")  # she hid beside the road (explicit state)
    g._start_agent_turn(0)
    walk(g)
    assert g.dec == H2V
    g.step(EXIT)
    assert g.dec == H4 and not g.mask[C("K17")] and not g.mask[NO]
    g.step(C("K18"))
    assert g.dec == H6  # exiting ends the move but still allows the attack


def test_c20_puppet_control_relay_moves_the_empty_vehicle():
    g = make(agent="Orangutan", hunters="Puppet,Beast", hunter_order="seat")
    place(g, agent="S5", vehicle="K17", hunters=["A1", "A1"])
    _hunters_turn(g)
    assert g.mask[DRIVE] and g.mask[SENSOR]
    g.step(DRIVE)
    g.step(C("K25"))
    assert g.vpos == C("K25") and g.hpos[0] == C("A1") and g.vused == 8


def test_c20_stunned_puppet_relays_at_most_two():
    g = make(agent="Orangutan", hunters="Puppet,Beast", hunter_order="seat")
    place(g, agent="S5", vehicle="K17", hunters=["A1", "A1"])
    g.stunned[0] = True
    _hunters_turn(g)
    g.step(DRIVE)
    assert g.mask[C("K19")] and not g.mask[C("K20")]


def test_s5_3_stunned_hunter_walks_two_and_cannot_attack():
    g = make(agent="Orangutan", hunters="Puppet,Beast", hunter_order="seat")
    place(g, agent="Q5", hunters=["Q9", "A1"])
    g.stunned[0] = True
    _hunters_turn(g)
    assert g.mask[C("Q7")] and not g.mask[C("Q6")]
    g.step(C("Q7"))
    assert g.dec != H6 and not g.stunned[0]  # token removed at the end of its turn


def test_c44_beast_enhanced_senses_close_and_not_close():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", hunters=["U7", "A1"])
    _hunters_turn(g)
    g.step(C("U7"))  # 0 steps count as <= 3
    assert g.pa[0].close == 1
    assert all(B.dist(c, C("U7")) <= 4 for c in B.cells_of(g.bel[0].union()))


def test_c15_beast_walking_five_gets_no_senses_and_attacks_only_on_her_space():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="Q4", hunters=["Q10", "A1"])
    _hunters_turn(g)
    assert g.mask[C("Q5")]  # 5 steps
    g.step(C("Q5"))
    assert g.pa[0].close == -1 and g.pa[0].public_now  # seen, but ...
    assert g.dec != H6  # ... distance 1 after a 5-step walk: no attack


def test_c14_beast_ending_on_cobra_is_ambushed_no_attack_no_brutal_strength():
    g = make(agent="Cobra", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="Q5", hunters=["Q8", "A1"])
    _hunters_turn(g)
    g.rng = ScriptedDice([6, 6])
    g.step(C("Q5"))
    assert g.dec != H6 and g.ag[0].hp == g.ag[0].maxhp
    assert g.pa[0].char_known == COBRA


def test_c31_ambush_roll_against_an_orthogonal_neighbour():
    g = make(agent="Cobra", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="Q5", hunters=["Q8", "A1"])
    _hunters_turn(g)
    g.step(C("Q6"))
    assert g.dec == I1 and g.actor == 0
    g.rng = ScriptedDice([4])
    g.step(YES)
    assert g.dec != H6  # stunned: no attack
    cells = B.cells_of(g.bel[0].union())
    assert cells == [C("Q5")]


def test_brutal_strength_on_her_space_adds_to_the_automatic_hit():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="Q5", hunters=["Q8", "A1"])
    _hunters_turn(g)
    g.rng = ScriptedDice([5])
    g.step(C("Q5"))
    assert g.ag[0].hp == g.ag[0].maxhp - 1
    g.step(CHAR0 + 3)  # distance 0: automatic hit
    assert g.ag[0].hp == g.ag[0].maxhp - 2


def test_c11_gun_sums_two_dice_and_misses_only_on_double_one():
    class Dice:
        def __init__(self, faces):
            self.faces = list(faces)

        def integers(self, lo, hi):
            return self.faces.pop(0)

    assert roll_attack(Dice([1, 1]), 2) == (2, True)
    assert roll_attack(Dice([1, 2]), 2) == (3, False)
    assert roll_attack(Dice([6, 3, 2]), 2) == (11, False)
    assert roll_attack(Dice([1]), 1) == (1, True)


def test_c12_prophet_plus_two_and_natural_one_misses():
    g = make(agent="Orangutan", hunters="Prophet,Beast", hunter_order="seat")
    place(g, agent="Q4", hunters=["Q9", "A1"])
    _hunters_turn(g)
    g.rng = ScriptedDice([2])
    g.step(C("Q8"))  # distance 4: 2 + 2 >= 4
    g.step(CHAR0 + 3)
    assert g.ag[0].hp == g.ag[0].maxhp - 1


def test_spider_evasion_minus_two_within_three():
    g = make(agent="Spider", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="Q5", hunters=["Q9", "A1"])
    _hunters_turn(g)
    g.rng = ScriptedDice([2])
    g.step(C("Q6"))  # distance 1, 2 - 2 = 0 < 1
    g.step(CHAR0 + 0)
    assert g.ag[0].hp == g.ag[0].maxhp


def test_c33_hunters_choose_their_order():
    g = make(agent="Orangutan", hunters="Beast,Puppet")
    place(g, agent="S5", hunters=["A1", "A1"])
    walk(g)
    assert g.decision_name() == "H1_turn_order" and g.actor == 1
    g.step(750 + 1)
    assert g.actor == 2 and g.dec == H2


def test_s1_traps_beast_senses_seed_variant_three_or_more():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat", beast_senses="3_or_more")
    place(g, agent="S5", hunters=["U7", "A1"])
    _hunters_turn(g)
    g.step(C("U7"))  # 0 steps: no senses under the Italian reading
    assert g.pa[0].close == -1
