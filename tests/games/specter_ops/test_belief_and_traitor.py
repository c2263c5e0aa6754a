"""Belief sets (§6.1), resampling (§6.2) and the 5-player traitor (C37, C60-C62)."""

import numpy as np
import pytest

from spyenvs.games.specter_ops import board as B
from spyenvs.games.specter_ops.belief import LAST_SEEN, NOTHING, SEEN, automaton
from spyenvs.games.specter_ops.data import H0, H2, NO, REVEAL, SEAT0, X1, X2
from spyenvs.games.specter_ops.game import SpecterOpsGame

from .helpers import C, make, place, walk


def test_s6_1_nothing_report_excludes_every_visible_cell():
    g = place(make(agent="Orangutan", hunters="Beast,Puppet"), agent="S5", hunters=["Q10", "A1"])
    walk(g, "T5")
    cells = B.cells_of(g.bel[0].union())
    assert C("T5") in cells
    vis = B.SIGHT[C("Q10")]
    assert not any((vis >> c) & 1 for c in cells)
    assert all(B.walk_distance(C("S5"), c) <= 4 for c in cells)


def test_s6_1_last_seen_keeps_paths_that_leave_sight_after_the_marker():
    S = 1 << C("Q5")
    vis = B.SIGHT[C("Q10")]
    L, M = automaton(S, 4, B.OPEN, vis, LAST_SEEN, C("Q5"), None, False)
    cells = B.cells_of(L | M)
    assert C("S5") in cells and C("Q5") not in cells
    assert not any((vis >> c) & 1 for c in cells)


def test_s6_1_seen_pins_the_cell_and_splits_step_classes():
    S = 1 << C("T5")
    vis = 1 << C("T6")
    L, M = automaton(S, 4, B.OPEN, vis, SEEN, C("T6"), None, False)
    assert L == 1 << C("T6") and M == 1 << C("T6")  # 1 step, or e.g. 3 steps with a detour
    L, M = automaton(S, 4, B.OPEN, 0, NOTHING, -1, None, False)
    assert (M >> C("S5")) & 1  # revisits allowed: 4 steps back to the start


def test_s6_1_clear_call_removes_the_hunters_sight():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", hunters=["W7", "A1"])
    walk(g, "T5")
    before = g.bel[0].union()
    g.step(C("T7"))  # T7 looks up column T: T6 is open, so she is seen on T5
    assert g.pa[0].sight_cell == C("T5")
    g2 = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g2, agent="S5", hunters=["W7", "A1"])
    walk(g2, "R5")
    g2.step(C("T7"))  # T7 sees column T and row 7: she is not there
    after = g2.bel[0].union()
    es = B.SIGHT[C("T7")]
    assert not (after & es) and (before & es) and (after >> C("R5")) & 1


def test_s6_2_resample_draws_a_cell_from_the_belief_and_keeps_observations():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", hunters=["A1", "A1"])
    walk(g, "T5", "U5")
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(30):
        r = g.resample_hidden(1, rng)
        assert np.array_equal(r.observe(1), g.observe(1))
        assert (g.bel[0].union() >> r.ag[0].pos) & 1
        r.check_invariants()
        seen.add(r.ag[0].pos)
    assert len(seen) > 3


def _five(traitor=2, **kw):
    return make(n=5, agent="Orangutan", hunters="Beast,Gun,Puppet,Prophet", traitor=traitor,
                hunter_order="seat", **kw)


def test_c37_traitor_sightings_are_not_reported():
    g = _five(traitor=2)
    place(g, agent="R5", hunters=["A1", "A1", "Q10", "A1"])
    walk(g, "Q6")
    assert g.pa[0].sight_cell == -1  # only the traitor (seat 2) could see Q6
    # loyal hunters keep one hypothesis per other seat; seat 2's branch contains Q6
    assert (g.bel[0].union((2,)) >> C("Q6")) & 1


def test_c60_exposure_when_a_real_sighting_lies_in_the_traitors_sight():
    g = _five(traitor=2)
    place(g, agent="R5", hunters=["Q9", "A1", "Q10", "A1"])
    walk(g, "Q6")  # seen by loyal seat 0 on a space in the traitor's sight
    assert g.exposed and g.dec == X1 and g.actor == 3
    assert not g.hin[2] and g.pa[1].active
    g.step(int(g.mask.nonzero()[0][0]))
    assert g.dec == X2
    g.step(int(g.mask.nonzero()[0][0]))
    g.step(int(g.mask.nonzero()[0][0]))
    assert g.actor == 3  # his secret move from the traitor's space
    assert g.ag[1].pos == C("Q10")
    g.step(NO)
    g.check_invariants()
    assert set(g.bel[0].hyps) == {-1}
    assert g.outcome is not None and g.roles[g.traitor_role] == "hunter_2"


def test_c60_reveal_instead_of_a_hunter_turn():
    g = _five(traitor=0)
    place(g, agent="S5", hunters=["A1", "A1", "A1", "A1"])
    walk(g)
    for _ in range(4):
        assert g.dec == H0
        g.step(NO)
    assert g.dec == H2 and g.actor == 1 and g.mask[REVEAL]
    g.step(REVEAL)
    assert g.dec == X1 and g.exposed


