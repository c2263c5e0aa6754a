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


def _ranked(order) -> np.ndarray:
    """Scores for a preference order: -0.5 per place, actions it omits below all."""
    scores = np.full(R.NUM_ACTIONS, -_RANK_STEP * len(order))
    for rank, a in enumerate(order):
        scores[a] = -_RANK_STEP * rank
    return scores


def _decision_scores() -> np.ndarray:
    """Every action's score per pending decision (rows: decisions; read on the legal
    actions only): the plan depends on the decision alone, so scoring a batch is one
    row lookup per observation."""
    actions = np.arange(R.NUM_ACTIONS)
    table = np.zeros((len(R.DECISIONS), R.NUM_ACTIONS))  # moves drawn uniformly: 0 each
    table[R.D_STEP] = _ranked([R.A_STEP + s for s in _STEP_ORDER])
    table[R.D_END] = _ranked([R.A_STEP + R.S_ATTACH, R.A_DONE])
    for d in (R.D_PFA_ORI, R.D_PFR_ORI, R.D_MEDIC_ORI):
        # orientation 1: command to the other player, data (arrows, IP) to me
        table[d] = actions == R.A_ORI + 1
    table[R.D_MHG] = actions - R.A_COUNT  # each card revealed is a point
    return table


_DECISION_SCORES = _decision_scores()


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
        return masked_scores(mask, legal, _DECISION_SCORES[int(np.argmax(observation[self.dec]))][legal])

    def action_scores_batch(self, observations, masks):
        """``action_scores`` per row, in a few numpy calls (the trainer's prior scores
        every learner decision)."""
        legal = np.asarray(masks) > 0
        count = legal.sum(axis=1)
        if (count == 0).any():
            raise ValueError("the action mask has no legal action")
        rows = _DECISION_SCORES[np.argmax(np.asarray(observations)[:, self.dec], axis=1)]
        rows = np.where(count[:, None] == 1, 0.0, rows)  # a single legal move scores 0
        return np.where(legal, rows, -np.inf)

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
