"""§5.1: the Rebel sees every card but the deck's order, so a game rebuilt from her
observation alone (``from_observation``) shows both roles what the true game shows and
offers the same moves; only the deck's order is dealt, from the caller's rng."""

import numpy as np
import pytest

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest.game import UnrestGame
from spyenvs.games.unrest.rules import EMPIRE, REBEL
from spyenvs.registry import make_game

from .helpers import DECOYS, I, R, new_game, play_action, stage


def _deck_types(game) -> list[int]:
    return sorted(D.CARD_TYPE[c] for c in game.hid.deck)


@pytest.mark.parametrize("config", UnrestGame.TEST_CONFIGS)
def test_s5_1_the_rebels_observation_fixes_the_state_up_to_the_decks_order(config):
    rng = np.random.default_rng(0)
    rebuilt = 0
    for seed in range(12):
        g = new_game(seed, **config)
        while not g.is_over:
            if g.current_player == REBEL:
                r = g.from_observation(REBEL, g.observe(REBEL), rng)
                assert np.array_equal(r.observe(REBEL), g.observe(REBEL))
                assert np.array_equal(r.observe(EMPIRE), g.observe(EMPIRE))
                assert np.array_equal(r.legal_mask(), g.legal_mask())
                assert r.decision_name() == g.decision_name()
                assert _deck_types(r) == _deck_types(g)
                r.check_invariants()
                rebuilt += 1
            g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    assert rebuilt > 100


def test_s5_1_a_rebuilt_game_plays_on_like_the_true_one():
    """Every move after the rebuild is one the true game allows, to the end."""
    rng = np.random.default_rng(1)
    g = new_game(3)
    g.step(int(np.flatnonzero(g.legal_mask())[0]))  # choose the area: the Rebel plays next
    r = g.from_observation(REBEL, g.observe(REBEL), rng)
    while not r.is_over:
        r.step(int(rng.choice(np.flatnonzero(r.legal_mask()))))
        r.check_invariants()


def test_s5_1_the_rebuilt_decks_order_comes_from_the_rng_not_the_game():
    g = new_game(0)
    obs = g.observe(REBEL)
    orders = {tuple(g.from_observation(REBEL, obs, np.random.default_rng(s)).hid.deck) for s in range(6)}
    assert len(orders) > 1  # the 19 undrawn cards are dealt afresh
    same = g.from_observation(REBEL, obs, np.random.default_rng(7)).hid.deck
    assert g.from_observation(REBEL, obs, np.random.default_rng(7)).hid.deck == same


def test_s5_1_face_down_cards_and_decoys_come_back_as_the_rebel_sees_them():
    g = stage(new_game(0), hand=[I(2), R(3), DECOYS[0], DECOYS[1], I(5)], row=[0, 1, 2, 3, 4])
    g.step(0)
    g.step(play_action(g, I(2), [R(3), DECOYS[0]]))  # one face up, a suit card and a Decoy face down
    r = g.from_observation(REBEL, g.observe(REBEL), np.random.default_rng(0))
    types = lambda game: sorted(D.CARD_TYPE[game.hid.hcard[h]] for h in range(game.pub.n_played))  # noqa: E731
    assert types(r) == types(g) == sorted([I(2), R(3), D.DECOY_TYPE])
    assert [D.CARD_TYPE[c] for c in r.hid.hand] == [D.CARD_TYPE[c] for c in g.hid.hand]
    decoy_ids = [c for c in r.hid.hand + r.hid.deck + r.hid.hcard[:r.pub.n_played] if c >= D.DECOY_FIRST]
    assert sorted(decoy_ids) == list(range(D.DECOY_FIRST, D.NUM_CARDS))  # four Decoys, each once


def test_s5_1_the_empires_observation_cannot_be_rebuilt_and_says_why_in_one_line():
    g = new_game(0)
    with pytest.raises(ValueError, match="from the Rebel's observation only") as err:
        g.from_observation(EMPIRE, g.observe(EMPIRE), np.random.default_rng(0))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("tamper, message", [
    (lambda o: o[:-1], "observation of this config has"),
    (lambda o: np.concatenate([o[:2][::-1], o[2:]]), "this one is the Empire's"),
    (lambda o: np.where(np.arange(o.size) == o.size - 1, 0.5, o), "not one the Rebel of this unrest_v0 config can see"),
])
def test_an_observation_the_rebel_cannot_see_is_a_one_line_error(tamper, message):
    g = new_game(0)
    with pytest.raises(ValueError, match=message) as err:
        g.from_observation(REBEL, tamper(g.observe(REBEL)), np.random.default_rng(0))
    assert "\n" not in str(err.value)


def test_a_game_that_cannot_rebuild_says_so_in_one_line():
    g = make_game("the_agents_v0", num_players=2)
    g.reset(0)
    assert g.rebuilds_from == () and make_game("unrest_v0").rebuilds_from == ("rebel",)
    with pytest.raises(ValueError, match="the_agents_v0 cannot rebuild its state from an observation"):
        g.from_observation(0, g.observe(0), np.random.default_rng(0))
