"""Rules tests for the mission cards (§2.3, §9.12-15), the liberation check and its
choice (§4.5, C8, C9, C10, C18, C23) and the win conditions (§4.5 5b, §4.7, C24)."""

import pytest

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest.rules import AREA, EMPIRE, LIBERATE, OVER, REBEL

from .helpers import (
    DECOYS,
    C,
    I,
    R,
    S,
    assign,
    blockade,
    liberate,
    new_game,
    play_action,
    redirect,
    stage,
    surveil,
)


def _to_liberate(g):
    """Turn a staged round start into the end-of-round LIBERATE decision (hand of 2)."""
    hid = g.hid
    hid.deck.extend(hid.hand[2:])
    hid.hand = hid.hand[:2]
    g.pub.hand_size, g.pub.deck_size = 2, len(hid.deck)
    g.pub.phase = LIBERATE
    g.touch()


def sat(m, cards, thr=21):
    sums, counts, vals = D.summarize(cards)
    return D.mission_satisfied(m, sums, counts, vals, thr)


@pytest.mark.parametrize(
    "mission,yes,no",
    [
        (0, [I(6), R(6), C(5), S(4)], [I(6), R(6), C(5), S(3)]),  # Revolution >= 21
        (1, [I(4), C(3)], [I(3), C(3)]),  # Media Support: strict Intel > Coup, Coup >= 3
        (1, [I(6), C(3)], [I(6), C(2)]),
        (2, [I(4), R(4)], [I(4), R(3)]),  # Espionage
        (3, [I(2), R(2), C(2), S(2)], [I(2), R(2), C(2), C(3)]),  # Coup d'etat
        (4, [I(3), R(3), S(3)], [I(3), R(3), S(4)]),  # General Strike
        (5, [R(2), R(6)], [R(2), R(6), I(2)]),  # Street Riots: no Intel card
        (6, [R(4), S(4)], [R(4), S(3)]),  # Barricades
        (7, [S(4), R(3)], [S(3), R(3)]),  # Sabotage: strict
        (8, [S(2), S(6)], [S(2), S(6), C(2)]),  # Smuggling: no Coup card
        (9, [C(4), S(4)], [C(3), S(4)]),  # Arming the Militia
        (10, [I(2), I(3), I(4)], [I(2), I(3), R(4)]),  # Conspiracy Cells
        (11, [I(2), R(3), C(4), S(5)], [I(2), R(3), C(4), S(6)]),  # Coordinated Strike
        (11, [I(3), R(4), C(5), S(6)], [I(3), R(4), R(5)]),
    ],
)
def test_s2_3_mission_conditions(mission, yes, no):
    assert sat(mission, yes)
    assert not sat(mission, no)


def test_s9_14_decoys_count_for_nothing():
    assert not sat(4, [I(3), R(3)] + list(DECOYS[:2]))
    assert not sat(10, [I(3), I(4)] + list(DECOYS))
    assert not sat(3, [I(2), R(2), C(2)] + list(DECOYS))
    assert sat(2, [I(4), R(4), DECOYS[0]])


def test_s10_revolution_threshold_is_configurable():
    cards = [I(6), R(6), S(6)]
    assert not sat(0, cards, 21) and sat(0, cards, 18)
    g = stage(
        new_game(0, revolution_threshold=18),
        {0: [(I(6), True), (R(6), True), (S(6), True)]},
        row=[0, 1, 2, 3, 4],
    )
    assert (0, 0) in g.qualifying_pairs()


def test_s9_12_face_down_cards_count_for_missions():
    g = stage(
        new_game(1),
        {0: [(R(6), True), (R(4), True), (I(2), False)]},
        row=[0, 1, 2, 3, 4],
        missions=(5, 6, 7),
    )
    assert not g.qualifying_pairs(), "a face-down Intel card blocks Street Riots"
    g = stage(
        new_game(1), {0: [(R(6), True), (R(4), True), (S(2), False)]}, row=[0, 1, 2, 3, 4], missions=(5, 6, 7)
    )
    assert g.qualifying_pairs() == [(0, 1)]


def test_c8_liberation_is_mandatory_and_the_rebel_chooses_the_pair():
    # district 0 qualifies for Espionage (slot 1) and Barricades (slot 2); district 1 for Espionage
    g = stage(
        new_game(2),
        {0: [(I(4), True), (R(4), True), (S(4), True)], 1: [(I(5), True), (R(5), True), (C(2), True)]},
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 10),
        hand=[C(3), C(4), C(5), C(6), DECOYS[0]],
    )
    r0 = g.pub.round
    g.step(3)  # area: positions 3, 4, away from the qualifying districts
    g.step(play_action(g, C(3), [C(4), DECOYS[0]]))
    g.step(blockade(3))
    g.step(surveil(1))  # cards auto-assigned to position 4; end of round
    assert g.pub.phase == LIBERATE and g.current_player == REBEL
    assert g.legal_actions() == sorted([liberate(0, 1), liberate(0, 2), liberate(1, 1)])
    g.step(liberate(1, 1))  # the Rebel picks district 1 for Espionage
    assert g.pub.lib == [1] and g.pub.lib_mission[1] == 1 and not g.pub.mission_avail[1]
    # C18: the row closed up; district 0 still qualifies for Barricades only
    assert g.pub.row == [0, 2, 3, 4]
    assert g.pub.phase == LIBERATE and g.legal_actions() == [liberate(0, 2)]
    g.step(liberate(0, 2))
    assert g.pub.row == [2, 3, 4] and g.pub.phase == AREA and g.pub.round == r0 + 1
    assert g.legal_actions() == [0, 1]  # s4_1: n = 3 -> 2 gaps


