"""The Specter Ops agent's movement as one destination per turn (macro
``specter_destination``): her turn's route planner and the macro's player.

Planner (:class:`TurnRoutes`), from her own observation alone (hidden information
is a security boundary: never the game state): her cell, her steps taken and
allowed, and the structure, hunter and hunter-sight planes give the cells she can
end this turn on (every cell within her remaining king steps around structures,
never entering a hunter figure's space, as the env's A3 mask rules; her own cell
means stop) and, to each, the cheapest walk there within those steps under the
heuristic's walking costs (:func:`~spyenvs.agents.heuristics.specter_ops.walk_costs`:
a step 1, entering space a hunter sees now 100 more, space within 2 of a hunter 8
more; ties to fewer steps). The path decides what the hunters see (sightings, the
last-seen space, the Gun's shots), so the route sneaks where the steps allow it.
The map tables are the heuristic's (one walking graph per process).

Player (:class:`DestinationPlayer`, bound to the ``agent`` seat; protocol in
:mod:`spyenvs.agents.macros`): at her first A3_move_step decision of a turn the
policy chooses a destination among those cells, as the same cell actions 0..735
the env's steps use (so networks and files keep their shape); the player then plays
the route's steps and STOP on arrival. A decision off the plan (her cell is not where
the plan put her, or its next step is not legal) asks the policy again from where she
stands. Equipment and every other decision stay the policy's.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..heuristics.specter_ops import (
    CELLS,
    D_A3,
    NONE,
    P_OWN,
    P_PATH,
    AgentHeuristic,
    hunter_cells,
    turn_steps,
    walk_costs,
    walking_graph,
)

ENV_ID = "specter_ops_v0"


class TurnWalks:
    """Her cheapest walks of one turn from ``here`` within ``steps``: ``ends`` maps
    each cell she can end on to (cost, steps) of its cheapest walk."""

    __slots__ = ("here", "steps", "ends", "_parents")

    def __init__(self, here: int, steps: int, ends: dict[int, tuple[float, int]], parents: list[dict[int, int]]):
        self.here = here
        self.steps = steps
        self.ends = ends
        self._parents = parents  # per step count k: cell -> the cell before it on the walk of k steps

    def path(self, end: int) -> list[int]:
        """The cells her cheapest walk to ``end`` enters, in order ([] to stay)."""
        if end not in self.ends:
            raise ValueError(f"cell {end} is not a destination this turn; reachable: {sorted(self.ends)}")
        cell, k = end, self.ends[end][1]
        out = []
        while k > 0:
            out.append(cell)
            cell = self._parents[k][cell]
            k -= 1
        out.reverse()
        return out

    def mask(self, like: np.ndarray) -> np.ndarray:
        """A mask of ``like``'s shape and dtype with exactly the destinations legal."""
        out = np.zeros_like(like)
        out[list(self.ends)] = 1
        return out


def cheapest_walks(neigh: list[list[int]], here: int, steps: int, cost, blocked) -> TurnWalks:
    """Every walk of at most ``steps`` king steps over ``neigh`` from ``here``, never
    entering ``blocked``, entering cell y costing ``cost[y]``: per end cell the
    cheapest (ties to fewer steps, then the first found). Searched step count by step
    count; a walk that is no cheaper than a shorter one to the same cell is dropped (the
    shorter one, with steps to spare, does at least as well from there)."""
    c = cost.tolist() if isinstance(cost, np.ndarray) else list(cost)
    inf = float("inf")
    ends: dict[int, tuple[float, int]] = {here: (0.0, 0)}
    parents: list[dict[int, int]] = [{}]
    frontier = {here: 0.0}
    for k in range(1, steps + 1):
        nxt: dict[int, float] = {}
        parent: dict[int, int] = {}
        get = nxt.get
        for x, cx in frontier.items():
            for y in neigh[x]:
                if y in blocked:
                    continue
                cy = cx + c[y]
                if cy < get(y, inf):
                    nxt[y] = cy
                    parent[y] = x
        parents.append(parent)
        frontier = {}
        for y, cy in nxt.items():
            old = ends.get(y)
            if old is None or cy < old[0]:
                ends[y] = (cy, k)
                frontier[y] = cy
        if not frontier:
            break
    return TurnWalks(here, steps, ends, parents)


