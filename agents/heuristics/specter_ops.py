"""Rule-based players for Specter Ops (``specter_ops_v0``): the agent and the hunters.

Both decode only their own observation: the board planes (``layout.view(obs,
"board")``: structures, escape points, known objectives, hunters, sightings, the
public belief plane) and the ``decision`` one-hot, plus the mask. Cells are action
indices ``row * 23 + col`` (rules §8.2).

Agent (Blue Jay, completes objectives from king distance 2): picks the shortest
route through the objectives she still needs and then an escape point (BFS around
structures, every order of the open objectives tried). Each turn she plans where to
end it: among the cells her steps reach she takes the one minimising (cost of the
walk) + (cost from there to the next stop) + a fear of ending where a hunter's next
move can see her (a walk of 4, or for riders a drive of up to 10 and an exit);
entering a space some hunter sees now costs 100 extra steps, one within 2 of a hunter
figure 8 (at 5 players every reported sighting may expose the traitor, after which a
second agent must escape too; sightings also draw attacks). All three fears halve
for every turn she starts without progress, so circling hunters cannot make her wait
to round 40. She completes at the start of her next turn, answers interrupts
(Ambush, Velocity Blade, Pre-Cognition) with yes and plays no other equipment; the 5p
traitor card goes to a random hunter. Her walking costs and turn decoding
(``walk_costs``, ``turn_steps``, ``walking_graph``) also serve the destination macro's
route planner (:mod:`spyenvs.agents.macros.specter_ops`).

Hunters (Gun, then Beast, Prophet, Puppet as available) hunt by the belief plane.
The belief is weighted by a goal prior (cells closer to what she still needs, the
completion zones of her open objectives, else the escape points, weigh more). Every
end cell a hunter's turn can reach (walks; for riders drives of up to 10 and an exit)
is scored as: the weight it sees now + the expected hit now (the character's dice by
distance, rules §7; riders cannot attack) + half the best look one more walk away at
the belief spread by her next 4 steps; the Beast adds the value of his yes/no sense
after a move of 3 or fewer. The hunters coordinate through the public belief: the
Gun moves last (H1), after the others' clears and sightings have cut it. They attack
whenever allowed and pass on votes and sniper shots. An undisclosed traitor (5
players) never attacks; once exposed he plays the second agent with the agent's rules
(he does not know the objectives, so he walks to the nearest escape point and waits
there for the third completed objective). Static map geometry (sight lines, walks,
roads) comes from the public board tables; the state only from the observation.

Scores (``action_scores``; nothing is remembered and no random number drawn). The
agent's step: minus the planned cost in steps of the cheapest turn walk it begins (a
step 1, entering seen space 100 and space near a hunter 8, ending where a hunter can
look 12, all halved per stalled turn; staying rates the walk that stays; ties go to
the walk that ends nearer her stop, by 1e-6 per unit of cost left). A hunter's
move: 4 x the score of its best option (see above: belief mass seen + expected hit +
half the next look, each 0..1), options within the random tie-break (1e-6) of the
best counting as the best. The other decisions rate the plan's answer 1 against 0
(characters: Gun 4, Beast 3, Prophet 2, Puppet 1; turn order: the others 1, the Gun
0); a legal move left unrated scores one unit below the least rated, and moves act
draws uniformly score 0. The move act plays is always a best one: where a hunter
follows the plan it made at H2 (H3, H4), or the agent a fallback, that move is raised
to the best score if the fresh ratings put it lower. The agent's (never a random draw)
is the best by ``PLAYED_MARGIN`` (1) over every other, so a prior's argmax keeps her
on her planned walk where ratings tie.

Speed (issue 11): the map is static, so everything that depends on it alone is built
once per process and map (``_Map``: the walking graph, BFS fields per target set, the
agent's route plans per (escape points, objectives, stop count), balls, threat
planes; ``_HunterTables``). The agent's cheapest-walk search runs only until the cells
her turn can reach are final and resumes from there on her next step (the costs stay
the same through a turn), and the hunters score each distinct end cell once. Every
decision is the one the straightforward code took (checked against a frozen copy by
tests/agents/test_specter_ops_heuristic_equivalence.py).
"""


from __future__ import annotations

from collections import deque
import heapq
from itertools import permutations

import numpy as np

from spyenvs.games.specter_ops import board as MAP

from ..policy import BasePolicy, check_mask, masked_scores

W = 23
CELLS = 736
NONE, YES = 736, 737
EXIT, ENTER = 760, 761
# board planes in the order the layout's "board" doc lists them (checked by the tests)
PLANE_NAMES = ("structure", "road", "escape", "objective", "completed", "vehicle", "hunter_0", "hunter_1",
               "hunter_2", "hunter_3", "smoke", "flash", "sighting_main", "sighting_second", "own_position",
               "own_path", "hunter_vision", "belief_main", "belief_second")
(P_STRUCT, P_ROAD, P_ESCAPE, P_OBJ, P_DONE, P_VEHICLE, P_H0, P_H1, P_H2, P_H3, P_SMOKE, P_FLASH,
 P_SIGHT_MAIN, P_SIGHT_SECOND, P_OWN, P_PATH, P_VISION, P_BELIEF_MAIN, P_BELIEF_SECOND) = range(19)
(D_S1, D_S2, D_S3, D_S4, D_A1, D_A2, D_A2T, D_A3, D_A4, D_A5, D_X1, D_X2, D_H0, D_H1, D_H2, D_H2V, D_H3,
 D_H4, D_H5, D_H6, D_I1, D_I2) = range(22)
BLUE_JAY = 754 + 2
ADRENAL_SURGE = 742


