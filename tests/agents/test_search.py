"""Guided ISMCTS (agents/ismcts.py) from explicit states: it finds a forced win, the
cut-off hands the state to the value function, priors steer PUCT, the budget and tree
reuse do what they say, and the spec grammar parses or says what is wrong in one line."""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.agents import make_policy
from spyenvs.agents.evaluations import register_evaluation, state_value_for
from spyenvs.agents.heuristics import register_heuristic
from spyenvs.agents.ismcts import EXPERT, ISMCTS, parse_spec
from spyenvs.agents.policy import BasePolicy
from spyenvs.core import Game, Layout, Param
from spyenvs.core.info import GameInfo
from spyenvs.registry import make_game
from tests.core.toy_game import HighCard


class Nim(Game):
    """Perfect information: take 1-3 from a pile, whoever takes the last wins. A
    determinization is the state itself, so search sees the truth."""

    info = GameInfo(env_id="nim_search_test", title="Nim", summary="Nim: a search test game.",
                    rewards="The player who takes the last counter wins (+1), the other loses (-1).",
                    pettingzoo_id="spyenvs/nim_search_test-v0")
    CONFIG = {"pile": Param(7, int, min=1, max=40)}

    def _setup(self):
        self.roles = ("player_0", "player_1")
        self.num_actions = 3
        self.layout = Layout()
        self.layout.add("pile", 1)

    def _new_game(self):
        self.pile = self.config["pile"]
        self.turn = 0

    @property
    def current_player(self):
        return self.turn % 2

    def legal_mask(self):
        return np.array([1 if self.pile >= k else 0 for k in (1, 2, 3)], np.int8)

    def decision_name(self):
        return "take"

    def _apply(self, action):
        self.pile -= action + 1
        self.turn += 1

    @property
    def is_over(self):
        return self.pile == 0

    def outcome(self):
        winner = (self.turn - 1) % 2
        return [1.0 if p == winner else -1.0 for p in range(2)]

    def observe(self, p):
        return np.array([self.pile], np.float32)

    def hidden_key(self, viewer):
        return ()

    def resample_hidden(self, viewer, rng):
        return self.clone()

    def clone(self):
        new = self._clone_into(object.__new__(Nim))
        new.pile, new.turn = self.pile, self.turn
        return new

    def action_label(self, a):
        return f"take {a + 1}"

    def render_text(self, viewer=None):
        return f"pile {self.pile}"


class TakeOne(BasePolicy):
    """A Nim 'heuristic' that always takes one; its scores prefer taking one."""

    name = "heuristic"

    def act(self, observation, mask):
        return 0

    def action_scores(self, observation, mask):
        return np.where(np.asarray(mask) > 0, np.array([5.0, 0.0, 0.0]), -np.inf)


register_heuristic(Nim.env_id, lambda layout, config, role, rng: TakeOne())


def nim(pile: int) -> Nim:
    g = Nim(pile=pile)
    g.reset(0)
    return g


@pytest.mark.parametrize("spec", ["ismcts:60", "ismcts:60:heuristic", "ismcts:60:random:prior=heuristic",
                                  "ismcts:60:random:dets=4:reuse=1"])
def test_search_finds_a_forced_win_in_one_with_perfect_information(spec):
    # pile 3: taking all three wins at once; any other move hands the opponent the win
    g = nim(3)
    assert make_policy(spec, seed=0).bind(g, 0).act(g.observe(0), g.legal_mask()) == 2


def test_search_finds_the_winning_move_two_plies_deep():
    # pile 5: take 1 and leave a multiple of 4, the only winning move
    g = nim(5)
    assert ISMCTS(simulations=400, seed=1).bind(g, 0).act(g.observe(0), g.legal_mask()) == 0


