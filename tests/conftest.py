"""Options shared by the whole test suite: ``--fuzz-seeds N`` sets the seeds of random
play per config in the conformance suite's fuzz test (beside SPYENVS_FUZZ_SEEDS, which
it overrides; CI runs the default 50)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--fuzz-seeds", type=int, default=None, metavar="N",
        help="seeds of random play per config in the conformance fuzz test, invariants checked "
             "every step (default: SPYENVS_FUZZ_SEEDS, else 50)",
    )


def pytest_configure(config):
    n = config.getoption("--fuzz-seeds")
    if n is not None and n < 1:
        raise pytest.UsageError(f"--fuzz-seeds must be a positive number of seeds, got {n}")


@pytest.fixture
def fuzz_seeds(request) -> int:
    """Seeds per config for random-play fuzzing: --fuzz-seeds, else SPYENVS_FUZZ_SEEDS, else 50."""
    n = request.config.getoption("--fuzz-seeds")
    if n is None:
        from tests.conformance.checks import FUZZ_SEEDS

        return FUZZ_SEEDS
    return n
