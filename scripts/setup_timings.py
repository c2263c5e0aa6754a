"""The README's two set-up commands, timed: the figures the README and the docs state
about them (the main job's wall time and win rates, the test suite's counts and time)
live in ``docs/saved/setup_timings.json`` and are written from it between the
``<!-- results: setup-main -->``, ``<!-- results: setup-tests -->`` and
``<!-- results: setup -->`` markers, never by hand.

Record a run, then the pages are rewritten (run from the repository root):

    python scripts/setup_timings.py tests --clone /tmp/fresh      # runs the README's test command there
    python scripts/setup_timings.py main-job --clone /tmp/fresh   # runs the README's main job there
    python scripts/setup_timings.py tests --log pytest.log --minutes 6.2   # a pytest run you made
    python scripts/setup_timings.py main-job --run-dir runs/the_agents_v0 --minutes 8.8
    python scripts/setup_timings.py --tables                       # only rewrite the pages

``--clone DIR`` runs the command exactly as the README shows it, in DIR (a fresh clone
of this repository), and times the whole of it, install included.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time

from spyenvs.experiments.evaluate import load_average, pct
from spyenvs.experiments.leaderboard import rewrite_between
from spyenvs.tools.arguments import run_reporting_errors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAVED = os.path.join(ROOT, "docs", "saved", "setup_timings.json")
README = os.path.join(ROOT, "README.md")
GETTING_STARTED = os.path.join(ROOT, "docs", "getting_started.md")
SETUP_MD = os.path.join(ROOT, "docs", "results", "setup.md")
MAIN_MARKER, TESTS_MARKER, DETAIL_MARKER = "setup-main", "setup-tests", "setup"
#: pytest's closing line: "1361 passed, 47 skipped, 2 warnings in 371.20s (0:06:11)"
SUMMARY = re.compile(r"^=*\s*((?:\d+ [a-z]+(?:, )?)+) in ([\d.]+)s\b", re.M)


def load(path: str = SAVED) -> dict:
    with open(path) as f:
        return json.load(f)


def save(saved: dict, path: str = SAVED) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(saved, f, indent=1)
        f.write("\n")


def _rate(cell: dict) -> str:
    return pct(cell["rate"], cell["low"], cell["high"]) if "low" in cell else f"{cell['rate']:.1%}"


def _counts(tests: dict) -> str:
    return ", ".join(f"{n:,} {kind}" for kind, n in tests["counts"].items())


def main_job_line(saved: dict) -> str:
    """The README's one line over the main job's command."""
    job = saved["main_job"]
    vs = job["vs"]
    rates = ", ".join(f"{cell['rate']:.1%} vs {opp}" for opp, roles in vs.items() for cell in roles.values())
    return (f"**Main job**: install, then train a policy for The Agents by self-play and print its win rates "
            f"({rates}): {job['command_minutes']} min on 2 cores, install included ({job['date']}).")


def tests_line(saved: dict) -> str:
    """The README's one line over the test command."""
    tests = saved["tests"]
    return (f"**Tests**: install and run the whole suite, the command CI runs: {_counts(tests)} "
            f"in {tests['pytest_minutes']} min on 2 cores ({tests['date']}).")


def detail_section(saved: dict) -> str:
    """docs/results/setup.md: every figure of both runs, with the conditions they ran in."""
    job, tests = saved["main_job"], saved["tests"]
    rows = []
    for opp, roles in job["vs"].items():
        for role, cell in roles.items():
            own = job["heuristic_vs"][opp][role]
            rows.append(f"| {opp} | {role} | {_rate(cell)} | {_rate(own)} | {cell['games']} |")
    out = [f"**Main job** (`{job['command']}`, {job['date']}, {job['recipe']}): {job['command_minutes']} min "
           f"in all, install included ({job['install']}), of which {job['train_minutes']} min of training at "
           f"{job['steps_per_second']:,} steps/s; load {job['load_start']} at the start, {job['load_end']} at the "
           f"end. Its final evaluation, the heuristic's own score in the same seats and games beside it:",
           "", "| opponent | role | the trained policy [95% CI] | the heuristic's own | games |",
           "|---|---|---|---|---|", *rows, "",
           f"**Tests** (`python -m pytest`, {tests['date']}, {tests['conditions']}): {_counts(tests)} in "
           f"{tests['pytest_minutes']} min; load {tests['load_start']} at the start, {tests['load_end']} at the end."]
    if tests.get("command_minutes") is not None:
        out[-1] += f" The whole command, install included, took {tests['command_minutes']} min."
    if tests.get("ci_run_minutes") is not None:
        out[-1] += (f" CI's whole `.ci/run` (the RLlib venv built from scratch too) took "
                    f"{tests['ci_run_minutes']} min.")
    return "\n".join(out)


def write_pages(saved_path: str = SAVED, readme: str = README, getting_started: str = GETTING_STARTED,
                setup_md: str = SETUP_MD) -> list[str]:
    """Rewrite every set-up figure from ``saved_path``; the pages written."""
    saved = load(saved_path)
    for page in (readme, getting_started):
        rewrite_between(page, MAIN_MARKER, main_job_line(saved))
        rewrite_between(page, TESTS_MARKER, tests_line(saved))
    rewrite_between(setup_md, DETAIL_MARKER, detail_section(saved))
    return [readme, getting_started, setup_md]


