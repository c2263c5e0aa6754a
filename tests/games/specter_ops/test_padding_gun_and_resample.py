"""C58 padding (who acts when is public), C46 stunned Gun after her move, C12 the
distance-0 Quick Draw, and §6.2 resampling against exact enumeration."""

import math

import numpy as np
import pytest

from spyenvs.games.specter_ops import board as B
from spyenvs.games.specter_ops.data import (
    A3, A4, A5, CARD0, FISTS, H2, I2, NO, PAD, PAD_LEN, SEAT0, SURGE, TANGLE, YES,
)
from spyenvs.games.specter_ops.game import SpecterOpsGame

from .helpers import C, ScriptedDice, believed, make, place, skip_pads, walk


# ---------------------------------------------------------------- C46 / §5.1 step 8
def _after_move_card(g, card, target=None):
    assert g.dec == A4 and g.mask[CARD0 + card], g.decision_name()
    g.step(CARD0 + card)
    if target is not None:
        g.step(target)
    skip_pads(g)


def _turn_event(g):
    return [ev for ev in g.bel[0].log if isinstance(ev, dict)][-1]


@pytest.mark.parametrize("pad", [True, False])
def test_c46_gun_stunned_by_tangle_line_after_moving_does_not_quick_draw(pad):
    g = make(agent="Spider", hunters="Gun,Beast", cards=(TANGLE,), pad_agent_turn=pad)
    place(g, agent="R5", hunters=["Q10", "A1"])
    g.rng = ScriptedDice([6, 6, 6, 6])  # the Tangle Line die, then what a Quick Draw would roll
    g.step(C("Q5"))
    g.step(NO)
    skip_pads(g)
    _after_move_card(g, TANGLE, SEAT0 + 0)
    assert g.stunned[0]
    assert g.ag[0].hp == g.ag[0].maxhp and g.pa[0].damage == 0
    assert not any("Quick Draw" in e for e in g.events)
    # the stunned Gun is not in the published event: her silence says nothing
    assert _turn_event(g)["gun"] is None


def test_c46_gun_stunned_by_power_fists_after_moving_does_not_quick_draw():
    g = make(agent="Orangutan", hunters="Gun,Beast", cards=(FISTS,), pad_agent_turn=True)
    place(g, agent="Q6", hunters=["Q10", "A1"])
    g.rng = ScriptedDice([6, 6, 6])
    g.step(C("Q7"))
    g.step(C("Q8"))
    g.step(NO)
    skip_pads(g)
    _after_move_card(g, FISTS)
    assert g.stunned[0]
    assert g.ag[0].hp == g.ag[0].maxhp and g.pa[0].damage == 0
    assert _turn_event(g)["gun"] is None


def test_c46_stunned_gun_sniper_damage_does_not_land():
    g = make(agent="Spider", hunters="Gun,Beast", cards=(TANGLE,), pad_agent_turn=False)
    place(g, agent="R5", hunters=["Q10", "A1"])
    g.sniper[0] = 0  # north: Q5 lies on her ray
    g.rng = ScriptedDice([6, 6, 6])
    g.step(C("Q5"))
    g.step(NO)
    _after_move_card(g, TANGLE, SEAT0 + 0)
    assert g.stunned[0] and g.ag[0].hp == g.ag[0].maxhp


def test_c46_tangle_line_before_moving_still_stops_the_gun():
    g = make(agent="Spider", hunters="Gun,Beast", cards=(TANGLE,), pad_agent_turn=False)
    place(g, agent="Q5", hunters=["Q10", "A1"], cards_window=True)
    g.rng = ScriptedDice([6, 6, 6])
    g.step(CARD0 + TANGLE)
    g.step(SEAT0 + 0)
    walk(g, "Q6")
    assert g.stunned[0] and g.ag[0].hp == g.ag[0].maxhp


def test_c9_unstunned_gun_still_quick_draws_after_a_missed_tangle_line():
    g = make(agent="Spider", hunters="Gun,Beast", cards=(TANGLE,), pad_agent_turn=False)
    place(g, agent="R5", hunters=["Q10", "A1"])
    g.rng = ScriptedDice([1, 6, 1])  # Tangle misses; Quick Draw 6+1 = 7 >= 5
    g.step(C("Q5"))
    g.step(NO)
    _after_move_card(g, TANGLE, SEAT0 + 0)
    assert not g.stunned[0] and g.ag[0].hp == g.ag[0].maxhp - 1
    assert _turn_event(g)["gun"] is not None


