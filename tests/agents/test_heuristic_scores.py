"""The heuristics' action scores (issue 22: heuristics as priors).

Every bound heuristic scores each action: float64, ``-inf`` exactly on illegal
actions, finite on legal ones, and the action ``act`` plays is always among the
maxima. Seeded games with the heuristic in every seat check that at every decision
of every env, role and player count the heuristic plays (a few moves are random
detours, for states the heuristics would not reach among themselves), together with
two promises of ``action_scores``: it draws nothing from the rng and changes nothing
in the player (a twin that is never asked for scores plays the same moves). Then
explicit states, one test per rule the scores reflect.
"""

from __future__ import annotations

import numpy as np
import pytest

import spyenvs
from spyenvs.agents import HeuristicPolicy, RandomPolicy
from spyenvs.agents.heuristics import has_heuristic
from spyenvs.agents.heuristics.specter_ops import PLAYED_MARGIN
from spyenvs.agents.policy import role_kind

GAMES = 3
DETOUR = 0.1  # chance that the game takes a random legal move instead of the heuristic's


def _supported(env_id, config) -> bool:
    # the Specter Ops hunters hunt by the belief planes: they need them on
    return not (env_id == "specter_ops_v0" and config.get("belief_planes") is False)


def _cases():
    for env_id in spyenvs.ENV_IDS:
        cls = spyenvs.registry.game_class(env_id)
        for i, config in enumerate(cls.TEST_CONFIGS):
            if _supported(env_id, config):
                yield pytest.param(env_id, config, id=f"{env_id}-{i}")


def check_scores(scores, mask) -> None:
    """Shape, dtype, -inf exactly on illegal actions, finite on legal ones."""
    legal = np.asarray(mask) > 0
    assert scores.dtype == np.float64 and scores.shape == legal.shape
    assert np.isneginf(scores[~legal]).all(), "an illegal action scores above -inf"
    assert np.isfinite(scores[legal]).all(), "a legal action has no finite score"


@pytest.mark.parametrize("env_id, config", list(_cases()))
def test_scores_are_well_formed_and_the_played_move_is_a_best_one(env_id, config):
    if not has_heuristic(env_id):
        pytest.skip(f"no heuristic for {env_id}")
    checked = {}
    for seed in range(GAMES):
        game = spyenvs.make_game(env_id, **config)
        game.reset(seed)
        scored, twin = HeuristicPolicy(seed), HeuristicPolicy(seed)
        players = [scored.bind(game, s) for s in range(game.num_players)]
        twins = [twin.bind(game, s) for s in range(game.num_players)]
        detour = np.random.default_rng([seed, 7])
        while not game.is_over:
            seat = game.current_player
            obs, mask = game.observe(seat), game.legal_mask()
            state = scored.rng.bit_generator.state
            scores = players[seat].action_scores(obs, mask)
            assert scored.rng.bit_generator.state == state, "action_scores drew from the rng"
            check_scores(scores, mask)
            batch = players[seat].action_scores_batch(obs[None], mask[None])
            assert batch.shape == (1, mask.size) and np.array_equal(batch[0], scores)
            action = players[seat].act(obs, mask)
            where = f"{env_id} {config} seed {seed}, {game.roles[seat]} at {game.decision_name()}"
            assert action == twins[seat].act(obs, mask), f"{where}: scoring changed the player's move"
            best = np.flatnonzero(scores == scores.max())
            assert action in best, f"{where}: act played {action}, the best scored are {best.tolist()}"
            drawn = np.ptp(scores[mask > 0]) == 0  # every legal move alike: act draws one uniformly
            if env_id == "specter_ops_v0" and not drawn and role_kind(game.roles[seat]) == "agent":
                # her plan commits to one of equally rated walks: a prior must not break that tie another way
                runner_up = np.delete(scores, action).max()
                assert scores[action] >= runner_up + PLAYED_MARGIN, f"{where}: {action} is not the unique best"
            if mask.sum() > 1:
                kind = role_kind(game.roles[seat])
                checked[kind] = checked.get(kind, 0) + 1
            legal = np.flatnonzero(mask)
            game.step(int(legal[detour.integers(legal.size)]) if detour.random() < DETOUR else action)
    kinds = {role_kind(r) for r in spyenvs.make_game(env_id, **config).roles}
    assert set(checked) == kinds and min(checked.values()) >= 10, checked


