"""The Specter Ops plan search (spyenvs.agents.specter_search, spec ``macro=specter``)
and its state evaluation (spyenvs.agents.evaluations.specter_ops.features /
search_value), from explicit states: each feature follows the rule it names, the search
reads only what its seat may know, and it plays legal moves to the end of a game."""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.agents import make_policy
from spyenvs.agents.evaluations.specter_ops import FEATURES, WEIGHTS, features, search_value
from spyenvs.agents.ismcts import parse_spec
from spyenvs.games.specter_ops import board as B
from spyenvs.games.specter_ops.data import A3, H2, H2V
from spyenvs.registry import make_game

F = {name: i for i, name in enumerate(FEATURES)}
#: a small search without a time limit: the same seed gives the same moves
SMALL = "ismcts:24:heuristic:macro=specter:value=search:top=4:dets=4"


def _round_one(players: int = 2, **config):
    """A game at her first decision of round 1, the heuristic's set-up."""
    g = make_game("specter_ops_v0", num_players=players, agent_character="Blue Jay", **config)
    g.reset(0)
    h = make_policy("heuristic", seed=0)
    bound = [h.bind(g, s) for s in range(g.num_players)]
    while g.round < 1:
        s = g.current_player
        g.step(bound[s].act(g.observe(s), g.legal_mask()))
    return g


def _play_until(g, stop, seed=0):
    """Heuristic play until ``stop(g)`` holds at a decision with a choice."""
    h = make_policy("heuristic", seed=seed)
    bound = [h.bind(g, s) for s in range(g.num_players)]
    while not g.is_over:
        if stop(g) and np.flatnonzero(g.legal_mask()).size > 1:
            return g
        s = g.current_player
        g.step(bound[s].act(g.observe(s), g.legal_mask()))
    raise AssertionError("the game ended first")


def _hunters_off(g):
    """Every hunter on foot on one far corner cell, W32 (out of her way and sight)."""
    for s in range(g.nh):
        g.riding[s] = False
        g.hpos[s] = B.cell("W32")


# ------------------------------------------------------------ the evaluation's features
def test_s3_3_her_route_counts_the_walk_through_the_objectives_she_needs_then_an_exit():
    g = _round_one()
    _hunters_off(g)
    start = features(g)[F["route"]]
    g.completed = [0, 1, 2]
    g.ag[0].pos = B.cell("N2")  # next to the N1 exit, three objectives done
    near_exit = features(g)
    assert near_exit[F["route"]] == pytest.approx(0.1)  # one step
    assert start > near_exit[F["route"]] and near_exit[F["done"]] == 3
    assert near_exit[F["slack"]] > 0  # far ahead of the clock


def test_s5_4_the_clock_running_out_leaves_her_no_slack():
    g = _round_one()
    _hunters_off(g)
    early = features(g)[F["slack"]]
    g.round = g.config["max_rounds"] - 1
    late = features(g)[F["slack"]]
    assert late < 0 < early
    assert search_value(g)[0] < 0


def test_s3_5_a_hunter_on_her_row_with_nothing_between_sees_her():
    g = _round_one()
    _hunters_off(g)
    g.ag[0].pos = B.cell("A10")
    assert features(g)[F["seen"]] == 0
    g.hpos[0] = B.cell("C10")  # A10 B10 C10 open: a row ray
    f = features(g)
    assert f[F["seen"]] == 1 and f[F["near"]] == pytest.approx(1 / 3)


def test_s3_5_a_hunter_whose_next_walk_reaches_a_line_to_her_threatens_her():
    g = _round_one()
    _hunters_off(g)
    g.ag[0].pos = B.cell("A10")
    assert features(g)[F["threat"]] == 0
    g.hpos[0] = B.cell("E12")  # not in sight, but 2 steps from C10/E10 on her row
    f = features(g)
    assert f[F["seen"]] == 0 and f[F["threat"]] == 1


