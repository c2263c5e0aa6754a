"""`spyenvs bench` plumbing (not speed: timings belong to the benchmark itself): it pairs
each env with connect_four_v3 and reports decisions/s, games/s and both ratios."""

from __future__ import annotations

import math

from spyenvs.tools.bench import format_rows, run_bench


def test_bench_reports_decisions_and_games_against_connect_four():
    rows = run_bench(["unrest_v0"], None, seconds=0.05, repeats=1)
    (row,) = rows
    assert row.steps_per_s > 0 and row.baseline_steps_per_s > 0
    assert math.isclose(row.ratio, row.steps_per_s / row.baseline_steps_per_s)
    text = format_rows(rows)
    assert "games/s" in text and "unrest_v0" in text
