"""Explicit-state helpers for The Agents rules tests: build a game, then lay out
hands, factions, missions and decks by card type."""

from __future__ import annotations

import numpy as np

from spyenvs.games.the_agents import data as D
from spyenvs.games.the_agents import rules as R
from spyenvs.games.the_agents.game import TheAgentsGame

STEP = {name: R.A_STEP + i for i, name in enumerate(R.STEP_NAMES)}


def agent(t):
    return R.A_AGENT + t


def mission(m):
    return R.A_MISSION + m


def fslot(k):
    return R.A_FSLOT + k


def gap(g):
    return R.A_GAP + g


def ori(o):
    return R.A_ORI + o


def seat(k):
    return R.A_SEAT + k - 1


def board(f, i):
    return R.A_BOARD + f * 7 + i


def mslot(f, m, s):
    return R.A_MSLOT + f * 4 + m * 2 + s


def count(c):
    return R.A_COUNT + c


def arrange(n=2, active=0, fac=None, hands=None, missions=None, att=None, ip=None,
            deck_a=None, deck_m=None, ret_a=None, ret_m=None, dump=None, phase="step", **cfg):
    """A game in a chosen position at the start of ``active``'s turn.

    fac: {f: [(type, cmd_to or -1 for dead), ...]}; hands: {p: [agent types]};
    missions: {p: [mission types]}; att: {(f, member_index): [mission types]};
    deck_a / deck_m: types bottom..top (None: every card not placed elsewhere, in id
    order); with an explicit deck the cards left over go to seat ``dump``'s hand.
    phase="end" starts in the END WINDOW of ``active``'s turn instead. The layout is
    the base of the card-event log (``restart_log`` after editing it further).
    """
    g = TheAgentsGame(num_players=n, **cfg)
    g.reset(0)
    free_a = {t: [2 * t, 2 * t + 1] for t in range(D.NUM_AGENT_TYPES)}
    free_m = {t: [2 * t, 2 * t + 1] for t in range(g.n_mtypes)}

    def take(pool, t):
        return pool[t].pop(0)

    g.fac = [[] for _ in range(g.nf)]
    for f, row in (fac or {}).items():
        g.fac[f] = [(take(free_a, t), to) for t, to in row]
    g.att = [[[], []] for _ in range(g.nf)]
    for (f, m), lst in (att or {}).items():
        g.att[f][m] = [take(free_m, t) for t in lst]
    g.hand_a = [[] for _ in range(n)]
    g.hand_m = [[] for _ in range(n)]
    for p, lst in (hands or {}).items():
        g.hand_a[p] = [take(free_a, t) for t in lst]
    for p, lst in (missions or {}).items():
        g.hand_m[p] = [take(free_m, t) for t in lst]
    g.ret_a = [take(free_a, t) for t in (ret_a or [])]
    g.ret_m = [take(free_m, t) for t in (ret_m or [])]
    if deck_a is None:
        g.deck_a = sorted(c for lst in free_a.values() for c in lst)
    else:
        g.deck_a = [take(free_a, t) for t in deck_a]
        rest = sorted(c for lst in free_a.values() for c in lst)
        assert dump is not None or not rest
        if rest:
            g.hand_a[dump] += rest
    if deck_m is None:
        g.deck_m = sorted(c for lst in free_m.values() for c in lst)
    else:
        g.deck_m = [take(free_m, t) for t in deck_m]
        rest = sorted(c for lst in free_m.values() for c in lst)
        assert dump is not None or not rest
        if rest:
            g.hand_m[dump] += rest
    g.cnt_a = [[0] * D.NUM_AGENT_TYPES for _ in range(n)]
    g.cnt_m = [[0] * 10 for _ in range(n)]
    for p in range(n):
        for c in g.hand_a[p]:
            g.cnt_a[p][c >> 1] += 1
        for c in g.hand_m[p]:
            g.cnt_m[p][c >> 1] += 1
    g.na = [len(h) for h in g.hand_a]
    # knowledge: public zones known to all, own hands to their owner, the rest pool 0
    g.tag_a = [[0] * g.n_agents for _ in range(n)]
    g.tag_m = [[0] * g.n_missions for _ in range(n)]
    for v in range(n):
        for row in g.fac:
            for c in row:
                g.tag_a[v][c[0]] = R.KNOWN
        for c in g.ret_a:
            g.tag_a[v][c] = R.KNOWN
        for c in g.ret_m:
            g.tag_m[v][c] = R.KNOWN
        for f in range(g.nf):
            for lst in g.att[f]:
                for c in lst:
                    g.tag_m[v][c] = R.KNOWN
        for c in g.hand_a[v]:
            g.tag_a[v][c] = R.KNOWN
        for c in g.hand_m[v]:
            g.tag_m[v][c] = R.KNOWN
    g.ip = list(ip) if ip is not None else [0] * n
    g.transit = []
    g.active = active
    g.start = 0
    g.barred = 0
    g.mhg_revealed = 0
    g.reached = []
    g.over = False
    g.truncated = False
    g.winners = []
    g.turns = 0
    g.turn_decisions = 0
    g.bv = next(R.VERSIONS)
    g.cv = next(R.VERSIONS)
    g.av = next(R.VERSIONS)
    g.mv = next(R.VERSIONS)
    g.stack = [[R.CTX, active, 2, False, 0]] if phase == "step" else [[R.END, active, 0]]
    g._start_log()  # this layout and its tags are the card-event log's (exact) base
    g._advance()
    g._set_mask()
    g.check_invariants()
    return g


def legal(g):
    return set(np.flatnonzero(g.legal_mask()).tolist())


def play(g, *actions):
    for a in actions:
        g.step(a)
        g.check_invariants()
    return g


def types(row):
    return [(c[0] >> 1, c[1]) for c in row]


def hand_types(g, p):
    return sorted(c >> 1 for c in g.hand_a[p])


def restart_log(g):
    """Make ``g``'s current layout and tags the card-event log's base (after a test
    edited knowledge tags or zones by hand)."""
    g._start_log()
    return g
