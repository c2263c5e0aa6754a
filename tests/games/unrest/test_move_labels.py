"""Move labels and text notation per view (render.py, ``action_label_for``): every move
of both roles is public (§4.1-§4.5, §5.1) and is shown to the other role as it is,
naming cards, not slots; only the identities of the cards the Rebel plays face down
stay hidden from the Empire (§5.1, §5.2 note 5), and the Final Encounter's all-face-down
play shows the Empire the three Decoys it proves (§4.6, C11)."""

import numpy as np
import pytest

from spyenvs.core.errors import IllegalActionError
from spyenvs.games.unrest import data as D
from spyenvs.games.unrest.game import UnrestGame
from spyenvs.games.unrest.rules import EMPIRE, PLAY, REBEL

from .helpers import DECOYS, C, I, R, S, assign, blockade, destroy, liberate, new_game, play_action, redirect
from .helpers import slot_of, stage, surveil
from .test_final_encounter import final_state
from .test_missions_and_liberation import _to_liberate

ROW = [0, 1, 2, 3, 4]  # Plenty, Peace, Capitol, Police HQ, Truth at positions 0-4
HAND = [I(2), R(3), C(4), S(5), DECOYS[0]]


def _at_play(seed=0, hand=HAND):
    g = stage(new_game(seed), hand=hand, row=ROW)
    g.step(0)  # area: positions 0 and 1
    assert g.pub.phase == PLAY
    return g


def _at_empire(seed=0):
    g = _at_play(seed)
    g.step(play_action(g, I(2), [R(3), DECOYS[0]]))
    return g


def both_views(g, a):
    return g.action_label_for(a, REBEL), g.action_label_for(a, EMPIRE)


def test_s4_1_area_choice_is_shown_to_the_empire():
    g = stage(new_game(0), hand=HAND, row=ROW)
    reb, emp = both_views(g, 2)
    assert reb == emp == "area between Capitol (position 2) and Police HQ (position 3)"


def test_s4_2_play_shows_the_face_up_card_and_hides_the_face_down_ones_from_the_empire():
    g = _at_play()
    a = play_action(g, C(4), [R(3), DECOYS[0]])
    reb, emp = both_views(g, a)
    assert reb == g.action_label(a) == "play Coup 4 face up; Riots 3 + Decoy face down"
    assert emp == "play Coup 4 face up; 2 cards face down"
    # another pair face down, the same face-up card: the Empire reads the same move
    other = play_action(g, C(4), [I(2), S(5)])
    assert g.action_label_for(other, REBEL) == "play Coup 4 face up; Intel 2 + Supplies 5 face down"
    assert g.action_label_for(other, EMPIRE) == emp
    # the card the label names is the one the Empire then sees face up in slot 0
    g.step(a)
    assert g.layout.view(g.observe(EMPIRE), "handle_type")[0, C(4)] == 1
    assert "h0:Coup 4" in g.render_text(EMPIRE)


def test_c11_all_face_down_final_play_shows_the_empire_three_decoys():
    g = final_state(hand=[DECOYS[0], DECOYS[1], DECOYS[2]])
    reb, emp = both_views(g, 34)
    assert reb == "play all 3 face down: Decoy + Decoy + Decoy"
    assert emp == "play all 3 cards face down (so all are Decoys)"


def test_c23_all_face_down_final_play_without_one_face_up_hides_the_cards():
    g = final_state(hand=[I(2), R(5), DECOYS[3]], final_encounter_one_faceup=False)
    assert g.legal_actions() == [34]
    reb, emp = both_views(g, 34)
    assert reb == "play all 3 face down: Intel 2 + Riots 5 + Decoy"
    assert emp == "play all 3 cards face down"


