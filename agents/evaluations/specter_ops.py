"""Specter Ops: the agent's side needs three objectives and an escape before round
``max_rounds`` (rules §8), while the hunters win by her health or the clock. Her value
is objectives done ahead of the clock's pace plus health left, squashed to -1 .. +1;
the hunters (and, at 5 players, a loyal hunter) get its negative, the traitor hers."""

from __future__ import annotations

import math


def state_value(game) -> list[float]:
    ag = game.ag[0]
    pace = 3.0 * game.round / game.config["max_rounds"]
    health = ag.hp / ag.maxhp if ag.maxhp else 1.0
    agent = math.tanh(0.9 * (len(game.completed) - pace) + 1.5 * (health - 0.75))
    traitor = game._h_traitor
    return [agent if p == 0 or p - 1 == traitor else -agent for p in range(len(game.roles))]
