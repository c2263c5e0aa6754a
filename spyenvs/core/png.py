"""Write an RGB array as a PNG file with the standard library only (zlib), so the
project can save board pictures without an imaging dependency."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np


def png_bytes(rgb: np.ndarray, level: int = 6) -> bytes:
    """PNG of an (H, W, 3) uint8 array; zlib ``level`` 6 is much faster than 9 for
    board pictures and barely larger (replay pages hold hundreds of them)."""
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    if rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ValueError(f"expected an (H, W, 3) array, got shape {rgb.shape}")
    h, w, _ = rgb.shape
    raw = np.zeros((h, w * 3 + 1), np.uint8)  # filter byte 0 per row
    raw[:, 1:] = rgb.reshape(h, w * 3)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw.tobytes(), level)) + chunk(b"IEND", b"")


def write_png(path: str | Path, rgb: np.ndarray, level: int = 9) -> None:
    Path(path).write_bytes(png_bytes(rgb, level))