@pytest.mark.parametrize("config_index", [0, 1])  # the §7.2 and the §7.5 (variant C22) Empire layouts
def test_unrest_batched_scores_equal_the_scores_row_by_row(config_index):
    from spyenvs.games.unrest.game import UnrestGame

    config = UnrestGame.TEST_CONFIGS[config_index]
    game = spyenvs.make_game("unrest_v0", **config)
    rows = {role: ([], []) for role in game.roles}
    for seed in range(3):
        game.reset(seed)
        policy = HeuristicPolicy(seed)
        players = [policy.bind(game, s) for s in range(2)]
        while not game.is_over:
            seat = game.current_player
            obs, mask = game.observe(seat), game.legal_mask()
            rows[game.roles[seat]][0].append(obs)
            rows[game.roles[seat]][1].append(mask)
            game.step(players[seat].act(obs, mask))
    for seat, role in enumerate(game.roles):
        observations, masks = (np.array(c) for c in rows[role])
        player = HeuristicPolicy(0).bind(game, seat)
        batched = player.action_scores_batch(observations, masks)
        single = np.array([HeuristicPolicy(0).bind(game, seat).action_scores(o, m)
                           for o, m in zip(observations, masks)])
        assert batched.dtype == np.float64 and np.array_equal(batched, single), role


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_agents_batched_scores_equal_the_scores_row_by_row(num_players):
    game = spyenvs.make_game("the_agents_v0", num_players=num_players)
    rows = {seat: ([], []) for seat in range(num_players)}
    for seed in range(3):
        game.reset(seed)
        players = [HeuristicPolicy(seed).bind(game, s) for s in range(num_players)]
        while not game.is_over:
            seat = game.current_player
            obs, mask = game.observe(seat), game.legal_mask()
            rows[seat][0].append(obs)
            rows[seat][1].append(mask)
            game.step(players[seat].act(obs, mask))
    for seat, (observations, masks) in rows.items():
        player = HeuristicPolicy(0).bind(game, seat)
        batched = player.action_scores_batch(np.array(observations), np.array(masks))
        single = np.array([player.action_scores(o, m) for o, m in zip(observations, masks)])
        assert batched.dtype == np.float64 and np.array_equal(batched, single), seat
        assert (np.isfinite(batched) == (np.array(masks) > 0)).all()


def test_policies_without_scores_say_so():
    with pytest.raises(TypeError, match="no action scores"):
        RandomPolicy(0).action_scores(np.zeros(3), np.ones(3, np.int8))
    with pytest.raises(TypeError, match="no action scores"):
        RandomPolicy(0).action_scores_batch(np.zeros((2, 3)), np.ones((2, 3), np.int8))
    with pytest.raises(TypeError, match="bind"):
        HeuristicPolicy(0).action_scores(np.zeros(3), np.ones(3, np.int8))


def _scores(game, seat=None):
    seat = game.current_player if seat is None else seat
    mask = game.legal_mask()
    scores = HeuristicPolicy(0).bind(game, seat).action_scores(game.observe(seat), mask)
    check_scores(scores, mask)
    return scores


# ------------------------------------------------------------------- The Agents
def test_the_agents_8_10_moral_high_ground_scores_the_highest_reveal_count_highest():
    # P1 owns an attached Moral High Ground and holds both Marksmen: each revealed is a point
    from spyenvs.games.the_agents import data as D
    from spyenvs.games.the_agents import rules as R
    from tests.games.the_agents.helpers import arrange, count, play

    g = arrange(2, fac={0: [(D.ASSASSIN, 0)]}, att={(0, 1): [D.MORAL_HIGH_GROUND]},
                hands={1: [D.MARKSMAN, D.MARKSMAN, D.HACKER]}, deck_a=[D.RECRUITER], dump=0, ip=[0, 0],
                active=1, phase="end")
    play(g, R.A_DONE)
    assert g.decision == R.D_MHG and g.current_player == 1
    scores = _scores(g)
    assert scores[count(2)] > scores[count(1)] > scores[count(0)]


def test_the_agents_4_2_attaching_a_mission_scores_above_playing_and_playing_above_buying():
    # attaching is a free operation and scores points; buying costs IP (rules 4.2, 4.3)
    from spyenvs.games.the_agents import data as D
    from tests.games.the_agents.helpers import STEP, arrange

    g = arrange(2, fac={0: [(D.MARKSMAN, 0)]}, hands={0: [D.HACKER]}, missions={0: [D.BLOODBATH]}, ip=[5, 5])
    scores = _scores(g)
    assert scores[STEP["ATTACH"]] > scores[STEP["PLAY_FACTION_AGENT"]] > scores[STEP["BUY_AGENT_DECK"]]
    assert scores[STEP["BUY_AGENT_DECK"]] > scores[STEP["MOVE"]]


# ----------------------------------------------------------------------- Unrest
def _unrest_play_round():
    """Round start: district 0 holds a face-up Intel 5, the missions are Espionage
    (Intel >= 4 and Riots >= 4), Barricades, Conspiracy Cells; the Rebel has chosen the
    area of districts 0 and 1 and now plays three of Riots 4, Coup 2, Supplies 2,
    Supplies 3, Intel 2."""
    from tests.games.unrest.helpers import C, I, R, S, new_game, stage

    hand = [R(4), C(2), S(2), S(3), I(2)]
    g = stage(new_game(0), {0: [(I(5), True)]}, row=[0, 1, 2, 3, 4], missions=(2, 6, 10), hand=hand)
    g.step(0)  # area: row positions 0 and 1
    return g, hand