def test_c18_liberate_positions_follow_the_closed_up_row():
    g = stage(
        new_game(3),
        {
            1: [(I(4), True), (R(4), True)] + [(DECOYS[0], False)],
            3: [(S(4), True), (R(5), True), (C(2), True)],
        },
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 10),
    )
    pairs = g.qualifying_pairs()
    assert pairs == [(1, 1), (3, 2)]
    _to_liberate(g)
    g.step(liberate(1, 1))
    assert g.pub.row == [0, 2, 3, 4]
    assert g.legal_actions() == [liberate(2, 2)], "district 3 is now at position 2"


def test_c9_liberation_reveals_all_face_down_cards():
    g = stage(
        new_game(4),
        {0: [(I(4), True), (R(4), False), (DECOYS[1], False)]},
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 10),
    )
    _to_liberate(g)
    g.step(liberate(0, 1))
    assert all(g.pub.hup[h] for h in g.pub.dist[0])
    assert g.pub.htype[2] == D.DECOY_TYPE


def test_c23_reveal_all_on_liberation_off_keeps_cards_hidden():
    g = new_game(4, reveal_all_on_liberation=False)
    stage(g, {0: [(I(4), True), (R(4), False), (DECOYS[1], False)]}, row=[0, 1, 2, 3, 4], missions=(2, 6, 10))
    _to_liberate(g)
    g.step(liberate(0, 1))
    assert g.pub.lib == [0] and not g.pub.hup[1] and not g.pub.hup[2]


def test_c10_revolution_is_discarded_unless_reusable():
    big = {
        0: [(I(6), True), (R(6), True), (C(6), True), (S(6), True)],
        1: [(I(5), True), (R(5), True), (C(5), True), (S(5), True), (I(4), True)],
    }
    for reusable in (False, True):
        g = new_game(5, revolution_reusable=reusable)
        stage(g, big, row=[0, 1, 2, 3, 4], missions=(1, 4, 8))
        _to_liberate(g)
        assert liberate(0, 0) in g.legal_actions()
        g.step(liberate(0, 0))
        assert g.pub.mission_avail[0] == reusable
        assert (liberate(0, 0) in g.legal_actions()) == reusable  # district 1 is now position 0


def test_s4_5b_third_liberation_wins_at_once():
    g = stage(
        new_game(6),
        {
            0: [(I(4), True), (R(4), True)],
            1: [(S(4), True), (R(5), True)],
            2: [(C(4), True), (S(5), True)],
            3: [(I(5), True), (R(6), True)],
        },
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 9),
    )
    _to_liberate(g)
    g.step(liberate(0, 1))
    g.step(liberate(0, 2))
    assert g.pub.phase == LIBERATE and len(g.qualifying_pairs()) >= 1
    g.step(liberate(0, 3))
    assert g.is_over and g.outcome() == [1.0, -1.0]
    assert g.pub.winner == REBEL and g.legal_mask().sum() == 0


def test_c24_game_continues_when_the_rebel_cannot_win_any_more():
    g = new_game(7)
    g.pub.mission_avail = [False, False, False, True]
    g.touch()
    assert not g.is_over and g.legal_mask().any()


def test_s4_5_liberation_check_covers_districts_outside_the_area():
    g = stage(
        new_game(8),
        {4: [(I(4), True), (R(3), True)]},
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 10),
        hand=[R(4), C(2), C(3), DECOYS[0], DECOYS[1]],
    )
    r0 = g.pub.round
    g.step(0)
    g.step(play_action(g, R(4), [DECOYS[0], DECOYS[1]]))
    assert g.current_player == EMPIRE
    g.step(redirect(0, 4))  # the Empire redirects the Riots 4 to position 4, outside the area
    g.step(blockade(0))
    assert g.pub.phase == LIBERATE and g.legal_actions() == [liberate(4, 1)]
    g.step(liberate(4, 1))
    assert g.pub.lib == [4] and g.pub.round == r0 + 1 and g.pub.phase == AREA


def test_s4_6_final_encounter_failure_means_the_empire_wins():
    g = _final_state()
    while not g.is_over:
        g.step(g.legal_actions()[0])
    assert len(g.pub.lib) < 3 and g.outcome() == [-1.0, 1.0]


def _final_state(**cfg):
    from .test_final_encounter import final_state

    return final_state(**cfg)


def test_s4_6_final_encounter_liberation_still_wins():
    g = _final_state()
    g.pub.lib = [3, 4]
    g.pub.row = [0, 1, 2]
    g.pub.lib_mission = [-1, -1, -1, 1, 2]
    g.pub.lib_round = [0, 0, 0, 3, 5]
    g.pub.mission_avail = [True, False, False, True]
    g.pub.missions = (0, 2, 6, 9)
    g.touch()
    # the hand holds C4, S4 + a Decoy: Arming the Militia in one district
    g.hid.hand = sorted([C(4), S(4), DECOYS[3]])
    g.touch()
    g.step(play_action(g, C(4), [S(4), DECOYS[3]]))
    g.step(surveil(1) if surveil(1) in g.legal_actions() else g.legal_actions()[0])
    while g.current_player == EMPIRE and not g.is_over:
        acts = [a for a in g.legal_actions() if a >= 21]  # blockade somewhere harmless
        g.step(acts[-1] if acts else g.legal_actions()[0])
    while g.pub.phase == 4:
        g.step(assign(0))
    assert g.pub.phase == LIBERATE
    g.step(g.legal_actions()[0])
    assert g.is_over and g.outcome() == [1.0, -1.0]
    assert g.pub.phase == OVER
