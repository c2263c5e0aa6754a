"""Invariants of The Agents (rules file 10, "Invariants"), checked after every step of
a fuzz test: conservation, zone typing, caps, IP, decks, the win rule, the resolution
stack, masks, arrows and knowledge tags (pins)."""

from __future__ import annotations

import numpy as np

from . import data as D
from . import rules as R

#: (board version, card version) pairs whose zone invariants were already checked
_CHECKED: set = set()


def check_invariants(g):
    """Raise AssertionError when an invariant of rules file 10 is broken."""
    # zone checks depend only on version stamps: the agent side on (board, agent
    # cards), the mission side on (board, attached, mission cards); each key is
    # checked once (module-level memo, kept out of the state), so free mission
    # operations only re-run the mission side
    key = ("a", g.bv, g.cv)
    if key not in _CHECKED:
        if len(_CHECKED) > 100000:
            _CHECKED.clear()
        _check_agent_zones(g)
        _CHECKED.add(key)
    key = ("m", g.bv, g.av, g.mv)
    if key not in _CHECKED:
        _check_mission_zones(g)
        _CHECKED.add(key)
    _check_decision(g)


def _check_agent_zones(g):
    n, nf = g.N, g.nf
    agents = list(g.deck_a) + list(g.ret_a) + [e[0] for e in g.transit]
    for q in range(n):
        agents += g.hand_a[q]
        assert g.na[q] == len(g.hand_a[q])
        ca = [0] * D.NUM_AGENT_TYPES
        for c in g.hand_a[q]:
            ca[c >> 1] += 1
        assert ca == g.cnt_a[q], "agent hand counts out of sync"
    for fr in g.stack:
        if fr[0] == R.BUILD and fr[3] == R.S_PFA and fr[4] >= 0:
            agents.append(fr[4])
    for f in range(nf):
        row = g.fac[f]
        agents += [c[0] for c in row]
        # 3/4/5: zone typing, caps, orientation
        assert len(row) <= g.cap, "faction over cap"
        for c in row:
            assert D.IS_FACTION[c[0] >> 1], "Free Agent in a faction"
            assert c[1] == -1 or c[1] in g.members[f], "bad orientation"
        # 11: arrows
        pa, pb, _, _ = g.arrows(f)
        assert pa + pb <= 2 * max(len(row) - 1, 0)
    # 1/2: conservation, every id exactly once
    assert sorted(agents) == list(range(g.n_agents)), "agent cards not conserved"
    assert len(g.transit) <= 3
    assert sum(1 for e in g.transit if e[0] >> 1 == D.MERCENARY) <= 2
    for e in g.transit:
        assert not D.IS_FACTION[e[0] >> 1]
    for c in g.ret_a:
        assert not D.IS_FACTION[c >> 1], "faction agent in the retired pile"
    # 6: IP
    for x in g.ip:
        assert isinstance(x, int) and x >= 0
    # 8: win rule
    if g.immediate:
        if not g.over:
            assert max(g.ip) < D.WIN_IP
        elif g.winners:
            assert all(g.ip[w] >= D.WIN_IP for w in g.winners)
    # 12: pins and knowledge tags
    for v in range(n):
        ta = g.tag_a[v]
        for c in g.hand_a[v]:
            assert ta[c] == R.KNOWN
        for f in range(nf):
            for c in g.fac[f]:
                assert ta[c[0]] == R.KNOWN
        for c in g.ret_a:
            assert ta[c] == R.KNOWN
        for c in g.deck_a:
            assert ta[c] != R.KNOWN
    # 7: decks
    if not g.over:
        assert g.deck_a or not g.ret_a


def _check_mission_zones(g):
    n, nf = g.N, g.nf
    missions = list(g.deck_m) + list(g.ret_m)
    for q in range(n):
        missions += g.hand_m[q]
        cm = [0] * 10
        for c in g.hand_m[q]:
            cm[c >> 1] += 1
        assert cm == g.cnt_m[q], "mission hand counts out of sync"
    for fr in g.stack:
        if fr[0] == R.BUILD and fr[3] == R.S_ATTACH and fr[8] >= 0:
            missions.append(fr[8])
    for f in range(nf):
        for m in (0, 1):
            lst = g.att[f][m]
            missions += lst
            assert len(lst) <= 2
            assert len({c >> 1 for c in lst}) == len(lst), "duplicate mission type on a faction"
            if lst:
                assert g.fac[f], "mission attached to an empty faction"
    # 1/2: conservation, every id exactly once
    assert sorted(missions) == list(range(g.n_missions)), "mission cards not conserved"
    # 12: pins and knowledge tags
    for v in range(n):
        tm = g.tag_m[v]
        for c in g.hand_m[v]:
            assert tm[c] == R.KNOWN
        for c in g.deck_m:
            assert tm[c] != R.KNOWN
    # 7: decks
    if not g.over:
        assert g.deck_m or not g.ret_m


def _check_decision(g):
    if g.over:
        return
    assert g.deck_a or not g.ret_a
    assert g.deck_m or not g.ret_m
    # 9: stack
    top = g.stack[-1]
    owner = top[1] if top[0] in (R.CTX, R.END, R.MHG) else top[2]
    assert owner == g.decider
    bonus = [fr for fr in g.stack if fr[0] == R.CTX and fr[3]]
    assert len(bonus) <= 2
    for fr in g.stack:
        if fr[0] == R.CTX:
            assert fr[2] >= 0 and fr[4] <= R.MAX_FREE_OPS
        if fr[0] == R.END:
            assert fr[2] <= R.MAX_FREE_OPS
    if top[0] == R.CTX:
        assert top[2] > 0 and not (g.barred >> top[1]) & 1
        if top[3]:
            assert all(a > R.A_STEP + R.S_MOVE for a in g.legal), "mission op in a bonus context"
    # 10: mask
    assert g.legal, "empty mask"
    assert g.legal == g._legal_now(), "cached mask is stale"
    # the mask array and the cached observation agree with fresh builds (a stale
    # cache entry outlives the step that made it, so every 4th decision suffices)
    if len(g.actions) % 4 == 0:
        assert np.flatnonzero(g._mask).tolist() == sorted(g.legal)
        enc = g.encoder
        # the decider on every other check, otherwise each seat in turn
        k = len(g.actions) // 4
        v = g.decider if k % 2 == 0 else k // 2 % g.N
        fast = enc.encode(g, v)
        assert np.array_equal(fast, enc.encode(g, v, cached=False)), "stale observation cache"
