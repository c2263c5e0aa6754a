"""The vectorised self-play env: the same episodes as SelfPlayEnv, SB3's auto-reset
conventions, seat rotation, each opponent seeing only its own seat, independent random
streams, forced decisions played by the env, and MaskablePPO driving it on every game."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from spyenvs.agents import HeuristicPolicy, RandomPolicy  # noqa: E402
from spyenvs.agents.policy import BasePolicy  # noqa: E402
from spyenvs.registry import ENV_IDS  # noqa: E402
from spyenvs.wrappers import SelfPlayEnv  # noqa: E402
from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv  # noqa: E402
from tests.core.toy_game import HighCard  # noqa: E402


class FirstLegal(BasePolicy):
    """A deterministic opponent, so two envs given the same seeds play the same games."""

    name = "first_legal"

    def act(self, observation, mask):
        return int(np.flatnonzero(mask)[0])


def _learner_action(obs, mask):
    """A deterministic learner move that still varies with the observation."""
    legal = np.flatnonzero(mask)
    return int(legal[int(abs(float(obs.sum())) * 1000) % legal.size])


def _single_episodes(env_id, config, seed, episodes):
    env = SelfPlayEnv(env_id, config, opponents=[FirstLegal()], max_decisions=400)
    out = []
    obs, _ = env.reset(seed=seed)
    for _ in range(episodes):
        steps = []
        while True:
            mask = env.action_masks()
            steps.append((obs.copy(), mask.copy()))
            obs, reward, term, trunc, _ = env.step(_learner_action(obs, mask))
            if term or trunc:
                out.append((steps, reward, term, trunc))
                obs, _ = env.reset()
                break
    return out


@pytest.mark.parametrize("env_id", ["the_agents_v0", "unrest_v0", "spy_games_v0"])
def test_vec_env_plays_the_same_episodes_as_selfplayenv(env_id):
    n, seed, episodes = 3, 11, 3
    venv = VecSelfPlayEnv(env_id, {}, opponents=[FirstLegal()], num_envs=n, max_decisions=400,
                          auto_play_forced=False)
    venv.seed(seed)
    obs = venv.reset()
    got = [[] for _ in range(n)]
    current = [[] for _ in range(n)]
    while min(len(g) for g in got) < episodes:
        masks = venv.action_masks().copy()
        actions = np.array([_learner_action(obs[i], masks[i]) for i in range(n)])
        for i in range(n):
            current[i].append((obs[i].copy(), masks[i]))
        obs, rewards, dones, infos = venv.step(actions)
        for i in range(n):
            if dones[i]:
                got[i].append((current[i], float(rewards[i]), not infos[i].get("TimeLimit.truncated", False),
                               bool(infos[i].get("TimeLimit.truncated", False))))
                current[i] = []
    for i in range(n):
        want = _single_episodes(env_id, {}, seed + i, episodes)
        for (steps_v, r_v, term_v, trunc_v), (steps_s, r_s, term_s, trunc_s) in zip(got[i][:episodes], want):
            assert (r_v, term_v, trunc_v) == (r_s, term_s, trunc_s)
            assert len(steps_v) == len(steps_s)
            for (ov, mv), (os_, ms) in zip(steps_v, steps_s):
                np.testing.assert_array_equal(ov, os_)
                np.testing.assert_array_equal(mv, ms)


class Scripted(BasePolicy):
    """Toy opponent: always 'stay' (action 0)."""

    name = "stay"

    def act(self, observation, mask):
        return 0


def test_terminal_reward_arrives_when_the_game_ends_on_an_opponents_move():
    # HighCard: the last seat to speak is an opponent, so every episode ends on its move
    venv = VecSelfPlayEnv(HighCard, {"num_players": 3}, opponents=[Scripted()], num_envs=4,
                          learner_kinds=None, auto_play_forced=False, seed=0)
    venv.reset()
    seen = 0
    for _ in range(30):
        slots_before = [(s.seat, s.game) for s in venv.slots]
        obs, rewards, dones, infos = venv.step(np.zeros(4, dtype=np.int64))
        for i, done in enumerate(dones):
            if done:
                seen += 1
                assert rewards[i] == infos[i]["outcome"] in (-1.0, 1.0)
                assert infos[i]["terminal_observation"].shape == obs[i].shape
                assert not infos[i].get("TimeLimit.truncated", False)
        del slots_before
    assert seen > 10


def test_truncation_is_reported_as_truncation():
    venv = VecSelfPlayEnv("the_agents_v0", {}, opponents=[RandomPolicy(0)], num_envs=2, max_decisions=6,
                          auto_play_forced=False, seed=0)
    venv.reset()
    for _ in range(20):
        masks = venv.action_masks()
        _, rewards, dones, infos = venv.step(masks.argmax(axis=1))
        for i in np.flatnonzero(dones):
            assert infos[i]["TimeLimit.truncated"] is True and rewards[i] == 0.0
            assert "terminal_observation" in infos[i]
            return
    raise AssertionError("no episode was cut at max_decisions=6")


def test_learner_seat_rotation_covers_every_seat_of_its_kinds():
    venv = VecSelfPlayEnv("specter_ops_v0", {"num_players": 4}, opponents=[RandomPolicy(0)], num_envs=2,
                          learner_kinds=["hunter"], seed=3)
    venv.reset()
    seats = set()
    for _ in range(3):
        for slot in venv.slots:
            seats.add(slot.seat)
            venv._start_episode(slot)
    assert seats == {1, 2, 3}  # every hunter seat, never the agent's
    venv = VecSelfPlayEnv("unrest_v0", {}, opponents=[RandomPolicy(0)], num_envs=1, seed=3)
    venv.reset()
    kinds = []
    for _ in range(4):
        kinds.append(venv.kinds[venv.slots[0].kind_index])
        venv._start_episode(venv.slots[0])
    assert set(kinds) == {"rebel", "empire"}


class AgentSeatOnly(BasePolicy):
    """An opponent that may only ever be asked to play Specter Ops' agent (seat 0)."""

    name = "agent_only"

    def bind(self, game, seat):
        assert seat == 0, f"an opponent was bound to seat {seat}, a seat of the learner's team"
        return self

    def act(self, observation, mask):
        return int(np.flatnonzero(mask)[0])


