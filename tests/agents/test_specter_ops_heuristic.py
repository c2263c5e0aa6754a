"""Unit checks of the Specter Ops heuristic's decoding and path finding (the win-rate
check against random play is in test_heuristics.py)."""

import numpy as np
import pytest

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


# ---------------------------------------------------------------- hunters (explicit states)
from spyenvs.games.specter_ops import board as B  # noqa: E402
from spyenvs.games.specter_ops.data import DECISIONS, H2, H2V, NUM_ACTIONS  # noqa: E402


def _hunter_view(me, other, belief, decision=H2, riding=False, vehicle="K17"):
    """hunter_0's observation at 2p (Gun in seat 0, Beast in seat 1): its own cell ``me``,
    the Beast on ``other``, the main agent's belief plane = ``belief`` (cell names), both
    hunters riding when ``riding``; built from a real observation whose planes are set."""
    game = spyenvs.make_game("specter_ops_v0", num_players=2, hunter_characters="Gun,Beast",
                             agent_character="Blue Jay")
    game.reset(0)
    lay = game.layout
    obs = game.observe(1).copy()
    board = lay.view(obs, "board").reshape(len(H.PLANE_NAMES), B.N)
    for plane in (H.P_H0, H.P_H1, H.P_VEHICLE, H.P_BELIEF_MAIN, H.P_VISION, H.P_SIGHT_MAIN):
        board[plane] = 0.0
    board[H.P_VEHICLE, B.cell(vehicle)] = 1.0
    if not riding:
        board[H.P_H0, B.cell(me)] = 1.0
        board[H.P_H1, B.cell(other)] = 1.0
    for c in belief:
        assert (B.OPEN >> B.cell(c)) & 1, c
        board[H.P_BELIEF_MAIN, B.cell(c)] = 1.0
    dec = lay.view(obs, "decision")
    dec[:] = 0.0
    dec[decision] = 1.0
    hunters = lay.view(obs, "hunters")
    hunters[:, 5] = 1.0 if riding else 0.0
    game_round = lay.view(obs, "round")
    game_round[0] = 5 / 40
    return game, obs


def _mask(actions):
    m = np.zeros(NUM_ACTIONS, np.int8)
    m[list(actions)] = 1
    return m


def _hunter(game, seat=0):
    return H.make(game.layout, game.config, f"hunter_{seat}", np.random.default_rng(0))


def test_hit_table_matches_rules_section_7():
    one, gun, prophet = H._hit_table(1, 0), H._hit_table(2, 0), H._hit_table(1, 2)
    assert one[0] == gun[0] == 1.0  # distance 0 hits automatically
    for d, p1, pp, pg in ((1, .833, .833, .972), (3, .667, .833, .972), (4, .5, .833, .917),
                          (6, .167, .5, .722), (8, .139, .167, .472), (12, .028, .083, .213)):
        assert abs(one[d] - p1) < 6e-3 and abs(prophet[d] - pp) < 6e-3 and abs(gun[d] - pg) < 6e-3, d


def test_hunter_walks_to_where_it_sees_the_belief_mass():
    # she can only be around E19-F19 (west); the Gun on K19 walks (4 spaces) to a cell that sees it
    belief = ["E19", "E18", "D18", "E20"]
    game, obs = _hunter_view("K19", "O3", belief)
    dests = B.walk_cells(4, B.cell("K19"))
    a = _hunter(game).act(obs, _mask(dests))
    assert a in dests
    seen = [c for c in belief if (B.sight(a) >> B.cell(c)) & 1]
    assert seen, f"{B.name(a)} sees none of {belief}"


def test_hunter_closes_in_on_a_belief_out_of_reach():
    # belief far to the south-east (beyond one move): the move gets closer to it
    belief = ["T30", "U30", "S30", "U31"]
    game, obs = _hunter_view("D5", "B10", belief)
    dests = B.walk_cells(4, B.cell("D5"))
    a = _hunter(game).act(obs, _mask(dests))
    far = min(B.dist(B.cell("D5"), B.cell(c)) for c in belief)
    assert min(B.dist(a, B.cell(c)) for c in belief) < far


