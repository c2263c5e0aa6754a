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


def test_train_bench_rows_carry_the_ratio_to_the_tutorial(monkeypatch):
    from spyenvs.experiments import train_bench

    monkeypatch.setattr(train_bench, "bench_tutorial", lambda steps: {"name": "tutorial", "steps": steps,
                                                                       "wall_s": 10.0, "steps_per_s": steps / 10,
                                                                       "train_steps_per_s": steps / 8})
    monkeypatch.setattr(train_bench, "bench_game", lambda env_id, steps, opts=None: {
        "name": env_id, "steps": steps, "wall_s": 2.0, "steps_per_s": steps / 2, "train_steps_per_s": steps})
    rows = train_bench.run_bench(["the_agents_v0"], 1000)
    assert rows[1]["ratio"] == 5.0 and rows[1]["target"] == 5.0 and rows[1]["loop_ratio"] == 8.0
    assert "5.00x" in train_bench.format_rows(rows)


def test_train_bench_goal_holds_at_the_target_plus_ten_percent():
    from spyenvs.experiments.train_bench import format_rows, holds_goal

    assert holds_goal({"ratio": 5.5, "target": 5.0}) and not holds_goal({"ratio": 5.49, "target": 5.0})
    assert holds_goal({"ratio": 1.1, "target": 1.0})
    assert not holds_goal({"ratio": 9.0})  # the tutorial's row has no target
    tutorial = {"name": "tutorial", "steps": 10, "wall_s": 1.0, "steps_per_s": 10.0, "train_steps_per_s": 10.0}
    game = dict(tutorial, name="the_agents_v0", ratio=5.6, loop_ratio=6.0, target=5.0)
    assert "| 5.60x | >= 5x | +12% | yes |" in format_rows([tutorial, game])


def _fake_rounds(monkeypatch, train_bench, tutorial_walls, game_wall, game_loop):
    """The tutorial's process takes each of ``tutorial_walls`` in turn (its loop as long
    as its process); every game's takes ``game_wall``, its loop ``game_loop``."""
    walls = iter(tutorial_walls)
    monkeypatch.setattr(train_bench, "bench_tutorial", lambda steps: (lambda w: {
        "name": "tutorial", "steps": steps, "wall_s": w, "steps_per_s": steps / w, "train_steps_per_s": steps / w})(
        next(walls)))
    monkeypatch.setattr(train_bench, "bench_game", lambda env_id, steps, opts=None: {
        "name": env_id, "steps": steps, "wall_s": game_wall, "steps_per_s": steps / game_wall,
        "train_steps_per_s": steps / game_loop})


def test_train_bench_repeats_report_each_processs_median(monkeypatch):
    from spyenvs.experiments import train_bench

    # the tutorial's rounds; a burst of other work slowed the second
    _fake_rounds(monkeypatch, train_bench, [10.0, 30.0, 12.0], game_wall=2.4, game_loop=2.0)
    rows = train_bench.run_bench(["the_agents_v0"], 1200, repeat=3)
    assert rows[0]["wall_s"] == 12.0 and rows[0]["runs"] == 3
    assert rows[1]["ratio"] == 5.0


def test_train_bench_prints_each_ratios_spread_over_the_rounds_and_the_tutorials_own_speed(monkeypatch):
    from spyenvs.experiments import train_bench

    # the tutorial's rounds: 120, 96 and 150 steps/s
    _fake_rounds(monkeypatch, train_bench, [10.0, 12.5, 8.0], game_wall=2.0, game_loop=2.0)
    rows = train_bench.run_bench(["the_agents_v0"], 1200, repeat=3)
    # each round's game (600 steps/s) against that round's tutorial: 5.0, 6.25, 4.0
    assert rows[1]["ratio"] == 5.0 and rows[1]["ratio_range"] == [4.0, 6.25]
    assert rows[0]["steps_per_s_range"] == [96.0, 150.0]
    text = train_bench.format_rows(rows)
    assert "| 5.00x (4.00-6.25) | >= 5x | +0% | no |" in text  # on target, short of the 10% margin
    assert "| 120 (96-150) |" in text  # the tutorial's own median and spread


def test_bench_search_times_a_spec_and_rejects_a_bad_one(capsys):
    from spyenvs.cli import main

    assert main(["bench", "--search", "--env", "unrest_v0", "--spec", "ismcts:5:random:cut=2:value=heuristic",
                 "--repeats", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "| unrest_v0 | `ismcts:5:random:cut=2:value=heuristic` |" in out and "sims/s" in out
    assert main(["bench", "--search", "--env", "unrest_v0", "--spec", "ismcts:5:warp", "--quiet"]) == 2
    assert "playout 'warp' unknown" in capsys.readouterr().err
    assert main(["bench", "--spec", "ismcts:5"]) == 2
    assert main(["bench", "--save", "x.json"]) == 2
