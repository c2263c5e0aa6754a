"""Rule-based player for The Agents (``the_agents_v0``), for every seat.

It reads only its observation (the ``decision`` block: which decision is pending)
and the legal mask; the action layout is the rules file's flat action space (8),
imported as static constants from the game's rules module. Its plan, in words:

* points come from arrows facing you and from attached missions, so attach every
  mission it can (free), and orient every card it places with the data end toward
  itself (command to the other member), every Free Agent with the IP to itself;
* IP is the score: prefer playing cards to buying, and buy only when nothing else
  is possible (cheapest first); never recall or move missions (they only cost
  operations);
* reveal as many cards as allowed for Moral High Ground (each one is a point);
* everything else (targets, positions, partners) uniformly among the legal moves.
"""

from __future__ import annotations

import numpy as np

from spyenvs.games.the_agents import rules as R

from ..policy import BasePolicy

# preference order of the step types (8.1): lower is better
_STEP_ORDER = [R.S_ATTACH, R.S_PFA, R.S_PFR, R.S_REACT, R.S_EMERG, R.S_BUY_AD, R.S_BUY_AR,
               R.S_SWAPM, R.S_BUY_MD, R.S_BUY_MR, R.S_RECALL, R.S_MOVE]


class TheAgentsHeuristic(BasePolicy):
    name = "heuristic"

    def __init__(self, layout, rng):
        self.layout = layout
        self.rng = rng
        self.dec = layout.blocks["decision"].slice

    def _first_legal(self, mask, candidates):
        for a in candidates:
            if mask[a]:
                return a
        return None

    def act(self, observation, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        decision = int(np.argmax(observation[self.dec]))
        if decision == R.D_STEP:
            a = self._first_legal(mask, [R.A_STEP + s for s in _STEP_ORDER])
            if a is not None:
                return a
        elif decision == R.D_END:
            a = self._first_legal(mask, [R.A_STEP + R.S_ATTACH, R.A_DONE])
            if a is not None:
                return a
        elif decision in (R.D_PFA_ORI, R.D_PFR_ORI, R.D_MEDIC_ORI):
            # orientation 1: command to the other player, data (arrows, IP) to me
            if mask[R.A_ORI + 1]:
                return R.A_ORI + 1
        elif decision == R.D_MHG:
            return int(legal.max())  # the highest count revealed scores the most
        return int(legal[self.rng.integers(legal.size)])


def make(layout, config, role, rng):
    return TheAgentsHeuristic(layout, rng)
