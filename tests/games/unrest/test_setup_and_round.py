"""Rules tests for setup (§3), the area (§4.1), PLAY (§4.2, C12, C20), the Empire's
tokens (§4.3, C5, C7), assignment (§4.4, C15, C17) and the round's end (§4.5 5c/5d)."""

import numpy as np
import pytest

from spyenvs.core import IllegalActionError
from spyenvs.games.unrest import data as D
from spyenvs.games.unrest.rules import (
    AREA,
    ASSIGN,
    EMPIRE,
    EMPIRE_1,
    EMPIRE_2,
    LOC_DESTROYED,
    LOC_DISTRICT,
    PLAY,
    REBEL,
)

from .helpers import (
    DECOYS,
    C,
    I,
    R,
    S,
    assign,
    blockade,
    destroy,
    new_game,
    play_action,
    redirect,
    slot_of,
    stage,
    surveil,
)


def test_s3_setup_random_row_missions_hand_tokens():
    rows, drawn = set(), set()
    for seed in range(40):
        g = new_game(seed)
        pub, hid = g.pub, g.hid
        assert sorted(pub.row) == [0, 1, 2, 3, 4]
        assert pub.missions[0] == D.REVOLUTION
        assert list(pub.missions[1:]) == sorted(pub.missions[1:]) and len(set(pub.missions[1:])) == 3
        assert all(1 <= m <= 10 for m in pub.missions[1:])
        assert len(hid.hand) == 5 and len(hid.deck) == 19 and hid.hand == sorted(hid.hand)
        assert pub.tok_avail == [True] * 4 and pub.area == -1 and pub.phase == AREA
        assert g.current_player == REBEL
        rows.add(tuple(pub.row))
        drawn.add(pub.missions[1:])
        g.check_invariants()
    assert len(rows) > 20 and len(drawn) > 20  # random, not fixed


def test_c16_include_mission_12_adds_coordinated_strike_to_the_pool():
    seen = set()
    for seed in range(80):
        seen.update(new_game(seed).pub.missions[1:])
        assert D.MISSION_12 not in seen
    seen12 = set()
    for seed in range(80):
        seen12.update(new_game(seed, include_mission_12=True).pub.missions[1:])
    assert D.MISSION_12 in seen12


def test_s4_1_area_gaps_follow_the_row_size():
    g = new_game(1)
    assert g.legal_actions() == [0, 1, 2, 3]
    g.pub.row = g.pub.row[:4]
    g.pub.lib = []
    g.touch()
    assert g.legal_actions() == [0, 1, 2]
    g.step(2)
    assert g.pub.area == 2 and g.area_positions() == (2, 3) and g.pub.phase == PLAY


def test_s4_2_play_one_face_up_suit_card_and_two_face_down():
    g = stage(new_game(2), hand=[I(2), R(3), C(4), DECOYS[0], DECOYS[1]], row=[0, 1, 2, 3, 4])
    g.step(0)
    for a in g.legal_actions():
        r = (a - 4) // 6
        assert g.hid.hand[r] < 20, "a Decoy may never be the face-up card"
    g.step(play_action(g, R(3), [I(2), DECOYS[0]]))
    pub = g.pub
    assert pub.phase == EMPIRE_1 and g.current_player == EMPIRE
    h0 = pub.pending[0]
    assert g.hid.hcard[h0] == R(3) and pub.hup[h0] and pub.htype[h0] == R(3)
    downs = {g.hid.hcard[pub.pending[1]], g.hid.hcard[pub.pending[2]]}
    assert downs == {I(2), DECOYS[0]}
    assert not pub.hup[pub.pending[1]] and not pub.hup[pub.pending[2]]
    assert g.hid.hand == [C(4), DECOYS[1]] and pub.hand_size == 2
    assert pub.pending == [0, 1, 2]  # handles 3*(round-1)+slot


def test_c20_plays_differing_only_in_identical_decoys_are_masked():
    g = stage(new_game(3), hand=[I(5)] + list(DECOYS))
    g.step(0)
    assert g.legal_actions() == [4]  # one play; still presented (C17)
    assert g.decision_name() == "play_cards"
    g2 = stage(new_game(3), hand=[I(2), R(3), C(4), DECOYS[0], DECOYS[1]])
    g2.step(0)
    # face up: 3 suit cards; face-down pairs from the other 4 (2 suit + 2 Decoys):
    # {s,s}, {s,D} x2 suit, {D,D} -> 4 distinct pairs each
    assert len(g2.legal_actions()) == 3 * 4


def test_c12_face_down_pending_slots_are_shuffled():
    orders = set()
    for seed in range(30):
        g = stage(new_game(seed), hand=[I(2), R(3), C(4), S(5), S(6)])
        g.step(0)
        g.step(play_action(g, I(2), [R(3), S(6)]))
        orders.add(g.hid.hcard[g.pub.pending[1]])
    assert orders == {R(3), S(6)}


def _to_empire(seed=4, hand=None, area=1):
    g = stage(new_game(seed), hand=hand or [I(2), R(3), C(4), S(5), DECOYS[0]], row=[0, 1, 2, 3, 4])
    g.step(area)
    g.step(play_action(g, I(2), [R(3), DECOYS[0]]))
    return g


