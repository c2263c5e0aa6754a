"""A search that plays Specter Ops at the level of plans (spec option
``macro=specter`` of :func:`spyenvs.agents.ismcts.parse_spec`).

The generic ISMCTS branches over single decisions: her turn is 13 of them (six king
steps among them), a hunter's 2 to 4, so a second of search never looks past her turn
and its values come out flat. This search branches where the game is decided instead:

* **the agent** chooses where to end her turn. At her first movement decision of a turn
  the candidates are the cells her turn can reach (the destination macro's route
  planner, :class:`~spyenvs.agents.macros.specter_ops.TurnRoutes`, from her
  observation), the ``top`` best by the heuristic's own turn plan (walk cost + cost on
  to her next stop + the fear of ending where a hunter's next move can see her,
  :meth:`~spyenvs.agents.heuristics.specter_ops.AgentHeuristic.end_scores`); the
  route to the chosen cell is then played step by step without searching
  (:class:`~spyenvs.agents.macros.specter_ops.DestinationPlayer`);
* **a hunter** chooses its whole turn: a walk's end cell, or a ride (drive, then exit
  or stay), the ``top`` best by the hunter heuristic's scores
  (:meth:`~spyenvs.agents.heuristics.specter_ops.HunterHeuristic.scored_options`); the
  ride's later decisions (H3, H4) follow the chosen plan.

Every other decision of the seat (objective, equipment, turn order, attacks) is the
heuristic's.

**Simulations.** Each starts from a determinization ``game.resample_hidden(seat, rng)``
(a pool of ``dets`` of them, cycled by clones), plays the candidate plan, then plays
every seat by the heuristic (each from its own observation of the determinization)
until ``rounds`` new rounds have begun, and scores that state with the evaluation
(``value=search``: the fitted
:func:`~spyenvs.agents.evaluations.specter_ops.search_value`, what changes every round:
her route left against the clock, health, the hunters' sight and reach, the size of
their belief; ``value=heuristic``: the plain
:func:`~spyenvs.agents.evaluations.specter_ops.state_value`), or by the outcome where
the game ended. Candidates are chosen by PUCT over the heuristic's scores (softmax at
``temp``) with the simulations' mean values; the most visited is played.

**What a hunter's search knows.** A hunter's determinizations place her uniformly on
the hunters' exact public belief set (rules §6.1/§6.2: ``resample_hidden`` draws her
cell from the union of the belief's branches and her last turns backwards from it), so
the search averages its plans over every cell she can be on and never reads where she
is. **The hunters' joint move** is searched one hunter at a time: each hunter seat
searches its own turn when it is asked, the hunters still to move that round (and
everybody after) played by the heuristic in the simulations; the team's turn order
(H1) is the heuristic's (the Gun last, with the belief the others' clears have cut).
A team tree over the joint move would multiply the candidates (8 per hunter: 64 or
512 joint plans) for a second of search.

The agent's search reads her observation and ``resample_hidden(0, rng)``, which for her
re-deals only the dice (at 2-4 players the hunters hold no secret); its simulations
play the heuristic hunters forward, which is its model of the opponents.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from spyenvs.games.specter_ops.data import A3, H2, H2V, H3, H4, NO

from .heuristics import HeuristicPolicy
from .heuristics.specter_ops import D_A3, D_H2, D_H2V, D_H3, D_H4, SCORE_SCALE
from .macros.specter_ops import DestinationPlayer, TurnRoutes
from .policy import BasePolicy

#: decisions a hunter's chosen plan answers: its main action, then the ride's (H3, H4)
_HUNTER_PLAN = {H2: 0, H2V: 0, H3: 1, H4: 2}


class _Plan:
    """A candidate plan of the searching seat: ``key`` names it (her end cell, or the
    hunter's (first, H3, H4) answers); ``score`` is the heuristic's rating."""

    __slots__ = ("key", "steps", "answers", "score")

    @property
    def first(self) -> int:
        """The env action the plan starts with."""
        if self.steps is not None:
            return self.steps[0] if self.steps else NO
        return self.answers[0]

    def __init__(self, key, score: float, steps: list[int] | None = None, answers: tuple | None = None):
        self.key = key
        self.score = score
        self.steps = steps  # agent: the cells her route enters, in order
        self.answers = answers  # hunter: (H2/H2v action, H3 destination or None, H4 answer or None)


class BoundSpecterSearch(BasePolicy):
    """The search playing ``seat`` of the live ``game`` (see the module docstring);
    ``spec`` is the :class:`~spyenvs.agents.ismcts.ISMCTS` template carrying the
    options (``simulations``, ``time_limit``, ``c``, ``determinizations``,
    ``prior_temperature``, ``value``, ``macro_top``, ``macro_rounds``)."""

    def __init__(self, spec: Any, game: Any, seat: int):
        self.spec = spec
        self.name = spec.name
        self.game = game
        self.seat = seat
        self.rng = spec.rng
        self.is_agent = game.roles[seat] == "agent"
        self.own = HeuristicPolicy(spec.seed).bind(game, seat)  # her/its other decisions
        self._sim = [HeuristicPolicy(spec.seed).bind(game, s) for s in range(game.num_players)]
        if spec.value == "terminal":
            raise ValueError("ismcts macro=specter scores the state it stops at: value=search or value=heuristic")
        from .evaluations import state_value_for
        self._value = state_value_for(game, spec.value)
        self._decision = game.layout.blocks["decision"].slice
        self._dest = DestinationPlayer(TurnRoutes(game.layout)) if self.is_agent else None
        self._ride: tuple | None = None  # a hunter's chosen (H3, H4) answers this turn
        #: iterations run by the last search, and the root's visit shares
        self.last_iterations = 0
        self.last_visits: np.ndarray | None = None

    # ------------------------------------------------------------------ playing
    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        game = self.game
        if game.is_over or game.current_player != self.seat:
            raise ValueError(f"search bound to seat {self.seat} asked to act out of turn")
        if observation is None:
            observation = game.observe(self.seat)
        self.last_iterations = 0
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        decision = int(np.argmax(observation[self._decision]))
        if self.is_agent:
            return self._agent_act(observation, mask, decision)
        return self._hunter_act(observation, mask, decision)

    def search(self, game: Any) -> int:
        """The move for the live ``game`` (``bench --search`` times it); searches only at
        a plan's first decision."""
        return self.act(game.observe(self.seat), game.legal_mask())

    def _agent_act(self, obs, mask, decision) -> int:
        if decision != D_A3:
            return int(self.own.act(obs, mask))
        dest = self._dest
        a = dest.auto_action(obs, mask)
        if a is not None:
            return int(a)
        walks, _ = dest.choice_mask(obs, mask)
        if walks is None:
            return int(self.own.act(obs, mask))
        # her heuristic's turn-start memory (the stall count its fears halve with)
        self.own.action_scores_advance_batch(obs[None], mask[None])
        sim = self._sim[self.seat]
        sim._progress, sim._stalled = self.own._progress, self.own._stalled
        scores = self.own.end_scores(obs, walks.ends)
        plans = [_Plan(end, -cost + scores[end], steps=walks.path(end)) for end, (cost, _) in walks.ends.items()]
        best = self._search(plans, mask.size)
        dest.decision_mask(obs, mask)
        return int(dest.env_action(best.key))

    def _hunter_act(self, obs, mask, decision) -> int:
        if decision in (D_H3, D_H4) and self._ride is not None:
            planned = self._ride[decision - D_H3]
            if planned is not None and mask[planned]:
                return int(planned)
        if decision not in (D_H2, D_H2V):
            return int(self.own.act(obs, mask))
        self._ride = None
        legal = np.flatnonzero(mask)
        scored = self.own.scored_options(obs, mask, legal, decision == D_H2V)
        if scored is None:
            return int(self.own.act(obs, mask))
        opts, score = scored
        plans = {}
        for (first, h3, h4, *_), s in zip(opts, (SCORE_SCALE * np.asarray(score)).tolist()):
            key = (int(first), h3, h4)
            if key not in plans or s > plans[key].score:
                plans[key] = _Plan(key, s, answers=key)
        best = self._search(list(plans.values()), mask.size)
        first, h3, h4 = best.answers
        self._ride = (h3, h4)
        return int(first)

    # ------------------------------------------------------------------ search
    def _search(self, plans: list[_Plan], n_actions: int) -> _Plan:
        spec = self.spec
        plans.sort(key=lambda p: -p.score)
        plans = plans[:spec.macro_top]
        if len(plans) == 1:
            self.last_iterations = 0
            return plans[0]
        z = np.array([p.score for p in plans]) / spec.prior_temperature
        prior = np.exp(z - z.max())
        prior /= prior.sum()
        k = len(plans)
        visits = np.zeros(k)
        total = np.zeros(k)
        deadline = None if spec.time_limit is None else time.monotonic() + spec.time_limit
        pool: list[Any] = []
        dets = spec.determinizations or 16
        game, seat, rng, c = self.game, self.seat, self.rng, spec.c
        it = 0
        for it in range(spec.simulations):
            if deadline is not None and it > 0 and time.monotonic() > deadline:
                break
            if len(pool) < dets:
                pool.append(game.resample_hidden(seat, rng))
            d = pool[it % len(pool)].clone()
            n = visits.sum()
            fpu = total.sum() / n if n else 0.0
            q = np.where(visits > 0, total / np.maximum(visits, 1), fpu)
            i = int(np.argmax(q + c * prior * math.sqrt(n + 1) / (1 + visits)))
            v = self._simulate(d, plans[i])
            visits[i] += 1
            total[i] += v
        else:
            it = spec.simulations
        self.last_iterations = it
        best = int(np.lexsort((-prior, total / np.maximum(visits, 1), visits))[-1])
        share = np.zeros(n_actions, np.float32)
        for p, v in zip(plans, visits / max(visits.sum(), 1)):
            share[p.first] += v
        self.last_visits = share
        return plans[best]

    def _simulate(self, d: Any, plan: _Plan) -> float:
        """Play ``plan`` for the seat on determinization ``d``, everything else by the
        heuristic, until ``macro_rounds`` new rounds begin; the seat's value there."""
        seat, sim = self.seat, self._sim
        plan_round = d.round
        stop = plan_round + self.spec.macro_rounds
        steps = list(plan.steps) if plan.steps is not None else None
        answers = plan.answers
        in_plan = True
        memory = [(p._progress, p._stalled) if hasattr(p, "_stalled") else None for p in sim]
        try:
            while not d.is_over and d.round < stop:
                mask = d.legal_mask()
                legal = mask.nonzero()[0]
                if legal.size == 1:
                    d.step(int(legal[0]))
                    continue
                s = d.current_player
                a = -1
                if s == seat and in_plan:
                    if d.round != plan_round:
                        in_plan = False
                    elif steps is not None:  # her route this turn, then STOP
                        if d.dec == A3:
                            a = steps.pop(0) if steps else NO
                            in_plan = a != NO
                    elif d.dec in _HUNTER_PLAN:  # the hunter's turn: main action, H3, H4
                        a = answers[_HUNTER_PLAN[d.dec]]
                        if a is None:
                            a = -1
                    if a >= 0 and not mask[a]:
                        in_plan = False
                        a = -1
                if a < 0:
                    a = int(sim[s].act(d.observe(s), mask))
                d.step(a)
        finally:
            for p, mem in zip(sim, memory):
                if mem is not None:
                    p._progress, p._stalled = mem
        return float(self._value(d)[seat])


