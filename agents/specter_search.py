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

With ``surge=1`` she also weighs an Adrenal Surge at her card decision before moving
(half the candidates are her walks of 6 steps). Every other decision of the seat
(objective, other equipment, turn order, attacks) is the heuristic's.

**Simulations.** Each starts from a determinization ``game.resample_hidden(seat, rng)``
(a fresh one each, or with ``dets=D`` a pool of D cycled by clones), plays the
candidate plan, then every decision by the heuristic (each seat from its own
observation of the determinization) until ``rounds`` new rounds have begun (her next
turn's start; with ``reply=1`` a hunter's run on through her turn to the next
hunters' phase), and scores that state with the evaluation (``value=search``: the
fitted :func:`~spyenvs.agents.evaluations.specter_ops.search_value`, what changes
every round: her route left against the clock, health, the hunters' sight and reach,
the size of their belief; ``value=heuristic``: the plain
:func:`~spyenvs.agents.evaluations.specter_ops.state_value`), or by the outcome where
the game ended. With ``rounds`` above 1 the seat's plan decisions inside the horizon
are tree nodes too (keyed by the plan above and the seat's own cell), chosen as the
root's are. Candidates are chosen by PUCT over the heuristic's scores (softmax at
``temp``) with the simulations' mean values; the most visited is played.

**What a hunter's search knows.** A hunter's determinizations place her uniformly on
the hunters' exact public belief set (rules §6.1/§6.2: ``resample_hidden`` draws her
cell from the union of the belief's branches and her last turns backwards from it), so
the search averages its plans over every cell she can be on and never reads where she
is; ``bias=1`` weighs each determinization by the goal prior of her cell (location
categorization). **The hunters' joint move** is searched one hunter at a time: each
hunter seat searches its own turn when it is asked, the hunters still to move that
round (and everybody after) played by the heuristic in the simulations; the team's
turn order (H1) is the heuristic's (the Gun last, with the belief the others' clears
have cut). A team tree over the joint move would multiply the candidates (8 per hunter: 64 or
512 joint plans) for a second of search.

The agent's search reads her observation and ``resample_hidden(0, rng)``, which for her
re-deals only the dice (at 2-4 players the hunters hold no secret); its simulations
play the heuristic hunters forward, which is its model of the opponents.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from spyenvs.games.specter_ops.data import A2, A3, CARD0, H2, H2V, H3, H4, NO, SURGE

from .heuristics import HeuristicPolicy
from .heuristics.specter_ops import D_A2, D_A3, D_H2, D_H2V, D_H3, D_H4, P_BELIEF_MAIN, SCORE_SCALE
from .evaluations.specter_ops import hunters_phase
from .macros.specter_ops import DestinationPlayer, TurnRoutes
from .ismcts import BoundSearch

#: decisions a hunter's chosen plan answers: its main action, then the ride's (H3, H4)
_HUNTER_PLAN = {H2: 0, H2V: 0, H3: 1, H4: 2}
#: her Adrenal Surge card action (6 steps this turn, rules §2.2)
SURGE_CARD = CARD0 + SURGE


class _Plan:
    """A candidate plan of the searching seat: ``key`` names it (her end cell, or the
    hunter's (first, H3, H4) answers); ``score`` is the heuristic's rating."""

    __slots__ = ("key", "steps", "answers", "score", "card", "end")

    @property
    def first(self) -> int:
        """The env action the plan starts with."""
        if self.card is not None:
            return self.card
        if self.steps is not None:
            return self.steps[0] if self.steps else NO
        return self.answers[0]

    def __init__(self, key, score: float, steps: list[int] | None = None, answers: tuple | None = None,
                 card: int | None = None):
        self.key = key
        self.score = score
        self.steps = steps  # agent: the cells her route enters, in order
        self.answers = answers  # hunter: (H2/H2v action, H3 destination or None, H4 answer or None)
        self.card = card  # agent, asked before she moves: her card answer (NO, or the Adrenal Surge)
        self.end = None  # agent: the cell her route ends on


