"""the_agents_v0 pictures (render.py ``render_rgb``): fixed-size uint8 frames, each
faction's cards as tiles whose command band faces the player the command points at,
dead cards as backs (names only where dead identities are visible), complete arrows
as badges in the facing player's colour, a player's own hand face up and the other
hands as backs, and views that differ only where knowledge differs."""

from __future__ import annotations

import numpy as np

from spyenvs.core import drawing as dr
from spyenvs.games.the_agents import data as D
from spyenvs.games.the_agents import render as V

from .helpers import arrange

KILL_COLOR = V.GROUP_COLORS[D.KILL]
TURN_COLOR = V.GROUP_COLORS[D.TURN]


def tile(img, f: int, j: int):
    """The pixels of card j's tile in faction f."""
    x = V.PAD + V.LABEL_W + 6 + j * (V.CW + V.GAP)
    y = V.HEADER_H + f * V.FB_H + 8
    return img[y:y + V.CH, x:x + V.CW]


def hand_row(img, g, q: int):
    y = V.HEADER_H + g.nf * V.FB_H + V.PILES_H + q * V.PH + 5
    return img[y:y + V.MH, V.PAD + V.LABEL_W + 8:]


def factions_area(img, g):
    return img[V.HEADER_H:V.HEADER_H + g.nf * V.FB_H, V.PAD + V.LABEL_W + 6:]


def has_color(region, color) -> bool:
    return bool((region == np.array(color, np.uint8)).all(axis=-1).any())


def staged(**cfg):
    # 2 players: faction 0 = Marksman (command to P1) | Extractor (command to P1) | dead Hacker
    # P0 holds a Marksman (KILL), P1 holds a Hacker (TURN)
    return arrange(
        n=2,
        fac={0: [(D.MARKSMAN, 1), (D.EXTRACTOR, 1), (D.HACKER, -1)], 1: [(D.ASSASSIN, 0)]},
        hands={0: [D.MARKSMAN], 1: [D.HACKER]},
        missions={0: [D.BLOODBATH], 1: [D.MAN_DOWN]},
        **cfg,
    )


def test_picture_is_fixed_size_uint8_rgb_for_every_view_and_player_count():
    g = staged()
    shapes = {g.render_rgb(v).shape for v in (None, 0, 1)}
    assert shapes == {(*V.frame_size(2), 3)}
    assert g.render_rgb(0).dtype == np.uint8
    for n in (3, 4, 5):
        g = arrange(n=n)
        assert g.render_rgb(0).shape == (*V.frame_size(n), 3)


def test_own_hand_face_up_and_the_other_hand_as_backs():
    g = staged()
    mine, theirs = hand_row(g.render_rgb(0), g, 0), hand_row(g.render_rgb(0), g, 1)
    assert has_color(mine, KILL_COLOR) and not has_color(mine, dr.BACK)
    assert has_color(theirs, dr.BACK) and not has_color(theirs, TURN_COLOR)
    # from P1's seat it is the other way round
    mine, theirs = hand_row(g.render_rgb(1), g, 1), hand_row(g.render_rgb(1), g, 0)
    assert has_color(mine, TURN_COLOR) and not has_color(mine, dr.BACK)
    assert has_color(theirs, dr.BACK) and not has_color(theirs, KILL_COLOR)
    # the omniscient view shows both hands
    img = g.render_rgb(None)
    assert has_color(hand_row(img, g, 0), KILL_COLOR) and has_color(hand_row(img, g, 1), TURN_COLOR)


def test_views_share_the_table_and_differ_in_the_hands():
    g = staged()
    views = [g.render_rgb(v) for v in (None, 0, 1)]
    tables = [factions_area(img, g) for img in views]
    # the cards (public) are drawn the same from every seat; only labels "(you)" differ
    for f, j in ((0, 0), (0, 1), (0, 2), (1, 0)):
        assert all(np.array_equal(tile(views[0], f, j), tile(img, f, j)) for img in views[1:])
    assert not np.array_equal(hand_row(views[1], g, 0), hand_row(views[2], g, 0))
    assert tables[0].shape == tables[1].shape


def test_2_2_command_band_faces_the_player_the_command_points_at():
    # faction 0: first member P0 sits below, second member P1 above
    g = staged()
    img = g.render_rgb(None)
    toward_p1 = tile(img, 0, 0)  # Marksman, command to P1: band at the top
    toward_p0 = tile(img, 1, 0)  # Assassin, command to P0: band at the bottom
    assert has_color(toward_p1[:18], KILL_COLOR) and not has_color(toward_p1[-18:], KILL_COLOR)
    assert has_color(toward_p0[-18:], KILL_COLOR) and not has_color(toward_p0[:18], KILL_COLOR)


def test_5_1_complete_arrow_drawn_as_badge_in_the_facing_players_colour():
    g = staged()
    img = g.render_rgb(None)
    # Marksman and Extractor both command P1, so their data ends meet facing P0 (below)
    x = V.PAD + V.LABEL_W + 6 + V.CW - 4
    y = V.HEADER_H + 8 + V.CH - 18
    seam = img[y:y + 20, x:x + V.GAP + 8]
    assert has_color(seam, V.PLAYER_COLORS[0])
    # no arrow at the seam to the dead Hacker
    x2 = x + V.CW + V.GAP
    assert not has_color(img[y:y + 20, x2:x2 + V.GAP + 8], V.PLAYER_COLORS[0])


def test_c34_dead_card_is_a_back_with_its_name_only_when_identities_are_visible():
    shown = staged()
    hidden = staged(dead_identities_visible=False)
    for g in (shown, hidden):
        assert has_color(tile(g.render_rgb(0), 0, 2), dr.BACK)
    # with hidden identities a dead Hacker looks like any dead card from a seat...
    other = arrange(n=2, fac={0: [(D.MARKSMAN, 1), (D.EXTRACTOR, 1), (D.MEDIC, -1)], 1: [(D.ASSASSIN, 0)]},
                    hands={0: [D.MARKSMAN], 1: [D.HACKER]}, dead_identities_visible=False)
    assert np.array_equal(tile(hidden.render_rgb(0), 0, 2), tile(other.render_rgb(0), 0, 2))
    # ...but not when identities are visible, nor in the omniscient view
    assert not np.array_equal(tile(shown.render_rgb(0), 0, 2), tile(hidden.render_rgb(0), 0, 2))
    assert not np.array_equal(tile(hidden.render_rgb(None), 0, 2), tile(other.render_rgb(None), 0, 2))


def test_6_picture_unchanged_when_hidden_cards_are_redealt():
    g = staged()
    for v in (0, 1):
        other = g.resample_hidden(v, np.random.default_rng(3))
        assert np.array_equal(other.render_rgb(v), g.render_rgb(v))


def test_pending_options_shown_only_to_the_decider():
    g = staged()  # P0 decides its first step
    header = slice(V.LINE + 6, V.HEADER_H)
    decider, watcher = g.render_rgb(0)[header], g.render_rgb(1)[header]
    assert not np.array_equal(decider, watcher)
    # the watcher's header does not depend on P0's options (same for a re-deal)
    assert np.array_equal(watcher, g.resample_hidden(1, np.random.default_rng(0)).render_rgb(1)[header])