def _neighbours(free: np.ndarray) -> list[list[int]]:
    rows, cols = free.shape
    out: list[list[int]] = [[] for _ in range(rows * cols)]
    for r in range(rows):
        for c in range(cols):
            if not free[r, c]:
                continue
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    rr, cc = r + dr, c + dc
                    if (dr or dc) and 0 <= rr < rows and 0 <= cc < cols and free[rr, cc]:
                        out[r * cols + c].append(rr * cols + cc)
    return out


def _bfs(neigh: list[list[int]], sources) -> np.ndarray:
    dist = np.full(len(neigh), 10_000, np.int32)
    q = deque()
    for s in sources:
        dist[s] = 0
        q.append(s)
    while q:
        x = q.popleft()
        d = dist[x] + 1
        for y in neigh[x]:
            if dist[y] > d:
                dist[y] = d
                q.append(y)
    return dist


class _Map:
    """What depends on the map alone, built once per process (the map is static): the
    walking graph from the structure plane, BFS fields per target set, the agent's
    route plans, walking balls and the hunters' threat planes. Every table is a pure
    function of its key, so sharing it between policies and games changes nothing."""

    def __init__(self, free: np.ndarray):
        self.neigh = _neighbours(free)
        self.fields: dict[tuple, np.ndarray] = {}  # BFS distances per target set
        self.routes: dict[tuple, tuple] = {}  # (escape, objectives, need) -> _route_table
        self.balls: dict[tuple[int, int], list[int]] = {}  # (cell, steps) -> cells within that walk
        self.threats: dict[tuple, np.ndarray] = {}  # ("w", hunter cell) / ("v", vehicle cell)
        self.goals: dict[tuple, np.ndarray] = {}  # the hunters' goal fields (float32)
        self.priors: dict[tuple, np.ndarray] = {}  # their exp(-distance / scale) priors
        self.options: dict[tuple, tuple | None] = {}  # the hunters' scored moves per situation
        self.searches: dict[tuple, _Search] = {}  # (first-stop field id, cost bytes) -> search

    def field(self, targets) -> np.ndarray:
        key = tuple(sorted(targets))
        d = self.fields.get(key)
        if d is None:
            d = self.fields[key] = _bfs(self.neigh, key)
        return d

    def ball(self, cell: int, steps: int) -> list[int]:
        """Cells within ``steps`` king steps of ``cell`` over free cells (cell included)."""
        key = (cell, steps)
        out = self.balls.get(key)
        if out is None:
            seen = {cell}
            ring = [cell]
            for _ in range(steps):
                ring = [y for x in ring for y in self.neigh[x] if not (y in seen or seen.add(y))]
            out = self.balls[key] = sorted(seen)
        return out

    def search(self, field: np.ndarray, cost: np.ndarray) -> _Search:
        """The (resumable) cheapest-walk search into ``field``'s zero cells under ``cost``:
        within an agent's turn the same one is asked again for every step."""
        key = (id(field), cost.tobytes())
        s = self.searches.get(key)
        if s is None:
            if len(self.searches) >= 256:  # a vectorised env interleaves many games' turns:
                for old in list(self.searches)[:128]:  # drop the older half, not the turns under way
                    del self.searches[old]
            s = self.searches[key] = _Search(self.neigh, np.flatnonzero(field == 0).tolist(), cost, field)
        return s


_MAPS: dict[bytes, _Map] = {}


def _map_of(structure: np.ndarray) -> _Map:
    free = (structure < 0.5).reshape(32, W)
    key = free.tobytes()
    m = _MAPS.get(key)
    if m is None:
        m = _MAPS[key] = _Map(free)
    return m


#: how far the agent's played move scores above every other legal move (one step of
#: her walk cost)
PLAYED_MARGIN = 1.0


