"""Named observation layouts: every env documents its flat vector as named blocks
(with shapes and bounds) so users can slice, reshape or drop blocks."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Block:
    name: str
    start: int
    shape: tuple[int, ...]
    low: float
    high: float
    doc: str

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.size)


class Layout:
    """Builder and index of an observation's blocks, in order."""

    def __init__(self):
        self.blocks: dict[str, Block] = {}
        self.size = 0

    def add(self, name: str, shape, low: float = 0.0, high: float = 1.0, doc: str = "") -> slice:
        """Append a block; returns its slice into the flat vector."""
        if name in self.blocks:
            raise ValueError(f"duplicate observation block {name!r}")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        block = Block(name, self.size, shape, float(low), float(high), doc)
        self.blocks[name] = block
        self.size += block.size
        return block.slice

    def slices(self) -> dict[str, slice]:
        return {name: b.slice for name, b in self.blocks.items()}

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The block ``name`` of a flat observation (or a batch of them), reshaped."""
        b = self.blocks[name]
        return obs[..., b.slice].reshape(obs.shape[:-1] + b.shape)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        low = np.empty(self.size, np.float32)
        high = np.empty(self.size, np.float32)
        for b in self.blocks.values():
            low[b.slice] = b.low
            high[b.slice] = b.high
        return low, high

    def describe(self) -> str:
        return "\n".join(
            f"{b.name:28s} [{b.start:5d}:{b.start + b.size:5d}] shape={b.shape} "
            f"range=[{b.low:g},{b.high:g}] {b.doc}"
            for b in self.blocks.values()
        )