def test_unrest_2_3_a_play_that_completes_espionage_scores_above_every_play_that_does_not():
    from itertools import combinations

    from tests.games.unrest.helpers import R, play_action

    g, hand = _unrest_play_round()
    scores = _scores(g)
    completing, other = [], []
    for three in combinations(hand, 3):
        for up in three:
            a = play_action(g, up, [c for c in three if c != up])
            (completing if R(4) in three else other).append(scores[a])
    # Riots 4 joins the Intel 5: Espionage satisfied in district 0
    assert min(completing) > max(other) + 1.0


def test_unrest_4_3_the_empire_destroys_the_card_that_would_complete_a_district():
    # the Rebel shows the Riots 4 (it completes Espionage with the Intel 5); the Empire's
    # Destroy on it scores above Destroy on a hidden card and above every other action
    from tests.games.unrest.helpers import C, R, S, destroy, play_action, slot_of

    g, _ = _unrest_play_round()
    g.step(play_action(g, R(4), [C(2), S(2)]))
    scores = _scores(g)
    riots = destroy(slot_of(g, R(4)))
    hidden = [destroy(slot_of(g, c)) for c in (C(2), S(2))]
    assert all(scores[riots] > scores[h] + 1.0 for h in hidden)
    assert scores[riots] == scores.max() and np.sum(scores == scores.max()) == 1


# -------------------------------------------------------------------- Spy Games
def test_spy_games_4_7_exposing_an_enemy_spy_scores_above_every_other_main_action():
    # a captured spy's cases are foreign cases in the exposer's base, 3 VP each (§4.7, §6)
    from tests.games.spy_games.helpers import EXPOSE, K, arrange, game

    g = arrange(game(n=2), spies=[(1, 1, 0, 1, 2, K(0))], hands={0: [K(1), K(2)]})
    scores = _scores(g, 0)
    expose = EXPOSE(1, 1)
    assert g.legal_mask()[expose]
    others = np.delete(scores, expose)
    assert scores[expose] >= others.max() + 1.0


# ------------------------------------------------------------------ Specter Ops
def test_specter_ops_6_1_a_hunter_moving_towards_the_belief_scores_above_moving_away():
    # she was last seen on E19 and then moved unseen: the belief (§6.1) lies around E19,
    # west of the Beast on M19 (who acts first: the Gun moves last)
    from spyenvs.games.specter_ops import board as B
    from tests.games.specter_ops.helpers import C, make, place, walk

    g = make(2, agent="Blue Jay", hunters="Gun,Beast", pad_agent_turn=True)
    place(g, agent="E19", hunters=["T5", "M19"])
    walk(g)
    while not g.decision_name().startswith("H2"):
        g.step(HeuristicPolicy(0).bind(g, g.current_player).act(g.observe(g.current_player), g.legal_mask()))
    seat = g.current_player
    assert g.hpos[seat - 1] == C("M19")
    scores = _scores(g)
    moves = [a for a in np.flatnonzero(g.legal_mask()) if a < B.N]
    start = B.dist(C("M19"), C("E19"))
    toward = [scores[a] for a in moves if B.dist(a, C("E19")) < start]
    away = [scores[a] for a in moves if B.dist(a, C("E19")) > start]
    assert max(toward) > max(away) and np.mean(toward) > np.mean(away)
    assert scores[C("I19")] > scores[C("Q19")]  # four spaces west against four east


def test_specter_ops_c38_blue_jay_stepping_into_completion_range_scores_above_stepping_away():
    # Blue Jay completes an objective from king distance 2 (C38): from distance 3, with
    # the hunters far away, a step to distance 2 scores above any step to distance 4
    from spyenvs.games.specter_ops import board as B
    from spyenvs.games.specter_ops.data import A3
    from tests.games.specter_ops.helpers import make, place

    g = make(2, agent="Blue Jay", hunters="Gun,Beast", pad_agent_turn=True)
    objective = g._h_obj[0]
    start = next(c for c in B.cells_of(B.BALL[3][objective]) if B.dist(c, objective) == 3)
    place(g, agent=B.name(start), hunters=["A1", "A1"])
    assert g.dec == A3
    scores = _scores(g, 0)
    moves = [a for a in np.flatnonzero(g.legal_mask()) if a < B.N]
    into = [scores[a] for a in moves if B.dist(a, objective) == 2]
    away = [scores[a] for a in moves if B.dist(a, objective) == 4]
    assert into and away and min(into) >= max(away) + 1.0
    assert max(into) == scores.max()
