"""Rule-based players for Specter Ops (``specter_ops_v0``): the agent and the hunters.

Both decode only their own observation: the board planes (``layout.view(obs,
"board")``: structures, escape points, known objectives, hunters, sightings, the
public belief plane) and the ``decision`` one-hot, plus the mask. Cells are action
indices ``row * 23 + col`` (rules §8.2).

Agent (Blue Jay, completes objectives from king distance 2): picks the shortest
route through the objectives she still needs and then an escape point (BFS around
structures, every order of the open objectives tried), walks to the next stop along
the cheapest path where entering a space some hunter sees now costs 100 extra steps
(at 5 players every reported sighting may expose the traitor, after which a second
agent must escape too; sightings also draw attacks), completes it at the start of her
next turn. She answers interrupts (Ambush, Velocity Blade, Pre-Cognition) with yes and
plays no other equipment; the 5p traitor card goes to a random hunter.

Hunter: walks to the reachable space closest to where the agents can be (an exposed
second agent's latest sighting, else the centre of the main agent's public belief
plane), attacks whenever allowed, leaves the vehicle, and passes on votes and sniper
shots. An undisclosed traitor (5 players) never attacks; once exposed he plays the
second agent with the agent's rules (he does not know the objectives, so he walks to
the nearest escape point and waits there for the third completed objective).
"""

from __future__ import annotations

from collections import deque
import heapq
from itertools import permutations

import numpy as np

from ..policy import BasePolicy

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