def readme_command(marker: str, readme: str = README) -> str:
    """The README's command under ``marker``'s line: the first bash block after it."""
    with open(readme) as f:
        text = f.read()
    after = text.split(f"<!-- /results: {marker} -->", 1)[1]
    found = re.search(r"```bash\n(.*?)\n```", after, re.S)
    if found is None:
        raise ValueError(f"no bash block after the {marker} line in {readme}")
    return found.group(1).strip()


def pytest_summary(output: str) -> tuple[dict[str, int], float]:
    """The counts and seconds of pytest's closing line in ``output``."""
    found = SUMMARY.findall(output)
    if not found:
        raise ValueError("no pytest summary line ('N passed ... in S s') in the output")
    counts_text, seconds = found[-1]
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) ([a-z]+)", counts_text)}
    return counts, float(seconds)


def run_in_clone(command: str, clone: str, log: str) -> tuple[str, float, str, str]:
    """Run ``command`` with bash in ``clone``; its output (also saved to ``log``),
    minutes, and the load average before and after."""
    start_load, t0 = load_average(), time.monotonic()
    proc = subprocess.run(["bash", "-c", command], cwd=clone, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    minutes = round((time.monotonic() - t0) / 60, 1)
    with open(log, "w") as f:
        f.write(proc.stdout)
    if proc.returncode != 0:
        raise ValueError(f"the command failed with status {proc.returncode}; its output is in {log}")
    return proc.stdout, minutes, start_load, load_average()


def record_tests(saved: dict, output: str, command_minutes: float | None, loads: tuple[str, str],
                 conditions: str) -> dict:
    counts, seconds = pytest_summary(output)
    if counts.get("failed") or counts.get("error") or counts.get("errors"):
        raise ValueError(f"the suite did not pass ({counts}): the README states a passing run")
    saved["tests"] = {"date": datetime.date.today().isoformat(), "conditions": conditions, "counts": counts,
                      "pytest_minutes": round(seconds / 60, 1), "command_minutes": command_minutes,
                      "ci_run_minutes": None, "load_start": loads[0], "load_end": loads[1]}
    return saved


def record_main_job(saved: dict, run_dir: str, command_minutes: float, loads: tuple[str, str],
                    install: str, recipe: str) -> dict:
    with open(os.path.join(run_dir, "results.json")) as f:
        res = json.load(f)
    keep = ("rate", "low", "high", "games")
    saved["main_job"] = {
        "date": datetime.date.today().isoformat(), "command": saved["main_job"]["command"], "recipe": recipe,
        "command_minutes": command_minutes, "install": install,
        "train_minutes": round(res["train_seconds"] / 60, 1), "steps_per_second": round(res["steps_per_second"]),
        "load_start": loads[0], "load_end": loads[1],
        "vs": {o: {r: {k: c[k] for k in keep} for r, c in roles.items()} for o, roles in res["vs"].items()},
        "heuristic_vs": {o: {r: {k: c[k] for k in keep} for r, c in roles.items()}
                         for o, roles in res["heuristic_vs"].items()}}
    return saved


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/setup_timings.py", description=__doc__.split("\n")[0])
    ap.add_argument("--tables", action="store_true", help="only rewrite the pages from the saved figures")
    sub = ap.add_subparsers(dest="job")
    for name in ("tests", "main-job"):
        p = sub.add_parser(name)
        p.add_argument("--clone", help="a fresh clone: run the README's command there and time it")
        p.add_argument("--minutes", type=float, help="without --clone: the run's wall time, install included")
        p.add_argument("--conditions", default="a fresh clone, pip's cache warm, nothing else running")
    sub.choices["tests"].add_argument("--log", help="without --clone: a saved pytest output to read")
    sub.choices["main-job"].add_argument("--run-dir", help="without --clone: the run's folder (results.json)")
    sub.choices["main-job"].add_argument("--recipe", default="`configs/the_agents.yaml`")
    args = ap.parse_args(argv)
    saved = load()
    if args.job == "tests":
        if args.clone:
            log = os.path.join(os.path.abspath(args.clone), "setup_tests.log")
            output, minutes, *loads = run_in_clone(readme_command(TESTS_MARKER), args.clone, log)
        elif args.log:
            with open(args.log) as f:
                output, minutes, loads = f.read(), args.minutes, ("-", "-")
        else:
            ap.error("tests: give --clone DIR or --log FILE")
        save(record_tests(saved, output, minutes, tuple(loads), args.conditions))
    elif args.job == "main-job":
        if args.clone:
            log = os.path.join(os.path.abspath(args.clone), "setup_main_job.log")
            _, minutes, *loads = run_in_clone(readme_command(MAIN_MARKER), args.clone, log)
            run_dir = os.path.join(args.clone, "runs", "the_agents_v0")
        elif args.run_dir and args.minutes:
            minutes, loads, run_dir = args.minutes, ("-", "-"), args.run_dir
        else:
            ap.error("main-job: give --clone DIR, or --run-dir DIR and --minutes M")
        save(record_main_job(saved, run_dir, minutes, tuple(loads), args.conditions, args.recipe))
    for page in write_pages():
        print(f"rewrote the set-up figures of {os.path.relpath(page, ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "setup_timings"))