def test_search_records_its_root_visit_shares_over_legal_moves_for_expert_iteration():
    """last_visits: each legal move's share of the root's visits (the cloning targets of
    warm_start.targets=visits), its largest share on the move played; a forced move or
    a win at once is a one-hot on that move."""
    g = nim(5)
    agent = ISMCTS(simulations=300, seed=1).bind(g, 0)
    move = agent.act(g.observe(0), g.legal_mask())
    share = agent.last_visits
    assert share.shape == (3,) and share.sum() == pytest.approx(1.0)
    assert share[move] == share.max() and (share > 0).sum() > 1  # the search tried the other moves too
    g = nim(3)  # taking all three wins at once
    agent = ISMCTS(simulations=300, seed=1).bind(g, 0)
    assert agent.act(g.observe(0), g.legal_mask()) == 2
    np.testing.assert_array_equal(agent.last_visits, [0.0, 0.0, 1.0])


def test_cut_off_scores_the_cut_state_with_the_value_function():
    # pile 20 is far from the end; with cut=0 each new leaf is scored by the value at
    # once, here one in which player 0 likes even piles; three simulations expand the
    # root's three moves once each
    calls = []

    def value(game):
        calls.append(game.pile)
        v = 1.0 if game.pile % 2 == 0 else -1.0
        return [v, -v]

    register_evaluation(Nim.env_id, value)
    g = nim(20)
    agent = parse_spec("ismcts:3:random:cut=0:value=heuristic", seed=0).bind(g, 0)
    a = agent.act(g.observe(0), g.legal_mask())
    assert sorted(calls) == [17, 18, 19]  # no playout went past the new leaf
    assert a == 1  # 20 - 2 = 18, the only even pile


def test_prior_steers_puct_when_simulations_cannot_tell_moves_apart():
    # pile 30 with cut=0 and a flat value: only the prior separates the moves
    register_evaluation(Nim.env_id, lambda game: [0.0, 0.0])
    g = nim(30)
    agent = parse_spec("ismcts:30:random:cut=0:value=heuristic:prior=heuristic", seed=0).bind(g, 0)
    assert agent.act(g.observe(0), g.legal_mask()) == 0  # TakeOne's scores prefer taking one


def test_determinization_pool_resamples_once_per_determinization():
    class Counting(HighCard):
        resamples = 0

        def resample_hidden(self, viewer, rng):
            Counting.resamples += 1
            return super().resample_hidden(viewer, rng)

    g = Counting(num_players=2, rounds=2)
    g.reset(4)
    agent = ISMCTS(simulations=50, determinizations=5, seed=0).bind(g, 0)
    agent.act(g.observe(0), g.legal_mask())
    assert Counting.resamples == 5 + 1 and agent.last_iterations == 50  # and one for the win-in-one check


def test_time_limit_stops_the_search_after_the_first_iteration_once_past():
    g = HighCard(num_players=2)
    g.reset(0)
    agent = ISMCTS(simulations=10_000, time_limit=1e-9, seed=0).bind(g, 0)
    agent.act(g.observe(0), g.legal_mask())
    assert agent.last_iterations == 1


def test_tree_reuse_keeps_the_subtree_of_its_own_move_only():
    g = nim(9)
    agent = parse_spec("ismcts:50:random:reuse=1", seed=0).bind(g, 0)
    a = agent.act(g.observe(0), g.legal_mask())
    kept = agent._kept[0]
    assert kept.visits > 0
    g.step(a)  # the opponent moves next: its move is not ours, so nothing is reused
    g.step(0)
    assert agent._root(g) is not kept


def test_tree_reuse_continues_when_the_same_seat_decides_again():
    g = HighCard(num_players=2, rounds=1)
    g.reset(0)
    agent = parse_spec("ismcts:20:random:reuse=1", seed=0).bind(g, 0)
    agent._kept = (root := object(), g.seed, len(g.actions), 1)
    g.actions.append(1)  # as if seat 0 had just played action 1 and decides again
    assert agent._root(g) is root


