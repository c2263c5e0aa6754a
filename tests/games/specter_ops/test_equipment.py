"""Equipment cards (§2.2, C23-C30, C66)."""

from spyenvs.games.specter_ops import board as B
from spyenvs.games.specter_ops.belief import LAST_SEEN
from spyenvs.games.specter_ops.data import (
    A2, A2T, A3, A4, CARD0, FISTS, FLASH, H2, HOLO, NO, SEAT0, SMOKE, STEALTH, SURGE, TANGLE,
)

from .helpers import C, ScriptedDice, make, place, walk


def _play(g, card, target=None):
    assert g.dec in (A2, A4), g.decision_name()
    g.step(CARD0 + card)
    if target is not None:
        assert g.dec == A2T
        g.step(target)


def test_c28_adrenal_surge_six_steps_before_moving_only():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet", cards=(SURGE, STEALTH, FLASH)),
              agent="S5", hunters=["A1", "A1"], cards_window=True)
    assert g.mask[CARD0 + SURGE]
    _play(g, SURGE)
    for c in ("T5", "U5", "V5", "W5", "W6", "W7"):
        assert g.dec == A3
        g.step(C(c))
    assert g.ag[0].steps == 6
    assert g.pa[0].rotated == [(1, 0)]
    g2 = place(make(agent="Orangutan", hunters="Beast,Puppet", cards=(SURGE, STEALTH, FLASH)),
               agent="S5", hunters=["A1", "A1"])
    g2.step(NO)
    assert g2.dec == A4 and not g2.mask[CARD0 + SURGE] and g2.mask[CARD0 + STEALTH]


def test_c27_stealth_field_limits_visibility_to_distance_two():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet", cards=(STEALTH,)),
              agent="R5", hunters=["Q10", "A1"], cards_window=True)
    _play(g, STEALTH)
    walk(g, "Q6")  # in Q10's column at distance 4: not visible under Stealth Field
    assert g.pa[0].sight_cell == -1
    g = place(make(agent="Orangutan", hunters="Beast,Puppet", cards=(STEALTH,)),
              agent="R8", hunters=["Q10", "A1"], cards_window=True)
    _play(g, STEALTH)
    walk(g, "Q8")  # distance 2: visible
    assert g.pa[0].sight_cell == C("Q8")


def test_c25_smoke_blocks_sight_until_the_end_of_her_next_turn():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet", cards=(SMOKE,), hunter_order="seat"),
              agent="R5", hunters=["Q10", "A1"], cards_window=True)
    _play(g, SMOKE, C("Q7"))
    walk(g, "Q5")
    assert g.pa[0].sight_cell == -1  # Q6-Q8 smoke hides her from Q10
    g.step(C("Q10"))
    g.step(C("A1"))
    assert len(g.smoke) == 1  # still there in round 2
    walk(g)
    assert g.smoke == []  # removed at the end of her next turn


def test_c26_flash_bang_blinds_until_the_hunters_next_turn_then_sighting():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet", cards=(FLASH,), hunter_order="seat"),
              agent="R5", hunters=["Q10", "A1"], cards_window=True)
    _play(g, FLASH, C("Q7"))
    assert g.blind == [True, False]
    walk(g, "Q5")
    assert any("agent moves unseen" in e for e in g.events)  # blinded: she crossed its sight unseen
    assert g.dec == H2
    assert g.blind == [False, False]
    assert g.pa[0].sight_cell == C("Q5")  # vision returned at the start of its turn (C26, C50)


def test_c23_tangle_line_distance_one_roll_one_stuns_and_places_spider():
    g = place(make(agent="Spider", hunters="Beast,Puppet", cards=(TANGLE,)),
              agent="Q6", hunters=["Q7", "A1"], cards_window=True)
    assert g.mask[CARD0 + TANGLE]
    g.rng = ScriptedDice([1])
    _play(g, TANGLE, SEAT0 + 0)
    assert g.stunned[0] and g.pa[0].char_known == 0 and g.pa[0].sight_cell == C("Q6")
    assert g.ag[0].charges(TANGLE) == 1  # 2 charges


def test_c23_tangle_line_fails_below_distance_and_spends_the_charge():
    g = place(make(agent="Spider", hunters="Beast,Puppet", cards=(TANGLE,)),
              agent="Q5", hunters=["Q9", "A1"], cards_window=True)
    g.rng = ScriptedDice([3])
    _play(g, TANGLE, SEAT0 + 0)
    assert not g.stunned[0] and g.ag[0].charges(TANGLE) == 1


def test_c24_power_fists_stuns_hunters_within_two_but_not_riders():
    g = make(agent="Orangutan", hunters="Beast,Puppet", cards=(FISTS,))
    place(g, agent="K19", vehicle="K17", hunters=["L20", None], cards_window=True)
    _play(g, FISTS)
    assert g.stunned == [True, False]
    assert g.pa[0].sight_cell == C("K19")


def test_c29_holo_decoy_replaces_the_report_and_c66_gun_hits_are_apparent():
    g = make(agent="Blue Jay", hunters="Gun,Beast", cards=(HOLO,))
    place(g, agent="T5", hunters=["Q10", "A1"], cards_window=True)
    g.rng = ScriptedDice([6, 6, 6])
    _play(g, HOLO, C("Q6"))  # decoy inside the Gun's sight
    walk(g, "U5")
    assert g.pa[0].sight_kind == LAST_SEEN and g.pa[0].sight_cell == C("Q6")
    assert g.pa[0].char_known == 2
    assert g.pa[0].damage == 1 and g.ag[0].hp == g.ag[0].maxhp  # Quick Draw "hit" the decoy
    assert C("U5") in B.cells_of(g.bel[0].union())  # the decoy branch keeps her real cell


def test_s5_1_one_card_per_turn():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet", cards=(STEALTH, FLASH)),
              agent="S5", hunters=["A1", "A1"], cards_window=True)
    _play(g, STEALTH)
    walk(g)
    assert g.dec == H2 or g.decision_name() == "H1_turn_order"  # no after-move window
