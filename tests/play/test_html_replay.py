"""The self-contained HTML replay page: its data, views and that it needs no network."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest

from spyenvs.cli import main
from spyenvs.tools.html_replay import _script_json, build_replay_data, render_html, write_html_replay
from spyenvs.tools.replay import ReplayTimeline

from .records import toy_record, toy_record_file


def page_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    return json.loads(m.group(1))


def test_page_holds_every_step_in_every_view(toy_env_id, tmp_path):
    rec = toy_record(toy_env_id)
    path = write_html_replay(rec, tmp_path / "r.html")
    page = path.read_text()
    data = page_data(page)
    tl = ReplayTimeline(rec)
    assert data["views"] == ["omniscient", "player_0", "player_1", "player_2"]
    assert data["steps"] == 3 and [len(row) for row in data["status"]] == [4] * 4
    assert data["status"][0][1] == "to move: player_1 (stay_or_swap)"  # omniscient
    assert data["status"][2][1] == "to move: player_1 (stay_or_swap)"  # player_1 itself
    assert data["status"][3][1] == "to move: player_1"  # player_2 does not see the decision
    for k, v in enumerate([None, 0, 1, 2]):
        for s in range(4):
            assert data["texts"][data["text_idx"][k][s]] == tl.states[s].render_text(v)
        assert [m["labels"][k] for m in data["moves"]] == [tl.move_label(i, v) for i in range(3)]
    assert data["outcome"] == rec["outcome"]
    # the toy game draws no picture of its own: auto mode stores none
    assert data["images"] == [] and all(i == -1 for row in data["img_idx"] for i in row)


def test_a_roles_view_never_holds_other_hands(toy_env_id):
    rec = toy_record(toy_env_id)
    data = build_replay_data(rec)
    tl = ReplayTimeline(rec)
    for s, state in enumerate(tl.states):
        text = data["texts"][data["text_idx"][2][s]]  # views[2] is player_1
        assert text.splitlines()[0] == f"hands: ? {state.hands[1]} ?"


def test_page_is_self_contained(toy_env_id, tmp_path):
    page = write_html_replay(toy_record(toy_env_id), tmp_path / "r.html", images="all").read_text()
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:|//)', page)
    assert "@import" not in page and "<link" not in page
    assert 'id="step"' in page and 'type="range"' in page and 'id="view"' in page and 'id="move-log"' in page


def test_pictures_are_inline_pngs_and_deduplicated(toy_env_id):
    data = build_replay_data(toy_record(toy_env_id), images="all")
    assert data["images"]
    for b64 in data["images"]:
        assert base64.b64decode(b64)[:8] == b"\x89PNG\r\n\x1a\n"
    n_distinct_texts = len({data["text_idx"][k][s] for k in range(4) for s in range(4)})
    assert len(data["images"]) == n_distinct_texts  # one picture per distinct text picture
    assert all(0 <= i < len(data["images"]) for row in data["img_idx"] for i in row)


def test_script_json_cannot_close_the_script_element():
    text = _script_json({"t": "</script><script>alert(1)</script> & <!--"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text)["t"].startswith("</script>")


def test_initial_view_is_stored(toy_env_id):
    data = build_replay_data(toy_record(toy_env_id))
    assert page_data(render_html(data, "player_2"))["initial_view"] == 3
    assert page_data(render_html(data, None))["initial_view"] == -1


def test_cli_writes_the_page(toy_env_id, tmp_path, capsys):
    toy_record_file(toy_env_id, tmp_path / "r.json")
    out = tmp_path / "out.html"
    assert main(["replay", str(tmp_path / "r.json"), "--html", str(out), "--view", "player_1"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert page_data(out.read_text())["initial_view"] == 2
    with pytest.raises(SystemExit, match="--view must be"):
        main(["replay", str(tmp_path / "r.json"), "--html", str(out), "--view", "nobody"])


def test_readme_pictures_are_written_from_render_rgb(toy_env_id, tmp_path):
    from spyenvs.tools.pictures import game_picture, write_pictures

    rgb = game_picture(toy_env_id, seed=1, view="player_1")
    assert rgb.ndim == 3 and rgb.shape[2] == 3 and rgb.dtype == np.uint8
    (path,) = write_pictures(tmp_path, [toy_env_id], seed=1)
    assert path.name == f"{toy_env_id}.png" and path.read_bytes()[:4] == b"\x89PNG"
