"""The OpenSpiel bridge (spyenvs.openspiel): OpenSpiel's own random-simulation
checks on every game, its IS-MCTS bot playing each env, and our heuristic against
an OpenSpiel bot through evaluate_bots (docs/openspiel.md's code runs in
tests/docs/test_snippets.py). Skipped when pyspiel is absent; CI installs the
``openspiel`` extra."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import spyenvs  # noqa: E402
from spyenvs import openspiel as so  # noqa: E402
from spyenvs.registry import game_class  # noqa: E402

#: configs whose games end within ~150 decisions, so every check stays fast
SHORT = {
    "the_agents_v0": {"max_turns": 6},
    "unrest_v0": {},
    "spy_games_v0": {"num_players": 2},
    "specter_ops_v0": {"max_rounds": 3},
}


def test_every_env_is_registered_under_its_short_name():
    names = set(pyspiel.registered_names())
    assert set(so.SHORT_NAMES) == set(spyenvs.ENV_IDS)
    for env_id, short in so.SHORT_NAMES.items():
        assert short in names
        game = pyspiel.load_game(short)
        t = game.get_type()
        assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
        assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
        ours = game_class(env_id)()
        assert game.num_players() == ours.num_players
        assert game.num_distinct_actions() == ours.num_actions
        assert game.observation_tensor_size() == ours.observation_size
        assert game.max_chance_outcomes() == 0


def test_game_parameters_are_the_config_options():
    for env_id in spyenvs.ENV_IDS:
        spec = so.GAME_CLASSES[env_id]().get_type().parameter_specification
        assert set(spec) == set(game_class(env_id).CONFIG) | set(so.BRIDGE_DEFAULTS)
    game = so.load_game("specter_ops_v0", num_players=4, hunter_characters="Beast+Gun+Prophet")
    assert game.num_players() == 4  # the agent and three hunters
    assert game.template.config["hunter_characters"] == "Beast,Gun,Prophet"
    assert game.template.config["agent_character"] is None  # "" is None
    assert pyspiel.load_game("python_spyenvs_the_agents(num_players=3,max_turns=-1)").template.config[
        "max_turns"
    ] is None


def test_bad_parameters_raise_a_clear_error():
    with pytest.raises(Exception, match="(?i)unknown parameter"):
        pyspiel.load_game("python_spyenvs_unrest", {"no_such_option": 1})
    with pytest.raises(Exception, match="allowed"):
        so.load_game("the_agents_v0", num_players=9)
    with pytest.raises(Exception, match="max_game_length"):
        so.load_game("unrest_v0", max_game_length=0)


def test_utility_kind_matches_what_outcomes_sum_to():
    U = pyspiel.GameType.Utility
    kind = {env: so.load_game(env).get_type().utility for env in spyenvs.ENV_IDS}
    assert kind == {
        "specter_ops_v0": U.GENERAL_SUM,  # team payoffs: +1 each on one side, -1 on the other
        "the_agents_v0": U.ZERO_SUM,  # 2 players, immediate win
        "spy_games_v0": U.GENERAL_SUM,  # 4 players, one +1 and three -1
        "unrest_v0": U.ZERO_SUM,
    }
    assert so.load_game("the_agents_v0", end_rule="equal_turns").get_type().utility == U.GENERAL_SUM
    assert so.load_game("spy_games_v0", reward="relative").get_type().utility == U.ZERO_SUM
    assert so.load_game("spy_games_v0", reward="rank", num_players=3).get_type().utility == U.ZERO_SUM
    assert so.load_game("spy_games_v0", num_players=2).get_type().utility == U.ZERO_SUM


@pytest.mark.parametrize("env_id", spyenvs.ENV_IDS)
def test_openspiel_random_sim_test(env_id):
    """OpenSpiel's C++ checks: clones equal, legal actions sorted and masked, empty
    for other players, observations finite and of the declared size, returns in
    the utility bounds and summing as the utility kind says, length <= the cap."""
    game = so.load_game(env_id, seed=5, **SHORT[env_id])
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_random_sim_test_on_variants_and_the_length_cap():
    for env_id, config in [
        ("spy_games_v0", {"num_players": 2, "reward": "relative"}),
        ("spy_games_v0", {"num_players": 2, "reward": "raw"}),
        ("the_agents_v0", {"max_turns": 6, "num_players": 3, "end_rule": "equal_turns"}),
        ("specter_ops_v0", {"num_players": 5, "max_game_length": 40}),
    ]:
        pyspiel.random_sim_test(so.load_game(env_id, seed=1, **config), num_sims=1, serialize=False, verbose=False)
    state = so.load_game("the_agents_v0", seed=1, max_game_length=7).new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert len(state.history()) == 7 and state.returns() == [0.0, 0.0]
    assert state.current_player() == pyspiel.PlayerId.TERMINAL


def test_state_delegates_to_our_game():
    game = so.load_game("unrest_v0", seed=11)
    state = game.new_initial_state()
    ours = game_class("unrest_v0")()
    ours.reset(state.spy_game.seed)
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        assert state.current_player() == ours.current_player
        assert state.legal_actions() == ours.legal_actions()
        assert state.legal_actions_mask() == ours.legal_mask().tolist()
        a = int(rng.choice(ours.legal_actions()))
        assert state.action_to_string(state.current_player(), a) == ours.action_label(a)
        for p in range(ours.num_players):
            assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), ours.observe(p))
        clone = state.clone()
        state.apply_action(a)
        ours.step(a)
        assert clone.history() == state.history()[:-1]  # the clone did not move
    assert state.returns() == ours.outcome()


def test_seeded_games_deal_the_same_sequence_of_games():
    def deals(seed):
        game = so.load_game("the_agents_v0", seed=seed)
        return [game.new_initial_state().observation_tensor(0) for _ in range(3)]

    first = deals(4)
    assert first == deals(4)
    assert first[0] != first[1]


def test_observer_pieces_are_the_layout_blocks():
    from open_spiel.python.observation import make_observation

    game = so.load_game("specter_ops_v0")
    obs = make_observation(game)
    layout = game.template.layout
    assert list(obs.dict) == list(layout.blocks)
    state = game.new_initial_state()
    obs.set_from(state, 1)
    for name, block in layout.blocks.items():
        assert obs.dict[name].shape == block.shape
    assert np.array_equal(obs.tensor, state.spy_game.observe(1))
    assert obs.string_from(state, 1) == state.observation_string(1)
    with pytest.raises(Exception, match="information states"):
        state.information_state_string(0)


def test_resample_from_infostate_keeps_the_viewer_observation_and_changes_hidden_state():
    game = so.load_game("the_agents_v0", seed=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    for _ in range(12):
        state.apply_action(int(rng.choice(state.legal_actions())))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for p in range(game.num_players()):
        for _ in range(4):
            other = state.resample_from_infostate(p, sampler)
            assert other.observation_string(p) == state.observation_string(p)
            assert other.observation_tensor(p) == state.observation_tensor(p)
            assert other.current_player() == state.current_player()
            assert other.history() == state.history()
            changed += other.spy_game.hidden_key(p) != state.spy_game.hidden_key(p)
    assert changed > 0  # the hidden hands really were re-dealt


@pytest.mark.parametrize("env_id", spyenvs.ENV_IDS)
def test_openspiel_ismcts_plays_a_game(env_id):
    """OpenSpiel's IS-MCTS (the Python one: pyspiel.ISMCTSBot, the C++ bot, crashes
    on every Python game in open-spiel 2.0.2, OpenSpiel's python_kuhn_poker too)
    plays seat 0 with a few simulations against uniform random bots."""
    from open_spiel.python.algorithms import ismcts, mcts
    from open_spiel.python.bots import uniform_random

    game = so.load_game(env_id, seed=2, **SHORT[env_id])
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    searcher = ismcts.ISMCTSBot(
        game, evaluator, 2.0, 3, random_state=np.random.RandomState(1), use_observation_string=True
    )
    bots = [searcher] + [uniform_random.UniformRandomBot(p, np.random.RandomState(p)) for p in range(1, game.num_players())]
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        player = state.current_player()
        action = bots[player].step(state)
        assert action in state.legal_actions()
        searched += player == 0
        state.apply_action(action)
    assert searched > 0
    returns = state.returns()
    assert len(returns) == game.num_players()
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)


@pytest.mark.parametrize("env_id", spyenvs.ENV_IDS)
def test_evaluate_bots_runs_our_heuristic_against_an_openspiel_bot(env_id):
    from open_spiel.python.algorithms import evaluate_bots
    from open_spiel.python.bots import uniform_random

    from spyenvs.agents.heuristics import HeuristicPolicy

    game = so.load_game(env_id, seed=8)
    n = game.num_players()
    heuristic_total = random_total = 0.0
    for seat in range(n):
        bots = [uniform_random.UniformRandomBot(p, np.random.RandomState(10 + p)) for p in range(n)]
        bots[seat] = so.PolicyBot(game, seat, HeuristicPolicy(seed=seat))
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.default_rng(0))
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
        heuristic_total += returns[seat]
        random_total += sum(returns) - returns[seat]
    # every seat once: the rule-based player does better than the random seats
    assert heuristic_total / n > random_total / (n * (n - 1))


def test_policy_bot_refuses_another_seat():
    from spyenvs.agents.heuristics import HeuristicPolicy

    game = so.load_game("unrest_v0", seed=1)
    state = game.new_initial_state()
    bot = so.PolicyBot(game, 1 - state.current_player(), HeuristicPolicy(seed=0))
    with pytest.raises(ValueError, match="asked to act"):
        bot.step(state)


def test_policy_bot_plays_the_guided_search_on_the_state_it_is_given():
    """A guided ISMCTS spec as an OpenSpiel bot: it searches the state it is asked
    about, even a clone of the one it was restarted at."""
    from spyenvs.agents import make_policy

    game = so.load_game("unrest_v0", seed=2)
    state = game.new_initial_state()
    seat = state.current_player()
    bot = so.PolicyBot(game, seat, make_policy("ismcts:20:random:cut=4:value=heuristic", seed=0))
    bot.restart_at(state)
    clone = state.clone()
    action = bot.step(clone)
    assert action in clone.legal_actions()
