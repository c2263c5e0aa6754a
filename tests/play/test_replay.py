"""Terminal replay: the timeline, interactive stepping and the CLI."""

from __future__ import annotations

import io

import pytest

from spyenvs.cli import main
from spyenvs.core.errors import RecordError
from spyenvs.tools.replay import ReplayTimeline, print_replay, step_through

from .records import toy_record, toy_record_file


def test_timeline_holds_every_state_and_labels_moves_per_view(toy_env_id):
    tl = ReplayTimeline(toy_record(toy_env_id))
    assert len(tl) == 3 and len(tl.states) == 4
    assert tl.actors == [0, 1, 2]
    assert tl.move_label(0, None) == "stay" and tl.move_label(1, None) == "swap"
    # player_1 sees only its own choice; the others' show as the decision name
    assert [tl.move_label(i, 1) for i in range(3)] == ["(stay_or_swap)", "swap", "(stay_or_swap)"]
    assert tl.states[-1].is_over and "game over" in tl.status_line(3)
    assert tl.status_line(0) == "to move: player_0 (stay_or_swap)"
    assert tl.status_line(0, 0) == "to move: player_0 (stay_or_swap)"
    assert tl.status_line(0, 1) == "to move: player_0"
    assert tl.view_index("omniscient") is None and tl.view_index("player_2") == 2
    with pytest.raises(ValueError, match="allowed: omniscient"):
        tl.view_index("nobody")


def test_interactive_stepping_forward_back_jump_and_quit(toy_env_id):
    tl = ReplayTimeline(toy_record(toy_env_id))
    answers = iter(["", "n", "b", "3", "", "b", "0", "b", "what", "q"])
    out = io.StringIO()
    stopped = step_through(tl, 1, input_fn=lambda p: next(answers), out=out)
    text = out.getvalue()
    assert stopped == 0
    frames = [line for line in text.splitlines() if line.startswith("---- step")]
    assert [f.split()[2] for f in frames] == ["0/3", "1/3", "2/3", "1/3", "3/3", "2/3", "0/3"]
    assert "(end of the game" in text and "(start of the game)" in text
    assert "unknown command 'what'" in text
    assert "#2 player_1: swap" in text and "#1 player_0: (stay_or_swap)" in text


def test_interactive_stepping_ends_on_eof(toy_env_id):
    tl = ReplayTimeline(toy_record(toy_env_id))

    def eof(prompt=""):
        raise EOFError

    assert step_through(tl, None, input_fn=eof, out=io.StringIO(), start=2) == 2


def test_print_replay_every_step_shows_each_state(toy_env_id):
    tl = ReplayTimeline(toy_record(toy_env_id))
    out = io.StringIO()
    print_replay(tl, None, True, out)
    text = out.getvalue()
    for s in range(4):
        assert tl.states[s].render_text(None) in text
    assert "#1 player_0: stay" in text


def test_cli_replay_every_step_from_a_view(toy_env_id, tmp_path, capsys):
    rec = toy_record_file(toy_env_id, tmp_path / "r.json")
    assert main(["replay", str(tmp_path / "r.json"), "--view", "player_2", "--every-step"]) == 0
    out = capsys.readouterr().out
    assert out.count("---- step") == len(rec["actions"]) + 1
    assert "#3 player_2: swap" in out and "#2 player_1: (stay_or_swap)" in out
    assert "game over" in out


def test_cli_replay_interactive_with_scripted_input(toy_env_id, tmp_path, monkeypatch, capsys):
    toy_record_file(toy_env_id, tmp_path / "r.json")
    answers = iter(["", "q"])
    monkeypatch.setattr("builtins.input", lambda p="": next(answers))
    assert main(["replay", str(tmp_path / "r.json"), "--interactive"]) == 0
    assert "step 1/3" in capsys.readouterr().out


def test_cli_replay_rejects_a_bad_view_and_a_corrupt_record(toy_env_id, tmp_path, capsys):
    toy_record_file(toy_env_id, tmp_path / "r.json")
    with pytest.raises(SystemExit, match="allowed: omniscient"):
        main(["replay", str(tmp_path / "r.json"), "--view", "nobody"])
    (tmp_path / "bad.json").write_text("{not json")
    assert main(["replay", str(tmp_path / "bad.json")]) == 2
    assert "not a JSON game record" in capsys.readouterr().err


def test_timeline_rejects_a_record_that_does_not_replay(toy_env_id):
    rec = toy_record(toy_env_id)
    rec["actions"] = rec["actions"] + [0]
    with pytest.raises(RecordError, match="after the game ended"):
        ReplayTimeline(rec)
