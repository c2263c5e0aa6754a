"""Pure-numpy drawing primitives shared by the card-game renderers: a canvas,
filled boxes with borders, card tiles with lettering, card backs, small suit
shapes and scaled text. Everything draws into an (H, W, 3) uint8 array in place and
clips at its edges, so callers can lay out tables without bounds checks."""

from __future__ import annotations

import numpy as np

from .textimage import GLYPH_H, GLYPH_W, draw_text

__all__ = [
    "GLYPH_H", "GLYPH_W", "INK", "PAPER", "canvas", "fill", "box", "text", "text_center", "big_text",
    "text_width", "card", "card_back", "shape", "wrap", "shade",
]

PAPER = (250, 248, 240)
INK = (30, 30, 30)
BACK = (52, 70, 120)
BACK_STRIPE = (86, 108, 168)


def canvas(h: int, w: int, bg=PAPER) -> np.ndarray:
    row = np.empty((1, w, 3), np.uint8)
    row[:] = bg
    return np.repeat(row, h, axis=0)


def _clip(img, x, y, w, h):
    H, W = img.shape[:2]
    return max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)


def fill(img: np.ndarray, x: int, y: int, w: int, h: int, color) -> None:
    H, W = img.shape[:2]
    x1, y1 = x + w, y + h
    if x < 0:
        x = 0
    if y < 0:
        y = 0
    if x1 > W:
        x1 = W
    if y1 > H:
        y1 = H
    if x < x1 and y < y1:
        img[y:y1, x:x1] = color


def box(img: np.ndarray, x: int, y: int, w: int, h: int, fill_color=None, border=INK, thick: int = 1) -> None:
    """A rectangle: optional fill, then a border ``thick`` pixels wide inside it."""
    if fill_color is not None and border is not None and thick > 0:
        fill(img, x, y, w, h, border)  # two fills instead of five: the border, then the inside
        fill(img, x + thick, y + thick, w - 2 * thick, h - 2 * thick, fill_color)
        return
    if fill_color is not None:
        fill(img, x, y, w, h, fill_color)
    if border is not None and thick > 0:
        fill(img, x, y, w, thick, border)
        fill(img, x, y + h - thick, w, thick, border)
        fill(img, x, y, thick, h, border)
        fill(img, x + w - thick, y, thick, h, border)


def text_width(s: str) -> int:
    return len(s) * GLYPH_W


