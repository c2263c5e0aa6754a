"""Unrest's card-table network (spyenvs.experiments.nets.CardTableNet) and its numpy
actor (spyenvs.agents.card_table): the card table it computes from an explicit
state, the same logits in torch and numpy, weights-only round trips, and the
config errors a user can meet."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import spyenvs  # noqa: E402
from spyenvs.agents.card_table import CardTableActor, card_table_features, card_table_width  # noqa: E402
from spyenvs.agents.torch_policy import TorchPolicy, policy_input  # noqa: E402
from spyenvs.experiments.nets import (  # noqa: E402
    CardTableActorCriticPolicy,
    card_table_spec,
    env_columns_for,
    policy_kwargs_for,
)
from spyenvs.experiments.export import inference_policy, save_trained  # noqa: E402
from spyenvs.games.unrest import data as D  # noqa: E402
from spyenvs.games.unrest.rules import PLAY, REBEL, EMPIRE  # noqa: E402
from spyenvs.wrappers.selfplay import observation_scale  # noqa: E402
from tests.games.unrest.helpers import C, I, R, S, new_game, play_action, stage  # noqa: E402

ENV = "unrest_v0"


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def game():
    return spyenvs.make_game(ENV)


def _policy(game, seed=0):
    torch.manual_seed(seed)
    cls, kw = policy_kwargs_for(ENV, game, {"arch": "card_table", "hidden": [32, 32], "play_hidden": 16})
    assert cls is CardTableActorCriticPolicy
    space = gym.spaces.Box(-np.inf, np.inf, (game.observation_size + 2,), np.float32)
    pol = cls(space, gym.spaces.Discrete(game.num_actions), lambda _: 3e-4, **kw)
    with torch.no_grad():  # the init makes the logits almost flat; spread them so a mismatch shows
        for p in pol.actor.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    return pol


def _meta(game):
    return {"env_id": ENV, "config": game.config, "roles": list(game.roles), "role_kinds": ["rebel", "empire"],
            "obs_dim": game.observation_size, "num_actions": game.num_actions, "activation": "tanh", "name": "t"}


@pytest.fixture(scope="module")
def observations():
    """Raw observations of both roles along random games."""
    g = spyenvs.make_game(ENV)
    rng = np.random.default_rng(0)
    rows, kinds = [], []
    for seed in range(6):
        g.reset(seed)
        while not g.is_over:
            p = g.current_player
            rows.append(g.observe(p))
            kinds.append(p)
            g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    return np.stack(rows), np.array(kinds)


def _table(game, obs):
    spec = card_table_spec(game)
    t = card_table_features(obs[None].astype(np.float32), spec)[0]
    n, nt = spec["positions"], spec["types"]
    return spec, t[: n * nt].reshape(n, nt), t[n * nt: (n + 3) * nt].reshape(3, nt), t[(n + 3) * nt:] * 6


def test_card_table_places_face_up_cards_for_both_and_face_down_cards_for_the_rebel_only():
    """§2.2/§5.3: a face-up card is seen by both players, a face-down card's type only
    by the Rebel; the table puts each known card at its district's row position."""
    g = stage(new_game(), {0: [(I(5), True), (R(3), False)], 3: [(C(4), True)]}, row=[3, 1, 0, 4, 2],
              hand=[S(2), S(3), S(4), S(5), S(6)])
    rebel = _table(g, g.observe(REBEL))
    empire = _table(g, g.observe(EMPIRE))
    i5, r3, c4 = (D.CARD_TYPE[c] for c in (I(5), R(3), C(4)))
    # district 0 sits at row position 2, district 3 at position 0
    for _, at, _, count in (rebel, empire):
        assert at[2, i5] == 1 and at[0, c4] == 1
        assert count[2] == pytest.approx(2) and count[0] == pytest.approx(1)
        assert count[1] == 0 and at[1].sum() == 0
    assert rebel[1][2, r3] == 1
    assert empire[1][2, r3] == 0 and empire[1][2].sum() == 1  # the hidden card counts, unnamed