# ---------------------------------------------------------------- C12 distance-0 Quick Draw
@pytest.mark.parametrize("pad", [True, False])
def test_c12_no_velocity_blade_offer_before_a_distance_zero_quick_draw(pad):
    g = make(agent="Cobra", hunters="Gun,Beast", cards=(5,), pad_agent_turn=pad)
    place(g, agent="Q10", hunters=["Q10", "A1"])  # she stays under the Gun (C53)
    seen = []
    g.step(NO)  # stop: 0 steps
    while g.actor == 0 and not g.is_over:
        seen.append(g.dec)
        g.step(int(np.flatnonzero(g.mask)[0]))
    assert I2 not in seen
    assert g.ag[0].hp == g.ag[0].maxhp - 1  # automatic hit
    assert g.ag[0].charges(5) == 2


def test_c12_velocity_blade_offered_before_a_quick_draw_roll_at_distance():
    g = make(agent="Cobra", hunters="Gun,Beast", cards=(5,), pad_agent_turn=False)
    place(g, agent="Q6", hunters=["Q10", "A1"])
    g.step(NO)
    assert g.dec == I2 and g.mask[YES]


# ---------------------------------------------------------------- C58 padding
def _her_segment(g, choose):
    """Play the agent's decisions (choose(g) picks one) until someone else acts;
    returns (number of her decisions, slot after which her report was published)."""
    n, report_slot = 0, None
    while g.actor == 0 and not g.is_over:
        g.step(choose(g))
        n += 1
        if report_slot is None and g.tr["done"]:
            report_slot = n
    return n, report_slot


@pytest.mark.parametrize("steps", [0, 1, 3, 4, 6])
@pytest.mark.parametrize("card", [None, "before", "after"])
def test_c58_padded_turn_is_thirteen_decisions_and_reports_in_slot_eleven(steps, card):
    g = make(agent="Orangutan", hunters="Beast,Prophet", cards=(SURGE, FISTS, 1), pad_agent_turn=True)
    g.ag[0].pos = C("S5")
    g.bel[0].hyps = {-1: (((1 << C("S5")), 0, False),)}
    g.hpos, g.riding = [C("A1"), C("B1")], [False, False]
    g.ag[0].history[-1] = C("S5")
    g.round = 2  # after a hunter's turn: let the padding open her segment
    g._start_agent_turn(0)
    g._pad_check()
    left = [steps]
    if steps > 4:
        card = "surge"

    def choose(g):
        if g.dec == PAD:
            return NO
        if g.dec == 5:  # A2
            if card == "surge":
                return CARD0 + SURGE
            return CARD0 + FISTS if card == "before" else NO
        if g.dec == A3:
            left[0] -= 1
            return int(np.flatnonzero(g.mask)[0]) if left[0] >= 0 else NO
        if g.dec == A4:
            return CARD0 + FISTS if card == "after" else NO
        return int(np.flatnonzero(g.mask)[0])

    n, report_slot = _her_segment(g, choose)
    assert n == PAD_LEN and report_slot == 11


@pytest.mark.parametrize("pad", [True, False])
def test_c58_a5_asked_whenever_the_prophet_plays_when_padded(pad):
    g = make(agent="Orangutan", hunters="Beast,Prophet", pad_agent_turn=pad)
    place(g, agent="S5", hunters=["A1", "B1"])
    decs = []
    while g.actor == 0:
        decs.append(g.dec)
        g.step(int(np.flatnonzero(g.mask)[-1]) if g.dec == A3 else NO)
    assert (A5 in decs) == pad  # out of range: a forced NO only when padded


def _sequence_groups(cfg, seeds, conts, rng):
    """The issue-14 sequence-leak check: from states where p is to move, p makes a
    fixed move; continuations from resample_hidden(p) (hunters take their first legal
    move, the agent passes when she may) run up to p's next decision after another role's and are grouped by p's
    observation there plus the moves p saw on the way. Returns the groups."""
    groups = {}
    for seed in seeds:
        g = SpecterOpsGame(**cfg)
        g.reset(seed)
        r0 = np.random.default_rng(seed)
        target = 20 + int(r0.integers(0, 60))
        while not g.is_over and (len(g.actions) < target or g.current_player == 0 or g.round < 1):
            g.step(int(r0.choice(np.flatnonzero(g.legal_mask()))))
        if g.is_over:
            continue
        p = g.current_player
        first = int(np.flatnonzero(g.legal_mask())[0])
        for _ in range(conts):
            s = g.resample_hidden(p, rng)
            s.step(first)
            actors, moves = [], []
            while not s.is_over and (s.current_player != p or not actors or set(actors) == {p}):
                legal = np.flatnonzero(s.legal_mask())
                # she passes whenever she may (her turn's length then shows only what
                # was offered to her), hunters take their first option
                a = NO if (s.current_player == 0 and s.legal_mask()[NO]) else int(legal[0])
                actors.append(s.current_player)
                label = s.action_label_for(a, p)
                if not label.startswith("("):  # "(agent acts)" shows only who acts: that is the sequence
                    moves.append(label)
                s.step(a)
            key = (seed, s.is_over, s.observe(p).tobytes() if not s.is_over else b"", tuple(moves))
            groups.setdefault(key, []).append(tuple(actors))
    return groups