def test_c62_vote_revokes_vehicle_access_by_strict_majority():
    g = _five(traitor=1)
    place(g, agent="S5", vehicle="K23", hunters=[None, None, None, None])
    walk(g)
    for v in (SEAT0 + 3, SEAT0 + 3, SEAT0 + 3, NO):
        g.step(v)
    assert g.revoked == [False, False, False, True]
    for _ in range(3):
        g.step(NO)  # the others stay inside
    from spyenvs.games.specter_ops.data import DRIVE, EXIT, SENSOR

    assert g.actor == 4 and not g.mask[DRIVE] and not g.mask[SENSOR] and g.mask[EXIT]


def test_c61_outcome_traitor_scores_with_the_agent():
    g = _five(traitor=3)
    g.winner = "agents"
    assert g.outcome() == [1.0, -1.0, -1.0, -1.0, 1.0]


def test_s6_1_card_placement_outside_the_traitors_sight_prunes_seats_that_saw_it():
    from spyenvs.games.specter_ops.data import CARD0, FISTS

    g = make(n=5, agent="Orangutan", hunters="Beast,Gun,Puppet,Prophet", traitor=2,
             hunter_order="seat", cards=(FISTS,))
    place(g, agent="Q6", hunters=["Q9", "A1", "A1", "A1"], cards_window=True)
    g.step(CARD0 + FISTS)
    assert not g.exposed and 0 not in g.bel[0].hyps and 2 in g.bel[0].hyps


def test_c21_post_cognition_not_offered_once_the_main_agent_has_escaped():
    from spyenvs.games.specter_ops.data import POSTCOG

    g = _five(traitor=0)
    place(g, agent="S5", hunters=["A1", "A1", "A1", "A1"])
    walk(g)
    for _ in range(4):
        g.step(NO)  # H0 votes
    # later in the game: the main agent escaped two rounds ago, the second agent plays on
    g.round = 5
    g.ag[0].history = g.ag[0].history + [C("T5"), C("N1")]  # her turns 1..3 (escaped in round 3)
    g._ask_main(3)  # the Prophet's H2
    assert g.mask[POSTCOG]  # round 5 asks for turn 3: she still has a recorded space
    g.ag[0].in_play = False
    g.pa[0].in_play = False
    g.pa[0].escaped = True
    g._ask_main(3)
    assert g.dec == H2 and not g.mask[POSTCOG]  # she left play: no one answers


@pytest.mark.parametrize("n", [2, 5])
def test_s6_2_resampled_history_leads_to_her_cell_with_its_class(n):
    """§6.2 step 6: in a re-dealt world, learning where she stood after any of her last
    two turns (a Post-Cognition answer) keeps her cell in the belief, in a branch of
    her movement class (motion sensor) and Stealth flag; also at A5, when her turn
    is published but not yet recorded."""

    checked = 0
    for seed in range(8):
        g = SpecterOpsGame(num_players=n)
        g.reset(seed)
        rng = np.random.default_rng(seed)
        k = 0
        while not g.is_over:
            k += 1
            mid_turn = g.cur == 0 and g.tr is not None and not g.tr["done"]
            if k % 5 == 0 and g.round >= 4 and not mid_turn and g.ag[0].in_play:
                viewer = 1 + int(rng.integers(0, g.nh))
                r = g.resample_hidden(viewer, rng)
                ag, bel = r.ag[0], r.bel[0]
                j = r._h_traitor if (r._h_traitor >= 0 and not r.exposed) else -1
                for t in (r.round - 1, r.round - 2):
                    b = bel.copy()
                    b.learn_position(t, ag.history[t])
                    cls = [(M if ag.moved3 else L) for L, M, st in b.hyps.get(j, ()) if st == ag.stealth]
                    assert any((c >> ag.pos) & 1 for c in cls), (seed, len(g.actions), g.decision_name(), t)
                    checked += 1
            g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    assert checked >= 50


def test_s4_the_traitor_serves_the_agents_side_from_the_deal():
    # §4, 5 players: the agent hands the traitor card to a hunter of her choosing during
    # set-up; from then on he wins and loses with her (C61), so the referee seats him
    # with her side (Game.sides), disclosed or not
    assert not SpecterOpsGame(num_players=4).sides_change
    g = SpecterOpsGame(num_players=5, agent_character="Spider", hunter_characters="Beast,Gun,Prophet,Puppet",
                       pad_agent_turn=False)
    g.reset(0)
    while g.decision_name() != "S4_traitor_seat":
        g.step(int(np.flatnonzero(g.legal_mask())[0]))
    assert g.sides_change and g.sides() == g.starting_sides() == (0, 1, 1, 1, 1)
    g.step(SEAT0 + 2)
    assert g.sides() == (0, 1, 1, 0, 1) and not g.exposed
    assert g.starting_sides() == (0, 1, 1, 1, 1)  # the seat groups evaluation rotates over
