"""Specter Ops: the agent's side needs three objectives and an escape before round
``max_rounds`` (rules §8), while the hunters win by her health or the clock.

Two evaluations of a determinized state, each an estimate of the agent's side's payoff
(-1 .. +1; the hunters, and at 5 players a loyal hunter, get its negative, the
traitor hers):

* :func:`state_value` (``value=heuristic`` of the generic search): objectives done
  ahead of the clock's pace plus health left, squashed. Within a few decisions nothing
  it reads changes, so a short cut-off sees it flat.
* :func:`search_value` (the Specter Ops search, :mod:`spyenvs.agents.specter_search`):
  a logistic model over :func:`features`, what the heuristics plan with and what
  changes every round: her walk left to a win against the rounds left, health, whether
  hunters see her now, how many can get her in sight with their next move and whether
  her next turn can end out of every such sight, how close the nearest hunter stands,
  and how large the hunters' public belief about her is (rules §6.1). The weights were
  fitted to the outcomes of heuristic-against-heuristic games
  (``python -m spyenvs.experiments.specter_value_fit``), per table size.

Both read the whole state: search calls them on determinizations, whose hidden part is
a sample consistent with the searching seat's information, never the truth.
"""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np

from spyenvs.games.specter_ops import board as B
from spyenvs.games.specter_ops.data import BLUEJAY, H0, H1, H2, H2V, H3, H4, H5, H6

from ..heuristics.specter_ops import _bfs


def state_value(game) -> list[float]:
    ag = game.ag[0]
    pace = 3.0 * game.round / game.config["max_rounds"]
    health = ag.hp / ag.maxhp if ag.maxhp else 1.0
    agent = math.tanh(0.9 * (len(game.completed) - pace) + 1.5 * (health - 0.75))
    return _sides(game, agent)


def _sides(game, agent: float) -> list[float]:
    traitor = game._h_traitor
    return [agent if p == 0 or p - 1 == traitor else -agent for p in range(len(game.roles))]


# ---------------------------------------------------------------------- features
#: the feature names, in the order :func:`features` returns them
FEATURES = (
    "route",        # king steps left on her shortest route to a win (objectives she needs, then an exit), / 10
    "slack",        # rounds left minus the turns that route takes (4 steps a turn, one per completion), / 10
    "hp",           # her health left, in hits
    "last_hp",      # 1 when one more hit ends the game
    "done",         # objectives completed
    "seen",         # hunters that see her now (effective sight, rules §3.5)
    "threat",       # hunters whose next move (a walk of 4, or a drive and an exit) can bring her into sight
    "cornered",     # 1 when no cell her next turn reaches is out of every such reach
    "near",         # 1 / (1 + Chebyshev distance to the nearest hunter figure or the vehicle)
    "belief",       # log2 of the number of cells in the hunters' public belief about her (§6.1)
    "pinned",       # 1 when that belief is a single cell
)
N_FEATURES = len(FEATURES)

_OPEN_CELLS = B.cells_of(B.OPEN)
_HUNTER_DECISIONS = frozenset((H0, H1, H2, H2V, H3, H4, H5, H6))
#: per cell x, the cells from which a hunter sees x (no smoke, no Sniper restriction)
_SEEN_FROM: list[int] = [0] * B.N
for _c in _OPEN_CELLS:
    for _x in B.cells_of(B.SIGHT[_c]):
        _SEEN_FROM[_x] |= 1 << _c
_REACH_WALK: dict[int, int] = {}
_REACH_RIDE: dict[int, int] = {}
_ROUTES: dict[tuple, np.ndarray] = {}
_FIELDS: dict[tuple, np.ndarray] = {}


def _walk_reach(cell: int) -> int:
    """Cells a hunter on foot on ``cell`` can see after a walk of up to 4."""
    out = _REACH_WALK.get(cell)
    if out is None:
        out = 0
        for c in B.cells_of(B.WALK[4][cell]):
            out |= B.SIGHT[c]
        _REACH_WALK[cell] = out
    return out


def _ride_reach(vehicle: int) -> int:
    """Cells a rider can see after a drive of up to 10 (riders see from the vehicle) and
    an exit beside it."""
    out = _REACH_RIDE.get(vehicle)
    if out is None:
        road = B.ROADWALK[10][vehicle] | (1 << vehicle)
        out = 0
        for c in B.cells_of(road | (B.step_bits(road) & B.OPEN)):
            out |= B.SIGHT[c]
        _REACH_RIDE[vehicle] = out
    return out


def _field(targets: tuple) -> np.ndarray:
    d = _FIELDS.get(targets)
    if d is None:
        d = _FIELDS[targets] = _bfs(B.NEIGH, targets).astype(np.float64)
    return d