def test_s2_3_riders_threaten_from_a_drive_and_an_exit():
    g = _round_one()
    for s in range(g.nh):
        g.riding[s] = True
    g.vpos = B.cell("K17")
    g.ag[0].pos = B.cell("B8")  # on road R2, far from K17 on foot, a drive away
    assert features(g)[F["threat"]] == g.nh


def test_s6_1_the_belief_features_count_the_cells_of_the_hunters_public_belief():
    g = _round_one()
    _hunters_off(g)
    g.ag[0].pos = B.cell("F10")
    g.bel[0].hyps = {-1: (((1 << g.ag[0].pos), 0, False),)}
    pinned = features(g)
    wide = B.BALL[4][g.ag[0].pos]
    g.bel[0].hyps = {-1: ((wide, 0, False),)}
    spread = features(g)
    assert pinned[F["pinned"]] == 1 and pinned[F["belief"]] == 0
    assert spread[F["pinned"]] == 0 and spread[F["belief"]] == pytest.approx(np.log2(wide.bit_count()))


def test_s5_2_health_lost_to_attacks_favours_the_hunters():
    g = _round_one()
    _hunters_off(g)
    full = search_value(g)
    g.ag[0].hp = 1
    hurt = search_value(g)
    assert hurt[0] < full[0] and hurt[1] == -hurt[0] and all(-1 <= v <= 1 for v in hurt)


def test_s3_5_no_cell_of_her_next_turn_out_of_the_hunters_reach_corners_her():
    g = _round_one()
    _hunters_off(g)
    g.ag[0].pos = B.cell("A1")  # the north-west nook: A1 B1 A2 B2 ... around structures
    assert features(g)[F["cornered"]] == 0
    g.hpos[0] = B.cell("B2")  # one walk of 4 from B2 sees every cell her 4 steps reach
    assert features(g)[F["cornered"]] == 1


@pytest.mark.parametrize("players", [2, 4])
def test_s5_the_evaluation_weighs_by_the_phase_a_round_is_in(players):
    """Search scores states at her turn's start or at the hunters' phase start: each
    phase has its own fitted weights (and each table size)."""
    def expected(g, phase):
        bias, w = WEIGHTS[(players >= 4, phase)]
        return np.tanh(0.5 * (bias + np.dot(w, features(g))))
    her_turn = _round_one(players)
    assert search_value(her_turn)[0] == pytest.approx(expected(her_turn, "agents"))
    hunters = _play_until(_round_one(players), lambda g: g.round >= 2 and g.dec in (H2, H2V))
    assert search_value(hunters)[0] == pytest.approx(expected(hunters, "hunters"))


def test_s5_4_a_finished_game_is_scored_by_its_outcome():
    g = _round_one()
    g.winner = "hunters"
    assert search_value(g) == list(g.outcome()) and search_value(g)[0] == -1


# ------------------------------------------------------------ what the search reads
@pytest.mark.parametrize("players", [2, 4])
def test_a_hunters_search_plays_the_same_move_when_the_hidden_state_is_re_dealt(players):
    """The search reads the live game only through resample_hidden(seat) and the seat's
    observation: bound to a re-dealt copy (her cell, hand, character, at 4 players the
    objectives drawn again) with the same seed, it plays the same move."""
    g = _play_until(_round_one(players), lambda g: g.round >= 3 and g.dec in (H2, H2V))
    seat = g.current_player
    redealt = g.resample_hidden(seat, np.random.default_rng(99))
    moves = []
    for game in (g, redealt):
        search = parse_spec(SMALL, seed=5).bind(game, seat)
        moves.append(search.act(game.observe(seat), game.legal_mask()))
        assert search.last_iterations == 24
    assert moves[0] == moves[1]
    assert g.legal_mask()[moves[0]]


