"""scripts/unrest_reply_probe.py and its Rebel, the look-ahead through the heuristic
Empire's reply (spyenvs.agents.lookahead): it reads only what she knows."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from spyenvs.agents.registry import make_policy
from spyenvs.registry import make_game

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("unrest_reply_probe",
                                              os.path.join(ROOT, "scripts", "unrest_reply_probe.py"))
probe = importlib.util.module_from_spec(spec)
spec.loader.exec_module(probe)


def _at_first_play(seed: int):
    g = make_game("unrest_v0")
    g.reset(seed)
    heuristic = make_policy("heuristic", seed=0, env_id="unrest_v0").bind(g, probe.REBEL)
    while g.decision_name() != "play_cards":
        g.step(int(heuristic.act(g.observe(g.current_player), g.legal_mask())))
    return g


def test_the_look_ahead_plays_on_her_determinizations_never_on_the_game():
    """Her values depend on what she knows only (rules §5.1: not the deck's order), and
    the live game is left as it was."""
    g = _at_first_play(3)
    other = g.resample_hidden(probe.REBEL, np.random.default_rng(99))  # the same for her, another deck order
    assert list(other.hid.deck) != list(g.hid.deck)
    actions, deck = list(g.actions), list(g.hid.deck)
    for play in np.flatnonzero(g.legal_mask())[:5]:
        here = make_policy(probe.rebel_spec(3), seed=7, env_id="unrest_v0").bind(g, probe.REBEL)
        there = make_policy(probe.rebel_spec(3), seed=7, env_id="unrest_v0").bind(other, probe.REBEL)
        assert here.play_out(int(play)) == pytest.approx(there.play_out(int(play)))
    assert list(g.actions) == actions and list(g.hid.deck) == deck


def test_the_probe_plays_whole_games_and_counts_the_plays_it_weighed():
    won, changed, looked = probe.play((0, 2))
    assert won in (0.0, 0.5, 1.0) and looked >= 5 and 0 <= changed <= looked
    assert probe.play((0, 0))[1:] == (0, 0)  # the heuristic weighs nothing


def test_bad_arguments_are_one_line_errors(capsys):
    assert probe.run_reporting_errors(lambda: probe.main(["--games", "0"]), prog="unrest_reply_probe") == 2
    err = capsys.readouterr().err
    assert err.startswith("unrest_reply_probe: error: --games") and err.count("\n") == 1