def test_s4_3_empire_actions_are_shown_to_the_rebel_with_its_own_cards():
    g = _at_empire()
    s = slot_of(g, R(3))
    h = g.pub.pending[s]
    reb, emp = both_views(g, surveil(s))
    assert reb == f"Surveillance: turn h{h}:[Riots 3] (pending) face up"
    assert emp == g.action_label(surveil(s)) == f"Surveillance: turn h{h}:? (pending) face up"
    assert both_views(g, destroy(0)) == ("Destroy h0:Intel 2 (pending)",) * 2
    reb, emp = both_views(g, redirect(s, 3))
    assert reb == f"Redirect h{h}:[Riots 3] (pending) to Police HQ (position 3)"
    assert emp == f"Redirect h{h}:? (pending) to Police HQ (position 3)"
    assert both_views(g, blockade(1)) == ("Blockade Ministry of Peace (position 1)",) * 2
    # the second action of the round reads the same way
    g.step(destroy(0))
    assert g.decision_name() == "empire_action_2"
    assert both_views(g, redirect(s, 4))[0] == f"Redirect h{h}:[Riots 3] (pending) to Ministry of Truth (position 4)"


def test_s5_1_empire_own_labels_and_errors_never_name_face_down_cards():
    g = _at_empire()
    for a in g.legal_actions():
        assert "Riots 3" not in g.action_label(a) and "Decoy" not in g.action_label(a)
    with pytest.raises(IllegalActionError) as err:
        g.step(59)
    assert "Riots 3" not in str(err.value) and "Decoy" not in str(err.value) and ":[" not in str(err.value)


def test_s4_4_assign_shows_the_card_and_district_face_down_card_stays_hidden():
    g = _at_empire()
    g.step(destroy(0))
    g.step(redirect(slot_of(g, R(3)), 4))
    h = g.pub.pending[slot_of(g, DECOYS[0])]
    assert g.decision_name() == "assign_card"
    reb, emp = both_views(g, assign(1))
    assert reb == f"assign h{h}:[Decoy] to Ministry of Peace (position 1)"
    assert emp == f"assign h{h}:? to Ministry of Peace (position 1)"


def test_s4_5_liberation_choice_is_shown_to_the_empire():
    g = stage(new_game(4), {0: [(I(4), True), (R(4), False), (DECOYS[1], False)]}, row=ROW, missions=(2, 6, 10))
    _to_liberate(g)
    reb, emp = both_views(g, liberate(0, 1))
    assert reb == emp == "liberate Ministry of Plenty (position 0) with Espionage (mission slot 1)"


def test_render_text_explains_the_card_notation_per_view():
    g = _at_empire()
    reb, emp = g.render_text(REBEL), g.render_text(EMPIRE)
    assert "legend: hN = card handle N" in reb and "legend: hN = card handle N" in emp
    assert "hN:[Riots 5] = face down, known only to the Rebel" in reb and "h1:[" in reb
    assert "hN:? = face down, unknown to you" in emp and "h1:?" in emp and "[" not in emp
    assert "hand (2 cards): Coup 4, Supplies 5" in reb and "hand: 2 cards" in emp


@pytest.mark.parametrize("cfg", UnrestGame.TEST_CONFIGS)
def test_s5_1_in_random_play_every_move_is_shown_and_face_down_cards_stay_hidden(cfg):
    """Over random games: no move shows as a bare decision name to the other role, the
    Empire's labels never carry the Rebel-only ``[card]`` notation, and the card a PLAY
    label names face up is the one the Empire then sees there."""
    checked_plays = 0
    for seed in range(6):
        g = UnrestGame(**cfg)
        g.reset(seed)
        rng = np.random.default_rng(seed)
        while not g.is_over:
            legal = g.legal_actions()
            for a in legal:
                for viewer in (REBEL, EMPIRE):
                    label = g.action_label_for(a, viewer)
                    assert label and not label.startswith("("), label
                emp = g.action_label_for(a, EMPIRE)
                assert "[" not in emp, emp
            a = legal[int(rng.integers(len(legal)))]
            emp = g.action_label_for(a, EMPIRE)
            was_play = g.decision_name() == "play_cards"
            g.step(a)
            if was_play and "face up;" in emp:
                h0 = 3 * (g.pub.round - 1)
                assert emp == f"play {D.card_name(g.pub.htype[h0])} face up; 2 cards face down"
                checked_plays += 1
    assert checked_plays >= 6
