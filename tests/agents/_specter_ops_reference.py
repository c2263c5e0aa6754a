"""FROZEN REFERENCE for tests/agents/test_specter_ops_heuristic_equivalence.py: the
Specter Ops heuristics as they were before the speed rewrite of
agents/heuristics/specter_ops.py (issue 11), verbatim but for this docstring and the
import of BasePolicy. The fast module must take every decision this one takes; change
both together (and say so) when a heuristic's play is meant to change.

The original module docstring follows.

Rule-based players for Specter Ops (``specter_ops_v0``): the agent and the hunters.

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
traitor card goes to a random hunter.

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
"""

from __future__ import annotations

from collections import deque
import heapq
from itertools import permutations

import numpy as np

from spyenvs.agents.policy import BasePolicy

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
    plan_turn = True  # False: step greedily along the cheapest path (the earlier agent)
    danger_cost = 12.0  # extra cost of ending the turn where a hunter's next move can see her

    def __init__(self, layout, config, rng):
        super().__init__(layout, config, rng)
        self._dist: dict[tuple, np.ndarray] = {}  # BFS distances per target set (static map)
        self._threat_cache: dict[tuple, np.ndarray] = {}  # static: per hunter cell / vehicle cell
        self._progress = (-1, 0)  # best (objectives done, -steps to the next stop) at a turn start
        self._stalled = 0  # turns started without beating it

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
        private = self.L.view(obs, "private")
        max_steps = int(round(float(private[18]) * 6))
        left = max_steps - int(round(float(private[17]) * 6))
        fear = 1.0
        if self.plan_turn:
            if left == max_steps:  # first step of the turn
                progress = (int(round(b[P_DONE].sum())), -int(plain[here]))
                self._stalled = self._stalled + 1 if progress <= self._progress else 0
                self._progress = max(progress, self._progress)
            # hiding from hunters that circle never ends: halve every fear per turn without progress
            fear = 0.5 ** self._stalled
        # Every sighting a loyal hunter reports may expose the 5p traitor (and the second
        # agent then has to escape too), and sightings draw attacks: walk around the
        # hunters' sight and keep off their neighbourhood, at the price of longer paths.
        cost = 1.0 + fear * self.sight_cost * (b[P_VISION].ravel() > 0.5)
        hunters = np.flatnonzero(b[P_H0:P_H3 + 1].sum(axis=0).ravel() > 0.5)
        for h in hunters.tolist():
            for y in _ring(h, 2):
                cost[y] += fear * self.near_cost
        dist = _dijkstra(self.neigh(b), np.flatnonzero(plain == 0).tolist(), cost)
        greedy = min(steps, key=lambda a: (dist[a], plain[a]))
        if not self.plan_turn:
            return greedy
        # Where she ends the turn is what the hunters' moves can find: plan the whole
        # turn's walk, trading progress for an end cell no hunter can see after its move.
        if left <= 0:
            return NONE if mask[NONE] else greedy
        danger = self.threat(obs, b) * (fear * self.danger_cost)
        end, parent = _bounded_walk(self.neigh(b), here, left, cost, set(hunters.tolist()), dist + danger, dist)
        if end == here:
            return NONE if mask[NONE] else greedy
        while parent[end] != here:
            end = parent[end]
        return end if mask[end] else greedy

    def threat(self, obs, b) -> np.ndarray:
        """Per cell: how many hunters can get it in sight with their next move (a walk of
        4, or for riders a drive of up to 10 and an exit)."""
        T = _hunter_tables()
        flags = self.L.view(obs, "hunters")
        vehicle = int(np.argmax(b[P_VEHICLE].ravel()))
        out = np.zeros(CELLS, np.float32)
        for k in range(4):
            f = flags[k]
            if f[4] < 0.5:
                continue
            if f[5] > 0.5:
                out += self._rider_threat(T, vehicle)
            else:
                cells = np.flatnonzero(b[P_H0 + k].ravel() > 0.5)
                if cells.size:
                    out += self._walker_threat(T, int(cells[0]))
        return out

    def _walker_threat(self, T, h):
        t = self._threat_cache.get(("w", h))
        if t is None:
            t = self._threat_cache[("w", h)] = T.sight[T.map.cells_of(T.map.WALK[4][h])].max(axis=0)
        return t

    def _rider_threat(self, T, v):
        t = self._threat_cache.get(("v", v))
        if t is None:
            ends = set()
            for r in [v] + T.map.road_cells(10, v):
                ends.update(T.map.NEIGH[r])
            t = self._threat_cache[("v", v)] = T.sight[sorted(ends)].max(axis=0)
        return t