class _Base(BasePolicy):
    name = "heuristic"

    def __init__(self, layout, config, rng):
        self.L = layout
        self.rng = rng
        self._neigh = None

    def board(self, obs):
        return self.L.view(obs, "board")

    def neigh(self, board):
        if self._neigh is None:  # the map is static: build the graph once
            self._neigh = _neighbours(board[P_STRUCT] < 0.5)
        return self._neigh

    def act(self, obs, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        decision = int(np.argmax(self.L.view(obs, "decision")))
        a = self.decide(decision, obs, mask, legal)
        if a is None or not mask[a]:
            a = int(legal[self.rng.integers(legal.size)])
        return int(a)

    def decide(self, decision, obs, mask, legal):
        return None


class AgentHeuristic(_Base):
    sneak = True  # False: the plain shortest path (kept for comparison runs)
    sight_cost = 100.0  # extra cost of entering a space some hunter sees now
    near_cost = 8.0  # extra cost of entering a space within 2 of a hunter figure

    def __init__(self, layout, config, rng):
        super().__init__(layout, config, rng)
        self._dist: dict[tuple, np.ndarray] = {}  # BFS distances per target set (static map)

    def decide(self, decision, obs, mask, legal):
        if decision == D_S2:
            return BLUE_JAY  # completes objectives from 2 spaces away
        if decision in (D_S3, D_X2):
            return ADRENAL_SURGE if mask[ADRENAL_SURGE] else int(legal[0])
        if decision in (D_A1, D_A5, D_I1, D_I2):
            return YES
        if decision in (D_A2, D_A4):
            return NONE
        if decision == D_A3:
            return self.step(obs, mask, legal)
        return None

    def dist_to(self, neigh, targets) -> np.ndarray:
        key = tuple(sorted(targets))
        d = self._dist.get(key)
        if d is None:
            d = self._dist[key] = _bfs(neigh, key)
        return d

    def plan(self, obs):
        """(steps to the next stop, its BFS distance field) on the shortest route
        through the objectives still needed and then an escape point."""
        b = self.board(obs)
        neigh = self.neigh(b)
        own = np.flatnonzero(b[P_OWN].ravel() > 0.5)
        if own.size == 0:
            return None
        here = int(own[0])
        done = int(round(b[P_DONE].sum()))
        escape = self.dist_to(neigh, np.flatnonzero(b[P_ESCAPE].ravel() > 0.5).tolist())
        objectives = np.flatnonzero(b[P_OBJ].ravel() > 0.99).tolist()
        need = 3 - done
        if need <= 0 or not objectives:
            return int(escape[here]), escape
        zones = {o: [t for t in _ring(o, 2) if neigh[t]] for o in objectives}
        fields = {o: self.dist_to(neigh, zones[o]) for o in objectives}
        best = None
        for route in permutations(objectives, min(need, len(objectives))):
            cost = int(fields[route[0]][here])
            for a, nxt in zip(route, route[1:]):
                cost += min(int(fields[nxt][x]) for x in zones[a])
            cost += min(int(escape[x]) for x in zones[route[-1]])
            if best is None or cost < best[0]:
                best = (cost, route[0])
        field = fields[best[1]]
        return int(field[here]), field

    def step(self, obs, mask, legal):
        plan = self.plan(obs)
        if plan is None:
            return None
        b = self.board(obs)
        here = int(np.flatnonzero(b[P_OWN].ravel() > 0.5)[0])
        _, plain = plan
        if plain[here] == 0 and mask[NONE]:
            return NONE
        steps = [int(a) for a in legal if a < CELLS]
        if not steps:
            return NONE
        if not self.sneak:
            seen = b[P_VISION].ravel()
            return min(steps, key=lambda a: (plain[a], seen[a] > 0.5))
        # Every sighting a loyal hunter reports may expose the 5p traitor (and the second
        # agent then has to escape too), and sightings draw attacks: walk around the
        # hunters' sight and keep off their neighbourhood, at the price of longer paths.
        cost = 1.0 + self.sight_cost * (b[P_VISION].ravel() > 0.5)
        hunters = np.flatnonzero(b[P_H0:P_H3 + 1].sum(axis=0).ravel() > 0.5)
        for h in hunters.tolist():
            for y in _ring(h, 2):
                cost[y] += self.near_cost
        dist = _dijkstra(self.neigh(b), np.flatnonzero(plain == 0).tolist(), cost)
        return min(steps, key=lambda a: (dist[a], plain[a]))


def _dijkstra(neigh: list[list[int]], sources, cost: np.ndarray) -> np.ndarray:
    """Cheapest cost of walking from each cell into ``sources`` (entering y costs ``cost[y]``)."""
    dist = [1e9] * len(neigh)
    heap = []
    for s in sources:
        dist[s] = 0.0
        heap.append((0.0, s))
    heapq.heapify(heap)
    c = cost.tolist()
    while heap:
        d, y = heapq.heappop(heap)
        if d > dist[y]:
            continue
        step = d + c[y]  # a walker on x entering y pays cost[y]
        for x in neigh[y]:
            if step < dist[x]:
                dist[x] = step
                heapq.heappush(heap, (step, x))
    return np.asarray(dist)


def _ring(cell: int, radius: int = 1) -> list[int]:
    """Cells within king distance ``radius`` of ``cell`` (the cell itself excluded)."""
    r, c = divmod(cell, W)
    span = range(-radius, radius + 1)
    return [(r + dr) * W + (c + dc) for dr in span for dc in span
            if (dr or dc) and 0 <= r + dr < 32 and 0 <= c + dc < W]


class HunterHeuristic(_Base):
    def __init__(self, layout, config, rng):
        super().__init__(layout, config, rng)
        self.as_agent = AgentHeuristic(layout, config, rng)  # the exposed traitor's turns

    def decide(self, decision, obs, mask, legal):
        me = self.L.view(obs, "me")
        if me[2] > 0.5:  # exposed traitor: now the second agent
            return self.as_agent.decide(decision, obs, mask, legal)
        traitor = me[3] > 0.5
        if decision == D_H6:
            if traitor:
                return NONE if mask[NONE] else None
            attacks = [int(a) for a in legal if a != NONE]
            return attacks[0] if attacks else None
        if decision in (D_H0, D_H5):
            return NONE
        if decision == D_H2V:
            return EXIT if mask[EXIT] else None
        if decision in (D_H2, D_H3, D_H4):
            return self.chase(obs, legal)
        return None

    def chase(self, obs, legal):
        cells = [int(a) for a in legal if a < CELLS]
        if not cells:
            return None
        b = self.board(obs)
        # 5p: an exposed second agent's latest sighting (killing either agent wins); else the
        # centre of the main agent's public belief set. (Chasing the main agent's sighting
        # instead of that centre measured worse: 74% vs 79% at 5p against a random agent.)
        second = b[P_SIGHT_SECOND]
        if second.max() > 0:
            target = np.unravel_index(int(np.argmax(second)), second.shape)
        else:
            pts = np.argwhere(b[P_BELIEF_MAIN] > 0)
            if len(pts) == 0:
                return cells[int(self.rng.integers(len(cells)))]
            target = pts.mean(axis=0)
        tr, tc = target
        return min(cells, key=lambda a: max(abs(a // W - tr), abs(a % W - tc)))


def make(layout, config, role, rng):
    if role == "agent":
        return AgentHeuristic(layout, config, rng)
    return HunterHeuristic(layout, config, rng)
