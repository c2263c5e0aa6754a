"""Spy Games: the winner is the player with the most victory points (C27, C28), so a
player's value is its VP lead over the best of the others, squashed to -1 .. +1 (a
4 VP lead is worth about 0.76; a 4 VP deficit the reverse)."""

from __future__ import annotations

import math


def state_value(game) -> list[float]:
    vp = game.final_scores()
    return [math.tanh((v - max(w for q, w in enumerate(vp) if q != p)) / 4.0) for p, v in enumerate(vp)]