def _bounded_walk(neigh, here, steps, cost, blocked, end_cost, progress):
    """The end cell of a walk of at most ``steps`` from ``here`` (never onto ``blocked``)
    minimising (cost of the cells entered) + end_cost[end], ties to the smaller
    ``progress`` (distance left), and the parent map of the cheapest walks (for the
    first step)."""
    best = {here: 0.0}
    parent = {here: here}
    frontier = {here: 0.0}
    for _ in range(steps):
        nxt = {}
        for x, c in frontier.items():
            for y in neigh[x]:
                if y in blocked:
                    continue
                cy = c + cost[y]
                if cy < nxt.get(y, 1e18):
                    nxt[y] = cy
                    if cy < best.get(y, 1e18):
                        best[y] = cy
                        parent[y] = x
        frontier = nxt
    # costs are in steps: sums within 0.05 of a step are ties (fears shrink towards 0)
    end = min(best, key=lambda x: (round(best[x] + end_cost[x], 1), progress[x]))
    return end, parent


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


# ---------------------------------------------------------------------- hunters
BEAST, GUN, PUPPET, PROPHET = range(4)
#: hunter characters in the order the heuristic picks them (S1): the Gun's summed dice hit
#: far (0.92 at distance 4), the Beast's Enhanced Senses cut the belief every turn
PICK_ORDER = (GUN, BEAST, PROPHET, PUPPET)
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
        from spyenvs.games.specter_ops import board as MAP

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
        self._goal_dist: dict[tuple, np.ndarray] = {}
        self.plan = None  # (H3 vehicle destination or None, H4 exit cell or NONE) of this turn

    # ------------------------------------------------------------------ decoding
    def hunters(self, obs, b):
        """Per egocentric slot (slot 0 = me): dict of char, in play, riding, stunned, acted, cell."""
        flags = self.L.view(obs, "hunters")
        vehicle = int(np.argmax(b[P_VEHICLE].ravel()))
        out = []
        for k in range(self.nh):
            f = flags[k]
            ch = int(np.argmax(f[:4])) if f[:4].max() > 0.5 else -1
            riding = f[5] > 0.5
            cells = np.flatnonzero(b[P_H0 + k].ravel() > 0.5)
            cell = vehicle if riding else (int(cells[0]) if cells.size else -1)
            out.append({"char": ch, "in": f[4] > 0.5, "riding": riding, "stunned": f[6] > 0.5,
                        "acted": f[8] > 0.5, "cell": cell, "seat": (self.seat + k) % self.nh})
        return out

    def goal_field(self, b, agents) -> np.ndarray:
        """Walking distance to the nearest place the main agent still needs: a completion
        zone of an open objective (or candidate, 4-5p), else an escape point."""
        done = int(round(b[P_DONE].sum()))
        objectives = np.flatnonzero(b[P_OBJ].ravel() > 0.01).tolist()
        if done < 3 and objectives:
            known = agents[0, 3] > 0.5
            radius = 2 if (not known or agents[0, 5 + 2] > 0.5) else 1  # Blue Jay: 2 (C38)
            targets = sorted({t for o in objectives for t in _ring(o, radius) if self.T.open[t]})
        else:
            targets = np.flatnonzero(b[P_ESCAPE].ravel() > 0.5).tolist()
        key = tuple(targets)
        d = self._goal_dist.get(key)
        if d is None:
            d = self._goal_dist[key] = _bfs(self.neigh(b), key).astype(np.float32)
        return d

    def weights(self, obs, b):
        """(now, next): where the agents can be now, and after one more agent turn of 4
        steps, each weighted by the goal prior and summing to 1 per agent in play."""
        agents = self.L.view(obs, "agents")
        prior = np.exp(-np.minimum(self.goal_field(b, agents), 60.0) / self.goal_scale)
        now = np.zeros(CELLS, np.float32)
        nxt = np.zeros(CELLS, np.float32)
        for plane in (P_BELIEF_MAIN, P_BELIEF_SECOND):
            bel = b[plane].ravel() > 0.5
            if not bel.any():
                continue
            p = plane == P_BELIEF_MAIN
            w = bel * (prior if p else 1.0)
            now += w / w.sum()
            spread = bel.copy()
            for _ in range(4):
                spread = spread | (self._step(spread) & self.T.open)
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
    def decide(self, decision, obs, mask, legal):
        me = self.L.view(obs, "me")
        if me[2] > 0.5:  # exposed traitor: now the second agent
            return self.as_agent.decide(decision, obs, mask, legal)
        traitor = me[3] > 0.5
        if decision == D_S1:
            for ch in PICK_ORDER:
                if mask[CHAR0 + ch]:
                    return CHAR0 + ch
            return None
        if decision == D_H6:
            if traitor:
                return NONE if mask[NONE] else None
            attacks = [int(a) for a in legal if a != NONE]
            return attacks[0] if attacks else None
        if decision in (D_H0, D_H5):
            return NONE
        if decision == D_H1:
            return self.turn_order(obs, mask)
        if decision in (D_H2, D_H2V):
            self.plan = None
            return self.main_action(obs, mask, legal, decision == D_H2V)
        if decision == D_H3:
            if self.plan is not None and self.plan[0] is not None and mask[self.plan[0]]:
                return self.plan[0]
            return self.main_action(obs, mask, legal, True, stage=D_H3)
        if decision == D_H4:
            if self.plan is not None and mask[self.plan[1]]:
                return self.plan[1]
            return self.main_action(obs, mask, legal, True, stage=D_H4)
        return None

    def turn_order(self, obs, mask):
        """H1: the scouts act first and the Gun last, so that she shoots with the
        belief the others' clears and sightings have cut."""
        b = self.board(obs)
        hs = self.hunters(obs, b)
        seats = [h for h in hs if h["in"] and not h["acted"] and mask[SEAT0 + h["seat"]]]
        if not seats:
            return None
        seats.sort(key=lambda h: (h["char"] == GUN, h["seat"]))
        return SEAT0 + seats[0]["seat"]

    def main_action(self, obs, mask, legal, riding, stage=None):
        """Score every end cell this turn can reach and take the first action towards the best."""
        b = self.board(obs)
        hs = self.hunters(obs, b)
        me = hs[0]
        ch = me["char"] if me["char"] >= 0 else PUPPET
        now, nxt = self.weights(obs, b)
        # options: (first action, H3 destination, H4 answer, end cell, can attack, spaces moved)
        opts = []
        if stage is None and not riding:
            pos = me["cell"]
            for a in legal:
                if a < CELLS:
                    opts.append((int(a), None, None, int(a), True, self.T.map.walk_distance(pos, int(a))))
        elif riding or stage is not None:
            vpos = int(np.argmax(b[P_VEHICLE].ravel()))
            if stage == D_H4:
                stays = [NONE] if mask[NONE] else []
                exits = [int(a) for a in legal if a < CELLS]
                for e in exits:
                    opts.append((e, None, e, e, True, 1))
                for _ in stays:
                    opts.append((NONE, None, NONE, vpos, False, 0))
            else:
                dests = [vpos]
                if stage == D_H3:
                    dests = [int(a) for a in legal if a < CELLS]
                elif mask[DRIVE]:
                    left = int(round(float(self.L.view(obs, "vehicle")[0]) * 10))
                    dests += self.T.map.road_cells(left, vpos)
                for v in dests:
                    first = DRIVE if v != vpos else (EXIT if mask[EXIT] else NONE)
                    if stage == D_H3:
                        first = v
                    h3 = v if v != vpos else None
                    for e in self.T.map.NEIGH[v]:
                        opts.append((first, h3, e, e, True, 1))
                    if v != vpos:
                        opts.append((first, h3, NONE, v, False, 0))
            if not opts:
                return None
        if not opts:
            return None
        ends = np.array([o[3] for o in opts], np.int64)
        can = np.array([o[4] and not me["stunned"] for o in opts])
        moved = np.array([o[5] for o in opts])
        detect = (self.T.sight[ends] * now).sum(axis=1)
        damage = (self.T.attack[ch][ends] * now).sum(axis=1)
        if ch == BEAST:  # a 5-space walk attacks only on her own space (C15)
            damage = np.where(moved >= 5, now[ends], damage)
        damage = np.where(can, damage, 0.0)
        look = self.T.look(nxt)
        nextlook = look[self.T.walk4[ends]].max(axis=1)
        score = self.w_detect * detect + self.w_damage * damage + self.w_next * nextlook
        if ch == BEAST:  # Enhanced Senses after a move of 3 or fewer: a yes/no on distance 4
            inside = ((self.T.dist[ends] <= 4) * now).sum(axis=1)
            score = score + np.where(moved <= 3, 0.3 * np.minimum(inside, 1.0 - inside), 0.0)
        best = int(np.argmax(score + 1e-6 * self.rng.random(len(opts))))
        first, h3, h4, _, _, _ = opts[best]
        self.plan = (h3, h4 if h4 is not None else NONE)
        return first


def make(layout, config, role, rng):
    if role == "agent":
        return AgentHeuristic(layout, config, rng)
    return HunterHeuristic(layout, config, rng, seat=int(role.rsplit("_", 1)[1]))