def test_with_learner_teams_the_learner_plays_every_seat_of_its_team_in_one_episode():
    venv = VecSelfPlayEnv("specter_ops_v0", {"num_players": 4}, opponents=[AgentSeatOnly()], num_envs=2,
                          learner_kinds=["hunter"], max_decisions=300, seed=3, learner_teams=True)
    assert venv.learner_groups == [(1, 2, 3)]
    obs = venv.reset()
    seats, ends = set(), 0
    for _ in range(400):
        for i, slot in enumerate(venv.slots):
            assert slot.group == (1, 2, 3) and slot.game.current_player == slot.seat
            seats.add(slot.seat)
            row = slot.game.observe(slot.seat)[venv.obs_columns] if venv.obs_columns is not None else \
                slot.game.observe(slot.seat)
            np.testing.assert_array_equal(obs[i, :row.size], row)  # the deciding hunter's own view
        obs, rewards, dones, infos = venv.step(venv.action_masks().argmax(axis=1))
        for i in np.flatnonzero(dones):
            ends += 1
            assert infos[i]["kind"] == "hunter" and infos[i]["seat"] in (1, 2, 3)
    assert seats == {1, 2, 3} and ends > 0
    both = VecSelfPlayEnv("specter_ops_v0", {"num_players": 4}, opponents=[RandomPolicy(0)], num_envs=1,
                          learner_teams=True)
    assert both.learner_groups == [(0,), (1, 2, 3)]
    alone = VecSelfPlayEnv("specter_ops_v0", {"num_players": 4}, opponents=[RandomPolicy(0)], num_envs=1)
    assert alone.learner_groups == [(0,), (1,), (2,), (3,)]


class OwnSeatOnly(BasePolicy):
    """Checks that every batched call carries only the bound seat's own observation and
    mask, at that seat's decision."""

    name = "checker"
    needs_live_game = True
    calls = 0

    def bind(self, game, seat):
        bound = OwnSeatOnly()
        bound.game, bound.seat = game, seat
        return bound

    def act_batch(self, observations, masks):
        assert len(observations) == 1  # bound per game: its group is that game alone
        assert self.game.current_player == self.seat
        np.testing.assert_array_equal(observations[0], self.game.observe(self.seat))
        np.testing.assert_array_equal(masks[0], self.game.legal_mask())
        OwnSeatOnly.calls += 1
        return np.array([int(np.flatnonzero(masks[0])[0])])