class BoundSpecterSearch(BoundSearch):
    """The search playing ``seat`` of the live ``game`` (see the module docstring);
    ``spec`` is the :class:`~spyenvs.agents.ismcts.ISMCTS` template carrying the
    options (``simulations``, ``time_limit``, ``c``, ``determinizations``,
    ``prior_temperature``, ``value``, ``macro_top``, ``macro_rounds``, ``macro_surge``,
    ``macro_reply``, ``macro_bias``); ``last_visits`` are its plans' visit shares by their
    first action."""

    def __init__(self, spec: Any, game: Any, seat: int):
        super().__init__(spec, game, seat)
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
        self._chosen: _Plan | None = None  # her plan chosen at the card decision, before she moves

    # ------------------------------------------------------------------ playing
    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        self._check_turn()
        if observation is None:
            observation = self.game.observe(self.seat)
        self.last_iterations = 0
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            a = int(legal[0])
        else:
            decision = int(np.argmax(observation[self._decision]))
            if self.is_agent:
                a = self._agent_act(observation, mask, decision)
            else:
                a = self._hunter_act(observation, mask, decision)
        if self.last_iterations == 0:  # played without searching: the visits are the move
            self.last_visits = np.zeros(mask.size, np.float32)
            self.last_visits[a] = 1.0
        return a

    def search(self, game: Any) -> int:
        """The move for the live ``game`` (``bench --search`` times it); searches only at
        a plan's first decision."""
        return self.act(game.observe(self.seat), game.legal_mask())

    def _agent_act(self, obs, mask, decision) -> int:
        if decision == D_A2 and self._surge_choice(mask):
            plans = self._plans(self.own, obs, mask)
            if plans is not None:
                self._sync_stall()
                self._chosen = self._search(plans, mask.size)
                return int(self._chosen.card)
        if decision != D_A3:
            return int(self.own.act(obs, mask))
        dest = self._dest
        a = dest.auto_action(obs, mask)
        if a is not None:
            return int(a)
        chosen, self._chosen = self._chosen, None
        walks = dest.routes.walks(obs)
        if walks is None:
            return int(self.own.act(obs, mask))
        if chosen is not None and dest.routes.steps_taken(obs) == 0 and chosen.end in walks.ends:
            self.own.action_scores_advance_batch(obs[None], mask[None])  # her turn-start memory
            best = chosen  # chosen before she moved, with or without the Adrenal Surge
        else:
            plans = self._plans(self.own, obs, mask)
            self._sync_stall()
            best = self._search(plans, mask.size)
        dest.decision_mask(obs, mask)
        return int(dest.env_action(best.end))

    def _sync_stall(self) -> None:
        """Her simulations' heuristic starts from the live one's stall count."""
        sim = self._sim[self.seat]
        sim._progress, sim._stalled = self.own._progress, self.own._stalled

    def _surge_choice(self, mask: np.ndarray) -> bool:
        """Whether the search weighs an Adrenal Surge at this card decision (``surge=1``
        and the card is playable)."""
        return bool(self.spec.macro_surge and mask.size > SURGE_CARD and mask[SURGE_CARD])

    def _hunter_act(self, obs, mask, decision) -> int:
        if decision in (D_H3, D_H4) and self._ride is not None:
            planned = self._ride[decision - D_H3]
            if planned is not None and mask[planned]:
                return int(planned)
        plans = self._plans(self.own, obs, mask) if decision in (D_H2, D_H2V) else None
        if plans is None:
            return int(self.own.act(obs, mask))
        best = self._search(plans, mask.size)
        first, h3, h4 = best.answers
        self._ride = (h3, h4)
        return int(first)

    def _plans(self, heuristic: Any, obs: np.ndarray, mask: np.ndarray) -> list[_Plan] | None:
        """The seat's ``top`` candidate plans, best first by ``heuristic``'s ratings, at
        a plan decision (her movement step, a hunter's main action); None elsewhere or
        where there is nothing to plan. Her heuristic's turn-start memory moves on as
        its own play would (the stall count its fears halve with)."""
        decision = int(np.argmax(obs[self._decision]))
        if self.is_agent:
            routes = self._dest.routes
            if decision == D_A2 and self._surge_choice(mask):
                # before she moves: her walks of 4 steps, and of 6 after an Adrenal Surge
                options = [(NO, routes.walks(obs)), (SURGE_CARD, routes.walks(obs, 6))]
                turn_start = True
            elif decision == D_A3:
                heuristic.action_scores_advance_batch(obs[None], mask[None])
                options = [(None, routes.walks(obs))]
                turn_start = False
            else:
                return None
            if options[0][1] is None:
                return None
            plans = []
            share = self.spec.macro_top // len(options) or 1
            for card, walks in options:
                scores = heuristic.end_scores(obs, walks.ends, turn_start)
                mine = [_Plan((card, end) if card is not None else end, -cost + scores[end],
                              steps=walks.path(end), card=card) for end, (cost, _) in walks.ends.items()]
                for plan, end in zip(mine, walks.ends):
                    plan.end = end
                mine.sort(key=lambda p: -p.score)
                plans += mine[:share]
        else:
            if decision not in (D_H2, D_H2V):
                return None
            scored = heuristic.scored_options(obs, mask, np.flatnonzero(mask), decision == D_H2V)
            if scored is None:
                return None
            by_key: dict[tuple, _Plan] = {}
            for (first, h3, h4, *_), value in zip(scored[0], (SCORE_SCALE * np.asarray(scored[1])).tolist()):
                key = (int(first), h3, h4)
                if key not in by_key or value > by_key[key].score:
                    by_key[key] = _Plan(key, value, answers=key)
            plans = list(by_key.values())
        plans.sort(key=lambda p: -p.score)
        return plans[:self.spec.macro_top]

    # ------------------------------------------------------------------ search
    def _search(self, plans: list[_Plan], n_actions: int) -> _Plan:
        spec = self.spec
        if len(plans) == 1:
            self.last_iterations = 0
            return plans[0]
        root = _Node(plans, spec.prior_temperature)
        bias = self._location_bias(self.game) if spec.macro_bias and not self.is_agent else None
        for d in self._determinizations(self.game):
            self._simulate(d, root, 1.0 if bias is None else float(bias[d.ag[0].pos]))
        visits = root.visits
        best = int(np.lexsort((root.prior, root.total / np.maximum(visits, 1), visits))[-1])
        share = np.zeros(n_actions, np.float32)
        for plan, v in zip(plans, visits / max(visits.sum(), 1)):
            share[plan.first] += v
        self.last_visits = share
        return plans[best]

    def _location_bias(self, game: Any) -> np.ndarray:
        """Per cell, the weight of a determinization that puts her there (``bias=1``): the
        hunter heuristic's goal prior (cells nearer the objectives she still needs, else
        the exits, weigh more; public, from the seat's observation), over its mean on
        the belief. Nijssen and Winands' location categorization for Scotland Yard: the
        belief says where she can be, her goals where she is likely to be."""
        obs = game.observe(self.seat)
        own = self.own
        prior = np.asarray(own.prior(own.board(obs), game.layout.view(obs, "agents")), np.float64)
        belief = own.board(obs)[P_BELIEF_MAIN] > 0.5
        mean = prior[belief].mean() if belief.any() else 1.0
        return prior / mean

    def _simulate(self, d: Any, root: _Node, weight: float = 1.0) -> None:
        """One simulation on determinization ``d``: down the tree of the seat's plans
        (a plan chosen at each of its plan decisions within ``macro_rounds`` rounds,
        every other decision the heuristic's), then the seat's value where the rounds
        end, backed up along the plans chosen with ``weight`` (an importance weight of
        the determinization)."""
        seat, sim, c = self.seat, self._sim, self.spec.c
        stop = d.round + self.spec.macro_rounds
        reply = self.spec.macro_reply and not self.is_agent  # a hunter's: through her next turn
        node = root
        i = node.select(c)
        path = [(node, i)]
        plan: _Plan | None = node.plans[i]
        steps = list(plan.steps) if plan.steps is not None else None
        plan_round = d.round
        memory = [(p._progress, p._stalled) if hasattr(p, "_stalled") else None for p in sim]
        try:
            while not d.is_over and (d.round < stop or (reply and not hunters_phase(d))):
                mask = d.legal_mask()
                legal = mask.nonzero()[0]
                if legal.size == 1:
                    d.step(int(legal[0]))
                    continue
                s = d.current_player
                a = -1
                if s == seat:
                    if plan is not None and d.round != plan_round:
                        # the seat's next turn: a plan decision grows the tree below the last plan
                        plans = self._plans(sim[seat], d.observe(seat), mask) if self._plan_decision(d) else None
                        if plans is not None:
                            key = (plan.key, self._own_cell(d))
                            child = node.children.get(key)
                            if child is None:
                                child = node.children[key] = _Node(plans, self.spec.prior_temperature)
                            node = child
                            i = node.select(c)
                            path.append((node, i))
                            plan = node.plans[i]
                            steps = list(plan.steps) if plan.steps is not None else None
                            plan_round = d.round
                    if plan is not None and d.round == plan_round:
                        a = self._answer(d, plan, steps)
                        if a == NO and steps is not None:
                            plan_round = -1  # her route is over: the turn is the heuristic's
                        elif a >= 0 and not mask[a]:
                            a = -1
                            plan_round = -1
                if a < 0:
                    a = int(sim[s].act(d.observe(s), mask))
                d.step(a)
        finally:
            for p, mem in zip(sim, memory):
                if mem is not None:
                    p._progress, p._stalled = mem
        v = float(self._value(d)[seat])
        for n, j in path:
            n.visits[j] += weight
            n.total[j] += weight * v

    def _plan_decision(self, d: Any) -> bool:
        """Whether ``d`` asks the seat a plan decision: her first movement step of a
        turn, a hunter's main action."""
        if self.is_agent:
            if d.dec == A2:
                return self._surge_choice(d.legal_mask())
            return d.dec == A3 and d.ag[0].steps == 0
        return d.dec in (H2, H2V)

    def _own_cell(self, d: Any) -> int:
        return d.ag[0].pos if self.is_agent else d._hspace(self.seat - 1)

    @staticmethod
    def _answer(d: Any, plan: _Plan, steps: list[int] | None) -> int:
        """The plan's answer to ``d``'s decision (-1: the heuristic answers it)."""
        if steps is not None:  # her card answer, her route this turn, then STOP
            if d.dec == A2 and plan.card is not None:
                return plan.card
            if d.dec != A3:
                return -1
            return steps.pop(0) if steps else NO
        k = _HUNTER_PLAN.get(d.dec)  # the hunter's turn: main action, H3, H4
        a = None if k is None else plan.answers[k]
        return -1 if a is None else int(a)


class _Node:
    """A plan decision of the searching seat: its candidate plans, their prior (softmax
    of the heuristic's ratings), visits and summed values, and the nodes of its next
    plan decision per (plan, its own cell there)."""

    __slots__ = ("plans", "prior", "visits", "total", "children")

    def __init__(self, plans: list[_Plan], temperature: float):
        self.plans = plans
        z = np.array([p.score for p in plans]) / temperature
        prior = np.exp(z - z.max())
        self.prior = prior / prior.sum()
        self.visits = np.zeros(len(plans))
        self.total = np.zeros(len(plans))
        self.children: dict[tuple, _Node] = {}

    def select(self, c: float) -> int:
        """PUCT: the mean value (unvisited: the node's mean so far) plus the prior's bonus."""
        n = self.visits.sum()
        fpu = self.total.sum() / n if n else 0.0
        q = np.where(self.visits > 0, self.total / np.maximum(self.visits, 1), fpu)
        return int(np.argmax(q + c * self.prior * math.sqrt(n + 1) / (1 + self.visits)))