def test_a_reused_subtree_never_makes_search_play_a_move_illegal_here():
    """Reuse keeps the subtree after our own move, grown in resampled worlds: where a
    chance event followed that move (a card drawn), the subtree can hold moves that
    are illegal in the real game (Spy Games' expert played one, found by a score card).
    Search chooses among the real game's legal moves only."""
    from spyenvs.agents.ismcts import _Node

    g = make_game("spy_games_v0")
    g.reset(0)
    agent = parse_spec("ismcts:5:random:reuse=1", seed=0).bind(g, g.current_player)
    legal = g.legal_mask()
    illegal = int(np.flatnonzero(legal == 0)[0])
    root = _Node()
    root.children[illegal] = _Node()
    root.children[illegal].visits = 10_000  # far ahead of anything 5 simulations make
    agent._root = lambda game: root
    assert legal[agent.search(g)]


@pytest.mark.parametrize("spec, field, value", [
    ("ismcts", "simulations", 200),
    ("ismcts:30", "simulations", 30),
    ("ismcts:30:heuristic", "playout", "heuristic"),
    ("ismcts:30:random:eps=0.2", "epsilon", 0.2),
    ("ismcts:30:heuristic:cut=12:value=heuristic", "cutoff", 12),
    ("ismcts:30:random:prior=pretrained", "prior", "pretrained"),
    ("ismcts:30:random:time=0.5:dets=8:reuse=1", "determinizations", 8),
    ("ismcts:30:random:c=2", "c", 2.0),
])
def test_spec_grammar_sets_the_named_option(spec, field, value):
    assert getattr(parse_spec(spec), field) == value
    assert make_policy(spec).name == spec


@pytest.mark.parametrize("spec, message", [
    ("ismcts:many", "ismcts:SIMS expects an int"),
    ("ismcts:30:greedy", "playout 'greedy' unknown"),
    ("ismcts:30:random:cut=5", "needs a value"),
    ("ismcts:30:random:warp=9", "unknown option 'warp'"),
    ("ismcts:30:random:eps=2", "eps must be in"),
    ("ismcts:eps=0.1:30", "come before"),
    ("ismcts:30:random:reuse=yes", "bad value for reuse"),
    ("ismcts:0", "positive int"),
])
def test_bad_specs_say_what_is_wrong_in_one_line(spec, message):
    with pytest.raises(ValueError, match=message) as err:
        make_policy(spec)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("env_id", ["the_agents_v0", "unrest_v0", "spy_games_v0", "specter_ops_v0"])
def test_expert_is_a_guided_search_within_a_second_a_move(env_id):
    g = make_game(env_id)
    expert = make_policy("expert")._expert_for(g)
    assert expert.name == "expert" and expert.time_limit is not None and expert.time_limit <= 1.0
    if expert.macro != "none":  # a plan search: heuristic simulations scored by the game's evaluation
        assert expert.playout == "heuristic" and expert.value in ("heuristic", "search")
    else:
        assert expert.prior != "none" and expert.cutoff is not None and expert.value == "heuristic"
    assert EXPERT.startswith("ismcts:")


@pytest.mark.parametrize("env_id", ["the_agents_v0", "unrest_v0", "spy_games_v0", "specter_ops_v0"])
def test_expert_binds_and_plays_a_legal_move_in_every_game(env_id):
    g = make_game(env_id)
    g.reset(3)
    rng = np.random.default_rng(0)
    while np.flatnonzero(g.legal_mask()).size < 2:
        g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    spec = parse_spec("expert", seed=0)._expert_for(g)
    spec.simulations = 20  # the game's expert options, a smaller budget
    seat = g.current_player
    before = (g.hidden_key(seat), list(g.actions))
    a = spec.bind(g, seat).act(g.observe(seat), g.legal_mask())
    assert g.legal_mask()[a]
    assert (g.hidden_key(seat), list(g.actions)) == before