def test_a_hunters_determinizations_place_her_on_the_public_belief():
    """rules §6.2: a hunter's determinizations draw her cell from the exact public
    belief set, so the search weighs every cell she may be on and never the true one alone."""
    g = _play_until(_round_one(), lambda g: g.round >= 4 and g.dec in (H2, H2V))
    seat = g.current_player
    belief = g.bel[0].union()
    rng = np.random.default_rng(0)
    cells = {g.resample_hidden(seat, rng).ag[0].pos for _ in range(40)}
    assert all((belief >> c) & 1 for c in cells)
    assert len(cells) == min(belief.bit_count(), len(cells)) and (belief.bit_count() == 1 or len(cells) > 1)


def test_a_hunters_location_bias_weighs_her_cells_by_her_goals_averaging_one_on_the_belief():
    g = _play_until(_round_one(), lambda g: g.round >= 4 and g.dec in (H2, H2V))
    seat = g.current_player
    search = parse_spec(SMALL + ":bias=1", seed=0).bind(g, seat)
    weights = search._location_bias(g)
    cells = B.cells_of(g.bel[0].union())
    assert np.mean(weights[cells]) == pytest.approx(1.0) and (weights > 0).all()


def test_her_search_plays_a_route_the_planner_offers_and_leaves_the_live_game_alone():
    g = _play_until(_round_one(), lambda g: g.round >= 2 and g.dec == A3)
    before = (g.hidden_key(0), list(g.actions))
    search = parse_spec(SMALL, seed=1).bind(g, 0)
    a = search.act(g.observe(0), g.legal_mask())
    assert g.legal_mask()[a] and search.last_iterations == 24
    assert (g.hidden_key(0), list(g.actions)) == before
    assert search.last_visits is not None and search.last_visits.sum() == pytest.approx(1.0)
    g.step(a)
    if g.current_player == 0 and g.dec == A3 and np.flatnonzero(g.legal_mask()).size > 1:
        step = search.act(g.observe(0), g.legal_mask())  # her route goes on without a search
        assert search.last_iterations == 0 and search.last_visits[step] == 1.0


# ------------------------------------------------------------ whole games
@pytest.mark.parametrize("players, options", [(2, ""), (4, ""), (2, ":surge=1:rounds=2"), (4, ":bias=1:reply=1")])
def test_plan_search_plays_legal_moves_to_the_end_of_a_game(players, options):
    g = make_game("specter_ops_v0", num_players=players)
    g.reset(11)
    spec = parse_spec("ismcts:3:heuristic:macro=specter:value=search:top=3:dets=2" + options, seed=0)
    bound = [spec.bind(g, s) for s in range(g.num_players)]
    while not g.is_over:
        s = g.current_player
        mask = g.legal_mask()
        a = bound[s].act(g.observe(s), mask)
        assert mask[a], (g.decision_name(), a)
        g.step(a)
    out = g.outcome()
    assert g.round >= 1 and abs(out[0]) == 1 and set(out[1:]) == {-out[0]}  # the hunters win or lose as a team


def test_plan_search_spec_options_say_what_is_wrong_in_one_line():
    assert parse_spec("ismcts:10:heuristic:macro=specter:top=5:rounds=2").macro_rounds == 2
    for spec, message in [("ismcts:10:heuristic:macro=chess", "macro 'chess' unknown"),
                          ("ismcts:10:heuristic:macro=specter:top=0", "top must be a positive int"),
                          ("ismcts:10:random:macro=specter", "simulations with the heuristic")]:
        with pytest.raises(ValueError, match=message):
            parse_spec(spec)
    g = make_game("unrest_v0")
    with pytest.raises(ValueError, match="plays specter_ops_v0"):
        parse_spec("ismcts:10:heuristic:macro=specter").bind(g, 0)
    with pytest.raises(ValueError, match="value=search or value=heuristic"):
        parse_spec("ismcts:10:heuristic:macro=specter").bind(make_game("specter_ops_v0"), 0)
