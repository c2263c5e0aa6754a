"""Play, replay and the HTML page on every registered env (each joins as it is
registered): a scripted human plays a whole game against random opponents, and the
record of its first decisions becomes a replay page."""

from __future__ import annotations

import io

import pytest

from spyenvs.tools.html_replay import build_replay_data
from spyenvs.tools.play import play_game
from spyenvs.registry import ENV_IDS
from spyenvs.tools.replay import ReplayTimeline

#: decisions of each record the HTML test renders (pictures for every view and step)
HTML_STEPS = 10


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_scripted_human_plays_a_whole_game(env_id, tmp_path):
    # the human answers nonsense once per decision, then its first legal move
    answers = iter(["not a move", "1"] * 100000)
    out = io.StringIO()
    res = play_game(env_id, {}, seat=0, seed=7, record_path=tmp_path / "game.json",
                    input_fn=lambda p: next(answers), out=out)
    assert res.finished and (tmp_path / "game.json").exists()
    text = out.getvalue()
    assert "'not a move' is not a legal move" in text and "outcome:" in text


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_replay_page_of_a_game_start(env_id, tmp_path):
    answers = iter(["1"] * HTML_STEPS)

    def human(prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    rec = play_game(env_id, {}, seat=0, seed=3, save=False, input_fn=human, out=io.StringIO()).record
    rec["actions"] = rec["actions"][:HTML_STEPS]
    data = build_replay_data(rec)
    tl = ReplayTimeline(rec)
    assert data["steps"] == len(tl) and len(data["views"]) == len(tl.roles) + 1
    for k, v in enumerate([None, *range(len(tl.roles))]):
        assert data["texts"][data["text_idx"][k][-1]] == tl.states[-1].render_text(v)
