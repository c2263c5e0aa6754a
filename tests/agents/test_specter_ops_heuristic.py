"""Unit checks of the Specter Ops heuristic's decoding and path finding (the win-rate
check against random play is in test_heuristics.py)."""

import numpy as np

import spyenvs
from spyenvs.agents.heuristics import specter_ops as H


def test_board_plane_indices_follow_the_layout_doc():
    # the heuristic indexes board planes by position: they must match the layout's names
    game = spyenvs.make_game("specter_ops_v0", num_players=5)
    doc = game.layout.blocks["board"].doc
    names = [part.split(": ", 1)[0] for part in doc[len("planes: "):].split("; ")]
    assert tuple(names) == H.PLANE_NAMES
    assert names[H.P_OWN] == "own_position" and names[H.P_VISION] == "hunter_vision"
    assert names[H.P_SIGHT_SECOND] == "sighting_second" and names[H.P_BELIEF_MAIN] == "belief_main"


def test_blue_jay_completion_zone_is_king_distance_two():
    cell = 10 * H.W + 10
    zone = H._ring(cell, 2)
    assert len(zone) == 24 and cell not in zone
    assert all(max(abs(z // H.W - 10), abs(z % H.W - 10)) <= 2 for z in zone)


def test_dijkstra_walks_around_seen_spaces():
    # a 3x5 open grid; the middle row's centre is seen and costs a lot
    free = np.ones((3, 5), bool)
    neigh = H._neighbours(free)
    cost = np.ones(15)
    cost[1 * 5 + 2] = 100.0
    dist = H._dijkstra(neigh, [1 * 5 + 4], cost)
    start = 1 * 5 + 0
    nxt = min((y for y in neigh[start]), key=lambda y: dist[y])
    path = [start, nxt]
    while dist[path[-1]] > 0:
        path.append(min(neigh[path[-1]], key=lambda y: dist[y]))
    assert 1 * 5 + 2 not in path and path[-1] == 1 * 5 + 4