def test_each_opponent_receives_only_its_own_seats_observation_and_mask():
    OwnSeatOnly.calls = 0
    venv = VecSelfPlayEnv("spy_games_v0", {"num_players": 3}, opponents=[OwnSeatOnly()], num_envs=3, seed=5)
    venv.reset()
    for _ in range(40):
        venv.step(venv.action_masks().argmax(axis=1))
    assert OwnSeatOnly.calls > 40


def test_random_opponents_in_different_games_make_different_moves():
    venv = VecSelfPlayEnv("the_agents_v0", {}, opponents=[RandomPolicy(0)], num_envs=4, auto_play_forced=False)
    for slot in venv.slots:  # the same deal and learner seat in every game
        slot.rng = np.random.default_rng(0)
    venv.reset()
    for _ in range(80):
        venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()]))
    assert venv.stats["opponent_decisions"] > 0
    logs = {tuple(slot.game.actions) for slot in venv.slots}
    assert len(logs) > 1


class MaskOnly(BasePolicy):
    """Declares it decides from the mask alone; records what each batched call got."""

    name = "mask_only"
    reads_observation = False
    widths: list = []

    def act_batch(self, observations, masks):
        MaskOnly.widths.append(observations.shape)
        return np.array([int(np.flatnonzero(m)[0]) for m in masks])


def test_mask_only_opponents_are_not_sent_encoded_observations():
    MaskOnly.widths = []
    venv = VecSelfPlayEnv("spy_games_v0", {"num_players": 3}, opponents=[MaskOnly()], num_envs=4, seed=2)
    venv.reset()
    for _ in range(30):
        venv.step(venv.action_masks().argmax(axis=1))
    assert MaskOnly.widths and all(shape[1] == 0 for shape in MaskOnly.widths)
    assert sum(shape[0] for shape in MaskOnly.widths) == venv.stats["opponent_decisions"]
    assert not RandomPolicy.reads_observation and HeuristicPolicy.reads_observation


def test_opponents_of_all_games_are_answered_in_one_batched_call_per_policy():
    # sixteen identical games in lockstep: every opponent decision of all of them is
    # pending at once, and the shared policy answers them in one call
    venv = VecSelfPlayEnv("the_agents_v0", {}, opponents=[FirstLegal()], num_envs=16, auto_play_forced=False)
    for slot in venv.slots:
        slot.rng = np.random.default_rng(7)
    venv.reset()
    for _ in range(100):
        venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()]))
    st = venv.stats
    assert st["opponent_decisions"] > 0
    assert st["opponent_decisions"] == 16 * st["opponent_calls"]


def test_single_option_learner_decisions_are_played_by_the_env_and_counted():
    venv = VecSelfPlayEnv("specter_ops_v0", {"num_players": 2, "pad_agent_turn": True},
                          opponents=[RandomPolicy(0)], num_envs=2, seed=1)
    venv.reset()
    for _ in range(60):
        masks = venv.action_masks()
        assert (masks.sum(axis=1) > 1).all()  # the network never sees a forced decision
        venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    assert venv.stats["forced_decisions"] > 0


