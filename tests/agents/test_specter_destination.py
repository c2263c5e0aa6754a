"""The Specter Ops destination macro (spyenvs.agents.macros.specter_ops): her turn's
route planner, read from her own observation, against the env's own step rules; the
macro's player; and a trained-policy file that names the macro."""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.agents.arena import play_game
from spyenvs.agents.checkpoint import CheckpointError, save_policy
from spyenvs.agents.heuristics import HeuristicPolicy
from spyenvs.agents.heuristics.specter_ops import P_VISION, walking_graph
from spyenvs.agents.macros import make_macro
from spyenvs.agents.macros.specter_ops import cheapest_walks
from spyenvs.agents.torch_policy import TorchPolicy
from spyenvs.games.specter_ops.data import A3, NO
from spyenvs.registry import make_game

NONE = NO


def grid(rows: int, cols: int, walls=()) -> list[list[int]]:
    """King-step neighbours on a rows x cols grid without the ``walls`` cells."""
    out = [[] for _ in range(rows * cols)]
    for r in range(rows):
        for c in range(cols):
            if r * cols + c in walls:
                continue
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    rr, cc = r + dr, c + dc
                    if (dr or dc) and 0 <= rr < rows and 0 <= cc < cols and rr * cols + cc not in walls:
                        out[r * cols + c].append(rr * cols + cc)
    return out


def test_walks_reach_every_cell_within_the_steps_around_walls_and_never_into_blocked_cells():
    # 1 x 5 corridor with a wall at cell 2: from 0 only 1 is reachable
    assert set(cheapest_walks(grid(1, 5, walls={2}), 0, 4, np.ones(5), set()).ends) == {0, 1}
    # 3 x 5, wall column 2 open only at the bottom (cell 12); start 5 (row 1, col 0), 3 steps
    neigh = grid(3, 5, walls={2, 7})
    walks = cheapest_walks(neigh, 5, 3, np.ones(15), set())
    assert 13 in walks.ends and walks.ends[13] == (3.0, 3)  # around the wall: 5 -> 11 -> 12 -> 13
    assert 8 in walks.ends and 14 not in walks.ends and 9 not in walks.ends  # 9 needs 4 steps
    assert walks.path(5) == [] and len(walks.path(13)) == 3
    # a blocked cell (a hunter figure) is never entered, nor walked through
    blocked = cheapest_walks(neigh, 5, 3, np.ones(15), {12})
    assert not {12, 13, 8, 14} & set(blocked.ends)
    with pytest.raises(ValueError, match="not a destination"):
        blocked.path(13)


def test_a_route_goes_around_costly_cells_when_the_steps_allow_it_and_through_them_when_not():
    neigh = grid(3, 3)
    cost = np.ones(9)
    cost[4] = 101.0  # the centre is in a hunter's sight
    around = cheapest_walks(neigh, 3, 2, cost, set())  # row 1 col 0 -> row 1 col 2: 2 steps around
    assert 4 not in around.path(5) and around.ends[5] == (2.0, 2)
    assert cheapest_walks(neigh, 3, 1, cost, set()).path(4) == [4]  # the only way there
    # a one-step destination stays one step even when a two-step detour costs the same
    assert cheapest_walks(neigh, 0, 3, np.ones(9), set()).path(4) == [4]


def agent_move_states(seed: int, limit: int):
    """(game clone, observation, mask) at the agent's A3 decisions of a heuristic game."""
    g = make_game("specter_ops_v0", num_players=2)
    g.reset(seed)
    players = [HeuristicPolicy(seed + k).bind(g, k) for k in range(g.num_players)]
    out = []
    while not g.is_over and len(out) < limit:
        p = g.current_player
        obs, mask = g.observe(p), g.legal_mask()
        if p == 0 and g.dec == A3:
            out.append((g.clone(), obs, mask))
        g.step(players[p].act(obs, mask))
    return out


def end_cells_by_legal_steps(game) -> set[int]:
    """Every cell the agent can stop on this turn, by trying the env's legal steps."""
    ends = {game.ag[0].pos}
    frontier = [game]
    while frontier:
        nxt = {}
        for c in frontier:
            if c.is_over or c.current_player != 0 or c.dec != A3:
                continue
            for a in np.flatnonzero(c.legal_mask()):
                if a < NONE:
                    d = c.clone()
                    d.step(int(a))
                    ends.add(d.ag[0].pos)
                    nxt.setdefault((d.ag[0].pos, d.ag[0].steps), d)
        frontier = list(nxt.values())
    return ends


