"""Every generated figure of README.md and the docs (docs/results/*.md, docs/benchmarking.md,
docs/getting_started.md), rewritten from the saved results in one go, never by hand:

* the shipped policies' table, learning curves and leaderboard (docs/results/policies.md),
  the search figures (docs/results/search.md) and the ladder (docs/benchmarking.md)
  (``python -m spyenvs.experiments.leaderboard --tables``, from
  ``agents/pretrained/*.json``, ``docs/leaderboard/*.json`` and ``docs/search/*.json``);
* the exploitability probe (``scripts/exploit_report.py --tables``, from ``docs/exploit/*.json``);
* the algorithm × game × role table of score cards (``scripts/algorithm_table.py --tables``,
  from ``docs/algorithms/*.json``);
* where a run with the heuristic prior starts, per weight (``scripts/prior_weight_probe.py
  --tables``, from ``docs/prior/*.json``);
* each recipe's runs with several seeds (``scripts/seed_runs.py --tables``, from ``docs/seeds/*.json``);
* the set-up commands' times, win rates and test counts in the README, the getting-started
  page and docs/results/setup.md (``scripts/setup_timings.py --tables``, from
  ``docs/saved/setup_timings.json``);
* where each game's default training run spends its time (``scripts/training_profile.py --tables``,
  from ``docs/speed/profile-*.json``) into docs/results/speed.md.

Run from the repository root; it plays no game:

    python scripts/results_tables.py
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the sibling scripts

import algorithm_table  # noqa: E402
import exploit_report  # noqa: E402
import prior_weight_probe  # noqa: E402
import seed_runs  # noqa: E402
import setup_timings  # noqa: E402
import training_profile  # noqa: E402

from spyenvs.experiments import leaderboard  # noqa: E402
from spyenvs.tools.arguments import run_reporting_errors  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_all(root: str = ROOT) -> list[str]:
    """Rewrite every generated section of the pages under ``root``; the pages written."""
    docs = os.path.join(root, "docs")
    results = os.path.join(docs, "results")
    policies_md, search_md = os.path.join(results, "policies.md"), os.path.join(results, "search.md")
    exploitability_md, algorithms_md = os.path.join(results, "exploitability.md"), os.path.join(results, "algorithms.md")
    benchmarking_md = os.path.join(docs, "benchmarking.md")
    tables_md = os.path.join(docs, "tables.md")
    leaderboard.write_tables(policies_md, search_md, benchmarking_md, img=os.path.join(docs, "img"), tables_md=tables_md)
    exploit_report.write_table(exploitability_md, os.path.join(docs, "exploit"))
    algorithm_table.write_table(algorithms_md, os.path.join(docs, "algorithms"))
    prior_weight_probe.write_table(policies_md, os.path.join(docs, "prior"))
    seed_runs.write_table(policies_md, os.path.join(docs, "seeds"))
    speed_md = os.path.join(results, "speed.md")
    training_profile.write_table(speed_md, os.path.join(docs, "speed"))
    setup_pages = setup_timings.write_pages(os.path.join(docs, "saved", "setup_timings.json"),
                                            os.path.join(root, "README.md"), os.path.join(docs, "getting_started.md"),
                                            os.path.join(results, "setup.md"))
    return [policies_md, search_md, exploitability_md, algorithms_md, benchmarking_md, speed_md, tables_md,
            *setup_pages]


def main(argv=None) -> int:
    argparse.ArgumentParser(prog="python scripts/results_tables.py", description=__doc__.split("\n")[0]).parse_args(argv)
    for page in write_all():
        print(f"rewrote the generated sections of {os.path.relpath(page, ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "results_tables"))