def test_c58_acting_sequence_depends_only_on_what_each_role_sees():
    rng = np.random.default_rng(5)
    for cfg in ({"num_players": 2, "agent_character": "Cobra"}, {"num_players": 2}):
        groups = _sequence_groups(cfg, range(8), 12, rng)
        assert sum(len(v) for v in groups.values()) > 2 * len(groups)  # continuations that look alike
        leaks = [k for k, v in groups.items() if len(set(v)) > 1]
        assert not leaks, f"acting sequence differs for one observation (seed {leaks[0][0]})"


def test_c58_unpadded_variant_leaks_through_the_acting_sequence():
    rng = np.random.default_rng(5)
    groups = _sequence_groups({"num_players": 2, "pad_agent_turn": False}, range(8), 12, rng)
    assert any(len(set(v)) > 1 for v in groups.values())


# ---------------------------------------------------------------- §6.2 against exact enumeration
def _chi2_limit(dof, z=3.719):
    """Wilson-Hilferty upper quantile of chi-square (z = 3.719: p = 1e-4)."""
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def _assert_uniform(samples, support):
    counts = {c: 0 for c in support}
    for x in samples:
        assert x in counts, f"{x} is not a consistent value"
        counts[x] += 1
    e = len(samples) / len(support)
    chi2 = sum((n - e) ** 2 / e for n in counts.values())
    assert chi2 < _chi2_limit(len(support) - 1), (chi2, counts)


def _unseen_first_turn(pad):
    g = make(agent="Spider", hunters="Beast,Puppet", pad_agent_turn=pad)
    place(g, hunters=["R2", "L4"])
    walk(g, "N2")
    skip_pads(g)
    assert g.pa[0].sight_kind == 0 and g.actor != 0
    return g


@pytest.mark.parametrize("pad", [True, False])
def test_s6_2_resampled_position_is_uniform_over_the_belief(pad):
    g = _unseen_first_turn(pad)
    support = believed(g)
    assert 5 <= len(support) <= 12  # the exact set of consistent cells
    rng = np.random.default_rng(11)
    viewer = g.current_player
    samples = [B.name(g.resample_hidden(viewer, rng).ag[0].pos) for _ in range(60 * len(support))]
    _assert_uniform(samples, support)
    assert B.name(g.ag[0].pos) in support


def test_s6_2_padded_mid_turn_resample_redraws_her_start_uniformly_and_keeps_the_count():
    g = _unseen_first_turn(True)
    while g.round < 2 or g.actor != 0:  # hunters stay where they are
        g.step(g.hpos[g.actor - 1] if g.dec == H2 else (NO if g.mask[NO] else int(np.flatnonzero(g.mask)[0])))
    skip_pads(g)
    support = believed(g)
    while g.dec != A3:
        g.step(NO)
    g.step(int(np.flatnonzero(g.mask)[0]))  # one hidden step
    k = g.seg_count
    rng = np.random.default_rng(3)
    samples = []
    for i in range(50 * len(support)):
        r = g.resample_hidden(1, rng)
        assert r.seg_count == k and r.actor == 0
        samples.append(B.name(r.ag[0].path[0]))
        if i < 20:  # its turn still ends after exactly PAD_LEN decisions
            n = 0
            while r.actor == 0 and not r.is_over:
                r.step(int(rng.choice(np.flatnonzero(r.mask))))
                n += 1
            assert k + n == PAD_LEN
    _assert_uniform(samples, support)


# ---------------------------------------------------------------- layout text = encoding
def test_layout_text_of_the_agents_block_matches_its_encoding():
    import re

    g = make(agent="Spider", hunters="Beast,Gun")
    place(g, hunters=["R2", "L4"])
    walk(g, "N2")
    block = g.layout.blocks["agents"]
    size = block.shape[1]
    numbered = [tuple(map(int, m.split("-"))) for m in re.findall(r"(?:: |, |; )(\d+(?:-\d+)?) ", block.doc)]
    covered = sorted(i for r in numbered for i in range(r[0], r[-1] + 1))
    assert covered == list(range(size)), "every slot named once, none unused"

    def main_agent(pa_close=-1, sensor=-1):
        g.pa[0].close, g.pa[0].sensor = pa_close, sensor
        g._pubver += 1
        return g.layout.view(g.observe(1), "agents")[0]

    assert main_agent(pa_close=1)[35] == 1 and main_agent(pa_close=1)[34] == 0  # "close" at 35
    assert main_agent(pa_close=0)[34] == 1 and main_agent(pa_close=0)[35] == 0  # "not close" at 34
    assert main_agent(sensor=9)[33] == 1  # no motion, the last sensor slot
    assert main_agent(sensor=0)[24] == 1  # N, the first