@pytest.mark.parametrize("seed", [3, 11])
def test_destinations_are_exactly_the_cells_her_legal_steps_reach(seed):
    macro = make_macro("specter_destination")
    states = agent_move_states(seed, 12)
    assert states
    for game, obs, _ in states:
        routes = macro.bind(game, 0).routes
        walks = routes.walks(obs)
        assert set(walks.ends) == end_cells_by_legal_steps(game)
        assert walks.steps == game.ag[0].max_steps - game.ag[0].steps


def test_every_route_is_legal_step_by_step_within_her_steps_and_sneaks_where_it_can():
    macro = make_macro("specter_destination")
    for game, obs, _ in agent_move_states(5, 10):
        routes = macro.bind(game, 0).routes
        walks = routes.walks(obs)
        seen = routes.board(obs)[P_VISION] > 0.5
        unseen_ends = cheapest_walks(walking_graph(routes.board(obs)), walks.here, walks.steps, np.ones(seen.size),
                                     set(np.flatnonzero(seen).tolist()) | hunters(game)).ends
        for end in walks.ends:
            path = walks.path(end)
            assert len(path) <= walks.steps
            if end in unseen_ends:  # an unseen route exists: the planned one is unseen too
                assert not seen[path].any()
            g = game.clone()
            o = obs
            for cell in path:
                assert g.legal_mask()[cell]
                g.step(cell)
                o = routes.after_step(o, cell)
                if g.current_player == 0 and g.dec == A3:  # her view as it changes within her steps
                    np.testing.assert_array_equal(o, g.observe(0))
            assert g.ag[0].pos == end


def hunters(game) -> set[int]:
    return {game.hpos[s] for s in range(game.nh) if game.hin[s] and not game.riding[s]}


def test_the_player_walks_the_route_stops_on_arrival_and_asks_again_off_the_route():
    macro = make_macro("specter_destination")
    game, obs, mask = next((g, o, m) for g, o, m in agent_move_states(7, 40) if g.ag[0].steps == 0)
    player = macro.bind(game, 0)
    assert player.auto_action(obs, mask) is None  # nothing planned: the policy decides
    dmask = player.decision_mask(obs, mask)
    assert not dmask[NONE] and dmask[game.ag[0].pos]  # staying is her own cell, not STOP
    walks = player.routes.walks(obs)
    end = max(walks.ends, key=lambda c: (walks.ends[c][1], c))  # a destination two or more steps away
    path = walks.path(end)
    assert len(path) >= 2
    g = game.clone()
    g.step(player.env_action(end))
    played = [path[0]]
    while g.current_player == 0 and g.dec == A3:
        a = player.auto_action(g.observe(0), g.legal_mask())
        assert a is not None
        g.step(a)
        played.append(a)
    assert g.ag[0].pos == end and played[: len(path)] == path
    assert played[len(path):] in ([], [NONE])  # STOP on arrival unless her steps ran out there
    # off the route: the policy is asked again, from where she stands
    g = game.clone()
    player.decision_mask(obs, mask)
    first = player.env_action(end)
    other = next(int(a) for a in np.flatnonzero(g.legal_mask()) if a < NONE and a != first)
    g.step(other)
    if g.current_player == 0 and g.dec == A3:
        assert player.auto_action(g.observe(0), g.legal_mask()) is None
    # staying is STOP at once
    player.decision_mask(obs, mask)
    assert player.env_action(game.ag[0].pos) == NONE


def test_the_teachers_label_is_where_its_own_walk_ends_the_turn():
    macro = make_macro("specter_destination")
    checked = 0
    for game, obs, mask in agent_move_states(9, 30):
        if game.ag[0].steps:  # turn starts only
            continue
        checked += 1
        player = macro.bind(game, 0)
        player.decision_mask(obs, mask)
        label = player.teacher_choice(HeuristicPolicy(1).bind(game, 0), obs, mask)
        walker = HeuristicPolicy(1).bind(game, 0)
        g = game.clone()
        while g.current_player == 0 and g.dec == A3:
            a = walker.act(g.observe(0), g.legal_mask())
            g.step(a)
            if a == NONE:
                break
        assert label == g.ag[0].pos
    assert checked >= 5


def test_the_macro_binds_only_the_agent_seat_and_only_specter_ops():
    macro = make_macro("specter_destination")
    game = make_game("specter_ops_v0", num_players=3)
    assert macro.bind(game, 0) is not None
    assert all(macro.bind(game, s) is None for s in range(1, game.num_players))
    with pytest.raises(ValueError, match="specter_ops_v0, not unrest_v0"):
        macro.bind(make_game("unrest_v0"), 0)
    with pytest.raises(ValueError, match="unknown macro 'teleport'"):
        make_macro("teleport")


