"""`spyenvs eval` and `spyenvs train` end to end on a registered game (tiny sizes)."""

from __future__ import annotations

import json

import pytest

import spyenvs
from spyenvs.cli import main

GAME = "unrest_v0"  # short games: the cheapest registered env for a smoke test
pytestmark = pytest.mark.skipif(GAME not in spyenvs.ENV_IDS, reason=f"{GAME} not registered")


def test_eval_writes_json_markdown_and_learning_curve(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    hist = tmp_path / "history.json"
    hist.write_text(json.dumps([
        {"timesteps": 100, "vs": {"random": {"rebel": {"rate": 0.4, "low": 0.2, "high": 0.6}}}},
        {"timesteps": 200, "vs": {"random": {"rebel": {"rate": 0.6, "low": 0.4, "high": 0.8}}}},
    ]))
    out = tmp_path / "out"
    assert main(["eval", GAME, "random", "heuristic", "--games", "4", "--out", str(out), "--quiet",
                 "--curve", str(hist)]) == 0
    result = json.loads((out / "tournament.json").read_text())
    assert result["population"] == ["random", "heuristic"] and set(result["elo"]) == {"random", "heuristic"}
    assert (out / "tournament.md").read_text().startswith("### unrest_v0")
    assert (out / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| policy | Elo |" in capsys.readouterr().out


def test_eval_plays_a_guided_search_spec_and_rejects_a_bad_one(tmp_path, capsys):
    spec = "ismcts:10:random:cut=4:value=heuristic"
    assert main(["eval", GAME, "random", spec, "--games", "2", "--out", str(tmp_path), "--quiet"]) == 0
    assert spec in json.loads((tmp_path / "tournament.json").read_text())["elo"]
    assert main(["eval", GAME, "random", "ismcts:10:random:cut=4", "--games", "2", "--quiet"]) == 2
    assert "needs a value" in capsys.readouterr().err


def test_eval_rejects_unknown_policy(capsys):
    assert main(["eval", GAME, "random", "nonsense", "--games", "2", "--quiet"]) == 2
    assert "allowed" in capsys.readouterr().err


def test_train_command_runs_and_prints_win_rates(tmp_path, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    assert main(["train", GAME, "--out", str(tmp_path), "--timesteps", "256", "--quiet",
                 "--opt", "ppo.n_steps=128", "--opt", "ppo.batch_size=64",
                 "--opt", "eval.every=100000", "--opt", "eval.games=4", "--opt", "eval.final_games=8",
                 "--opt", "league.snapshot_every=128", "--opt", "selection.games=2",
                 # a short clone: the default config clones 3,000 games, a minute here
                 "--opt", "warm_start.games=40"]) == 0
    out = capsys.readouterr().out
    assert "| rebel |" in out and "| empire |" in out and "vs heuristic" in out
    assert (tmp_path / "final.pt").is_file()


def test_train_players_names_the_table_and_its_default_folder(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    assert main(["train", "the_agents_v0", "--players", "3", "--timesteps", "128", "--quiet",
                 "--opt", "n_envs=4", "--opt", "ppo.n_steps=32", "--opt", "ppo.batch_size=64",
                 "--opt", "eval.every=100000", "--opt", "eval.games=2", "--opt", "eval.final_games=3",
                 "--opt", "league.snapshot_every=128", "--opt", "selection.snapshots=1",
                 "--opt", "warm_start.games=4"]) == 0
    results = json.loads((tmp_path / "runs" / "the_agents_v0-3p" / "results.json").read_text())
    assert results["num_players"] == 3 and results["config"]["num_players"] == 3
    assert main(["train", "the_agents_v0", "--players", "9", "--timesteps", "128", "--quiet"]) == 2
    assert "num_players" in capsys.readouterr().err


def test_eval_players_names_the_table_and_pretrained_binds_to_it(tmp_path, capsys):
    # Specter Ops at 3 players is its 2-player game seat for seat: the 2-player file plays it
    assert main(["eval", "specter_ops_v0", "pretrained", "random", "--players", "3", "--games", "1",
                 "--max-decisions", "60", "--out", str(tmp_path), "--quiet"]) == 0
    assert json.loads((tmp_path / "tournament.json").read_text())["config"]["num_players"] == 3
    capsys.readouterr()
    # an option the shipped files were not trained on: one line naming how the game differs
    assert main(["eval", "the_agents_v0", "pretrained", "random", "--set", "end_rule=equal_turns",
                 "--games", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "differs in end_rule='equal_turns'" in err
