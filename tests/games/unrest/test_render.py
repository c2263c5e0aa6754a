"""unrest_v0 pictures (render.py ``render_rgb``): fixed-size uint8 frames, face-down
cards drawn as card backs for the Empire and as the card for the Rebel, the Rebel's
hand hidden from the Empire, and views that differ only where knowledge differs."""

from __future__ import annotations

import numpy as np

from spyenvs.core import drawing as dr
from spyenvs.games.unrest import render as R_
from spyenvs.games.unrest.rules import EMPIRE, REBEL

from .helpers import C, I, R, S, new_game, stage

ROW = [0, 1, 2, 3, 4]


def tile(img, col: int, i: int, w: int = R_.COL_W - 6):
    """The pixels of the i-th card tile in district-row column ``col``."""
    x, y = R_._col_x(col) + 3, R_.CARDS_Y + i * R_.TILE_STEP
    return img[y:y + R_.TILE_H, x:x + w]


def has_color(region, color) -> bool:
    return bool((region == np.array(color, np.uint8)).all(axis=-1).any())


def staged():
    # district 2 (position 2) holds a face-up Intel 3, then a face-down Riots 5
    return stage(new_game(1), {2: [(I(3), True), (R(5), False)]}, hand=[C(2), S(4), S(6)], row=ROW)


def test_picture_is_fixed_size_uint8_rgb_for_every_view():
    g = staged()
    shapes = {g.render_rgb(v).shape for v in (None, REBEL, EMPIRE)}
    assert shapes == {(R_.HEIGHT, R_.WIDTH, 3)}
    assert g.render_rgb(None).dtype == np.uint8


def test_face_down_card_is_a_back_for_empire_and_the_card_for_rebel():
    g = staged()
    emp, reb, omni = g.render_rgb(EMPIRE), g.render_rgb(REBEL), g.render_rgb(None)
    riots = R_.SUIT_COLORS[1]
    # the face-up Intel 3 looks the same to both
    assert np.array_equal(tile(emp, 2, 0), tile(reb, 2, 0))
    assert has_color(tile(emp, 2, 0), R_.SUIT_COLORS[0])
    # the face-down Riots: a back (no suit colour) to the Empire, a Riots tile to the Rebel
    assert has_color(tile(emp, 2, 1), dr.BACK) and not has_color(tile(emp, 2, 1), riots)
    assert has_color(tile(reb, 2, 1), riots)
    assert np.array_equal(tile(reb, 2, 1), tile(omni, 2, 1))


def test_empire_sees_rebel_hand_as_backs_only():
    g = staged()
    x, y = R_._col_x(3), R_.BOTTOM_Y + 16
    hand = lambda img: img[y:y + 3 * R_.TILE_STEP, x:x + R_.COL_W]  # noqa: E731
    emp, reb = hand(g.render_rgb(EMPIRE)), hand(g.render_rgb(REBEL))
    assert has_color(emp, dr.BACK) and not has_color(emp, R_.SUIT_COLORS[3])
    assert has_color(reb, R_.SUIT_COLORS[3]) and not has_color(reb, dr.BACK)


def test_empire_view_unchanged_by_which_card_lies_face_down():
    a = staged()
    b = stage(new_game(1), {2: [(I(3), True), (C(6), False)]}, hand=[C(2), S(4), S(6)], row=ROW)
    assert np.array_equal(a.render_rgb(EMPIRE), b.render_rgb(EMPIRE))
    assert not np.array_equal(a.render_rgb(REBEL), b.render_rgb(REBEL))