def test_card_table_lists_the_pending_cards_after_a_play():
    """§3 step 2: the played cards wait in the pending slots (0 = the face-up one)."""
    hand = [I(2), I(3), R(4), C(5), S(6)]
    g = stage(new_game(), row=[0, 1, 2, 3, 4], hand=hand, phase=PLAY)
    g.pub.area = 0
    g.touch()
    g.step(play_action(g, I(3), [R(4), S(6)]))
    _, _, pending, _ = _table(g, g.observe(REBEL))
    assert pending[0, D.CARD_TYPE[I(3)]] == 1
    assert sorted(np.flatnonzero(pending[1:].sum(0))) == sorted(D.CARD_TYPE[c] for c in (R(4), S(6)))
    _, _, pending_seen, _ = _table(g, g.observe(EMPIRE))
    assert pending_seen.sum() == 1 and pending_seen[0, D.CARD_TYPE[I(3)]] == 1


def test_numpy_actor_and_the_bound_player_give_the_trainers_logits(game, observations):
    pol = _policy(game)
    scale = observation_scale(game.layout)
    obs, kinds = observations
    scaled = np.stack([policy_input(((o - scale[0]) * scale[1]).astype(np.float32), k, 2) for o, k in zip(obs, kinds)])
    raw = np.stack([policy_input(o.astype(np.float32), k, 2) for o, k in zip(obs, kinds)])
    with torch.no_grad():
        want = pol.actor(torch.as_tensor(scaled)).numpy()
    player = inference_policy(pol, scale, _meta(game))
    assert isinstance(player.net, CardTableActor)
    np.testing.assert_allclose(player.net.logits(raw), want, atol=1e-4)
    # the bound player adds each seat's role-kind input itself: raw observations in
    for seat in (REBEL, EMPIRE):
        rows = kinds == seat
        got = player.bind(game, seat)._masked_logits(obs[rows], np.ones((rows.sum(), game.num_actions)))
        np.testing.assert_allclose(got, want[rows], atol=1e-4)
    # the PLAY head adds to the PLAY logits of the rows deciding a PLAY, and only there
    column = card_table_spec(game)["play_phase_column"]
    headless = scaled.copy()
    headless[:, column] = 0.0
    with torch.no_grad():
        without = pol.actor(torch.as_tensor(headless)).numpy()
    playing = scaled[:, column] > 0.5
    assert playing.any() and np.abs(want[playing, 4:34] - without[playing, 4:34]).min() > 0
    np.testing.assert_array_equal(want[~playing], without[~playing])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_card_table_checkpoint_round_trip_plays_legal_moves_to_the_end(tmp_path, game, dtype):
    pol = _policy(game)
    path = tmp_path / "unrest.npz"
    save_trained(str(path), pol, observation_scale(game.layout), _meta(game), dtype=dtype)
    player = TorchPolicy.load(path)
    assert player.meta["arch"] == "card_table"
    g = spyenvs.make_game(ENV)
    g.reset(3)
    seats = [player.bind(g, s) for s in range(2)]
    while not g.is_over:
        mask = g.legal_mask()
        a = seats[g.current_player].act(g.observe(g.current_player), mask)
        assert mask[a]
        g.step(a)


def test_card_table_is_unrests_net_only_and_reads_whole_observations(game):
    other = spyenvs.make_game("the_agents_v0")
    with pytest.raises(ValueError, match="card_table is the net of unrest_v0"):
        policy_kwargs_for("the_agents_v0", other, {"arch": "card_table"})
    with pytest.raises(ValueError, match="needs net.arch mlp"):
        policy_kwargs_for(ENV, game, {"arch": "card_table"}, critic_only_dims=3)
    assert env_columns_for(ENV, game, {"arch": "card_table"}) is None
    assert policy_kwargs_for(ENV, game, {"arch": "mlp"})[0] is not CardTableActorCriticPolicy
    spec = card_table_spec(game)
    assert card_table_width(spec) == (5 + 3) * 21 + 5
    assert len(spec["play_up"]) == 30 and spec["play_start"] == 4
