"""Rules tests for the Final Encounter (§4.6, C11, C23) and §9 edge 2."""

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest.rules import ASSIGN, EMPIRE, PLAY

from .helpers import DECOYS, I, R, assign, blockade, new_game, play_action, stage


def final_state(hand=None, **cfg):
    """Round 8: 21 cards played (all destroyed-face-up padding), 3 in hand, tokens
    Redirect + Blockade available (the pair not used in round 7)."""
    g = new_game(11, **cfg)
    hand = hand or [I(2), R(5), DECOYS[3]]
    stage(
        g,
        {},
        hand=hand,
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 9),
        padding=[c for c in range(24) if c not in hand],
    )
    # stage pads to whole rounds only; build 21 played handles by hand
    pub, hid = g.pub, g.hid
    rest = [c for c in range(24) if c not in hand]
    assert len(rest) == 21
    pub.dist = [[] for _ in range(5)]
    pub.destroyed = list(range(21))
    for h, c in enumerate(rest):
        hid.hcard[h] = c
        pub.hloc[h] = 8
        pub.hup[h] = True
        pub.htype[h] = D.CARD_TYPE[c]
    pub.n_played = 21
    pub.round = 8
    pub.final = True
    pub.phase = PLAY
    hid.hand = sorted(hand)
    hid.deck = []
    pub.hand_size, pub.deck_size = 3, 0
    pub.tok_avail = [False, False, True, True]
    pub.tok_uses = [4, 4, 3, 3]
    g.touch()
    return g


def test_c11_final_encounter_plays_whole_hand_one_face_up():
    g = final_state()
    assert g.decision_name() == "play_cards"
    assert g.legal_actions() == [4, 10]  # I2 or R5 face up; the Decoy never; no 34
    g.step(play_action(g, R(5), [I(2), DECOYS[3]]))
    assert g.hid.hand == [] and g.pub.hand_size == 0
    assert g.pub.hup[21] and g.hid.hcard[21] == R(5)


def test_s9_2_final_encounter_all_decoys_play_all_face_down():
    g = final_state(hand=[DECOYS[0], DECOYS[1], DECOYS[2]])
    assert g.legal_actions() == [34]
    g.step(34)
    assert g.pub.final_all_hidden and not any(g.pub.hup[h] for h in (21, 22, 23))
    g = final_state(hand=[I(2), DECOYS[0], DECOYS[1]])
    assert g.legal_actions() == [4]  # forced but presented (C17)


def test_c23_final_encounter_one_faceup_off_plays_all_face_down():
    g = final_state(final_encounter_one_faceup=False)
    assert g.legal_actions() == [34]
    g.step(34)
    assert not any(g.pub.hup[h] for h in (21, 22, 23))


def test_c11_final_encounter_blockade_any_district_and_assign_anywhere_else():
    g = final_state()
    g.step(play_action(g, R(5), [I(2), DECOYS[3]]))
    assert g.current_player == EMPIRE
    blocks = [a - 21 for a in g.legal_actions() if a >= 21]
    assert blocks == [0, 1, 2, 3, 4]
    g.step(blockade(4))
    g.step(6 + 5 * 0 + 4)  # redirect the face-up card into the blockaded district: legal
    assert g.pub.phase == ASSIGN
    assert g.legal_actions() == [assign(p) for p in range(4)]
    g.step(assign(3))
    g.step(assign(0))
    assert g.is_over and g.outcome() == [-1.0, 1.0]


def test_c6_final_encounter_targets_only_pending_cards_even_in_variant():
    g = final_state(empire_can_target_area_district_cards=True)
    g.pub.tok_avail = [True, True, False, False]
    g.pub.dist[0] = []
    g.touch()
    g.step(play_action(g, R(5), [I(2), DECOYS[3]]))
    legal = g.legal_actions()
    assert all(21 <= a < 24 or 24 + 21 <= a < 24 + 24 for a in legal)
