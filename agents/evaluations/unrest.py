"""Unrest: the Rebel wins with a third liberation before the deck runs out (rules §7.4),
so her value is her liberations against the share of the deck already drawn (19 cards
after the opening hand of 5); the Empire's is its negative (the game is zero-sum)."""

from __future__ import annotations

import math

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest.rules import REBEL

_DECK_AFTER_DEAL = D.NUM_CARDS - 5


def state_value(game) -> list[float]:
    pub = game.pub
    drawn = 1.0 - pub.deck_size / _DECK_AFTER_DEAL
    rebel = math.tanh(1.2 * (len(pub.lib) - 3.0 * drawn))
    out = [-rebel, -rebel]
    out[REBEL] = rebel
    return out