def test_masks_come_through_env_method_as_maskableppo_asks():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    venv = VecSelfPlayEnv("unrest_v0", {}, opponents=[RandomPolicy(0)], num_envs=3, seed=0)
    venv.reset()
    assert is_masking_supported(venv)
    np.testing.assert_array_equal(get_action_masks(venv), venv.action_masks())
    for slot, mask in zip(venv.slots, venv.action_masks()):
        np.testing.assert_array_equal(mask, slot.game.legal_mask().astype(bool))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_maskable_ppo_learns_on_the_vec_env(env_id):
    pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    venv = VecSelfPlayEnv(env_id, {}, opponents=[RandomPolicy(0), (HeuristicPolicy(1), 1.0)], num_envs=4,
                          max_decisions=300, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.learn(64)
    assert model.num_timesteps >= 64


def test_with_opponent_classes_the_row_ends_with_the_episodes_opponent_class():
    venv = VecSelfPlayEnv("unrest_v0", {}, opponents=[(RandomPolicy(0), 1.0, "random"), (FirstLegal(), 1.0, "snap_1")],
                          num_envs=6, seed=3, opponent_classes=("random", "heuristic"))
    assert venv.opponent_dims == 3 and venv.observation_space.shape[0] == venv.obs_size + 2 + 3
    obs = venv.reset()
    for i, slot in enumerate(venv.slots):
        want = {"random": [1, 0, 0], "snap_1": [0, 0, 1]}[slot.names]
        assert obs[i, -3:].tolist() == want
        assert obs[i, venv.obs_size:venv.obs_size + 2].sum() == 1  # the role one-hot is still there
    assert {slot.names for slot in venv.slots} == {"random", "snap_1"}


class RemembersItsGame(BasePolicy):
    """A template whose bound players keep memory of their own game."""

    name = "memory"

    def bind(self, game, seat):
        player = FirstLegal()
        player.per_game_state = True
        return player


def test_players_that_remember_their_game_are_bound_per_game_not_shared():
    venv = VecSelfPlayEnv("the_agents_v0", {}, opponents=[RemembersItsGame()], num_envs=4, seed=0)
    venv.reset()
    players = [next(b for b in slot.bound if b is not None) for slot in venv.slots]
    assert len({id(p) for p in players}) == 4
    specter = VecSelfPlayEnv("specter_ops_v0", {}, opponents=[HeuristicPolicy(0)], num_envs=3, seed=0)
    specter.reset()
    hunters = [b for slot in specter.slots for b in slot.bound if b is not None]
    assert len({id(h) for h in hunters}) == len(hunters)  # the Specter Ops heuristics remember their game


class NeverTheLearnersSide(BasePolicy):
    """An opponent that checks it is only ever asked for a seat off the learner's side."""

    name = "never_the_learners_side"
    needs_live_game = True
    slots: dict = {}

    def bind(self, game, seat):
        bound = NeverTheLearnersSide()
        bound.game, bound.seat = game, seat
        return bound

    def act_batch(self, observations, masks):
        slot = NeverTheLearnersSide.slots[id(self.game)]
        assert self.game.sides()[self.seat] != slot.side
        return np.array([int(np.flatnonzero(masks[0])[-1])])


def test_s4_at_five_players_the_learner_team_follows_the_traitor_to_the_agents_side():
    venv = VecSelfPlayEnv("specter_ops_v0", {"num_players": 5}, opponents=[NeverTheLearnersSide()], num_envs=2,
                          max_decisions=300, seed=4, learner_teams=True)
    assert venv.learner_groups == [(0,), (1, 2, 3, 4)] and venv.sides_change
    NeverTheLearnersSide.slots = {id(slot.game): slot for slot in venv.slots}
    venv.reset()
    traitor_moves = {0: 0, 1: 0}  # learner decisions in the traitor's seat, per side
    kinds = set()
    for _ in range(600):
        for slot in venv.slots:
            g = slot.game
            assert g.sides()[slot.seat] == slot.side and slot.seat in slot.group
            assert venv.kinds[slot.kind_index] == ("agent" if slot.seat == 0 else "hunter")
            if slot.seat - 1 == g._h_traitor >= 0:
                traitor_moves[slot.side] += 1
        _, _, dones, infos = venv.step(venv.action_masks().argmax(axis=1))
        kinds.update(infos[i]["kind"] for i in np.flatnonzero(dones))
    assert traitor_moves[0] > 0 and traitor_moves[1] == 0 and kinds == {"agent", "hunter"}


def test_s4_a_seat_leaving_the_learners_side_gets_its_episodes_opponent_after_the_pool_changed():
    first, second = RandomPolicy(1), RandomPolicy(2)
    venv = VecSelfPlayEnv("specter_ops_v0", {"num_players": 5}, opponents=[(first, 1.0, "a"), (second, 1.0, "b")],
                          num_envs=1, max_decisions=300, seed=0, learner_teams=True)
    venv.reset()
    slot = venv.slots[0]
    while slot.group[0] != 1:  # a loyal-hunters episode, before the deal
        venv.step(venv.action_masks().argmax(axis=1))
    drawn = slot.drawn[2]
    venv.set_opponents([RandomPolicy(3)])  # the pool shrinks and moves, as the trainer's does
    slot.game._h_traitor = 1  # seat 2 now serves the agent
    venv._follow_sides(slot, 2)
    assert 2 not in slot.group and slot.bound[2] is not None
    assert slot.bound[2] is venv._bind(drawn, slot, 2)
