"""Bad input to every `spyenvs` subcommand ends as one clear error line and a
non-zero exit, with nothing left behind (issue 13's table, one test per row)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from spyenvs.cli import TRAIN_EXTRA_MODULES, main
from spyenvs.registry import make_game


def run_main(argv, capsys):
    """(exit status, stdout + stderr) of ``spyenvs ARGV`` run in-process; SystemExit
    (argparse, friendly exits) counts as an exit, any other exception fails the test."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
        if isinstance(code, str):  # SystemExit("message"): Python prints it and exits 1
            print(code, file=sys.stderr)
            code = 1
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def error_lines(text):
    return [line for line in text.splitlines() if "error" in line]


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------------------------ train
def test_train_with_a_missing_config_file(in_tmp, capsys):
    pytest.importorskip("yaml")
    code, text = run_main(["train", "unrest_v0", "--config", "nope.yaml"], capsys)
    assert code == 2
    assert error_lines(text) == ["spyenvs: error: cannot read the training config nope.yaml: No such file or directory"]
    assert not (in_tmp / "runs").exists()


def test_train_with_a_malformed_yaml_config(in_tmp, capsys):
    pytest.importorskip("yaml")
    (in_tmp / "bad.yaml").write_text("ppo: {n_steps: 64\nseed: 1\n")
    code, text = run_main(["train", "unrest_v0", "--config", "bad.yaml"], capsys)
    assert code == 2
    [line] = error_lines(text)
    assert line.startswith("spyenvs: error: bad.yaml: not valid YAML at line")
    assert not (in_tmp / "runs").exists()


def test_train_with_a_wrongly_typed_option_names_the_allowed_type(in_tmp, capsys):
    pytest.importorskip("yaml")
    code, text = run_main(["train", "unrest_v0", "--opt", "ppo.n_steps=abc"], capsys)
    assert code == 2
    assert error_lines(text) == ["spyenvs: error: training option 'ppo.n_steps' must be an integer, got 'abc' (str)"]
    assert not (in_tmp / "runs").exists()


def test_training_option_types_are_checked_when_the_config_loads(tmp_path):
    pytest.importorskip("yaml")
    from spyenvs.experiments.train_selfplay import load_config

    with pytest.raises(ValueError, match="'eval.deterministic' must be true or false"):
        load_config(None, "unrest_v0", {"eval.deterministic": "yes"})
    with pytest.raises(ValueError, match="'ppo.learning_rate' must be a number"):
        load_config(None, "unrest_v0", {"ppo.learning_rate": "fast"})
    with pytest.raises(ValueError, match="'net.hidden' must be a list"):
        load_config(None, "unrest_v0", {"net.hidden": 64})
    with pytest.raises(ValueError, match="'total_timesteps' must be an integer, got True"):
        load_config(None, "unrest_v0", {"total_timesteps": True})
    path = tmp_path / "c.yaml"
    path.write_text("ppo:\n  learning_rate: 3e-4\n")  # YAML 1.1 reads 3e-4 as a string
    with pytest.raises(ValueError, match="'ppo.learning_rate' must be a number, got '3e-4'"):
        load_config(str(path), "unrest_v0")
    cfg = load_config(None, "unrest_v0", {"ppo.learning_rate": 1, "learner_kinds": ["rebel"], "game.anything": "x"})
    assert cfg["ppo"]["learning_rate"] == 1  # an int is a fine float; None defaults and game options are open


def test_every_shipped_training_config_has_the_right_types():
    pytest.importorskip("yaml")
    from spyenvs.experiments.train_selfplay import default_config_path, load_config
    from spyenvs.registry import ENV_IDS

    for env_id in ENV_IDS:
        load_config(default_config_path(env_id), env_id)


