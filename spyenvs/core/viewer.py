"""The ``human`` render mode: a window showing ``render_rgb`` where a display exists,
printed ``render_text`` otherwise.

pygame is optional (PettingZoo's classic extra brings it) and imported only when a
window is actually opened, so headless machines and CI never need it. The window
follows the picture's size (scaled down to fit ``max_size``); closing it switches
the viewer to text for the rest of the run instead of raising.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

import numpy as np

MODES = ("auto", "window", "text")


def display_available() -> bool:
    """Whether a window can be opened here (a display server, or SDL told to fake one)."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return True
    if sys.platform.startswith(("win", "darwin")):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _import_pygame():
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame  # noqa: PLC0415  - late: optional, and only when a window opens

    return pygame


class Viewer:
    """Shows pictures in a pygame window, or text on ``out`` when it cannot.

    ``mode``: ``auto`` (window if a display and pygame exist, else text), ``window``
    (raise if impossible), ``text``. ``fps`` (if set) paces calls to ``show`` like
    PettingZoo's human mode does.
    """

    def __init__(self, title: str = "spyenvs", mode: str = "auto", fps: float | None = None,
                 max_size: tuple[int, int] = (1400, 950), out: TextIO | None = None):
        if mode not in MODES:
            raise ValueError(f"viewer mode {mode!r} not supported; allowed: {', '.join(MODES)}")
        self.title = title
        self.fps = fps
        self.max_size = max_size
        self.out = out
        self._pygame = None
        self._screen = None
        self._clock = None
        self.mode = "text"
        if mode != "text":
            reason = None
            if not display_available():
                reason = "no display"
            else:
                try:
                    self._pygame = _import_pygame()
                except ImportError:
                    reason = "pygame is not installed (pip install pygame)"
            if reason is None:
                self.mode = "window"
            elif mode == "window":
                raise RuntimeError(f"cannot open a window: {reason}")

    @property
    def is_window(self) -> bool:
        return self.mode == "window"

    def _scaled_size(self, w: int, h: int) -> tuple[int, int]:
        f = min(1.0, self.max_size[0] / w, self.max_size[1] / h)
        return max(1, int(w * f)), max(1, int(h * f))

    def show(self, rgb: np.ndarray | None = None, text: str | None = None) -> None:
        """Show one frame: the picture in the window, or the text if there is none."""
        if self.mode == "window" and rgb is not None:
            self._show_window(np.ascontiguousarray(rgb, dtype=np.uint8))
        elif text is not None:
            out = self.out or sys.stdout
            out.write(text + "\n")
            out.flush()

    def _show_window(self, rgb: np.ndarray) -> None:
        pg = self._pygame
        h, w = rgb.shape[:2]
        size = self._scaled_size(w, h)
        if self._screen is None:
            pg.display.init()
            pg.display.set_caption(self.title)
            self._screen = pg.display.set_mode(size)
            self._clock = pg.time.Clock()
        elif self._screen.get_size() != size:
            self._screen = pg.display.set_mode(size)
        for event in pg.event.get():
            if event.type == pg.QUIT:
                # the user closed the window: keep running, in text
                self.close()
                self.mode = "text"
                return
        surf = pg.surfarray.make_surface(rgb.swapaxes(0, 1))
        if size != (w, h):
            surf = pg.transform.smoothscale(surf, size)
        self._screen.blit(surf, (0, 0))
        pg.display.flip()
        if self.fps:
            self._clock.tick(self.fps)

    def close(self) -> None:
        if self._screen is not None and self._pygame is not None:
            self._pygame.display.quit()
        self._screen = None


def show_human(game, view: int | None, viewer: Viewer | None = None, fps: float | None = None) -> Viewer:
    """Render ``game`` from ``view`` for the ``human`` mode; returns the viewer to
    reuse on the next call (the AEC adapter keeps it and closes it in ``close()``)."""
    if viewer is None:
        title = f"{game.env_id} — {'omniscient' if view is None else game.roles[view]}"
        viewer = Viewer(title=title, fps=fps)
    if viewer.is_window:
        viewer.show(game.render_rgb(view))
    else:
        viewer.show(None, game.render_text(view))
    return viewer
