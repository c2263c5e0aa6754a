"""§6 amendment: the agent sees what the hunters know of her. The hunters' belief set
about her (§6.1, as a loyal hunter holds it) is public, so her observation carries it
on the ``belief_main`` plane, beside her true cell (``own_position``); the same for the
exposed second agent (5p) and ``belief_second``."""

import numpy as np

from spyenvs.games.specter_ops import board as B
from spyenvs.games.specter_ops.data import A3, NO, X1, X2

from .helpers import C, make, place, walk

PLANE = {"own_position": 14, "belief_main": 17, "belief_second": 18}


def planes(g, p):
    """Role p's board planes, one row of B.N cells per plane."""
    return g.observe(p)[g.layout.blocks["board"].slice].reshape(-1, B.N)


def test_s6_amendment_agent_observes_hunters_public_belief():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", hunters=["Q10", "A1"])
    walk(g, "T5")  # unseen: the hunters now hold every cell she can have reached out of sight
    public = B.to_plane(g.bel[0].union())
    assert public.sum() > 1
    mine = planes(g, 0)
    for p in (1, 2):
        np.testing.assert_array_equal(mine[PLANE["belief_main"]], planes(g, p)[PLANE["belief_main"]])
    np.testing.assert_array_equal(mine[PLANE["belief_main"]], public)
    assert mine[PLANE["own_position"]][C("T5")] == 1 and mine[PLANE["own_position"]].sum() == 1


def test_s6_amendment_agent_belief_plane_ignores_her_private_steps():
    """Inside her turn (private sub-steps, C58) the plane is the hunters' belief as
    published so far: it does not follow her moves."""
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", hunters=["Q10", "A1"])
    walk(g, "T5")  # unseen
    place(g)  # her next turn, from the belief the hunters now hold
    assert g.dec == A3 and g.actor == 0 and B.popcount(g.bel[0].union()) > 1
    before = planes(g, 0)[PLANE["belief_main"]].copy()
    g.step(C("U5"))
    after = planes(g, 0)
    np.testing.assert_array_equal(after[PLANE["belief_main"]], before)
    np.testing.assert_array_equal(after[PLANE["belief_main"]], planes(g, 1)[PLANE["belief_main"]])
    assert after[PLANE["own_position"]][C("U5")] == 1


def test_s6_amendment_agent_belief_plane_unchanged_when_her_position_is_redealt():
    """resample_hidden for a hunter re-deals her true cell within the hunters' belief:
    the belief, and so her plane, stays."""
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", hunters=["A1", "A1"])
    walk(g, "T5", "U5")
    mine = planes(g, 0)[PLANE["belief_main"]]
    rng = np.random.default_rng(0)
    cells = set()
    for _ in range(20):
        r = g.resample_hidden(1, rng)
        cells.add(r.ag[0].pos)
        np.testing.assert_array_equal(planes(r, 0)[PLANE["belief_main"]], mine)
        assert planes(r, 0)[PLANE["own_position"]][r.ag[0].pos] == 1
    assert len(cells) > 3  # her cell really was re-dealt


def _five_unreported_in_the_traitors_sight():
    """5p, traitor seat 2 on Q10: she ends on Q6, which only he sees, so it is not
    reported; loyal seat 0 (U7) sees cells the others do not, so the loyal hunters'
    beliefs differ (each keeps the branches "j is the traitor" for the other seats j)."""
    g = make(n=5, agent="Orangutan", hunters="Beast,Gun,Puppet,Prophet", traitor=2, hunter_order="seat")
    place(g, agent="R5", hunters=["U7", "K19", "Q10", "T30"])
    walk(g, "Q6")
    assert g.pa[0].sight_cell == -1 and not g.exposed
    return g


def test_s6_amendment_5p_agent_sees_the_union_of_the_loyal_hunters_beliefs():
    g = _five_unreported_in_the_traitors_sight()
    loyal = [planes(g, p)[PLANE["belief_main"]] for p in (1, 2, 4)]
    assert any(not np.array_equal(loyal[0], x) for x in loyal[1:])
    mine = planes(g, 0)[PLANE["belief_main"]]
    np.testing.assert_array_equal(mine, np.maximum.reduce(loyal))
    np.testing.assert_array_equal(mine, B.to_plane(g.bel[0].union()))
    assert mine[C("Q6")] == 1
    # the undisclosed traitor still holds only his own branch
    np.testing.assert_array_equal(planes(g, 3)[PLANE["belief_main"]], B.to_plane(g.bel[0].union((2,))))


def test_s6_amendment_5p_agent_belief_plane_unchanged_when_traitor_and_position_are_redealt():
    g = _five_unreported_in_the_traitors_sight()
    mine = planes(g, 0)[PLANE["belief_main"]]
    rng = np.random.default_rng(1)
    traitors = set()
    for _ in range(20):
        r = g.resample_hidden(1, rng)  # a loyal hunter's view: traitor seat and her cell re-dealt
        traitors.add(r._h_traitor)
        np.testing.assert_array_equal(planes(r, 0)[PLANE["belief_main"]], mine)
    assert len(traitors) > 1


def test_s6_amendment_exposed_second_agent_observes_hunters_belief_about_him():
    g = make(n=5, agent="Orangutan", hunters="Beast,Gun,Puppet,Prophet", traitor=2, hunter_order="seat")
    place(g, agent="R5", hunters=["Q9", "A1", "Q10", "A1"])
    walk(g, "Q6")  # seen by loyal seat 0 on a space in the traitor's sight: exposure
    assert g.exposed and g.dec == X1 and g.actor == 3
    g.step(int(g.mask.nonzero()[0][0]))
    assert g.dec == X2
    g.step(int(g.mask.nonzero()[0][0]))
    g.step(int(g.mask.nonzero()[0][0]))
    assert g.actor == 3  # his secret move from Q10 (to R11)
    g.step(C("R11"))
    g.step(NO)
    second = g.bel[1].union()
    assert (second >> C("R11")) & 1 and B.popcount(second) > 1
    him = planes(g, 3)
    np.testing.assert_array_equal(him[PLANE["belief_second"]], B.to_plane(second))
    assert him[PLANE["own_position"]][C("R11")] == 1
    for p in (0, 1, 2, 4):
        np.testing.assert_array_equal(planes(g, p)[PLANE["belief_second"]], him[PLANE["belief_second"]])
        np.testing.assert_array_equal(planes(g, p)[PLANE["belief_main"]], B.to_plane(g.bel[0].union()))
    rng = np.random.default_rng(2)
    for _ in range(10):
        r = g.resample_hidden(1, rng)  # both agents' cells re-dealt for a hunter
        np.testing.assert_array_equal(planes(r, 3)[PLANE["belief_second"]], him[PLANE["belief_second"]])
        np.testing.assert_array_equal(planes(r, 0)[PLANE["belief_main"]], planes(g, 0)[PLANE["belief_main"]])


def test_s6_amendment_agent_text_view_shows_the_hunters_belief():
    g = make(agent="Orangutan", hunters="Beast,Puppet", hunter_order="seat")
    place(g, agent="S5", hunters=["Q10", "A1"])
    walk(g, "T5")
    text = g.render_text(0)
    assert "?" in text.split("legend")[0] and "A" in text.split("legend")[0]
