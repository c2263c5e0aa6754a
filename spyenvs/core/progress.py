"""Progress bars for long runs: tqdm when it is installed, else a plain stderr bar."""

from __future__ import annotations

import sys
import time


class _PlainBar:
    def __init__(self, total: int | None, desc: str):
        self.total, self.desc, self.n = total, desc, 0
        self._last = 0.0

    def update(self, k: int = 1) -> None:
        self.n += k
        now = time.monotonic()
        if now - self._last > 0.5 or self.n == self.total:
            self._last = now
            of = f"/{self.total}" if self.total else ""
            print(f"\r{self.desc}: {self.n}{of}", end="", file=sys.stderr, flush=True)

    def write(self, text: str) -> None:
        print(f"\r{text}", file=sys.stderr, flush=True)

    def close(self) -> None:
        print(file=sys.stderr, flush=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def progress_bar(total: int | None, desc: str, enabled: bool = True):
    """A context-managed bar with ``update(k)`` and ``write(text)``."""
    if not enabled:
        bar = _PlainBar(total, desc)
        bar.update = lambda k=1: None  # type: ignore[method-assign]
        bar.close = lambda: None  # type: ignore[method-assign]
        return bar
    try:  # late: tqdm is optional (train/dev extras); without it the plain bar serves
        from tqdm import tqdm
    except ImportError:
        return _PlainBar(total, desc)
    return tqdm(total=total, desc=desc, file=sys.stderr, dynamic_ncols=True)