def test_expert_becomes_the_games_own_search_where_its_info_names_one():
    g = make_game("unrest_v0")
    g.reset(0)
    template = make_policy("expert", seed=0)
    bound = template.bind(g, 0)
    expected = parse_spec(g.info.expert_search) if g.info.expert_search else parse_spec(EXPERT)
    for field in ("simulations", "playout", "prior", "cutoff", "value", "time_limit", "determinizations"):
        assert getattr(bound.spec, field) == getattr(expected, field)
    assert bound.name == "expert" and bound.rng is template.rng
    assert template.bind(g, 1).spec is bound.spec  # one search per game, bound per seat


def test_a_game_without_a_state_evaluation_says_so():
    g = HighCard()
    g.reset(0)
    with pytest.raises(ValueError, match="no state evaluation for high_card_test"):
        state_value_for(g)


# ------------------------------------------------------------ the reply look-ahead
def test_lookahead_plays_the_move_whose_play_out_through_the_reply_evaluates_best():
    """lookahead:DECISION plays each legal move out, the other seats on the heuristic,
    until the seat decides again, and plays the best evaluated: here the move after
    which the heuristic opponent (taking one) leaves an even pile, which player 0 likes."""
    register_evaluation(Nim.env_id, lambda game: [1.0, -1.0] if game.pile % 2 == 0 else [-1.0, 1.0])
    g = nim(21)
    heuristic_move = make_policy("heuristic", seed=0).bind(g, 0).act(g.observe(0), g.legal_mask())
    agent = make_policy("lookahead:take:dets=2", seed=0).bind(g, 0)
    assert heuristic_move == 0 and agent.act(g.observe(0), g.legal_mask()) == 1  # 21 - 2 - 1 = 18
    assert g.pile == 21 and g.turn == 0  # played out on determinizations, not on the game


def test_lookahead_scores_a_game_it_ends_by_the_outcome_and_keeps_the_heuristics_move_on_ties():
    register_evaluation(Nim.env_id, lambda game: [0.0, 0.0])
    g = nim(3)
    assert make_policy("lookahead:take", seed=0).bind(g, 0).act(g.observe(0), g.legal_mask()) == 2  # takes all
    g = nim(30)  # every play-out evaluates 0: the heuristic's move
    assert make_policy("lookahead:take", seed=0).bind(g, 0).act(g.observe(0), g.legal_mask()) == 0


def test_lookahead_leaves_other_decisions_to_the_heuristic():
    register_evaluation(Nim.env_id, lambda game: [0.0, 0.0])
    g = nim(3)
    assert make_policy("lookahead:other_decision", seed=0).bind(g, 0).act(g.observe(0), g.legal_mask()) == 0


@pytest.mark.parametrize("spec, message", [
    ("lookahead:take:dets=0", "lookahead dets must be a positive int, got 0"),
    ("lookahead:take:dets=x", "lookahead dets must be a positive int, got 'x'"),
    ("lookahead:take:depth=2", "bad lookahead option 'depth=2'"),
    ("lookahead:", "bad lookahead spec 'lookahead:'"),
])
def test_bad_lookahead_specs_say_what_is_wrong_in_one_line(spec, message):
    with pytest.raises(ValueError, match=message) as err:
        make_policy(spec)
    assert "\n" not in str(err.value)


def test_lookahead_names_a_decision_the_game_lacks_in_one_line():
    g = make_game("specter_ops_v0", num_players=2)
    g.reset(0)
    with pytest.raises(ValueError, match="lookahead: specter_ops_v0 has no decision 'play_cards'") as err:
        make_policy("lookahead:play_cards").bind(g, 0)
    assert "\n" not in str(err.value)


def test_lookahead_asked_for_a_role_stays_a_template_that_plays_the_live_game():
    """make_policy(spec, env_id, role) leaves a policy that needs the live game a
    template, as it does ISMCTS; act_game plays a legal move without touching the game."""
    policy = make_policy("lookahead:play_cards:through=assign_card", seed=0, env_id="unrest_v0", role="rebel")
    g = make_game("unrest_v0")
    g.reset(0)
    actions = list(g.actions)
    assert g.legal_mask()[policy.act_game(g, g.current_player)]
    assert list(g.actions) == actions
