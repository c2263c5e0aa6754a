"""The look-ahead prior (``net.prior: lookahead:...``, agents/prior.py): the heuristic's
scores, except at the look-ahead's decisions of a seat whose observation fixes the
state, where each legal move scores its play-out's evaluation, computed on a game
rebuilt from the observation alone."""

import json

import numpy as np
import pytest

from spyenvs.agents import lookahead as lookahead_mod
from spyenvs.agents.checkpoint import CheckpointError
from spyenvs.agents.prior import LOOKAHEAD_SCALE, LOOKAHEAD_TIE, make_prior, prior_columns
from spyenvs.agents.torch_policy import TorchPolicy
from spyenvs.games.unrest.rules import EMPIRE, REBEL
from spyenvs.registry import make_game

SPEC = "lookahead:play_cards:through=assign_card:dets=1"


def _at(decision: str, seed: int = 0):
    """An Unrest game at ``decision``, the heuristic playing both seats up to it."""
    g = make_game("unrest_v0")
    g.reset(seed)
    heuristic = make_prior("heuristic", seed=0)
    bound = {p: heuristic.template.bind(g, p) for p in (REBEL, EMPIRE)}
    while g.decision_name() != decision:
        p = g.current_player
        g.step(int(bound[p].act(g.observe(p), g.legal_mask())))
    return g


def _scores(prior, game, seat):
    return prior.bind(game, seat).scores(game.observe(seat)[None], game.legal_mask()[None])[0]


def test_at_play_each_move_scores_its_play_out_and_the_heuristics_own_move_breaks_ties(monkeypatch):
    g = _at("play_cards")
    legal = np.flatnonzero(g.legal_mask())
    heuristic_columns = _scores(make_prior("heuristic", seed=0), g, REBEL)
    own = int(legal[np.argmax(heuristic_columns[legal])])
    best_by_play_out = {own, int(legal[-1])}  # the heuristic's move ties the last move for the best value
    seen = []

    def fake_play_out(game, seat, action, *_):
        seen.append((seat, action))
        assert np.array_equal(game.observe(REBEL), g.observe(REBEL))  # the rebuilt game is the one she sees
        return 0.5 if action in best_by_play_out else -0.25

    monkeypatch.setattr(lookahead_mod, "play_out_value", fake_play_out)
    columns = _scores(make_prior(SPEC, seed=0), g, REBEL)
    assert sorted(a for _, a in seen) == legal.tolist() and {s for s, _ in seen} == {REBEL}
    raw = np.full(g.num_actions, -np.inf)
    raw[legal] = [LOOKAHEAD_SCALE * (0.5 if a in best_by_play_out else -0.25) for a in legal]
    raw[own] += LOOKAHEAD_TIE
    assert np.allclose(columns, prior_columns(raw[None], g.legal_mask()[None])[0])
    assert int(legal[np.argmax(columns[legal])]) == own


@pytest.mark.parametrize("decision, seat", [("choose_area", REBEL), ("empire_action_1", EMPIRE)])
def test_elsewhere_and_for_the_empire_the_prior_is_the_heuristics(decision, seat, monkeypatch):
    monkeypatch.setattr(lookahead_mod, "play_out_value", lambda *a: pytest.fail("looked ahead off its decision"))
    g = _at(decision)
    assert np.array_equal(_scores(make_prior(SPEC, seed=0), g, seat), _scores(make_prior("heuristic", seed=0), g, seat))


def test_the_look_ahead_reads_the_observation_never_the_game_it_was_bound_to():
    """Bound to another game, or to the true one, the same seed scores the same observation
    alike: the play-outs run on a game rebuilt from the observation (deck dealt at random)."""
    g = _at("play_cards", seed=0)
    other = _at("play_cards", seed=5)
    obs, mask = g.observe(REBEL)[None], g.legal_mask()[None]
    on_true = make_prior(SPEC, seed=3).bind(g, REBEL).scores(obs, mask)
    on_other = make_prior(SPEC, seed=3).bind(other, REBEL).scores(obs, mask)
    assert np.array_equal(on_true, on_other)
    assert np.ptp(on_true[0][mask[0] > 0]) > 0  # the play-outs told the moves apart


def test_a_game_that_cannot_rebuild_its_state_refuses_the_prior_in_one_line():
    g = make_game("the_agents_v0", num_players=2)
    g.reset(0)
    with pytest.raises(ValueError, match="needs a game that rebuilds its state from an observation; "
                                         "the_agents_v0 cannot") as err:
        make_prior("lookahead:play:dets=1").bind(g, 0)
    assert "\n" not in str(err.value)


def test_a_file_over_the_look_ahead_plays_from_its_seat_and_a_bad_spec_is_a_checkpoint_error():
    from spyenvs.agents.checkpoint import read_checkpoint
    from spyenvs.agents.pretrained import pretrained_path

    arrays, meta = read_checkpoint(pretrained_path("unrest_v0"))
    meta = json.loads(json.dumps(meta))
    meta["prior"] = {"kind": SPEC, "weight": 30.0}
    policy = TorchPolicy.from_arrays(arrays, meta, seed=0)
    g = _at("play_cards")
    assert g.legal_mask()[policy.bind(g, REBEL).act(g.observe(REBEL), g.legal_mask())]
    for bad in ("lookahead:play_cards:dets=0", "lookahead:"):
        with pytest.raises(CheckpointError, match="prior") as err:
            TorchPolicy.from_arrays(arrays, dict(meta, prior={"kind": bad, "weight": 30.0}))
        assert "\n" not in str(err.value)


def test_a_run_over_the_look_ahead_on_a_game_that_cannot_rebuild_fails_before_training_in_one_line():
    from spyenvs.experiments.train_selfplay import describe_game, load_config

    cfg = load_config(None, "the_agents_v0", {"net.prior": "lookahead:play:dets=1", "game": {"num_players": 2}})
    with pytest.raises(ValueError, match="the_agents_v0 cannot") as err:
        describe_game(cfg)
    assert "\n" not in str(err.value)
