"""The search's strength table: a candidate against the heuristic beside the
heuristic's and the pretrained policy's own scores, and the +5-point goal over both."""

from __future__ import annotations

import json

from spyenvs.experiments.search_strength import main, strength_table


def _kinds(**rates):
    return {"kinds": {k: {"rate": r, "low": r - 0.1, "high": r + 0.1, "games": 100, "score": r * 100}
                      for k, r in rates.items()}, "games": 200, "seconds": 20.0}


def test_goal_is_five_points_over_the_better_reference_in_each_role():
    record = {"results": {"unrest_v0": {
        "expert": _kinds(rebel=0.62, empire=0.50),
        "heuristic": _kinds(rebel=0.54, empire=0.46),
        "pretrained": _kinds(rebel=0.37, empire=0.54),
    }}}
    table = strength_table(record)
    rebel = next(line for line in table.splitlines() if "| rebel |" in line)
    empire = next(line for line in table.splitlines() if "| empire |" in line)
    assert ">= 59.0%" in rebel and "| yes |" in rebel
    assert ">= 59.0%" in empire and "no (9.0 points short)" in empire


def test_a_run_writes_its_figures_and_references(tmp_path, capsys):
    spec = "ismcts:4:random:cut=2:value=heuristic"
    assert main(["--env", "unrest_v0", "--candidate", spec, "--games", "2", "--out", str(tmp_path), "--quiet"]) == 0
    record = json.loads((tmp_path / "strength.json").read_text())
    assert set(record["results"]["unrest_v0"]) == {spec, "heuristic", "pretrained"}
    assert record["games_per_role"] == 2 and record["load"]
    out = capsys.readouterr().out
    assert f"`{spec}`" in out and "| unrest_v0 | rebel |" in out


def test_a_run_at_another_player_count_plays_that_table(tmp_path):
    spec = "ismcts:2:heuristic:macro=specter:value=search:top=2"
    assert main(["--env", "specter_ops_v0", "--candidate", spec, "--games", "1", "--players", "4",
                 "--out", str(tmp_path), "--quiet"]) == 0
    record = json.loads((tmp_path / "strength.json").read_text())
    assert record["players"] == 4
    assert record["results"]["specter_ops_v0"][spec]["num_players"] == 4


def test_chunks_cut_a_match_into_whole_seat_rotations_that_replay_its_games():
    from spyenvs.agents.policy import BasePolicy
    from spyenvs.experiments.evaluate import evaluate_vs
    from spyenvs.experiments.search_strength import chunk_bounds, merge_results

    assert chunk_bounds(200, 2, 4) == [(0, 50), (50, 50), (100, 50), (150, 50)]
    assert chunk_bounds(9, 3, 5) == [(0, 3), (3, 3), (6, 3)]  # never less than one rotation

    class FirstLegal(BasePolicy):
        def act(self, observation, mask):
            return int(mask.argmax())

    whole = evaluate_vs("unrest_v0", {}, FirstLegal(), FirstLegal(), 8, seed=7)
    parts = [evaluate_vs("unrest_v0", {}, FirstLegal(), FirstLegal(), n, seed=7 + first)
             for first, n in chunk_bounds(8, 2, 2)]
    merged = merge_results(parts)
    assert merged["kinds"] == whole["kinds"] and merged["decisions"] == whole["decisions"]


def test_a_chunked_run_reports_every_game_once(tmp_path):
    spec = "ismcts:4:random:cut=2:value=heuristic"
    assert main(["--env", "unrest_v0", "--candidate", spec, "--games", "2", "--chunks", "2", "--out", str(tmp_path),
                 "--quiet"]) == 0
    record = json.loads((tmp_path / "strength.json").read_text())
    assert record["chunks"] == 2
    assert {k: v["games"] for k, v in record["results"]["unrest_v0"][spec]["kinds"].items()} == {"rebel": 2, "empire": 2}


def test_issue_41_flagship_bar_is_ten_points_over_the_heuristics_own_or_half_way_above_80():
    from spyenvs.experiments.search_strength import flagship_table

    record = {"results": {"specter_ops_v0": {
        "plan": dict(_kinds(agent=0.70, hunter=0.93), num_players=2),
        "heuristic": dict(_kinds(agent=0.55, hunter=0.84), num_players=2),
    }}}
    table = flagship_table(record)
    agent = next(line for line in table.splitlines() if "| agent |" in line)
    hunter = next(line for line in table.splitlines() if "| hunter |" in line)
    assert ">= 65.0%" in agent and "| yes |" in agent
    assert ">= 92.0%" in hunter and "| yes |" in hunter
    record["results"]["specter_ops_v0"]["plan"] = dict(_kinds(agent=0.60, hunter=0.90), num_players=2)
    assert "no (5.0 points short)" in flagship_table(record)
