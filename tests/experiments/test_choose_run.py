"""scripts/choose_run.py: of two runs of one table, the one closer to (or further over)
the bar on the trainer's final games ships. Saved results are written here; no game is
played."""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("choose_run", os.path.join(ROOT, "scripts", "choose_run.py"))
choose_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(choose_run)

EVALUATION = {"seed": 999000000, "games": 200, "opponent_seeds": {"random": 999000000, "heuristic": 999000000}}


def run(vs_heuristic: float, vs_random: float, own_vs_heuristic: float = 0.30, own_vs_random: float = 0.90,
        evaluation: dict | None = None) -> dict:
    cell = lambda rate: {"rate": rate, "games": 200}  # noqa: E731
    return {"config": {"num_players": 4}, "evaluation": evaluation or EVALUATION,
            "vs": {"heuristic": {"player": cell(vs_heuristic)}, "random": {"player": cell(vs_random)}},
            "heuristic_vs": {"heuristic": {"player": cell(own_vs_heuristic)}, "random": {"player": cell(own_vs_random)}}}


def write(tmp_path, name: str, record: dict) -> str:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(record))
    return str(folder)


def test_the_bar_is_the_heuristics_own_plus_five_against_it_and_minus_one_against_random():
    assert choose_run.gaps(run(0.36, 0.90)) == {"player vs heuristic": 1.0, "player vs random": 1.0}
    # above 90% the bar against the heuristic is half the way to 100%
    assert choose_run.gaps(run(0.96, 0.90, own_vs_heuristic=0.92)) == {"player vs heuristic": 0.0,
                                                                       "player vs random": 1.0}


def test_the_run_whose_worst_gap_to_the_bar_is_smaller_ships(tmp_path, capsys):
    current = write(tmp_path, "current", run(0.345, 0.95))  # misses by 0.5 against the heuristic
    better = write(tmp_path, "better", run(0.40, 0.95))
    worse = write(tmp_path, "worse", run(0.50, 0.88))  # far over against the heuristic, under against random
    assert choose_run.main([current, better]) == 0
    assert "ships: candidate" in capsys.readouterr().out
    assert choose_run.main([current, worse]) == 1


def test_the_flagship_bar_is_ten_points(tmp_path):
    current = write(tmp_path, "current", run(0.38, 0.95))  # +8: meets issue 42's bar, misses the flagship's
    candidate = write(tmp_path, "candidate", run(0.41, 0.90))  # +11, and 1 point over random's bar
    assert choose_run.main([current, candidate]) == 1
    assert choose_run.main([current, candidate, "--flagship"]) == 0


def test_runs_evaluated_on_different_games_are_not_compared(tmp_path):
    current = write(tmp_path, "current", run(0.35, 0.95))
    other = write(tmp_path, "other", run(0.40, 0.95, evaluation=dict(EVALUATION, seed=1)))
    with pytest.raises(ValueError, match="different games"):
        choose_run.main([current, other])


def test_a_file_that_is_not_a_runs_results_is_refused_in_one_line(tmp_path):
    current = write(tmp_path, "current", run(0.35, 0.95))
    foreign = run(0.40, 0.95)
    del foreign["vs"]["random"]
    with pytest.raises(ValueError, match="not a spyenvs train results.json"):
        choose_run.main([current, write(tmp_path, "foreign", foreign)])
