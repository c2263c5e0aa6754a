"""The Agents: the race to 40 IP (rules §8) scored by each player's IP lead over the
best rival, squashed to -1 .. +1 (a 10 IP lead is worth about 0.76)."""

from __future__ import annotations

import math


def state_value(game) -> list[float]:
    ip = game.ip
    out = []
    for p, mine in enumerate(ip):
        rival = max(v for q, v in enumerate(ip) if q != p)
        out.append(math.tanh((mine - rival) / 10.0))
    return out