def test_train_resume_from_a_truncated_state_file_keeps_the_files(in_tmp, capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    run = in_tmp / "run"
    run.mkdir()
    torch.save({"meta": "{}", "policy": {"w": torch.zeros(500)}}, run / "state.pt")
    whole = (run / "state.pt").read_bytes()
    (run / "state.pt").write_bytes(whole[: len(whole) // 2])
    code, text = run_main(["train", "unrest_v0", "--resume", "--out", str(run), "--quiet"], capsys)
    assert code == 2
    [line] = error_lines(text)
    assert line.startswith(f"spyenvs: error: --resume: cannot read {run / 'state.pt'}") and "left as it is" in line
    assert (run / "state.pt").read_bytes() == whole[: len(whole) // 2]
    assert sorted(os.listdir(run)) == ["state.pt"]


def test_train_after_a_core_only_install_says_install_the_train_extra(monkeypatch, capsys):
    for name in TRAIN_EXTRA_MODULES:  # None in sys.modules: "import name" fails, as when not installed
        monkeypatch.setitem(sys.modules, name, None)
    assert "yaml" in TRAIN_EXTRA_MODULES
    code, text = run_main(["train", "unrest_v0"], capsys)
    assert code == 1
    [line] = text.splitlines()
    assert line.startswith("spyenvs: error: this command needs the train extra (missing: yaml, torch")
    assert "pip install -e '.[train]'" in line


def test_train_help_works_without_the_train_extra(monkeypatch, capsys):
    for name in TRAIN_EXTRA_MODULES:
        monkeypatch.setitem(sys.modules, name, None)
    for argv in (["--help"], ["train", "--help"], ["eval", "--help"]):
        code, text = run_main(argv, capsys)
        assert code == 0 and "usage: spyenvs" in text


def test_train_unknown_env_leaves_no_run_folder(in_tmp, capsys):
    code, text = run_main(["train", "foo_v0"], capsys)
    assert code == 2
    assert error_lines(text) == ["spyenvs: error: unknown env id 'foo_v0'; available: "
                                 "specter_ops_v0, the_agents_v0, spy_games_v0, unrest_v0"]
    assert not (in_tmp / "runs").exists()


def test_train_bad_game_option_leaves_no_run_folder(in_tmp, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    code, text = run_main(["train", "the_agents_v0", "--opt", "game.num_players=9", "--quiet"], capsys)
    assert code == 2 and "num_players" in error_lines(text)[0]
    assert not (in_tmp / "runs").exists()


# ------------------------------------------------------- match, eval, bench
def test_match_with_zero_games(capsys):
    code, text = run_main(["match", "unrest_v0", "--games", "0"], capsys)
    assert code == 2 and "argument --games: must be a positive integer, got 0" in text


def test_eval_with_negative_games(capsys):
    code, text = run_main(["eval", "unrest_v0", "random", "random", "--games", "-1"], capsys)
    assert code == 2 and "argument --games: must be a positive integer, got -1" in text
    assert "nan" not in text


def test_bench_runs_without_pygame(monkeypatch, capsys):
    """connect_four_v3 imports pygame at the top for its renderer; bench must not need it."""
    before = set(sys.modules)
    monkeypatch.setitem(sys.modules, "pygame", None)
    for name in [m for m in sys.modules if m.startswith("pettingzoo.classic")]:
        monkeypatch.delitem(sys.modules, name)
    try:
        code, text = run_main(["bench", "--env", "unrest_v0", "--seconds", "0.02", "--repeats", "1", "--quiet"], capsys)
        assert sys.modules["pygame"] is None  # the stand-in is gone again
    finally:
        for name in set(sys.modules) - before:  # the modules imported against the stand-in
            del sys.modules[name]
    assert code == 0, text
    assert "unrest_v0" in text and "x" in text.splitlines()[-1]


# ------------------------------------------------------------------ replay
def record_file(tmp_path, env_id="unrest_v0", seed=0):
    game = make_game(env_id)
    game.reset(seed)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        legal = np.flatnonzero(game.legal_mask())
        game.step(int(legal[rng.integers(legal.size)]))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.to_record()))
    return path


def test_replay_into_a_closed_pipe_stops_quietly(tmp_path):
    """`spyenvs replay FILE | head`: no BrokenPipeError traceback."""
    # a long game, so the replay's output outgrows the pipe's buffer and the closed
    # pipe is always hit (a short Unrest game sometimes fitted and exited 0)
    path = record_file(tmp_path, env_id="the_agents_v0")
    proc = subprocess.Popen([sys.executable, "-m", "spyenvs.cli", "replay", str(path), "--every-step"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # like head: read a line, then go away
    err = proc.stderr.read().decode()
    proc.stderr.close()
    code = proc.wait(timeout=60)
    assert first.startswith(b"---- step 0")
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert code != 0


def test_replay_of_a_missing_or_broken_file(tmp_path, capsys):
    code, text = run_main(["replay", str(tmp_path / "missing.json")], capsys)
    assert code == 2 and len(error_lines(text)) == 1
    (tmp_path / "bad.json").write_text("{not json")
    code, text = run_main(["replay", str(tmp_path / "bad.json")], capsys)
    assert code == 2 and len(error_lines(text)) == 1


# ----------------------------------------------------------------- generic
def bad_argument_cases(tmp_path):
    (tmp_path / "bad.json").write_text("[]")
    return [
        ["list", "--bogus"],
        ["match"], ["match", "nope_v0"], ["match", "unrest_v0", "--games", "x"],
        ["match", "unrest_v0", "--seed", "-3"], ["match", "unrest_v0", "--set", "nonsense=1", "--quiet"],
        ["match", "unrest_v0", "--set", "novalue", "--quiet"],
        ["bench", "--env", "nope_v0"], ["bench", "--repeats", "0"], ["bench", "--seconds", "-1"],
        ["bench", "--players", "zero"],
        ["replay"], ["replay", str(tmp_path / "missing.json")], ["replay", str(tmp_path / "bad.json")],
        ["replay", str(tmp_path / "bad.json"), "--step", "-1"],
        ["play"], ["play", "nope_v0"], ["play", "unrest_v0", "--seat", "9", "--no-record"],
        ["play", "unrest_v0", "--seat", "king", "--no-record"], ["play", "unrest_v0", "--players", "0"],
        ["train"], ["train", "nope_v0"], ["train", "unrest_v0", "--timesteps", "0"],
        ["train", "unrest_v0", "--backend", "gpu"], ["train", "unrest_v0", "--opt", "nokey"],
        ["train", "unrest_v0", "--opt", "no_such_option=1"],
        ["eval"], ["eval", "nope_v0", "random", "random"], ["eval", "unrest_v0", "random"],
        ["eval", "unrest_v0", "random", "random", "--max-decisions", "0"],
        ["eval", "unrest_v0", "random", "nonsense", "--games", "1", "--quiet"],
        ["scorecard"], ["scorecard", "nope_v0", "random"], ["scorecard", "unrest_v0", "nonsense", "--quiet"],
        ["scorecard", "unrest_v0", "random", "--games", "0"], ["scorecard", "unrest_v0", "no_such_mod:make"],
        ["nonsense"], [],
    ]


def test_every_subcommand_with_bad_arguments_fails_without_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for argv in bad_argument_cases(tmp_path):
        code, text = run_main(argv, capsys)
        assert code not in (0, None), f"spyenvs {' '.join(argv)} exited 0"
        assert "Traceback" not in text, f"spyenvs {' '.join(argv)}:\n{text}"
        assert text.strip(), f"spyenvs {' '.join(argv)} said nothing"
    assert not (tmp_path / "runs").exists()


def test_the_installed_command_prints_one_line_not_a_traceback(tmp_path):
    """The same through the real entry point, in a fresh interpreter."""
    for argv in (["match", "unrest_v0", "--games", "0"], ["train", "nope_v0"], ["replay", "missing.json"]):
        proc = subprocess.run([sys.executable, "-m", "spyenvs.cli", *argv], capture_output=True, text=True,
                              cwd=tmp_path, timeout=60)
        assert proc.returncode == 2, (argv, proc.stderr)
        assert "Traceback" not in proc.stderr and proc.stderr.strip().splitlines()[-1].count("error") == 1


def test_modules_run_with_python_m_print_one_line_not_a_traceback(tmp_path):
    """The documented ``python -m spyenvs.experiments...`` entry points report errors
    like ``spyenvs`` itself."""
    cases = [
        ["spyenvs.experiments.train_selfplay", "unrest_v0", "--opt", "net.drop_constant_inputs=maybe", "--quiet"],
        ["spyenvs.experiments.leaderboard", "--ship", str(tmp_path / "no_run")],
        ["spyenvs.experiments.evaluate", "unrest_v0", "random", "nonsense", "--games", "1", "--quiet"],
        ["spyenvs.experiments.scorecard", "unrest_v0", "nonsense", "--quiet"],
    ]
    for argv in cases:
        proc = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert proc.returncode == 2, (argv, proc.stderr)
        assert "Traceback" not in proc.stderr, (argv, proc.stderr)
        assert proc.stderr.strip().splitlines()[-1].count("error:") == 1, (argv, proc.stderr)


def test_python_style_booleans_are_accepted_in_key_values():
    from spyenvs.tools.arguments import parse_key_values

    assert parse_key_values(["a=True", "b=false", "c=None", "d=Truth"]) == {"a": True, "b": False, "c": None,
                                                                            "d": "Truth"}
