"""The README is the front door: at most 200 lines, its two set-up commands within
the first 40, the test command the one CI runs (.ci/run installs the same extras and
runs the same pytest), and its figures recorded by scripts/setup_timings.py."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _setup_timings():
    spec = importlib.util.spec_from_file_location("setup_timings", ROOT / "scripts" / "setup_timings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


setup_timings = _setup_timings()


def _extras(command: str) -> set[str]:
    found = re.search(r'pip install (?:--quiet )?-e "\.\[([\w,]+)\]"', command)
    assert found, f"no editable install with extras in {command!r}"
    return set(found.group(1).split(","))


def test_the_readme_is_short_and_opens_with_both_commands():
    lines = README.splitlines()
    assert len(lines) <= 200
    first = "\n".join(lines[:40])
    main_job = setup_timings.readme_command(setup_timings.MAIN_MARKER)
    tests = setup_timings.readme_command(setup_timings.TESTS_MARKER)
    assert main_job in first and tests in first
    assert first.index(main_job) < first.index(tests)  # the main job first, as the issue orders them
    assert main_job.endswith("spyenvs train the_agents_v0")
    assert tests.endswith("python -m pytest")


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = setup_timings.readme_command(setup_timings.TESTS_MARKER)
    ci_install = next(line for line in ci.splitlines() if re.search(r'pip install .*-e "\.\[', line))
    assert _extras(ci_install) == _extras(readme)
    assert "pip install --quiet torch==2.13.0" in ci and "pip install torch==2.13.0" in readme
    assert ci.rstrip().splitlines()[-1] == "python -m pytest"


def test_pytest_summary_lines_are_read():
    out = "....\n1361 passed, 47 skipped, 3 warnings in 371.20s (0:06:11)\n"
    assert setup_timings.pytest_summary(out) == ({"passed": 1361, "skipped": 47, "warnings": 3}, 371.2)
    quiet = "=== 12 passed in 0.50s ===\n"
    assert setup_timings.pytest_summary(quiet) == ({"passed": 12}, 0.5)


def test_a_recorded_test_run_refuses_failures_and_writes_the_lines():
    saved = setup_timings.load()
    try:
        setup_timings.record_tests(dict(saved), "3 failed, 10 passed in 2.00s", 1.0, ("1", "1"), "here")
    except ValueError as exc:
        assert "did not pass" in str(exc)
    else:
        raise AssertionError("a failing run was recorded")
    new = setup_timings.record_tests(dict(saved), "10 passed, 2 skipped in 120.00s", 3.5, ("0.5", "1.0"), "here")
    assert setup_timings.tests_line(new).startswith("**Tests**") and "10 passed, 2 skipped in 2.0 min" in \
        setup_timings.tests_line(new)


def test_a_recorded_main_job_reads_the_runs_results(tmp_path):
    import json

    shipped = json.loads((ROOT / "agents" / "pretrained" / "the_agents_v0.json").read_text())
    results = {"vs": shipped["vs"], "heuristic_vs": shipped["heuristic_vs"], "train_seconds": 441.5,
               "steps_per_second": 2273.2}
    (tmp_path / "results.json").write_text(json.dumps(results))
    new = setup_timings.record_main_job(setup_timings.load(), str(tmp_path), 8.1, ("0.5", "1.1"), "here", "`x.yaml`")
    job = new["main_job"]
    assert job["train_minutes"] == 7.4 and job["steps_per_second"] == 2273 and job["command_minutes"] == 8.1
    assert job["vs"]["heuristic"]["player"]["rate"] == shipped["vs"]["heuristic"]["player"]["rate"]
    line = setup_timings.main_job_line(new)
    assert "8.1 min" in line and f"{shipped['vs']['random']['player']['rate']:.1%} vs random" in line
    assert "| heuristic | player |" in setup_timings.detail_section(new)
