"""Progress bars for long runs. On a terminal: tqdm when it is installed, else a plain
stderr bar redrawn in place. In a log that is not a terminal (CI, ``nohup``, a file):
one line per few percent, never a redrawn bar, so the log stays readable."""

from __future__ import annotations

import sys
import time

#: in a log that is not a terminal: a line each time this share of the total is passed
LOG_STEP = 0.05
#: ... or, when the total is unknown, at most a line this often (seconds)
LOG_EVERY_SECONDS = 30.0


class _PlainBar:
    """The bar redrawn in place with carriage returns (a terminal without tqdm)."""

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


class _LogBar(_PlainBar):
    """Whole lines for a log: ``desc: n/total (p%)`` each time another ``LOG_STEP`` of
    the total is done (and at the end), or every ``LOG_EVERY_SECONDS`` without a total."""

    def __init__(self, total: int | None, desc: str):
        super().__init__(total, desc)
        self._start = time.monotonic()
        self._last = self._start
        self._next = LOG_STEP
        self._printed_n = 0

    def _line(self) -> None:
        elapsed = time.monotonic() - self._start
        if self.total:
            text = f"{self.desc}: {self.n}/{self.total} ({self.n / self.total:.0%}), {elapsed:.0f} s"
        else:
            text = f"{self.desc}: {self.n}, {elapsed:.0f} s"
        print(text, file=sys.stderr, flush=True)
        self._printed_n = self.n

    def update(self, k: int = 1) -> None:
        self.n += k
        if self.total:
            if self.n / self.total + 1e-12 >= self._next or self.n == self.total:
                while self._next <= self.n / self.total + 1e-12:
                    self._next += LOG_STEP
                self._line()
        elif time.monotonic() - self._last >= LOG_EVERY_SECONDS:
            self._last = time.monotonic()
            self._line()

    def write(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.n and self.n != self._printed_n:
            self._line()


class _SilentBar(_PlainBar):
    def update(self, k: int = 1) -> None:
        self.n += k

    def close(self) -> None:
        pass


def progress_bar(total: int | None, desc: str, enabled: bool = True):
    """A context-managed bar with ``update(k)`` and ``write(text)``: silent when not
    ``enabled``, log lines when stderr is not a terminal, else a live bar."""
    if not enabled:
        return _SilentBar(total, desc)
    if not sys.stderr.isatty():
        return _LogBar(total, desc)
    try:  # late: tqdm is optional (train/dev extras); without it the plain bar serves
        from tqdm import tqdm
    except ImportError:
        return _PlainBar(total, desc)
    return tqdm(total=total, desc=desc, file=sys.stderr, dynamic_ncols=True)