class _Base(BasePolicy):
    name = "heuristic"
    #: a bound player remembers its game (the agent's stall count, a hunter's ride
    #: plan): the vectorised self-play env binds one per game instead of sharing it
    per_game_state = True
    #: its move is never a random draw among equals: scores put it above every other
    plays_its_plan = False

    def __init__(self, layout, config, rng):
        self.L = layout
        self.rng = rng
        self._map = None
        block = layout.blocks["board"]
        self._board = (block.slice, (block.shape[0], CELLS))
        self._decision = layout.blocks["decision"].slice

    def board(self, obs):
        """The board planes, flat per plane: (planes, 736)."""
        sl, shape = self._board
        return obs[sl].reshape(shape)

    def map(self, board) -> _Map:
        if self._map is None:  # the map is static: one table set per process
            self._map = _map_of(board[P_STRUCT])
        return self._map

    def neigh(self, board):
        return self.map(board).neigh

    def act(self, obs, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        decision = int(np.argmax(obs[self._decision]))
        a = self.decide(decision, obs, mask, legal)
        if a is None or not mask[a]:
            a = int(legal[self.rng.integers(legal.size)])
        return int(a)

    def action_scores(self, obs, mask):
        return self._scores(obs, mask, remember=False)

    def action_scores_advance_batch(self, observations, masks):
        """``action_scores`` per row, each row then played as ``act`` plays it (memory
        and rng move on, the move is discarded), in one pass of the plan per row."""
        masks = np.asarray(masks)
        out = np.empty(masks.shape, dtype=np.float64)
        for b, (o, m) in enumerate(zip(observations, masks)):
            out[b] = self._scores(o, m, remember=True)
        return out

    def _scores(self, obs, mask, remember: bool):
        legal = check_mask(mask)
        if legal.size == 1:
            return masked_scores(mask, legal)
        decision = int(np.argmax(obs[self._decision]))
        rate: dict[int, float] = {}
        a = self._decide(decision, obs, mask, legal, rate, remember)
        if a is None or not mask[a]:
            if remember:
                self.rng.integers(legal.size)  # act's uniform draw
            return masked_scores(mask, legal)  # act draws uniformly
        scores = masked_scores(mask, legal, np.nan)
        for b, value in rate.items():
            if mask[b]:
                scores[b] = value
        unrated = np.isnan(scores)
        rated = scores[legal][~unrated[legal]]
        scores[unrated] = rated.min() - 1.0 if rated.size else 0.0
        # the move act plays is a best one (where the plan committed to it earlier in
        # the turn, or took a fallback, the ratings alone may not say so); the agent's,
        # never drawn at random, is the best by PLAYED_MARGIN: a prior that broke her
        # ties another way would leave her plan (she would walk back and forth)
        others = legal[legal != a]
        if others.size:
            scores[a] = max(scores[a], scores[others].max() + (PLAYED_MARGIN if self.plays_its_plan else 0.0))
        return scores

    def decide(self, decision, obs, mask, legal):
        """The move act plays (None: a uniform draw); may update the player's memory."""
        return self._decide(decision, obs, mask, legal, None, True)

    def _decide(self, decision, obs, mask, legal, rate, remember):
        """:meth:`decide`, or with ``rate`` (a dict) the move the ratings put first,
        its ratings of moves (higher is better) put in ``rate``. ``remember``: update
        the player's memory and draw from its rng as :meth:`decide` does (with
        ``rate``, the ratings and the returned move are the same either way)."""
        return None


class AgentHeuristic(_Base):
    plays_its_plan = True
    sneak = True  # False: the plain shortest path (kept for comparison runs)
    sight_cost = 100.0  # extra cost of entering a space some hunter sees now
    near_cost = 8.0  # extra cost of entering a space within 2 of a hunter figure
    plan_turn = True  # False: step greedily along the cheapest path (the earlier agent)
    danger_cost = 12.0  # extra cost of ending the turn where a hunter's next move can see her

    def __init__(self, layout, config, rng):
        super().__init__(layout, config, rng)
        self._private = layout.blocks["private"].slice
        self._hunter_flags = (layout.blocks["hunters"].slice, layout.blocks["hunters"].shape)
        self._progress = (-1, 0)  # best (objectives done, -steps to the next stop) at a turn start
        self._stalled = 0  # turns started without beating it

    def _decide(self, decision, obs, mask, legal, rate, remember):
        if decision == D_A3:
            return self.step(obs, mask, legal, rate, remember)
        if decision == D_S2:
            a = BLUE_JAY  # completes objectives from 2 spaces away
        elif decision in (D_S3, D_X2):
            a = ADRENAL_SURGE if mask[ADRENAL_SURGE] else int(legal[0])  # else indifferent
            if rate is not None:
                rate.update((int(b), 0.0) for b in legal)
        elif decision in (D_A1, D_A5, D_I1, D_I2):
            a = YES
        elif decision in (D_A2, D_A4):
            a = NONE
        else:
            return None
        if rate is not None:
            rate[a] = 1.0
        return a

    def plan(self, obs):
        """(steps to the next stop, its BFS distance field) on the shortest route
        through the objectives still needed and then an escape point."""
        here_plan = self._here_plan(obs, self.board(obs))
        return None if here_plan is None else here_plan[1]

    def _here_plan(self, obs, b):
        """(her cell, plan()) or None off the board."""
        own = np.flatnonzero(b[P_OWN] > 0.5)
        if own.size == 0:
            return None
        here = int(own[0])
        m = self.map(b)
        done = int(round(b[P_DONE].sum()))
        escapes = tuple(np.flatnonzero(b[P_ESCAPE] > 0.5).tolist())
        objectives = tuple(np.flatnonzero(b[P_OBJ] > 0.99).tolist())
        need = 3 - done
        if need <= 0 or not objectives:
            field = m.field(escapes)
            return here, (int(field[here]), field)
        key = (escapes, objectives, need)
        routes = m.routes.get(key)
        if routes is None:
            routes = m.routes[key] = _route_table(m, escapes, objectives, need)
        choice, fields = routes
        field = fields[choice[here]]
        return here, (int(field[here]), field)

    def step(self, obs, mask, legal, rate, remember: bool):
        """A3: the next step of her turn's planned walk. Rated (``rate``) by minus the
        planned cost in steps of the best walk that starts with the move."""
        b = self.board(obs)
        here_plan = self._here_plan(obs, b)
        if here_plan is None:
            return None
        here, (_, plain) = here_plan
        steps = legal[legal < CELLS].tolist()
        if plain[here] == 0 and mask[NONE]:  # on her stop: wait there to complete it
            if rate is not None:
                rate[NONE] = 0.0
                rate.update((a, -1.0 - float(plain[a])) for a in steps)
            return NONE
        if not steps:
            return NONE
        if not self.sneak:
            seen = b[P_VISION]
            if rate is not None:
                rate.update((a, -float(plain[a]) - 0.5 * (seen[a] > 0.5)) for a in steps)
            return min(steps, key=lambda a: (plain[a], seen[a] > 0.5))
        taken, max_steps = turn_steps(obs[self._private])
        left = max_steps - taken
        fear = 1.0
        if self.plan_turn:
            stalled = self._stalled
            if left == max_steps:  # first step of the turn
                stalled, progress = self._turn_start(b, here, plain)
                if remember:
                    self._stalled = stalled
                    self._progress = max(progress, self._progress)
            # hiding from hunters that circle never ends: halve every fear per turn without progress
            fear = 0.5 ** stalled
        cost, hunters, dist = self._walk_costs(b, here, plain, left, steps, fear)
        m = self._map
        greedy = min(steps, key=lambda a: (dist[a], plain[a]))
        if not self.plan_turn or left <= 0:
            if rate is not None:  # one step, then the cheapest walk on
                rate.update((a, -float(cost[a] + dist[a])) for a in steps)
                rate[NONE] = -float(dist[here])
            if not self.plan_turn:
                return greedy
            return NONE if mask[NONE] else greedy
        # Where she ends the turn is what the hunters' moves can find: plan the whole
        # turn's walk, trading progress for an end cell no hunter can see after its move.
        danger = self.threat(obs, b) * (fear * self.danger_cost)
        walk = _bounded_walk(m.neigh, here, left, cost, set(hunters), dist + danger, dist, rate is not None)
        end, parent = walk[:2]
        if rate is not None:
            _rate_first_steps(rate, here, parent, *walk[2:], dist)
        if end == here:
            return NONE if mask[NONE] else greedy
        while parent[end] != here:
            end = parent[end]
        return end if mask[end] else greedy

    def _turn_start(self, b, here, plain) -> tuple[int, tuple[int, int]]:
        """(the stall count at a turn that starts here, the progress it starts with):
        turns started without beating the best (objectives done, -steps to the next stop)."""
        progress = (int(round(b[P_DONE].sum())), -int(plain[here]))
        return (self._stalled + 1 if progress <= self._progress else 0), progress

    def _walk_costs(self, b, here, plain, left, steps, fear):
        """(cost of entering each cell, hunter figure cells, cheapest cost on from each
        cell to the next stop) of her walk this turn at ``fear``."""
        # Every sighting a loyal hunter reports may expose the 5p traitor (and the second
        # agent then has to escape too), and sightings draw attacks: walk around the
        # hunters' sight and keep off their neighbourhood, at the price of longer paths.
        cost, hunters = walk_costs(b, fear * self.sight_cost, fear * self.near_cost)
        m = self.map(b)
        # only the cells this turn can reach are read: settle the search that far
        reach = m.ball(here, max(left, 1))
        dist = m.search(plain, cost).upto(reach, steps)
        return cost, hunters, dist

    def end_scores(self, obs, ends, turn_start: bool = False) -> dict[int, float] | None:
        """Minus what her turn's plan (:meth:`step`) costs when it ends on each cell of
        ``ends`` (cells she can reach this turn): the cost on from there to her next
        stop plus the fear of ending where a hunter's next move can see her, at the
        fear of her current stall count (``turn_start``: of the count her turn's first
        step will set, asked before it) (the walk there is the caller's). None off the
        board."""
        b = self.board(obs)
        here_plan = self._here_plan(obs, b)
        if here_plan is None:
            return None
        here, (_, plain) = here_plan
        taken, max_steps = turn_steps(obs[self._private])
        stalled = self._turn_start(b, here, plain)[0] if turn_start else self._stalled
        fear = 0.5 ** stalled if self.plan_turn else 1.0
        cells = list(ends)
        _, _, dist = self._walk_costs(b, here, plain, max_steps - taken, cells, fear)
        danger = self.threat(obs, b) * (fear * self.danger_cost)
        return {c: -float(dist[c] + danger[c]) for c in cells}

    def threat(self, obs, b) -> np.ndarray:
        """Per cell: how many hunters can get it in sight with their next move (a walk of
        4, or for riders a drive of up to 10 and an exit)."""
        T = _hunter_tables()
        sl, shape = self._hunter_flags
        flags = obs[sl].reshape(shape)
        vehicle = int(np.argmax(b[P_VEHICLE]))
        out = np.zeros(CELLS, np.float32)
        threats = self.map(b).threats
        for k in range(4):
            f = flags[k]
            if f[4] < 0.5:
                continue
            if f[5] > 0.5:
                t = threats.get(("v", vehicle))
                if t is None:
                    ends = set()
                    for r in [vehicle] + T.map.road_cells(10, vehicle):
                        ends.update(T.map.NEIGH[r])
                    t = threats[("v", vehicle)] = T.sight[sorted(ends)].max(axis=0)
                out += t
            else:
                cells = np.flatnonzero(b[P_H0 + k] > 0.5)
                if cells.size:
                    h = int(cells[0])
                    t = threats.get(("w", h))
                    if t is None:
                        t = threats[("w", h)] = T.sight[T.map.cells_of(T.map.WALK[4][h])].max(axis=0)
                    out += t
        return out


def turn_steps(private: np.ndarray) -> tuple[int, int]:
    """(steps taken, steps allowed) of her turn, from her ``private`` block."""
    return int(round(float(private[17]) * 6)), int(round(float(private[18]) * 6))


def hunter_cells(b: np.ndarray) -> list[int]:
    """The cells of the hunter figures on the board (riders are in the vehicle)."""
    return np.flatnonzero(b[P_H0:P_H3 + 1].sum(axis=0) > 0.5).tolist()


def walk_costs(b: np.ndarray, sight_cost: float, near_cost: float) -> tuple[np.ndarray, list[int]]:
    """(cost of entering each cell on her walk, hunter figure cells): 1 a step, plus
    ``sight_cost`` where some hunter sees now and ``near_cost`` per hunter within 2.
    Her walks are planned with these costs (the heuristic's turn, the destination
    macro's route)."""
    cost = 1.0 + sight_cost * (b[P_VISION] > 0.5)
    hunters = hunter_cells(b)
    for h in hunters:
        cost[_RING2[h]] += near_cost  # each ring's cells are distinct: one add per cell and hunter
    return cost, hunters


def walking_graph(b: np.ndarray) -> list[list[int]]:
    """Per cell, its king-step neighbours over free cells (from the structure plane;
    built once per process)."""
    return _map_of(b[P_STRUCT]).neigh


def _route_table(m: _Map, escapes: tuple, objectives: tuple, need: int) -> tuple[np.ndarray, list]:
    """AgentHeuristic.plan for every cell at once, for (escape points, open objectives,
    objectives still needed): (per cell the index of the first-stop field of the
    cheapest order of the objectives, the first one among equals, in the order
    ``permutations`` lists them; those fields)."""
    escape = m.field(escapes)
    neigh = m.neigh
    zones = {o: [t for t in _ring(o, 2) if neigh[t]] for o in objectives}
    fields = {o: m.field(zones[o]) for o in objectives}
    totals = []
    firsts = []
    for route in permutations(objectives, min(need, len(objectives))):
        rest = 0  # the route's cost after its first stop
        for a, nxt in zip(route, route[1:]):
            rest += int(fields[nxt][zones[a]].min())
        rest += int(escape[zones[route[-1]]].min())
        totals.append(fields[route[0]].astype(np.int64) + rest)
        firsts.append(fields[route[0]])
    choice = np.argmin(np.stack(totals), axis=0)  # argmin: the first of equal costs
    return choice, firsts


class _Search:
    """Cheapest cost of walking from each cell into ``sources`` (entering y costs
    ``cost[y]``): the heap search of ``_dijkstra``, run only as far as asked. A cell is
    final once popped; later calls resume the same search, so every value read is the
    one the full search gives."""

    __slots__ = ("neigh", "cost", "dist", "heap", "done", "array", "field")

    def __init__(self, neigh, sources, cost: np.ndarray, field):
        self.neigh = neigh
        self.cost = cost.tolist()
        self.field = field  # keeps the key's id alive
        self.dist = [1e9] * len(neigh)
        heap = []
        for s in sources:
            self.dist[s] = 0.0
            heap.append((0.0, s))
        heapq.heapify(heap)
        self.heap = heap
        self.done = bytearray(len(neigh))
        self.array = None

    def upto(self, *cell_lists) -> np.ndarray:
        """The distances, final at least on the given cells (others may be upper bounds)."""
        done = self.done
        want = {x for cells in cell_lists for x in cells if not done[x]}
        heap = self.heap
        if want and heap:
            dist, c, neigh = self.dist, self.cost, self.neigh
            pop, push = heapq.heappop, heapq.heappush
            while heap:
                d, y = pop(heap)
                if done[y]:
                    continue
                done[y] = 1
                step = d + c[y]  # a walker on x entering y pays cost[y]
                for x in neigh[y]:
                    if step < dist[x]:
                        dist[x] = step
                        push(heap, (step, x))
                if y in want:
                    want.discard(y)
                    if not want:
                        break
            self.array = None
        if self.array is None:
            self.array = np.asarray(self.dist)
        return self.array


def _bounded_walk(neigh, here, steps, cost, blocked, end_cost, progress, with_totals=False):
    """The end cell of a walk of at most ``steps`` from ``here`` (never onto ``blocked``)
    minimising (cost of the cells entered) + end_cost[end], ties to the smaller
    ``progress`` (distance left), and the parent map of the cheapest walks (for the
    first step); ``with_totals``: also the reachable cells and their rounded totals."""
    best = {here: 0.0}
    parent = {here: here}
    frontier = {here: 0.0}
    c = cost.tolist()  # the same float64 sums as indexing the array
    inf = 1e18
    for y in blocked:  # an infinite cost is never below inf: never entered, as skipping it
        c[y] = float("inf")
    for _ in range(steps):
        nxt = {}
        get, best_get = nxt.get, best.get
        for x, cx in frontier.items():
            for y in neigh[x]:
                cy = cx + c[y]
                if cy < get(y, inf):
                    nxt[y] = cy
                    if cy < best_get(y, inf):
                        best[y] = cy
                        parent[y] = x
        frontier = nxt
    # costs are in steps: sums within 0.05 of a step are ties (fears shrink towards 0)
    cells = list(best)
    idx = np.array(cells)
    total = np.round(np.array(list(best.values())) + end_cost[idx], 1)
    # the first of the lexicographic minima (rounded total, progress) in discovery order
    order = np.lexsort((np.arange(len(cells)), progress[idx], total))
    if with_totals:
        return cells[int(order[0])], parent, cells, total
    return cells[int(order[0])], parent


def _rate_first_steps(rate, here, parent, cells, total, progress):
    """Rate staying (NONE) and each first step by minus the best rounded total of the
    walks it begins (the cheapest walk to each end cell, by ``parent``), ties going to
    the smaller ``progress`` at the end, as in :func:`_bounded_walk`: 1e-6 per unit of
    cost left, far below the rounding (0.1) of the totals."""
    first = {here: NONE}
    for cell in cells:
        chain = []
        while cell not in first:  # parents cost strictly less: the chain ends at here
            chain.append(cell)
            cell = parent[cell]
        start = chain[-1] if cell == here and chain else first[cell]
        for c in chain:
            first[c] = start
    values = (-total - 1e-6 * progress[np.asarray(cells)]).tolist()  # the same float ops, per cell
    for cell, v in zip(cells, values):
        a = first[cell]
        if v > rate.get(a, -np.inf):
            rate[a] = v


def _dijkstra(neigh: list[list[int]], sources, cost: np.ndarray) -> np.ndarray:
    """Cheapest cost of walking from each cell into ``sources`` (entering y costs ``cost[y]``)."""
    return _Search(neigh, list(sources), cost, None).upto(range(len(neigh)))


def _ring(cell: int, radius: int = 1) -> list[int]:
    """Cells within king distance ``radius`` of ``cell`` (the cell itself excluded)."""
    r, c = divmod(cell, W)
    span = range(-radius, radius + 1)
    return [(r + dr) * W + (c + dc) for dr in span for dc in span
            if (dr or dc) and 0 <= r + dr < 32 and 0 <= c + dc < W]


#: _ring(cell, 2) of every cell, as index arrays
_RING2 = [np.array(_ring(i, 2), np.int64) for i in range(CELLS)]


# ---------------------------------------------------------------------- hunters
BEAST, GUN, PUPPET, PROPHET = range(4)
#: hunter characters in the order the heuristic picks them (S1): the Gun's summed dice hit
#: far (0.92 at distance 4), the Beast's Enhanced Senses cut the belief every turn
PICK_ORDER = (GUN, BEAST, PROPHET, PUPPET)
#: the hunters' move scores break ties by adding up to this much random noise
_TIE_NOISE = 1e-6
#: score units per unit of a hunter's move score (belief mass seen, expected hit)
SCORE_SCALE = 4.0
SEAT0 = 750
CHAR0 = 754
DRIVE = 759


def _hit_table(dice: int, bonus: int) -> np.ndarray:
    """P(hit) by distance 0..40 of an attack with ``dice`` summed exploding d6 plus
    ``bonus`` (rules §7: a 6 rolls again and adds; all first dice 1 misses; distance 0 hits)."""
    one = np.zeros(64)
    for v in range(1, 6):
        one[v] = 1 / 6
    for depth in range(1, 8):  # 6, 6+v, 6+6+v, ...: truncated far beyond the board
        for v in range(1, 6):
            if 6 * depth + v < 64:
                one[6 * depth + v] = (1 / 6) ** (depth + 1)
    total = one
    for _ in range(dice - 1):
        total = np.convolve(total, one)[:64]
    tail = total[::-1].cumsum()[::-1]  # P(sum >= t)
    out = np.zeros(41)
    all_ones = (1 / 6) ** dice
    for d in range(41):
        need = d - bonus
        if d == 0:
            out[d] = 1.0
        elif need <= dice:
            out[d] = 1.0 - all_ones  # every non-miss total reaches it
        else:
            out[d] = tail[need] if need < 64 else 0.0
    return out


class _HunterTables:
    """Static map tables the hunters score moves with (the map is public, rules §3):
    sight matrix, Chebyshev distances, attack hit chances per hunter character and
    cell, and the cells within a 4-space walk of each cell."""

    def __init__(self):
        self.map = MAP
        n = MAP.N
        self.sight = np.stack([MAP.to_plane(MAP.SIGHT[i]) for i in range(n)]).astype(np.float32)
        r, c = np.divmod(np.arange(n), W)
        self.dist = np.maximum(abs(r[:, None] - r[None, :]), abs(c[:, None] - c[None, :]))
        tables = {BEAST: _hit_table(1, 0), GUN: _hit_table(2, 0), PUPPET: _hit_table(1, 0),
                  PROPHET: _hit_table(1, 2)}
        self.hit = {ch: t for ch, t in tables.items()}
        #: expected hit per (end cell, agent cell): seen there and the attack roll succeeds
        self.attack = {ch: (self.sight * t[self.dist]).astype(np.float32) for ch, t in tables.items()}
        reach = [MAP.cells_of(MAP.WALK[4][i]) or [i] for i in range(n)]
        width = max(len(x) for x in reach)
        self.walk4 = np.array([x + [x[0]] * (width - len(x)) for x in reach], np.int64)
        self.near4 = self.dist <= 4  # Enhanced Senses' distance (bool: lighter to gather than dist)
        self.open = np.asarray(MAP.to_plane(MAP.OPEN), bool)
        # sight as index lists (open cells only: each sees at least its own space), for
        # sums over every cell's sight without BLAS (whose thread wake-ups cost ms here)
        self.open_cells = np.flatnonzero(self.open)
        rows = [np.flatnonzero(self.sight[i]) for i in self.open_cells]
        self.sight_idx = np.concatenate(rows)
        self.sight_ptr = np.cumsum([0] + [len(x) for x in rows[:-1]])

    def look(self, weights: np.ndarray) -> np.ndarray:
        """Per cell: the weight a hunter standing there sees."""
        out = np.zeros(len(weights), np.float32)
        out[self.open_cells] = np.add.reduceat(weights[self.sight_idx], self.sight_ptr)
        return out


_TABLES: list = []


def _hunter_tables() -> _HunterTables:
    if not _TABLES:
        _TABLES.append(_HunterTables())
    return _TABLES[0]


class HunterHeuristic(_Base):
    """Hunts by the belief plane; see the module docstring."""

    #: weights of a move's score: chance to see her now, expected hit now, best look next turn
    w_detect = 1.0
    w_damage = 1.0
    w_next = 0.5
    #: prior: cells closer (walking) to what she still needs weigh exp(-distance / goal_scale)
    goal_scale = 6.0

    def __init__(self, layout, config, rng, seat: int = 0):
        super().__init__(layout, config, rng)
        self.as_agent = AgentHeuristic(layout, config, rng)  # the exposed traitor's turns
        self.seat = seat
        self.nh = {2: 2, 3: 2, 4: 3, 5: 4}[int(config.get("num_players", 2))]
        self.T = _hunter_tables()
        self._flags = (layout.blocks["hunters"].slice, layout.blocks["hunters"].shape)
        self.plan = None  # (H3 vehicle destination or None, H4 exit cell or NONE) of this turn

    # ------------------------------------------------------------------ decoding
    def hunters(self, obs, b):
        """Per egocentric slot (slot 0 = me): dict of char, in play, riding, stunned, acted, cell."""
        sl, shape = self._flags
        flags = obs[sl].reshape(shape)
        vehicle = int(np.argmax(b[P_VEHICLE]))
        out = []
        for k in range(self.nh):
            f = flags[k]
            ch = int(np.argmax(f[:4])) if f[:4].max() > 0.5 else -1
            riding = f[5] > 0.5
            cells = np.flatnonzero(b[P_H0 + k] > 0.5)
            cell = vehicle if riding else (int(cells[0]) if cells.size else -1)
            out.append({"char": ch, "in": f[4] > 0.5, "riding": riding, "stunned": f[6] > 0.5,
                        "acted": f[8] > 0.5, "cell": cell, "seat": (self.seat + k) % self.nh})
        return out

    def goal_field(self, b, agents) -> np.ndarray:
        """Walking distance to the nearest place the main agent still needs: a completion
        zone of an open objective (or candidate, 4-5p), else an escape point."""
        return self._goal(b, agents)[0]

    def _goal(self, b, agents) -> tuple[np.ndarray, tuple]:
        """(goal_field, its cache key) from the board: per map, by objectives and zone
        radius, or by escape points."""
        done = int(round(b[P_DONE].sum()))
        objectives = np.flatnonzero(b[P_OBJ] > 0.01).tolist()
        if done < 3 and objectives:
            known = agents[0, 3] > 0.5
            radius = 2 if (not known or agents[0, 5 + 2] > 0.5) else 1  # Blue Jay: 2 (C38)
            key = ("zones", tuple(objectives), radius)
        else:
            key = ("escape", tuple(np.flatnonzero(b[P_ESCAPE] > 0.5).tolist()))
        goals = self.map(b).goals
        d = goals.get(key)
        if d is None:
            if key[0] == "zones":
                targets = sorted({t for o in key[1] for t in _ring(o, key[2]) if self.T.open[t]})
            else:
                targets = list(key[1])
            d = goals[key] = _bfs(self.neigh(b), tuple(targets)).astype(np.float32)
        return d, key

    def prior(self, b, agents) -> np.ndarray:
        """exp(-min(goal_field, 60) / goal_scale), per map and goal (shared: do not modify)."""
        field, key = self._goal(b, agents)
        priors = self.map(b).priors
        key = (key, self.goal_scale)
        p = priors.get(key)
        if p is None:
            p = priors[key] = np.exp(-np.minimum(field, 60.0) / self.goal_scale)
        return p

    def weights(self, obs, b):
        """(now, next): where the agents can be now, and after one more agent turn of 4
        steps, each weighted by the goal prior and summing to 1 per agent in play."""
        agents = self.L.view(obs, "agents")
        prior = self.prior(b, agents)
        now = np.zeros(CELLS, np.float32)
        nxt = np.zeros(CELLS, np.float32)
        for plane in (P_BELIEF_MAIN, P_BELIEF_SECOND):
            bel = b[plane] > 0.5
            if not bel.any():
                continue
            p = plane == P_BELIEF_MAIN
            w = bel * (prior if p else 1.0)
            now += w / w.sum()
            spread = _spread(bel, 4)
            w2 = spread * (prior if p else 1.0)
            nxt += w2 / w2.sum()
        return now, nxt

    @staticmethod
    def _step(mask: np.ndarray) -> np.ndarray:
        g = mask.reshape(32, W)
        out = g.copy()
        out[1:, :] |= g[:-1, :]
        out[:-1, :] |= g[1:, :]
        o2 = out.copy()
        o2[:, 1:] |= out[:, :-1]
        o2[:, :-1] |= out[:, 1:]
        return o2.ravel()

    # ------------------------------------------------------------------ decisions
    def _decide(self, decision, obs, mask, legal, rate, remember):
        me = self.L.view(obs, "me")
        if me[2] > 0.5:  # exposed traitor: now the second agent
            return self.as_agent._decide(decision, obs, mask, legal, rate, remember)
        traitor = me[3] > 0.5
        if decision == D_S1:
            picks = [CHAR0 + ch for ch in PICK_ORDER if mask[CHAR0 + ch]]
            if rate is not None:
                rate.update((a, float(len(PICK_ORDER) - PICK_ORDER.index(a - CHAR0))) for a in picks)
            return picks[0] if picks else None
        if decision == D_H6:
            if traitor:
                a = NONE if mask[NONE] else None
            else:
                attacks = [int(a) for a in legal if a != NONE]
                a = attacks[0] if attacks else None
                if rate is not None:
                    rate.update((b, 1.0) for b in attacks)
        elif decision in (D_H0, D_H5):
            a = NONE
        elif decision == D_H1:
            return self.turn_order(obs, mask, rate)
        elif decision in (D_H2, D_H2V):
            if remember:
                self.plan = None
            return self.main_action(obs, mask, legal, decision == D_H2V, rate=rate, remember=remember)
        elif decision in (D_H3, D_H4):
            planned = None if self.plan is None else self.plan[decision - D_H3]
            if planned is not None and mask[planned]:  # the move of this turn's plan
                if rate is not None:
                    self.main_action(obs, mask, legal, True, stage=decision, rate=rate, remember=False)
                return planned
            return self.main_action(obs, mask, legal, True, stage=decision, rate=rate, remember=remember)
        else:
            return None
        if rate is not None and a is not None:
            rate[a] = max(rate.get(a, 1.0), 1.0)
        return a

    def turn_order(self, obs, mask, rate=None):
        """H1: the scouts act first and the Gun last, so that she shoots with the
        belief the others' clears and sightings have cut (rated 1, the Gun 0)."""
        b = self.board(obs)
        hs = self.hunters(obs, b)
        seats = [h for h in hs if h["in"] and not h["acted"] and mask[SEAT0 + h["seat"]]]
        if not seats:
            return None
        if rate is not None:
            rate.update((SEAT0 + h["seat"], float(h["char"] != GUN)) for h in seats)
        seats.sort(key=lambda h: (h["char"] == GUN, h["seat"]))
        return SEAT0 + seats[0]["seat"]

    def main_action(self, obs, mask, legal, riding, stage=None, rate=None, remember=True):
        """Score every end cell this turn can reach and take the first action towards
        the best (a random tie-break, the turn's plan kept); with ``rate``, rate each
        first action by its best option's score instead (times SCORE_SCALE) and return
        the first of a best option, also drawing and planning as without it only with
        ``remember``."""
        scored = self.scored_options(obs, mask, legal, riding, stage)
        if scored is None:
            return None
        opts, score = scored
        rated = None if rate is None else _rate_options(rate, opts, score)
        if not remember:
            return rated
        best = int(np.argmax(score + _TIE_NOISE * self.rng.random(len(opts))))
        first, h3, h4, _, _, _ = opts[best]
        self.plan = (h3, h4 if h4 is not None else NONE)
        return first if rated is None else rated

    def scored_options(self, obs, mask, legal, riding, stage=None):
        """(the moves of this turn :meth:`options` lists, their scores) or None; a
        score is belief mass seen + expected hit + half the best look next turn (+
        the Beast's sense), see the module docstring."""
        b = self.board(obs)
        hs = self.hunters(obs, b)
        me = hs[0]
        ch = me["char"] if me["char"] >= 0 else PUPPET
        now, nxt = self.weights(obs, b)
        options = self.options(obs, b, mask, legal, riding, stage, me["cell"])
        if options is None:
            return None
        opts, ends, can, moved, cells, per = options
        if me["stunned"]:
            can = np.zeros_like(can)
        T = self.T
        # each distinct end cell scored once (rides share exits); a row's sum does not
        # depend on the other rows, so the scores are the same as per option
        detect = _expand((T.sight[cells] * now).sum(axis=1), per)
        damage = _expand((T.attack[ch][cells] * now).sum(axis=1), per)
        if ch == BEAST:  # a 5-space walk attacks only on her own space (C15)
            damage = np.where(moved >= 5, now[ends], damage)
        damage = np.where(can, damage, 0.0)
        look = T.look(nxt)
        nextlook = _expand(look[T.walk4[cells]].max(axis=1), per)
        score = self.w_detect * detect + self.w_damage * damage + self.w_next * nextlook
        if ch == BEAST:  # Enhanced Senses after a move of 3 or fewer: a yes/no on distance 4
            inside = _expand((T.near4[cells] * now).sum(axis=1), per)
            score = score + np.where(moved <= 3, 0.3 * np.minimum(inside, 1.0 - inside), 0.0)
        return opts, score

    def options(self, obs, b, mask, legal, riding, stage, pos):
        """The moves main_action scores, or None: (options, end cells, can attack,
        spaces moved, distinct end cells, option -> distinct cell or None when the ends
        are distinct and ascending). An option is (first action, H3 destination, H4
        answer, end cell, can attack, spaces moved). A pure function of its key: kept
        per map."""
        cells = legal[legal < CELLS]
        if stage is None and not riding:
            key = ("walk", pos, cells.tobytes())
        else:
            vpos = int(np.argmax(b[P_VEHICLE]))
            if stage == D_H4:
                key = ("exit", vpos, cells.tobytes(), bool(mask[NONE]))
            elif stage == D_H3:
                key = ("to", vpos, cells.tobytes())
            else:
                left = int(round(float(self.L.view(obs, "vehicle")[0]) * 10)) if mask[DRIVE] else -1
                key = ("ride", vpos, left, bool(mask[EXIT]))
        table = self.map(b).options
        out = table.get(key, False)
        if out is False:
            if len(table) >= 5_000:  # a few KB each; far fewer distinct situations in practice
                table.clear()
            out = table[key] = self._options(key, cells.tolist())
        return out

    def _options(self, key, cells):
        opts = []
        if key[0] == "walk":
            pos = key[1]
            for a in cells:
                opts.append((a, None, None, a, True, self.T.map.walk_distance(pos, a)))
        else:
            vpos = key[1]
            if key[0] == "exit":
                for e in cells:
                    opts.append((e, None, e, e, True, 1))
                if key[3]:
                    opts.append((NONE, None, NONE, vpos, False, 0))
            else:
                dests = [vpos]
                if key[0] == "to":
                    dests = cells
                elif key[2] >= 0:
                    dests = dests + self.T.map.road_cells(key[2], vpos)
                for v in dests:
                    first = DRIVE if v != vpos else (EXIT if key[0] == "ride" and key[3] else NONE)
                    if key[0] == "to":
                        first = v
                    h3 = v if v != vpos else None
                    for e in self.T.map.NEIGH[v]:
                        opts.append((first, h3, e, e, True, 1))
                    if v != vpos:
                        opts.append((first, h3, NONE, v, False, 0))
        if not opts:
            return None
        ends = np.array([o[3] for o in opts], np.int64)
        can = np.array([o[4] for o in opts])
        moved = np.array([o[5] for o in opts])
        distinct, per = np.unique(ends, return_inverse=True)
        if distinct.size == ends.size and np.array_equal(distinct, ends):
            per = None
        for a in (ends, can, moved, distinct) + ((per,) if per is not None else ()):
            a.flags.writeable = False  # shared by every later call with this key
        return opts, ends, can, moved, distinct, per


def _rate_options(rate, opts, score) -> int:
    """Rate each first action of ``opts`` by SCORE_SCALE x its best option's score; the
    options within the random tie-break of the best all rate as the best (main_action
    may take any of them). Returns the first action of a best option."""
    score = np.asarray(score, np.float64)
    top = score.max()
    score = np.where(score >= top - 2 * _TIE_NOISE, top, score)  # 2x: the float rounding of the noise
    for (first, *_), value in zip(opts, (SCORE_SCALE * score).tolist()):
        if value > rate.get(first, -np.inf):
            rate[first] = value
    return opts[int(np.argmax(score))][0]


def _spread(cells: np.ndarray, steps: int) -> np.ndarray:
    """``cells`` (bool per cell) and the open cells within ``steps`` king steps of them
    through open cells: ``HunterHeuristic._step`` repeated, on the board's bitsets."""
    MAP = _hunter_tables().map
    b = int.from_bytes(np.packbits(cells, bitorder="little").tobytes(), "little")
    for _ in range(steps):
        b |= MAP.step_bits(b) & MAP.OPEN
    return MAP.to_plane(b).astype(bool)


def _expand(values: np.ndarray, per) -> np.ndarray:
    """Per option from per distinct end cell."""
    return values if per is None else values[per]


def make(layout, config, role, rng):
    if role == "agent":
        return AgentHeuristic(layout, config, rng)
    return HunterHeuristic(layout, config, rng, seat=int(role.rsplit("_", 1)[1]))
