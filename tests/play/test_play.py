"""The terminal play loop, driven by scripted input on the toy HighCard game."""

from __future__ import annotations

import io
import sys
import types

import numpy as np
import pytest

from spyenvs.cli import main
from spyenvs.core.records import load_record
from spyenvs.registry import replay
from spyenvs.tools.play import PlayError, format_choices, make_opponent, parse_choice, play_game
from spyenvs.registry import make_game


def scripted(lines):
    """An input() stand-in that answers from ``lines`` then signals end of input."""
    it = iter(lines)

    def fake_input(prompt=""):
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return fake_input


def run(env_id, lines, tmp_path, **kw):
    out = io.StringIO()
    kw.setdefault("seed", 5)
    res = play_game(env_id, kw.pop("config", {"num_players": 2}), record_path=tmp_path / "game.json",
                    input_fn=scripted(lines), out=out, **kw)
    return res, out.getvalue()


def test_invalid_input_reprompts_and_the_finished_game_is_saved(toy_env_id, tmp_path):
    res, text = run(toy_env_id, ["", "7", "0", "banana", "#9", "swap"], tmp_path, seat=0)
    assert res.finished and res.outcome is not None
    assert "type the number of a move" in text
    assert "no move 7: choose 1..2" in text and "no move 0" in text
    assert "'banana' is not a legal move" in text
    assert "action id 9 is not legal now" in text
    assert "player_0 (you): swap" in text
    rec = load_record(tmp_path / "game.json")
    assert rec["actions"][0] == 1 and rec["outcome"] == res.outcome
    assert replay(rec).is_over


@pytest.mark.parametrize("stop", [EOFError, KeyboardInterrupt])
def test_eof_and_ctrl_c_exit_cleanly_and_save_the_game_so_far(toy_env_id, tmp_path, stop):
    def raiser(prompt=""):
        raise stop

    out = io.StringIO()
    res = play_game(toy_env_id, {"num_players": 3}, seat=2, seed=1, record_path=tmp_path / "g.json",
                    input_fn=raiser, out=out)
    assert not res.finished and res.outcome is None
    assert "stopped; the game so far is saved" in out.getvalue()
    rec = load_record(tmp_path / "g.json")
    assert len(rec["actions"]) == 2 and "outcome" not in rec  # the two opponents moved first
    assert not replay(rec).is_over


def test_quit_command_stops(toy_env_id, tmp_path):
    res, text = run(toy_env_id, ["?", "log", "s", "quit"], tmp_path, seat=0)
    assert not res.finished
    assert "Other commands" in text and "(no moves yet)" in text


def test_human_sees_only_their_view_until_the_end(toy_env_id, tmp_path):
    res, text = run(toy_env_id, ["stay"], tmp_path, seat=1, config={"num_players": 3})
    before_end = text.split("==== game over")[0]
    start = make_game(toy_env_id, num_players=3)
    start.reset(5)
    mine = start.hands[1]
    assert f"hands: ? {mine} ?" in before_end
    # the other players' cards and their stay/swap choices never appear before the end
    assert "hands: " + " ".join(map(str, start.hands)) not in before_end
    assert "player_0: (stay_or_swap)" in before_end and "player_0: stay" not in before_end
    assert "player_0: swap" not in before_end
    assert "==== everything revealed ====" in text


def test_seat_by_role_name_and_bad_seat(toy_env_id, tmp_path):
    res, text = run(toy_env_id, ["1"], tmp_path, seat="player_1")
    assert "You play player_1" in text and res.finished
    with pytest.raises(PlayError, match="allowed: 0..1"):
        run(toy_env_id, [], tmp_path, seat=5)
    with pytest.raises(PlayError, match="not a seat"):
        run(toy_env_id, [], tmp_path, seat="dealer")


def test_parse_choice_by_number_label_prefix_and_id():
    legal, labels = [3, 8, 9], ["play Spy 1", "play Spy 2", "pass"]
    assert parse_choice("2", legal, labels) == (8, "")
    assert parse_choice("PASS", legal, labels) == (9, "")
    assert parse_choice("pa", legal, labels) == (9, "")
    assert parse_choice("#3", legal, labels) == (3, "")
    assert parse_choice("spy 2", legal, labels) == (8, "")  # a unique part of a label
    a, why = parse_choice("play", legal, labels)
    assert a is None and "several moves" in why
    a, why = parse_choice("#x", legal, labels)
    assert a is None and "needs a number" in why


def test_many_choices_are_listed_in_columns():
    labels = [f"move to cell {i}" for i in range(40)]
    text = format_choices(labels, width=80)
    assert len(text.splitlines()) < 40
    assert all(f"{k}) move to cell {k - 1}" in text for k in range(1, 41))


def test_opponents_other_than_random_come_from_spyenvs_agents(toy_env_id, monkeypatch):
    game = make_game(toy_env_id)
    game.reset(0)

    class AlwaysSwap:
        def bind(self, game, seat):
            bound.append((game, seat))
            return self

        def act(self, observation, mask):
            return 1

    calls, bound = [], []

    def make_policy(spec, seed=None):
        calls.append((spec, seed))
        return AlwaysSwap()

    fake = types.ModuleType("spyenvs.agents")
    fake.make_policy = make_policy
    monkeypatch.setitem(sys.modules, "spyenvs.agents", fake)
    pol = make_opponent("heuristic", game, 1, seed=3)
    assert isinstance(pol, AlwaysSwap)
    assert calls == [("heuristic", 3)] and bound == [(game, 1)]


