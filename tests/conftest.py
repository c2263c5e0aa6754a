"""What the whole test suite shares:

* ``--fuzz-seeds N`` sets the seeds of random play per config in the conformance
  suite's fuzz test (beside SPYENVS_FUZZ_SEEDS, which it overrides; CI runs the
  default 50);
* the toy HighCard game (``toy`` fixture) and its heuristic, registered for the
  agents, wrappers and experiments tests.
"""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.agents.heuristics import register_heuristic
from spyenvs.agents.policy import BasePolicy
from tests.conformance.checks import FUZZ_SEEDS
from tests.core.toy_game import HighCard


class KeepHighCard(BasePolicy):
    """Toy heuristic: keep a card in the top half, otherwise swap (reads only its
    own observation block)."""

    name = "heuristic"

    def __init__(self, layout, deck_size):
        self.layout = layout
        self.threshold = deck_size // 2

    def act(self, observation, mask):
        card = int(np.argmax(self.layout.view(observation, "my_card")))
        return 0 if card >= self.threshold else 1


register_heuristic(HighCard.env_id, lambda layout, config, role, rng: KeepHighCard(layout, config["deck_size"]))


@pytest.fixture
def toy():
    return HighCard


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
        return FUZZ_SEEDS
    return n
