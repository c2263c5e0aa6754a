"""spy_games_v0 pictures (render.py ``render_rgb``): fixed-size uint8 frames per player
count, a spy's plan drawn as a card back for everyone but its owner, hands shown only
to their holder, a face-down confrontation addition hidden from all but its player."""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.core import drawing as dr
from spyenvs.games.spy_games import render as R_

from .helpers import CIRCLE, DEMO, LIQ, SAFE, SQUARE, K, arrange, game

PLAN = K(DEMO, SQUARE, 3)


def spy_plan(img, zone_owner: int, k: int, i: int = 0):
    """Pixels of the plan card of the i-th spy in zone (zone_owner, k)."""
    x = R_.M + R_.INFO_W + R_.GAP + k * (R_.ZONE_W + R_.GAP) + 4 + i * (R_.SPY_W + 4)
    y = R_.PANEL_Y0 + zone_owner * (R_.PANEL_H + 6) + 40 + 15
    return img[y:y + R_.SPY_H - 15, x:x + R_.SPY_W]


def hand_row(img, p: int):
    y = R_.PANEL_Y0 + p * (R_.PANEL_H + 6) + R_.HAND_Y
    x = R_.M + R_.INFO_W + R_.GAP
    return img[y:y + 30, x:x + 300]


def has_color(region, color) -> bool:
    return bool((region == np.array(color, np.uint8)).all(axis=-1).any())


def staged(plan=PLAN, n=3):
    g = game(n=n)
    # player 0's agent 2 sits in player 1's zone 1 with 2 cases on plan ``plan``
    return arrange(g, hands={0: [K(SAFE, CIRCLE, 1)], 1: [K(LIQ, SQUARE, 2)]}, spies=[(0, 1, 1, 0, 2, plan)])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_picture_is_fixed_size_uint8_rgb_for_every_view(n):
    g = staged(n=n)
    shapes = {g.render_rgb(v).shape for v in (None, *range(n))}
    assert shapes == {(R_._height(n), R_.WIDTH, 3)}
    assert g.render_rgb(None).dtype == np.uint8


def test_spy_plan_is_a_back_for_others_and_the_card_for_its_owner():
    g = staged()
    demo = R_.TYPE_COLORS[DEMO]
    own, other, omni = (spy_plan(g.render_rgb(v), 1, 0) for v in (0, 1, None))
    assert has_color(own, demo) and not has_color(own, dr.BACK)
    assert has_color(other, dr.BACK) and not has_color(other, demo)
    assert np.array_equal(own, omni)


def test_hand_shows_to_its_holder_only():
    g = staged()
    liq = R_.TYPE_COLORS[LIQ]
    mine, seen_by_0 = hand_row(g.render_rgb(1), 1), hand_row(g.render_rgb(0), 1)
    assert has_color(mine, liq) and not has_color(mine, dr.BACK)
    assert has_color(seen_by_0, dr.BACK) and not has_color(seen_by_0, liq)


def test_views_differ_only_where_knowledge_differs():
    a, b = staged(), staged(plan=K(LIQ, CIRCLE, 1))
    # player 1 and 2 cannot tell which plan lies under player 0's spy; player 0 can
    assert np.array_equal(a.render_rgb(1), b.render_rgb(1))
    assert np.array_equal(a.render_rgb(2), b.render_rgb(2))
    assert not np.array_equal(a.render_rgb(0), b.render_rgb(0))
    assert not np.array_equal(a.render_rgb(0), a.render_rgb(1))


def test_face_down_addition_hidden_from_all_but_its_player():
    g = staged()
    g.cf_on, g.cf_kind, g.cf_I, g.cf_D, g.cf_ref, g.cf_zo, g.cf_k = True, 2, 0, 1, 2, 1, 0
    g.cf_added = [True, False]
    g.h.add = [PLAN, -1]
    x, y = R_.M + 8 + 158 + 40, R_.CONF_Y + 22
    add = lambda img: img[y:y + 50, x:x + 34]  # noqa: E731
    demo = R_.TYPE_COLORS[DEMO]
    assert has_color(add(g.render_rgb(0)), demo)
    for v in (1, 2):
        assert has_color(add(g.render_rgb(v)), dr.BACK) and not has_color(add(g.render_rgb(v)), demo)