def text(img: np.ndarray, x: int, y: int, s: str, color=INK, max_w: int | None = None) -> None:
    """One line of text, cut to ``max_w`` pixels (ending in '.' when cut)."""
    if max_w is not None and len(s) * GLYPH_W > max_w:
        n = max(0, max_w // GLYPH_W)
        s = s[: max(0, n - 1)] + "." if n else ""
    draw_text(img, x, y, s, color)


def text_center(img: np.ndarray, x: int, y: int, w: int, s: str, color=INK) -> None:
    """Text centred in the span [x, x + w), cut to fit."""
    n = max(0, w // GLYPH_W)
    if len(s) > n:
        s = s[: max(0, n - 1)] + "." if n else ""
    draw_text(img, x + (w - len(s) * GLYPH_W) // 2, y, s, color)


def wrap(s: str, width_chars: int, max_lines: int) -> list[str]:
    """Greedy word wrap to at most ``max_lines`` lines of ``width_chars``."""
    lines: list[str] = []
    cur = ""
    for word in s.split():
        if not cur:
            cur = word
        elif len(cur) + 1 + len(word) <= width_chars:
            cur += " " + word
        else:
            lines.append(cur)
            cur = word
    if cur:
        lines.append(cur)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        lines[-1] = (last[: width_chars - 1] + ".") if len(last) >= width_chars else last + "."
    return [ln[:width_chars] for ln in lines]


_BIG_CACHE: dict[tuple[str, int], np.ndarray] = {}


def big_text(img: np.ndarray, x: int, y: int, s: str, color=INK, scale: int = 2) -> None:
    """Text ``scale`` times the glyph size (nearest-neighbour), clipped."""
    key = (s, scale)
    mask = _BIG_CACHE.get(key)
    if mask is None:
        tmp = np.zeros((GLYPH_H, max(1, len(s)) * GLYPH_W, 3), np.uint8)
        draw_text(tmp, 0, 0, s, (255, 255, 255))
        mask = np.repeat(np.repeat(tmp[..., 0] > 0, scale, 0), scale, 1)
        if len(_BIG_CACHE) < 512:
            _BIG_CACHE[key] = mask
    h, w = mask.shape
    x0, y0, x1, y1 = _clip(img, x, y, w, h)
    if x0 < x1 and y0 < y1:
        img[y0:y1, x0:x1][mask[y0 - y:y1 - y, x0 - x:x1 - x]] = color


def shade(color, k: float):
    """``color`` moved towards white (k > 0) or black (k < 0) by |k| in [0, 1]."""
    if k >= 0:
        return tuple(int(c + (255 - c) * k) for c in color)
    return tuple(int(c * (1 + k)) for c in color)


_BACK_CACHE: dict[tuple[int, int], np.ndarray] = {}


def _back_pattern(w: int, h: int) -> np.ndarray:
    pat = _BACK_CACHE.get((w, h))
    if pat is None:
        yy, xx = np.indices((h, w))
        pat = np.empty((h, w, 3), np.uint8)
        pat[:] = BACK
        stripes = ((xx + yy) % 6 < 2) | ((xx - yy) % 6 < 2)
        pat[stripes] = BACK_STRIPE
        # a plain inner frame, like a printed card back
        m = 4
        if w > 2 * m + 2 and h > 2 * m + 2:
            pat[m, m:w - m] = pat[h - m - 1, m:w - m] = (210, 200, 160)
            pat[m:h - m, m] = pat[m:h - m, w - m - 1] = (210, 200, 160)
        pat[0, :] = pat[-1, :] = INK
        pat[:, 0] = pat[:, -1] = INK
        _BACK_CACHE[(w, h)] = pat
    return pat


def card_back(img: np.ndarray, x: int, y: int, w: int, h: int, label: str | None = None) -> None:
    """A face-down card: cross-hatched back with a frame; optional centred label."""
    pat = _back_pattern(w, h)
    x0, y0, x1, y1 = _clip(img, x, y, w, h)
    if x0 < x1 and y0 < y1:
        img[y0:y1, x0:x1] = pat[y0 - y:y1 - y, x0 - x:x1 - x]
    if label:
        tw = min(len(label), max(1, (w - 4) // GLYPH_W)) * GLYPH_W
        ty = y + (h - GLYPH_H) // 2
        fill(img, x + (w - tw) // 2 - 2, ty - 1, tw + 4, GLYPH_H + 2, BACK)
        text_center(img, x, ty, w, label, (250, 240, 200))


def card(img: np.ndarray, x: int, y: int, w: int, h: int, color, lines=(), ink=INK, border=INK,
         band: int = 0, band_text: str = "", band_ink=(255, 255, 255), thick: int = 1) -> None:
    """A face-up card tile: paper-coloured face tinted by ``color``, a coloured top
    band ``band`` pixels high carrying ``band_text``, then centred ``lines``."""
    box(img, x, y, w, h, shade(color, 0.78), border, thick)
    ty = y + 3
    if band:
        fill(img, x + thick, y + thick, w - 2 * thick, band, color)
        text_center(img, x, y + thick + (band - GLYPH_H) // 2, w, band_text, band_ink)
        ty = y + thick + band + 2
    for line in lines:
        if ty + GLYPH_H > y + h:
            break
        text_center(img, x, ty, w, line, ink)
        ty += GLYPH_H


def _shape_masks(size: int) -> dict[str, np.ndarray]:
    yy, xx = np.indices((size, size))
    c = (size - 1) / 2
    circle = (xx - c) ** 2 + (yy - c) ** 2 <= (size / 2) ** 2
    square = np.ones((size, size), bool)
    square[:1] = square[-1:] = False
    square[:, :1] = square[:, -1:] = False
    triangle = np.abs(xx - c) <= (yy + 1) / 2
    diamond = np.abs(xx - c) + np.abs(yy - c) <= size / 2
    return {"circle": circle, "square": square, "triangle": triangle, "diamond": diamond}


_SHAPES: dict[int, dict[str, np.ndarray]] = {}


def shape(img: np.ndarray, x: int, y: int, size: int, kind: str, color) -> None:
    """A filled circle / square / triangle / diamond ``size`` pixels wide."""
    masks = _SHAPES.get(size)
    if masks is None:
        masks = _SHAPES[size] = _shape_masks(size)
    m = masks[kind]
    x0, y0, x1, y1 = _clip(img, x, y, size, size)
    if x0 < x1 and y0 < y1:
        img[y0:y1, x0:x1][m[y0 - y:y1 - y, x0 - x:x1 - x]] = color
