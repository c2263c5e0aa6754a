"""Progress bars in a log that is not a terminal write a line per few percent, never a
bar redrawn with carriage returns (a CI log or ``nohup`` file stays readable)."""

from __future__ import annotations

import io

from spyenvs.core import progress


class TerminalLike(io.StringIO):
    def isatty(self):
        return True


def test_a_log_gets_one_line_per_five_percent_and_no_carriage_returns(monkeypatch):
    log = io.StringIO()
    monkeypatch.setattr("sys.stderr", log)
    with progress.progress_bar(1000, "games") as bar:
        for _ in range(1000):
            bar.update(1)
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue()
    assert len(lines) == 20  # 5%, 10%, ..., 100%
    assert lines[0].startswith("games: 50/1000 (5%)") and lines[-1].startswith("games: 1000/1000 (100%)")


def test_a_log_bar_ending_short_of_its_total_says_where_it_stopped(monkeypatch):
    log = io.StringIO()
    monkeypatch.setattr("sys.stderr", log)
    with progress.progress_bar(1000, "steps") as bar:
        bar.update(333)
    assert log.getvalue().splitlines()[-1].startswith("steps: 333/1000 (33%)")


def test_a_log_bar_without_a_total_writes_at_most_a_line_per_interval(monkeypatch):
    log = io.StringIO()
    monkeypatch.setattr("sys.stderr", log)
    monkeypatch.setattr(progress, "LOG_EVERY_SECONDS", 3600.0)
    with progress.progress_bar(None, "decisions") as bar:
        for _ in range(10_000):
            bar.update(1)
    assert log.getvalue().splitlines() == [log.getvalue().splitlines()[0]]  # the closing line only
    assert log.getvalue().startswith("decisions: 10000,")


def test_a_terminal_gets_a_live_bar_and_a_disabled_bar_stays_silent(monkeypatch):
    monkeypatch.setattr("sys.stderr", TerminalLike())
    assert not isinstance(progress.progress_bar(10, "x"), progress._LogBar)
    quiet = io.StringIO()
    monkeypatch.setattr("sys.stderr", quiet)
    with progress.progress_bar(10, "x", enabled=False) as bar:
        bar.update(10)
    assert quiet.getvalue() == ""