def route_table(objectives: tuple, radius: int, need: int, escapes: tuple) -> np.ndarray:
    """Per cell: (king steps, completions) folded into turns of her shortest route to a
    win: ``need`` of the open ``objectives`` (completed from a cell within Chebyshev
    ``radius``, rules §3.3), in the best order, then an escape point. Returns an array
    (2, 736): steps, and the turns it takes (a completion needs a turn to end in its zone
    and the next to start there)."""
    key = (objectives, radius, need, escapes)
    out = _ROUTES.get(key)
    if out is not None:
        return out
    escape = _field(escapes)
    if need <= 0 or not objectives:
        steps = escape
        turns = np.ceil(steps / 4.0)
    else:
        zones = {o: tuple(c for c in B.cells_of(B.BALL[radius][o]) if B.NEIGH[c]) for o in objectives}
        fields = {o: _field(zones[o]) for o in objectives}
        best_steps = np.full(B.N, 1e9)
        best_turns = np.full(B.N, 1e9)
        for route in permutations(objectives, min(need, len(objectives))):
            legs = []
            for a, nxt in zip(route, route[1:]):
                legs.append(float(fields[nxt][list(zones[a])].min()))
            legs.append(float(escape[list(zones[route[-1]])].min()))
            first = fields[route[0]]
            steps = first + sum(legs)
            # each leg ends a turn in a zone; she completes at the next turn's start
            turns = np.ceil(first / 4.0) + sum(math.ceil(leg / 4.0) for leg in legs)
            better = steps < best_steps
            best_steps = np.where(better, steps, best_steps)
            best_turns = np.where(better, turns, best_turns)
        steps, turns = best_steps, best_turns
    out = _ROUTES[key] = np.stack([steps, turns])
    out.flags.writeable = False
    return out


def _her_route(game, cell: int) -> tuple[float, float]:
    ag = game.ag[0]
    done = len(game.completed)
    objectives = tuple(game._h_obj[s] for s in range(4) if s not in game.completed)
    radius = 2 if ag.char == BLUEJAY else 1  # Blue Jay completes from 2 (C38)
    table = route_table(objectives, radius, 3 - done, tuple(game.escapes))
    return float(table[0, cell]), float(table[1, cell])


def features(game) -> np.ndarray:
    """:data:`FEATURES` of the main agent's situation in ``game`` (a determinization)."""
    ag = game.ag[0]
    here = ag.pos
    steps, turns = _her_route(game, here)
    rounds_left = game.config["max_rounds"] - game.round
    seen = threat = 0
    reach_all = 0
    near = 99
    figures = 0
    bit = 1 << here
    for s in range(game.nh):
        if not game.hin[s]:
            continue
        cell = game._hspace(s)
        if (game._es(s, 0) >> here) & 1:
            seen += 1
        if game.riding[s]:
            reach = _ride_reach(game.vpos)
        else:
            reach = _walk_reach(cell)
            figures |= 1 << cell
        reach_all |= reach
        if reach & bit:
            threat += 1
        near = min(near, B.dist(cell, here))
    # her next turn: cells within 4 steps around structures and hunter figures
    cur = bit
    free = B.OPEN & ~figures
    ball = bit
    for _ in range(4):
        cur = B.step_bits(cur) & free
        ball |= cur
    cornered = 1.0 if not (ball & ~reach_all) else 0.0
    belief = game.bel[0].union()
    size = max(belief.bit_count(), 1)
    return np.array([
        min(steps, 99.0) / 10.0,
        (rounds_left - min(turns, 99.0)) / 10.0,
        float(ag.hp),
        1.0 if ag.hp <= 1 else 0.0,
        float(len(game.completed)),
        float(seen),
        float(threat),
        cornered,
        1.0 / (1.0 + near),
        math.log2(size),
        1.0 if size == 1 else 0.0,
    ])


#: fitted weights per (4-5 players, phase): (bias, weights per feature in
#: :data:`FEATURES` order), ``specter_value_fit --games 500`` (seed 5000000). Held-out
#: log loss at 2 players, her turn / the hunters' phase: 0.597 / 0.593 (the plain
#: evaluation, calibrated: 0.636 / 0.636; a constant: 0.664 / 0.666); at 4 players
#: 0.586 / 0.577 (0.644 / 0.645; 0.684 / 0.682); 11124 to 12783 states each
WEIGHTS: dict[tuple[bool, str], tuple[float, tuple[float, ...]]] = {
    (False, "agents"): (-0.532, (-0.668, 0.977, 0.247, -0.239, 0.28, -0.313, -0.075, -0.21, -0.201, -0.044, 0.026)),
    (False, "hunters"): (-0.726, (-0.708, 0.983, 0.248, -0.226, 0.275, -0.237, -0.314, -0.047, -0.14, -0.025, -0.222)),
    (True, "agents"): (-1.129, (-0.818, 0.805, 0.328, -0.052, 0.253, -0.132, -0.006, -0.263, -0.156, -0.005, -0.009)),
    (True, "hunters"): (-1.326, (-0.848, 0.798, 0.335, -0.022, 0.215, -0.119, -0.246, -0.218, -0.092, 0.021, -0.108)),
}


def hunters_phase(game) -> bool:
    """Whether ``game`` asks a hunters' phase decision (a vote, the turn order, a
    hunter's turn), rather than one of her turn's."""
    return game.dec in _HUNTER_DECISIONS


def search_value(game) -> list[float]:
    """The agent's side's payoff estimated by the fitted logistic model over
    :func:`features` (2 P(agents win) - 1), with the weights of the table size and of
    the phase the round is in (her turn next, or the hunters'): search scores states at
    the start of one or the other."""
    if game.winner is not None:
        return list(game.outcome())
    bias, w = WEIGHTS[(bool(game.big), "hunters" if hunters_phase(game) else "agents")]
    z = bias + float(np.dot(w, features(game)))
    agent = math.tanh(0.5 * z)  # = 2 sigmoid(z) - 1
    return _sides(game, agent)
