"""Static tables of the Facility 83X board, built once at import from
``facility_83x.json``: cells, structures, roads and strips, objectives, escapes,
line-of-sight sets per cell (rules §3.5), walking and road distances, Chebyshev
balls and bitset helpers. A set of cells is a Python int with bit ``idx`` set,
``idx = row * 23 + col`` (0-based; rules §8 ``(row-1)*23 + col`` with 1-based rows)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

_DATA = json.loads((Path(__file__).with_name("facility_83x.json")).read_text())

W = 23
H = 32
N = W * H
COLS = _DATA["cols"]
ALL = (1 << N) - 1


def cell(name: str) -> int:
    """'N1' -> flat index."""
    return (int(name[1:]) - 1) * W + COLS.index(name[0])


def name(idx: int) -> str:
    return f"{COLS[idx % W]}{idx // W + 1}"


def rc(idx: int) -> tuple[int, int]:
    return divmod(idx, W)


def bits(cells) -> int:
    b = 0
    for c in cells:
        b |= 1 << c
    return b


def cells_of(b: int) -> list[int]:
    """Cells of a bitset, ascending."""
    out = []
    while b:
        low = b & -b
        out.append(low.bit_length() - 1)
        b ^= low
    return out


def popcount(b: int) -> int:
    return b.bit_count()


def to_plane(b: int) -> np.ndarray:
    """736 uint8 0/1 values of a bitset."""
    return np.unpackbits(np.frombuffer(b.to_bytes(92, "little"), np.uint8), bitorder="little")[:N]


STRUCT = bits(cell(c) for c in _DATA["structures"])
OPEN = ALL & ~STRUCT
ROAD = bits(cell(c) for c in _DATA["roads"])
STRIPS: list[tuple[str, list[int]]] = [(k, [cell(c) for c in v]) for k, v in _DATA["strips"].items()]
OBJECTIVES: list[list[int]] = [[cell(c) for c in _DATA["objectives"][str(s)]] for s in range(1, 5)]
ESCAPES = [cell(c) for c in _DATA["escape"]]
ESCAPE_EXTRA = [cell(c) for c in _DATA["escape_4p5p_extra"]]
AGENT_START = cell(_DATA["agent_start"])
VEHICLE_START = {2: cell(_DATA["vehicle_start_2_3p"]), 4: cell(_DATA["vehicle_start_4_5p"])}
GRID = _DATA["grid"]

_COL0 = bits(r * W for r in range(H))
_COLW = bits(r * W + W - 1 for r in range(H))


def step_bits(b: int) -> int:
    """Cells one king step from any cell of ``b`` (not ``b`` itself unless reached)."""
    nl = b & ~_COL0  # can move west
    nr = b & ~_COLW  # can move east
    out = (nr << 1) | (nl >> 1) | (b << W) | (b >> W)
    out |= (nr << (W + 1)) | (nl << (W - 1)) | (nr >> (W - 1)) | (nl >> (W + 1))
    return out & ALL


NEIGH: list[list[int]] = [cells_of(step_bits(1 << i) & OPEN) for i in range(N)]

# ------------------------------------------------------------------ distances
_ROW = [i // W for i in range(N)]
_COLI = [i % W for i in range(N)]


def dist(a: int, b: int) -> int:
    """Chebyshev distance (C1)."""
    return max(abs(_ROW[a] - _ROW[b]), abs(_COLI[a] - _COLI[b]))


def _ball(i: int, k: int) -> int:
    r, c = divmod(i, W)
    lo, hi = max(0, c - k), min(W - 1, c + k)
    rowmask = ((1 << (hi - lo + 1)) - 1) << lo
    b = 0
    for rr in range(max(0, r - k), min(H - 1, r + k) + 1):
        b |= rowmask << (rr * W)
    return b


#: BALL[k][i]: open cells within Chebyshev distance k of i (k = 0..4)
BALL: list[list[int]] = [[_ball(i, k) & OPEN for i in range(N)] for k in range(5)]

ROW_EQ = [bits(r * W + c for c in range(W)) for r in range(H)]
COL_EQ = [bits(r * W + c for r in range(H)) for c in range(W)]
ROW_LT = [(1 << (r * W)) - 1 for r in range(H)]
ROW_GT = [ALL & ~((1 << ((r + 1) * W)) - 1) for r in range(H)]
COL_LT = [0] * W
COL_GT = [0] * W
for _c in range(W):
    for _cc in range(W):
        if _cc < _c:
            COL_LT[_c] |= COL_EQ[_cc]
        elif _cc > _c:
            COL_GT[_c] |= COL_EQ[_cc]

SENSOR_DIRS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW", "here")


def sensor_direction(vehicle: int, agent: int) -> int:
    """Index into SENSOR_DIRS of the agent as seen from the vehicle (C18)."""
    vr, vc = divmod(vehicle, W)
    ar, ac = divmod(agent, W)
    if ar == vr and ac == vc:
        return 8
    if ac == vc:
        return 0 if ar < vr else 4
    if ar == vr:
        return 2 if ac > vc else 6
    if ar < vr:
        return 1 if ac > vc else 7
    return 3 if ac > vc else 5


def sensor_cone(vehicle: int, d: int) -> int:
    r, c = divmod(vehicle, W)
    rows = (ROW_LT[r], ROW_LT[r], ROW_EQ[r], ROW_GT[r], ROW_GT[r], ROW_GT[r], ROW_EQ[r], ROW_LT[r])
    cols = (COL_EQ[c], COL_GT[c], COL_GT[c], COL_GT[c], COL_EQ[c], COL_LT[c], COL_LT[c], COL_LT[c])
    if d == 8:
        return 1 << vehicle
    return rows[d] & cols[d] & OPEN


def _walk_table(allowed: int, depth: int) -> list[list[int]]:
    """T[d][i] = cells of ``allowed`` reachable from i in <= d king steps inside ``allowed``."""
    table = [[(1 << i) if (allowed >> i) & 1 else 0 for i in range(N)]]
    for _d in range(depth):
        prev = table[-1]
        table.append([(p | step_bits(p)) & allowed if p else 0 for p in prev])
    return table


#: WALK[d][i]: open cells within walking distance d of i (hunters ignore figures)
WALK = _walk_table(OPEN, 5)
#: ROADWALK[d][i]: road cells the vehicle reaches from i within d spaces
ROADWALK = _walk_table(ROAD, 10)


_WALK_DIST: dict[int, dict[int, int]] = {}
_WALK_CELLS: dict[tuple[int, int], list[int]] = {}


def walk_distance(a: int, b: int, limit: int = 5) -> int:
    """Shortest walk (king steps over open cells) from a to b, 99 beyond 5."""
    table = _WALK_DIST.get(a)
    if table is None:
        table = {}
        for d in range(5, -1, -1):
            for c in cells_of(WALK[d][a]):
                table[c] = d
        _WALK_DIST[a] = table
    d = table.get(b, 99)
    return d if d <= limit else 99


def walk_cells(budget: int, a: int) -> list[int]:
    """Cells within walking distance ``budget`` of a, ascending (shared list: do not modify)."""
    key = (budget, a)
    out = _WALK_CELLS.get(key)
    if out is None:
        out = _WALK_CELLS[key] = cells_of(WALK[budget][a])
    return out


_ROAD_CELLS: dict[tuple[int, int], list[int]] = {}


def road_cells(budget: int, a: int) -> list[int]:
    """Road cells the vehicle can reach from a within budget, a itself excluded."""
    key = (budget, a)
    out = _ROAD_CELLS.get(key)
    if out is None:
        out = _ROAD_CELLS[key] = cells_of(ROADWALK[budget][a] & ~(1 << a))
    return out


def road_distance(a: int, b: int) -> int:
    for d in range(11):
        if (ROADWALK[d][a] >> b) & 1:
            return d
    return 99


# ------------------------------------------------------------------ vision (§3.5)
DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1))  # N E S W


def _ray(i: int, dr: int, dc: int) -> list[int]:
    r, c = divmod(i, W)
    out = []
    r += dr
    c += dc
    while 0 <= r < H and 0 <= c < W and not (STRUCT >> (r * W + c)) & 1:
        out.append(r * W + c)
        r += dr
        c += dc
    return out


#: RAYS[i][d]: cells seen from i in direction d (N E S W), in order, structures stop
RAYS: list[tuple[list[int], ...]] = [tuple(_ray(i, dr, dc) for dr, dc in DIRS) for i in range(N)]

#: LANES[i]: for each strip containing i: (beside, {dir: [cells from beside along the other lane in dir]})
LANES: list[list[tuple[int, dict[int, list[int]]]]] = [[] for _ in range(N)]
for _sname, _cells in STRIPS:
    _rs = sorted({c // W for c in _cells})
    _cs = sorted({c % W for c in _cells})
    _vertical = len(_cs) == 2
    _set = set(_cells)
    for _i in _cells:
        _r, _c = divmod(_i, W)
        if _vertical:
            _oc = _cs[1] if _c == _cs[0] else _cs[0]
            beside = _r * W + _oc
            north = [rr * W + _oc for rr in range(_r, _rs[0] - 1, -1)]
            south = [rr * W + _oc for rr in range(_r, _rs[-1] + 1)]
            LANES[_i].append((beside, {0: north, 2: south}))
        else:
            _orr = _rs[1] if _r == _rs[0] else _rs[0]
            beside = _orr * W + _c
            west = [_orr * W + cc for cc in range(_c, _cs[0] - 1, -1)]
            east = [_orr * W + cc for cc in range(_c, _cs[-1] + 1)]
            LANES[_i].append((beside, {1: east, 3: west}))


def _sight_full(i: int, smoke: int, sniper: int) -> int:
    if (smoke >> i) & 1:
        return 1 << i  # C51: a hunter in smoke sees only its own space
    seen = 1 << i
    for d in range(4) if sniper < 0 else (sniper,):
        for c in RAYS[i][d]:
            if (smoke >> c) & 1:
                break
            seen |= 1 << c
    for _beside, rays in LANES[i]:
        for d, ray in rays.items():
            if sniper >= 0 and d != sniper:
                continue
            for c in ray:
                if (smoke >> c) & 1:
                    break
                seen |= 1 << c
    return seen


SIGHT: list[int] = [_sight_full(i, 0, -1) if (OPEN >> i) & 1 else 0 for i in range(N)]
_SIGHT_CACHE: dict[tuple[int, int, int], int] = {}


def sight(i: int, smoke: int = 0, sniper: int = -1) -> int:
    """Sight(H) of a hunter on i (§3.5 rules 1-3; Sniper Shot restriction C45)."""
    if not smoke and sniper < 0:
        return SIGHT[i]
    key = (i, smoke, sniper)
    s = _SIGHT_CACHE.get(key)
    if s is None:
        if len(_SIGHT_CACHE) > 50000:
            _SIGHT_CACHE.clear()
        s = _SIGHT_CACHE[key] = _sight_full(i, smoke, sniper)
    return s


def smoke_area(token: int) -> int:
    """The 3x3 block around a smoke token, clipped at the edges (C25)."""
    b = (1 << token) | step_bits(1 << token)
    return b
