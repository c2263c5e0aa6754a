"""Rule-based players for Specter Ops (``specter_ops_v0``): the agent and the hunters.

Both decode only their own observation: the board planes (``layout.view(obs,
"board")``: structures, escape points, known objectives, hunters, sightings, the
public belief plane) and the ``decision`` one-hot, plus the mask. Cells are action
indices ``row * 23 + col`` (rules §8.2).

Agent: walks shortest king-move paths (BFS around structures) to a free space next
to the nearest open objective, stops there, completes it at the start of her next
turn, and after three objectives runs to the nearest escape point; among equally
short steps she prefers spaces no hunter sees. She answers interrupts (Ambush,
Velocity Blade, Pre-Cognition) with yes and plays no other equipment.

Hunter: walks to the reachable space closest to where the agent can be (the
latest sighting, else the centre of the public belief plane), attacks whenever
allowed, leaves the vehicle, and passes on votes and sniper shots. An undisclosed
traitor (5 players) never attacks.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ..policy import BasePolicy

W = 23
CELLS = 736
NONE, YES = 736, 737
EXIT, ENTER = 760, 761
(P_STRUCT, P_ROAD, P_ESCAPE, P_OBJ, P_DONE, P_VEHICLE, P_H0, P_H1, P_H2, P_H3, P_SMOKE, P_FLASH, P_VISION,
 P_SIGHT_MAIN, P_SIGHT_SECOND, P_OWN, P_PATH, P_BELIEF_MAIN, P_BELIEF_SECOND) = range(19)
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

    def step(self, obs, mask, legal):
        b = self.board(obs)
        neigh = self.neigh(b)
        own = np.flatnonzero(b[P_OWN].ravel() > 0.5)
        if own.size == 0:
            return None
        here = int(own[0])
        done = int(round(b[P_DONE].sum()))
        objectives = np.flatnonzero(b[P_OBJ].ravel() > 0.99)
        if done < 3 and objectives.size:
            # free spaces next to an open objective: she completes it from there
            targets = {y for o in objectives.tolist() for y in _ring(o)} & set(range(CELLS))
            targets = [t for t in targets if neigh[t]]
        else:
            targets = np.flatnonzero(b[P_ESCAPE].ravel() > 0.5).tolist()
        if not targets:
            return None
        dist = _bfs(neigh, targets)
        if dist[here] == 0 and mask[NONE]:
            return NONE
        seen = b[P_VISION].ravel()
        steps = [int(a) for a in legal if a < CELLS]
        if not steps:
            return NONE
        return min(steps, key=lambda a: (dist[a], seen[a] > 0.5))


def _ring(cell: int) -> list[int]:
    r, c = divmod(cell, W)
    return [(r + dr) * W + (c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < 32 and 0 <= c + dc < W]


class HunterHeuristic(_Base):
    def decide(self, decision, obs, mask, legal):
        me = self.L.view(obs, "me")
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
        sight = b[P_SIGHT_MAIN]
        if sight.max() > 0:
            target = np.unravel_index(int(np.argmax(sight)), sight.shape)
        else:
            belief = b[P_BELIEF_MAIN]
            pts = np.argwhere(belief > 0)
            if len(pts) == 0:
                return cells[int(self.rng.integers(len(cells)))]
            target = pts.mean(axis=0)
        tr, tc = target
        return min(cells, key=lambda a: max(abs(a // W - tr), abs(a % W - tc)))


def make(layout, config, role, rng):
    if role == "agent":
        return AgentHeuristic(layout, config, rng)
    return HunterHeuristic(layout, config, rng)