class TurnRoutes:
    """Her turn's geometry read from her observation (``layout``: the game's)."""

    def __init__(self, layout):
        block = layout.blocks["board"]
        self._board = (block.slice, (block.shape[0], CELLS))
        self._decision = layout.blocks["decision"].slice
        self._private = layout.blocks["private"].slice

    def board(self, obs: np.ndarray) -> np.ndarray:
        sl, shape = self._board
        return obs[sl].reshape(shape)

    def is_move(self, obs: np.ndarray) -> bool:
        """Whether the pending decision is a movement step (A3_move_step)."""
        return int(np.argmax(obs[self._decision])) == D_A3

    def walks(self, obs: np.ndarray, steps: int | None = None) -> TurnWalks | None:
        """Her walks for the rest of this turn (None off the board); ``steps``: walks of
        that many steps instead of the steps her turn has left (a search weighing an
        Adrenal Surge before she moves)."""
        b = self.board(obs)
        own = np.flatnonzero(b[P_OWN] > 0.5)
        if own.size == 0:
            return None
        if steps is None:
            taken, allowed = turn_steps(obs[self._private])
            steps = max(allowed - taken, 0)
        cost, hunters = walk_costs(b, AgentHeuristic.sight_cost, AgentHeuristic.near_cost)
        return cheapest_walks(walking_graph(b), int(own[0]), steps, cost, set(hunters))

    def here(self, obs: np.ndarray) -> int:
        own = np.flatnonzero(self.board(obs)[P_OWN] > 0.5)
        return int(own[0]) if own.size else -1

    def steps_taken(self, obs: np.ndarray) -> int:
        return turn_steps(obs[self._private])[0]

    def step_mask(self, obs: np.ndarray, like: np.ndarray) -> np.ndarray:
        """The env's A3 mask where ``obs`` stands: a step to any free neighbour
        without a hunter figure, or STOP (rules §5.1 step 4)."""
        b = self.board(obs)
        hunters = set(hunter_cells(b))
        out = np.zeros_like(like)
        out[[y for y in walking_graph(b)[self.here(obs)] if y not in hunters]] = 1
        out[NONE] = 1
        return out

    def after_step(self, obs: np.ndarray, cell: int) -> np.ndarray:
        """Her observation after one more step, onto ``cell``: within her steps only her
        private cell, path and step count change (the env publishes at the end)."""
        out = obs.copy()
        b = self.board(out)
        b[P_OWN] = 0.0
        b[P_OWN, cell] = 1.0
        b[P_PATH, cell] = 1.0
        private = out[self._private]
        private[17] = (turn_steps(private)[0] + 1) / 6
        return out


class DestinationPlayer:
    """The macro's player of her seat in one game (see the module docstring)."""

    def __init__(self, routes: TurnRoutes):
        self.routes = routes
        self._plan: list[int] | None = None  # her cells on the route: start, each step, destination
        self._pending: tuple[TurnWalks, np.ndarray] | None = None  # the open destination decision

    def auto_action(self, observation: np.ndarray, mask: np.ndarray) -> int | None:
        routes, plan = self.routes, self._plan
        if not routes.is_move(observation):
            self._plan = None
            return None
        if plan is None:
            return None
        taken = routes.steps_taken(observation)
        if not 0 < taken < len(plan) or plan[taken] != routes.here(observation):
            self._plan = None  # a new turn, or she is off the route: the policy decides again
            return None
        a = plan[taken + 1] if taken + 1 < len(plan) else NONE
        if not mask[a]:
            self._plan = None
            return None
        if a == NONE:
            self._plan = None
        return a

    def choice_mask(self, observation: np.ndarray, mask: np.ndarray) -> tuple[TurnWalks | None, np.ndarray]:
        """(her walks, the destination mask) at a movement decision; (None, ``mask``) elsewhere."""
        walks = self.routes.walks(observation) if self.routes.is_move(observation) else None
        return (None, mask) if walks is None else (walks, walks.mask(mask))

    def decision_mask(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        walks, out = self.choice_mask(observation, mask)
        self._pending = None if walks is None else (walks, mask)
        return out

    def env_action(self, choice: int) -> int:
        pending, self._pending = self._pending, None
        if pending is None:
            return int(choice)
        walks, mask = pending
        path = walks.path(int(choice))
        if not path:
            self._plan = None
            return NONE
        if not mask[path[0]]:
            raise RuntimeError(f"the route planner's step to cell {path[0]} is not legal: planner and rules disagree")
        self._plan = [walks.here] + path
        return path[0]

    def teacher_choice(self, teacher: Any, observation: np.ndarray, mask: np.ndarray) -> int:
        """At a destination decision, where ``teacher``'s own walk would end this turn:
        it plays its steps on her observation as it changes step by step (only her
        private cell, path and count change within her steps), from its real first
        move on. Elsewhere its move."""
        first = int(teacher.act(observation, mask))
        if self._pending is None:
            return first
        walks = self._pending[0]
        obs, cell, a = observation, walks.here, first
        for taken in range(1, walks.steps + 1):
            if a >= CELLS:  # STOP
                break
            cell = a
            if taken == walks.steps:
                break
            obs = self.routes.after_step(obs, cell)
            a = int(teacher.act(obs, self.routes.step_mask(obs, mask)))
        return cell

    def first_step_logits(self, observation: np.ndarray, mask: np.ndarray,
                          choice_logits: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """The env's actions' logits: each first step (or STOP) gets the log-sum of the
        destinations whose route begins with it; off a movement decision the choice's
        own logits. The plan is left alone (a search's look-ahead)."""
        walks, dmask = self.choice_mask(observation, mask)
        logits = np.asarray(choice_logits(dmask), np.float64)
        if walks is None:
            return logits
        out = np.full(logits.shape, -np.inf)
        for end in walks.ends:
            path = walks.path(end)
            a = path[0] if path else NONE
            out[a] = np.logaddexp(out[a], logits[end])
        return out


class SpecterDestination:
    """The unbound macro: ``bind(game, seat)`` gives the ``agent`` seat's player (None
    for the hunters, whose decisions stay the env's)."""

    kind = "specter_destination"
    env_id = ENV_ID

    def check_env(self, env_id: str) -> None:
        if env_id != self.env_id:
            raise ValueError(f"macro {self.kind} is for {self.env_id}, not {env_id}")

    def bind(self, game: Any, seat: int) -> DestinationPlayer | None:
        self.check_env(game.env_id)
        if game.roles[seat] != "agent":
            return None
        return DestinationPlayer(TurnRoutes(game.layout))