def test_c5_s4_3_empire_takes_two_different_tokens():
    g = _to_empire()
    first = g.legal_actions()
    assert (
        {a // 3 for a in first if a < 6} == {0, 1}
        and any(6 <= a < 21 for a in first)
        and blockade(1) in first
    )
    g.step(destroy(0))
    assert g.pub.phase == EMPIRE_2 and g.current_player == EMPIRE
    second = g.legal_actions()
    assert not any(3 <= a < 6 for a in second), "Destroy was used: the second token must differ"
    assert second  # no pass action, but always a legal one


def test_s4_3_surveillance_only_face_down_pending_and_reveals_for_good():
    g = _to_empire()
    legal = g.legal_actions()
    assert surveil(0) not in legal  # slot 0 is face up
    s = slot_of(g, R(3))
    g.step(surveil(s))
    h = g.pub.pending[s]
    assert g.pub.hup[h] and g.pub.htype[h] == R(3)
    obs = g.observe(EMPIRE)
    view = g.layout.view(obs, "handle_type")
    assert view[h, R(3)] == 1


def test_s4_3_destroy_shows_a_face_down_decoy_but_not_a_suit_card():
    g = _to_empire()
    s = slot_of(g, DECOYS[0])
    h = g.pub.pending[s]
    g.step(destroy(s))
    assert g.pub.hloc[h] == LOC_DESTROYED and g.pub.hup[h] and g.pub.htype[h] == D.DECOY_TYPE
    g = _to_empire()
    s = slot_of(g, R(3))
    h = g.pub.pending[s]
    g.step(destroy(s))
    assert g.pub.hloc[h] == LOC_DESTROYED and not g.pub.hup[h]
    assert g.pub.pending[s] == -1


def test_c7_redirect_to_any_row_district_including_blockaded_and_outside_area():
    g = _to_empire(area=1)  # area = positions 1, 2
    g.step(blockade(2))
    legal = g.legal_actions()
    for p in range(5):
        assert redirect(0, p) in legal
    g.step(redirect(0, 4))  # outside the area
    h = 0
    assert g.pub.hloc[h] == LOC_DISTRICT + g.pub.row[4] and h in g.pub.dist[g.pub.row[4]]
    assert g.pub.pending[0] == -1
    g = _to_empire(area=1)
    g.step(blockade(2))
    g.step(redirect(0, 2))  # into the blockaded district
    assert 0 in g.pub.dist[g.pub.row[2]]


def test_s4_3_blockade_only_on_the_two_area_districts():
    g = _to_empire(area=2)
    blocks = [a - 21 for a in g.legal_actions() if a >= 21]
    assert blocks == [2, 3]


def test_s4_4_assign_only_to_non_blockaded_area_districts_and_c17_auto_assign():
    g = _to_empire(area=0)
    g.step(blockade(0))
    g.step(surveil(1))
    # every pending card must go to position 1: auto-applied, round over
    assert g.pub.phase in (AREA, 5) and g.pub.round == 2
    assert sorted(g.pub.dist[g.pub.row[1]]) == [0, 1, 2]
    assert g.pub.blockade == -1  # Blockade leaves at the end of the round


def test_s4_4_c15_every_pending_card_is_assigned_one_at_a_time():
    g = _to_empire(area=0)
    g.step(surveil(1))
    g.step(destroy(2))
    assert g.pub.phase == ASSIGN and g.legal_actions() == [assign(0), assign(1)]
    g.step(assign(1))
    g.step(assign(0))
    assert g.pub.phase == AREA and g.pub.pending == [-1, -1, -1]
    assert g.pub.dist[g.pub.row[0]] == [1] and g.pub.dist[g.pub.row[1]] == [0]
    with pytest.raises(IllegalActionError):
        g.step(assign(4))


def test_s4_3_token_refresh_only_when_all_four_used():
    g = _to_empire(area=0)
    g.step(surveil(1))
    g.step(blockade(0))
    assert g.pub.round == 2 and g.pub.tok_avail == [False, True, True, False]
    g.step(0)
    hand = g.hid.hand
    up = next(c for c in hand if c < 20)
    g.step(play_action(g, up, [c for c in hand if c != up][:2]))
    legal = g.legal_actions()
    assert all(3 <= a < 21 for a in legal), "only Destroy and Redirect remain in round 2"
    g.step(destroy(0))
    g.step(redirect(1, 4))
    while g.pub.phase == ASSIGN:
        g.step(g.legal_actions()[0])
    assert g.pub.round == 3 and g.pub.tok_avail == [True] * 4


def test_s4_5d_draw_three_then_final_encounter_with_the_last_card():
    g = new_game(5)
    rng = np.random.default_rng(0)
    while g.pub.round < 8 and not g.is_over:
        if g.pub.phase == AREA:
            assert len(g.hid.hand) == 5 and len(g.hid.deck) == 22 - 3 * g.pub.round
        g.step(int(rng.choice(g.legal_actions())))
    if not g.is_over:
        assert g.pub.final and g.pub.phase == PLAY and len(g.hid.hand) == 3 and g.hid.deck == []
        assert g.pub.area == -1


def test_s9_19_surveilled_decoy_stays_face_up_and_counts_for_nothing():
    g = _to_empire(area=0)
    s = slot_of(g, DECOYS[0])
    h = g.pub.pending[s]
    g.step(surveil(s))
    assert g.pub.hup[h] and g.pub.htype[h] == D.DECOY_TYPE
    g.step(blockade(1))  # everything auto-assigned to position 0
    d = g.pub.row[0]
    assert h in g.pub.dist[d] and g.pub.hup[h]
    obs = g.observe(EMPIRE)
    assert g.layout.view(obs, "handle_type")[h, D.DECOY_TYPE] == 1
    assert g.layout.view(obs, "unseen")[D.DECOY_TYPE] == 0.75


def test_s4_3_empire_actions_are_presented_even_when_forced():
    g = _to_empire(area=0)
    g.step(surveil(1))
    g.step(blockade(0))
    g.step(0)
    hand = g.hid.hand
    up = next(c for c in hand if c < 20)
    g.step(play_action(g, up, [c for c in hand if c != up][:2]))
    assert g.current_player == EMPIRE and g.pub.phase == EMPIRE_1
