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

Scores (``action_scores``): the plan is a preference order, so a step type scores
-0.5 per place down ``_STEP_ORDER`` (attach 0, move -5.5; a step the order does not
list -6), at the end window attaching 0 and finishing -0.5, the data-to-me
orientation 1 against 0, a Moral High Ground count its points (0, 1, 2), and the
moves it draws uniformly 0 each. ``act`` plays a maximal score, drawing uniformly
among equal maxima.
"""

from __future__ import annotations

import numpy as np

from spyenvs.games.the_agents import rules as R

from ..policy import BasePolicy, check_mask, masked_scores

# preference order of the step types (8.1): lower is better
_STEP_ORDER = [R.S_ATTACH, R.S_PFA, R.S_PFR, R.S_REACT, R.S_EMERG, R.S_BUY_AD, R.S_BUY_AR,
               R.S_SWAPM, R.S_BUY_MD, R.S_BUY_MR, R.S_RECALL, R.S_MOVE]
#: score lost per place down a preference order
_RANK_STEP = 0.5


def _ranked(mask, legal, order) -> np.ndarray:
    """Scores for a preference order: -0.5 per place, legal moves it omits below all."""
    scores = masked_scores(mask, legal, -_RANK_STEP * len(order))
    for rank, a in enumerate(order):
        if mask[a]:
            scores[a] = -_RANK_STEP * rank
    return scores


class TheAgentsHeuristic(BasePolicy):
    name = "heuristic"

    def __init__(self, layout, rng):
        self.layout = layout
        self.rng = rng
        self.dec = layout.blocks["decision"].slice

    def action_scores(self, observation, mask):
        legal = check_mask(mask)
        if legal.size == 1:
            return masked_scores(mask, legal)
        decision = int(np.argmax(observation[self.dec]))
        if decision == R.D_STEP:
            return _ranked(mask, legal, [R.A_STEP + s for s in _STEP_ORDER])
        if decision == R.D_END:
            return _ranked(mask, legal, [R.A_STEP + R.S_ATTACH, R.A_DONE])
        if decision in (R.D_PFA_ORI, R.D_PFR_ORI, R.D_MEDIC_ORI):
            # orientation 1: command to the other player, data (arrows, IP) to me
            return masked_scores(mask, legal, (legal == R.A_ORI + 1).astype(np.float64))
        if decision == R.D_MHG:
            return masked_scores(mask, legal, legal - R.A_COUNT)  # each card revealed is a point
        return masked_scores(mask, legal)

    def act(self, observation, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        scores = self.action_scores(observation, mask)[legal]
        best = legal[scores == scores.max()]
        if best.size == 1:
            return int(best[0])
        return int(best[self.rng.integers(best.size)])


def make(layout, config, role, rng):
    return TheAgentsHeuristic(layout, rng)
