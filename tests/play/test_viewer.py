"""The human render mode's viewer: text without a display, a pygame window with one
(SDL's dummy video driver stands in for a display here)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from spyenvs.core.viewer import Viewer, display_available, show_human
from tests.core.toy_game import HighCard


def test_no_display_falls_back_to_text(monkeypatch, capsys):
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert not display_available()
    game = HighCard(num_players=2)
    game.reset(3)
    viewer = show_human(game, 0)
    assert not viewer.is_window
    assert game.render_text(0) in capsys.readouterr().out
    with pytest.raises(RuntimeError, match="no display"):
        Viewer(mode="window")


def test_text_mode_writes_to_its_stream():
    out = io.StringIO()
    Viewer(mode="text", out=out).show(np.zeros((4, 4, 3), np.uint8), "hello")
    assert out.getvalue() == "hello\n"
    with pytest.raises(ValueError, match="allowed"):
        Viewer(mode="sideways")


def test_window_shows_pictures_with_a_display(monkeypatch):
    pg = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    game = HighCard(num_players=3)
    game.reset(1)
    viewer = show_human(game, None)
    try:
        assert viewer.is_window
        rgb = game.render_rgb(None)
        assert viewer._screen.get_size() == (rgb.shape[1], rgb.shape[0])
        assert np.array_equal(pg.surfarray.array3d(viewer._screen).swapaxes(0, 1), rgb)
        big = np.full((3000, 1000, 3), 200, np.uint8)
        viewer.show(big)  # scaled down to fit, window resized
        w, h = viewer._screen.get_size()
        assert h <= viewer.max_size[1] and w < 1000
        game.step(1)
        assert show_human(game, None, viewer) is viewer
    finally:
        viewer.close()


def test_play_with_a_window_shows_the_humans_view(toy_env_id, monkeypatch, tmp_path):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    shown = []
    monkeypatch.setattr(Viewer, "_show_window", lambda self, rgb: shown.append(rgb))
    from spyenvs.tools.play import play_game

    res = play_game(toy_env_id, {"num_players": 2}, seat=1, seed=4, save=False,
                    input_fn=lambda p: "stay", out=io.StringIO(), window=True)
    game = HighCard(num_players=2)
    game.reset(4)
    game.step(res.record["actions"][0])
    assert res.finished and len(shown) == 1
    assert np.array_equal(shown[0], game.render_rgb(1))


def test_aec_human_mode_uses_the_viewer(monkeypatch, capsys):
    from spyenvs.core.aec import SpyAECEnv

    for var in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    env = SpyAECEnv(HighCard(num_players=2), render_mode="human", render_view="player_0")
    env.reset(seed=2)
    env.step(0)
    assert env.game.render_text(0) in capsys.readouterr().out
    env.close()
