"""Shared fixtures for the agents tests: the toy HighCard game and its heuristic."""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.agents.heuristics import register_heuristic
from spyenvs.agents.policy import BasePolicy
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