def test_play_against_the_agents_package(toy_env_id, tmp_path):
    pytest.importorskip("spyenvs.agents.registry")
    res, text = run(toy_env_id, ["stay"], tmp_path, seat=0, opponents=["ismcts:20"], config={"num_players": 3})
    assert res.finished and "player_1=ismcts:20" in text
    with pytest.raises(ValueError, match="unknown policy"):
        run(toy_env_id, [], tmp_path, opponents=["no-such-policy"])


def test_random_opponent_plays_legal_moves():
    pol = make_opponent("random", None, 0, seed=0)
    mask = np.array([0, 1, 0, 1], np.int8)
    assert {pol.act(None, mask) for _ in range(50)} == {1, 3}


def test_cli_play_with_scripted_stdin(toy_env_id, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", scripted(["oops", "1"]))
    path = tmp_path / "cli.json"
    rc = main(["play", toy_env_id, "--seat", "0", "--vs", "random", "--seed", "2", "--record", str(path)])
    out = capsys.readouterr().out
    assert rc == 0 and "'oops' is not a legal move" in out and f"record saved to {path}" in out
    assert load_record(path)["actions"][0] == 0


def test_cli_play_unknown_env_and_bad_opponent_count(toy_env_id, tmp_path, capsys):
    assert main(["play", "no_such_env_v0", "--no-record"]) == 2
    assert "unknown env id" in capsys.readouterr().err
    assert main(["play", toy_env_id, "--players", "3", "--vs", "random", "--vs", "random",
                 "--vs", "random", "--no-record"]) == 2
    assert "one per other seat" in capsys.readouterr().err


def test_a_forced_move_is_played_without_asking(toy_env_id, tmp_path, monkeypatch):
    from tests.core.toy_game import HighCard

    monkeypatch.setattr(HighCard, "legal_mask", lambda self: np.array([0, 1], np.int8))
    res, text = run(toy_env_id, [], tmp_path, seat=0)
    assert res.finished and "player_0 (you): swap (the only legal move)" in text
    res, text = run(toy_env_id, ["2", "1"], tmp_path, seat=0, auto_forced=False)
    assert res.finished and "---- player_0: stay_or_swap ----" in text


# ------------------------------------------------- one view per turn
def test_view_changes_shows_only_the_changed_lines():
    from spyenvs.tools.play import view_changes

    before = "\n".join(f"row {i} ....." for i in range(30)) + "\nstatus: 0"
    after = before.replace("row 7 .....", "row 7 ..A..").replace("status: 0", "status: 1")
    change = view_changes(before, after)
    assert change.splitlines()[1:] == ["row 7 ..A..", "status: 1"]
    assert view_changes(before, before).startswith("unchanged")
    assert view_changes(before, "\n".join(f"other {i}" for i in range(31))) is None  # most of it changed


def map_header():
    """The Specter Ops map's column-letter line, printed once with every whole map."""
    game = make_game("specter_ops_v0", num_players=2)
    game.reset(3)
    return next(line for line in game.render_text(0).splitlines() if "ABCDEFGHIJKLMNOPQRSTUVW" in line)


def own_decision_headers(text):
    return [line for line in text.splitlines() if line.startswith("==== your view (")]


@pytest.mark.parametrize("full_view", [False, True])
def test_specter_ops_map_is_printed_once_per_turn_unless_asked(tmp_path, full_view):
    """The agent's set-up and her move are many decisions in a row: the 32-row map is
    printed when her turn starts, then only what changed (issue 13), unless full_view."""
    out = io.StringIO()
    play_game("specter_ops_v0", {"num_players": 2}, seat="agent", seed=3, input_fn=scripted(["1"] * 12),
              out=out, save=False, full_view=full_view)
    text = out.getvalue()
    headers = own_decision_headers(text)
    full = [h for h in headers if h.endswith(" ====") and ": " not in h.split("decision #", 1)[1]]
    assert len(headers) >= 8
    first_map_row = map_header()
    if full_view:
        assert len(full) == len(headers) == text.count(first_map_row)
    else:
        assert len(full) < len(headers) / 2 and text.count(first_map_row) == len(full)
        assert any("changed lines" in h for h in headers)


def test_show_prints_the_whole_view_mid_turn(tmp_path):
    out = io.StringIO()
    play_game("specter_ops_v0", {"num_players": 2}, seat="agent", seed=3,
              input_fn=scripted(["1", "1", "s", "1"]), out=out, save=False)
    first_map_row = map_header()
    assert out.getvalue().count(first_map_row) == 2  # the turn's start and the "s"


def test_play_full_map_flag_reaches_the_play_loop(monkeypatch):
    seen = {}
    monkeypatch.setattr("spyenvs.tools.play.play_game", lambda *a, **kw: seen.update(kw))
    assert main(["play", "unrest_v0", "--full-map", "--no-record"]) == 0
    assert seen["full_view"] is True
    assert main(["play", "unrest_v0", "--no-record"]) == 0
    assert seen["full_view"] is False