# ------------------------------------------------------------------ trained players
def random_policy_file(macro: str | None = "specter_destination", **extra) -> tuple[list, dict]:
    g = make_game("specter_ops_v0", num_players=2)
    rng = np.random.default_rng(0)
    d = g.observation_size + 2
    weights = [(rng.normal(0, 0.05, (16, d)).astype(np.float32), np.zeros(16, np.float32)),
               (rng.normal(0, 1.0, (g.num_actions, 16)).astype(np.float32), np.zeros(g.num_actions, np.float32))]
    meta = {"env_id": g.env_id, "config": g.config, "roles": list(g.roles), "role_kinds": ["agent", "hunter"],
            "obs_dim": g.observation_size, "num_actions": g.num_actions, "activation": "tanh", **extra}
    if macro is not None:
        meta["macro"] = macro
    return weights, meta


class CountingPolicy(TorchPolicy):
    """Counts the network's choices at movement decisions per round."""

    def _choose(self, observation, mask):
        if self.macro_player is not None and self.macro_player.routes.is_move(observation):
            self.moves.append(float(observation[self._round]))
        return super()._choose(observation, mask)


def test_a_file_naming_the_macro_plays_legal_games_choosing_one_destination_per_turn(tmp_path):
    weights, meta = random_policy_file()
    save_policy(str(tmp_path / "dest.npz"), weights, meta)
    loaded = TorchPolicy.load(tmp_path / "dest.npz", deterministic=False, seed=3)
    assert loaded.meta["macro"] == "specter_destination"
    game = make_game("specter_ops_v0", num_players=2)
    policy = CountingPolicy(loaded.net, loaded.meta, deterministic=False, seed=3)
    policy._round = game.layout.blocks["round"].slice.start
    policy.moves = []
    hunters = HeuristicPolicy(5)
    for seed in range(3):  # the env raises on any illegal action
        policy.moves = []
        play_game(game, [policy, hunters, hunters], seed=seed)
        rounds = policy.moves
        assert rounds and all(b > a for a, b in zip(rounds, rounds[1:]))  # one destination a turn
        play_game(game, [HeuristicPolicy(6), policy, policy], seed=seed)  # hunters: the plain network
    # the agent seat gets its own copy per game (it remembers its plan); hunters share one
    a, b = policy.bind(game, 0), policy.bind(game, 0)
    assert a is not b and a.per_game_state and a.macro_player is not None
    assert policy.bind(game, 1) is policy.bind(game, 2) and policy.bind(game, 1).macro_player is None
    with pytest.raises(TypeError, match="call bind"):
        policy.act(game.observe(0), game.legal_mask())


def test_search_priors_spread_destination_probabilities_over_first_steps():
    weights, meta = random_policy_file()
    policy = TorchPolicy(weights, meta)
    game, obs, mask = agent_move_states(4, 1)[0]
    bound = policy.bind(game, 0)
    z = bound.action_logits(obs, mask)
    assert np.isfinite(z[mask > 0]).all() and not np.isfinite(z[mask == 0]).any()
    walks = bound.macro_player.routes.walks(obs)
    dz = bound._masked_logits(obs, walks.mask(mask))
    p_dest = np.exp(dz - dz.max())
    p_dest /= p_dest.sum()
    p_step = np.exp(z - z[mask > 0].max())
    p_step /= p_step.sum()
    for a in np.flatnonzero(mask):
        want = sum(p_dest[e] for e in walks.ends if (walks.path(e) or [NONE])[0] == a)
        assert p_step[a] == pytest.approx(want, abs=1e-6)  # float32 logits
    assert bound.macro_player.auto_action(obs, mask) is None  # a look-ahead plans nothing


@pytest.mark.parametrize("meta_change, message", [
    ({"macro": "teleport"}, "unknown macro 'teleport'"),
    ({"prior": {"kind": "heuristic", "weight": 1.0}}, "both a prior and the macro"),
    ({"env_id": "unrest_v0"}, "is for specter_ops_v0, not unrest_v0"),
])
def test_files_with_a_bad_macro_are_one_line_errors(tmp_path, meta_change, message):
    weights, meta = random_policy_file()
    save_policy(str(tmp_path / "bad.npz"), weights, dict(meta, **meta_change))
    with pytest.raises(CheckpointError, match=message):
        TorchPolicy.load(tmp_path / "bad.npz")