def test_hunter_attacks_from_close_when_her_cell_is_known():
    # just seen on J10: the Gun ends where it sees J10, close enough to hit surely (rules §7)
    game, obs = _hunter_view("F10", "O3", ["J10"])
    dests = B.walk_cells(4, B.cell("F10"))
    a = _hunter(game).act(obs, _mask(dests))
    assert (B.sight(a) >> B.cell("J10")) & 1 and B.dist(a, B.cell("J10")) <= 3


def test_riding_hunter_drives_then_exits_where_it_sees_her():
    # both ride at K17; she is near N1 (round 1): the vehicle (10 spaces) gets there, walking cannot
    belief = ["N4", "O4", "N5", "O5", "M4"]
    game, obs = _hunter_view(None, None, belief, decision=H2V, riding=True)
    hunter = _hunter(game)
    first = hunter.act(obs, _mask([H.DRIVE, 758, H.EXIT, H.NONE]))
    assert first == H.DRIVE
    dests = B.road_cells(10, B.cell("K17"))
    dest = hunter.act(_with_decision(game, obs, "H3_vehicle_destination"), _mask(dests))
    assert dest in dests
    exits = B.NEIGH[dest] + [H.NONE]
    out = hunter.act(_with_decision(game, obs, "H4_exit"), _mask(exits))
    assert out in B.NEIGH[dest]  # out of the vehicle: only a hunter on foot can attack
    assert any((B.sight(out) >> B.cell(c)) & 1 for c in belief)


def _with_decision(game, obs, name):
    obs = obs.copy()
    dec = game.layout.view(obs, "decision")
    dec[:] = 0.0
    dec[DECISIONS.index(name)] = 1.0
    return obs


def test_gun_acts_last_in_the_turn_order():
    # H1 (hunter_0 = the Gun decides): the Beast scouts first, the Gun shoots with the cut belief
    game, obs = _hunter_view("K19", "O3", ["E19"], decision=DECISIONS.index("H1_turn_order"))
    assert _hunter(game).act(obs, _mask([H.SEAT0, H.SEAT0 + 1])) == H.SEAT0 + 1


@pytest.mark.parametrize("pad", [False, True])
def test_heuristics_choose_legal_actions_themselves(pad):
    # the random fallback of act() never fires: every decision the heuristics make is legal
    game = spyenvs.make_game("specter_ops_v0", num_players=2, pad_agent_turn=pad)
    for seed in range(2):
        game.reset(seed)
        rng = np.random.default_rng(seed)
        pols = [H.make(game.layout, game.config, r, rng) for r in game.roles]
        while not game.is_over:
            seat = game.current_player
            obs, mask = game.observe(seat), game.legal_mask()
            legal = np.flatnonzero(mask)
            if legal.size > 1:
                decision = int(np.argmax(game.layout.view(obs, "decision")))
                a = pols[seat].decide(decision, obs, mask, legal)
                assert a is not None and mask[a], (DECISIONS[decision], a)
            game.step(pols[seat].act(obs, mask))


# ---------------------------------------------------------------- agent turn plan
def test_turn_plan_ties_go_to_progress():
    # a 1x6 corridor, goal at the east end: staying and walking cost the same in total,
    # the tie goes to the walk that leaves less distance
    free = np.ones((1, 6), bool)
    neigh = H._neighbours(free)
    dist = np.array([5, 4, 3, 2, 1, 0], float)
    end, parent = H._bounded_walk(neigh, 0, 4, np.ones(6), set(), dist, dist)
    assert end == 4 and parent[4] == 3


def test_turn_plan_ends_short_of_a_watched_cell():
    # the cell 4 steps on is watched (high end cost): she stops on the cell before it
    free = np.ones((1, 6), bool)
    neigh = H._neighbours(free)
    dist = np.array([5, 4, 3, 2, 1, 0], float)
    danger = np.zeros(6)
    danger[4] = 12.0
    end, _ = H._bounded_walk(neigh, 0, 4, np.ones(6), set(), dist + danger, dist)
    assert end == 3


def test_turn_plan_never_steps_onto_a_hunter():
    free = np.ones((1, 6), bool)
    neigh = H._neighbours(free)
    dist = np.array([5, 4, 3, 2, 1, 0], float)
    end, _ = H._bounded_walk(neigh, 0, 4, np.ones(6), {2}, dist, dist)
    assert end == 1
