"""Hidden-state resampling for unrest_v0 (§5.4, C21).

Viewer = Rebel: only the deck order is hidden; it is reshuffled.
Viewer = Empire: the pool of never-face-up cards (hand, deck, every face-down handle)
is re-dealt onto the same places, uniformly over deals meeting R1 (face-down destroyed
cards are suit cards) and R2 (an all-face-down Final Encounter play is 3 Decoys), then
rejected until R3 (no past completed liberation check had a qualifying pair), R4 (a
LIBERATE decision has a qualifying pair) and R5 (unrevealed liberated districts met
their mission) hold. After a capped number of rejections a randomised complete
backtracking search finds a consistent deal (never the true deal by default)."""

from __future__ import annotations

import numpy as np

from . import data as D
from .rules import LIBERATE, LOC_DESTROYED, REBEL

MAX_REJECTIONS = 300


def _constraints(game, fd_set):
    """Constraints R3-R5 that involve at least one face-down handle.
    Each is (handles, kind, payload): kind 'none' (satisfies none of payload),
    'sat' (satisfies payload) or 'any' (payload = [(handles, missions)], one satisfied)."""
    pub = game.pub
    out = []
    for districts, missions in pub.check_log:
        for hs in districts:
            if hs and missions and any(h in fd_set for h in hs):
                out.append((hs, "none", missions))
    if not game.config["reveal_all_on_liberation"]:
        for d in pub.lib:
            hs = tuple(pub.dist[d])
            if any(h in fd_set for h in hs):
                out.append((hs, "sat", pub.missions[pub.lib_mission[d]]))
    if pub.phase == LIBERATE:
        missions = tuple(pub.missions[m] for m in range(4) if pub.mission_avail[m])
        groups = [(tuple(pub.dist[d]), missions) for d in pub.row if pub.dist[d]]
        allh = tuple(h for hs, _ in groups for h in hs)
        if any(h in fd_set for h in allh):
            out.append((allh, "any", groups))
    return out


def _ok(cons, card_of, thr) -> bool:
    sat = D.mission_satisfied
    for hs, kind, payload in cons:
        if kind == "any":
            found = False
            for ghs, missions in payload:
                s, c, v = D.summarize([card_of[h] for h in ghs])
                if any(sat(m, s, c, v, thr) for m in missions):
                    found = True
                    break
            if not found:
                return False
            continue
        s, c, v = D.summarize([card_of[h] for h in hs])
        if kind == "none":
            if any(sat(m, s, c, v, thr) for m in payload):
                return False
        elif not sat(payload, s, c, v, thr):
            return False
    return True


def resample(game, viewer: int, rng: np.random.Generator):
    new = game.clone()
    hid = new.hid
    if viewer == REBEL:
        hid.deck = [hid.deck[int(i)] for i in rng.permutation(len(hid.deck))]
    else:
        _resample_for_empire(new, rng)
        new._obs_rebuild()  # the observation buffers follow the new deal
    new._cache.mask = None
    new.rng = np.random.default_rng(rng.integers(2**63))
    return new


def _resample_for_empire(game, rng) -> None:
    pub, hid = game.pub, game.hid
    fd = [h for h in range(pub.n_played) if not pub.hup[h]]
    pool = list(hid.hand) + list(hid.deck) + [hid.hcard[h] for h in fd]
    decoys = sorted(c for c in pool if c >= D.DECOY_FIRST)
    suits = [c for c in pool if c < D.DECOY_FIRST]
    nh, nd = len(hid.hand), len(hid.deck)
    # places: 0..nh-1 hand, nh..nh+nd-1 deck, then the face-down handles in fd order
    places = nh + nd + len(fd)
    forced = []
    if pub.final_all_hidden and game.config["final_encounter_one_faceup"]:
        forced = [nh + nd + i for i, h in enumerate(fd) if h >= 21]  # R2
    forced_set = set(forced)
    allowed = [
        x
        for x in range(places)
        if x not in forced_set and (x < nh + nd or pub.hloc[fd[x - nh - nd]] != LOC_DESTROYED)  # R1
    ]
    free_decoys = len(decoys) - len(forced)
    fd_set = set(fd)
    cons = _constraints(game, fd_set)
    thr = game.threshold
    card_of = list(hid.hcard)
    deal = None
    for _ in range(MAX_REJECTIONS):
        slot = [-1] * places
        for x in forced:
            slot[x] = D.DECOY_FIRST  # placeholder, real Decoy ids set below
        chosen = rng.choice(len(allowed), free_decoys, replace=False) if free_decoys else []
        for i in chosen:
            slot[allowed[int(i)]] = D.DECOY_FIRST
        rest = [x for x in range(places) if slot[x] < 0]
        perm = rng.permutation(len(suits))
        for x, i in zip(rest, perm):
            slot[x] = suits[int(i)]
        for i, h in enumerate(fd):
            card_of[h] = slot[nh + nd + i]
        if not cons or _ok(cons, card_of, thr):
            deal = slot
            break
    if deal is None:
        deal = _search(game, fd, nh, nd, suits, len(decoys), forced_set, allowed, cons, rng)
    # give the Decoys their ids (identical cards: any order)
    k = 0
    for x in range(places):
        if deal[x] >= D.DECOY_FIRST:
            deal[x] = decoys[k]
            k += 1
    hid.hand = sorted(deal[:nh])
    hid.deck = deal[nh : nh + nd]
    for i, h in enumerate(fd):
        hid.hcard[h] = deal[nh + nd + i]


class _Budget(Exception):
    pass


def _search(game, fd, nh, nd, suits, n_decoys, forced_set, allowed, cons, rng):
    """Randomised complete backtracking over the face-down handles; hand and deck take
    the rest. Handles are grouped by their current place (most constrained first) so
    each constraint is checked as soon as its handles are dealt; node-budgeted random
    restarts avoid heavy tails, and the last attempt is unbudgeted. A consistent deal
    exists (the true one), so this always returns one."""
    pub = game.pub
    base = nh + nd
    weight = {}
    for c in cons:
        for h in c[0]:
            weight[pub.hloc[h]] = weight.get(pub.hloc[h], 0) + 1
    budgets = [2000, 4000, 8000, 16000, 32000, 64000, None]
    for budget in budgets:
        groups: dict[int, list[int]] = {}
        for i, h in enumerate(fd):
            groups.setdefault(pub.hloc[h], []).append(i)
        keys = list(groups)
        rng.shuffle(keys)
        keys.sort(key=lambda k: -weight.get(k, 0))
        order = [i for k in keys for i in groups[k]]
        try:
            found = _dfs(game, fd, order, base, suits, n_decoys, forced_set, set(allowed), cons, rng, budget)
        except _Budget:
            continue
        if found is not None:
            return found
        break
    raise RuntimeError("unrest: no deal is consistent with the public history (a bug)")


def _dfs(game, fd, order, base, suits, n_decoys, forced_set, allowed_set, cons, rng, budget):
    thr = game.threshold
    depth_of = {fd[i]: k for k, i in enumerate(order)}
    at_depth: dict[int, list] = {}
    for c in cons:
        depth = max(depth_of[h] for h in c[0] if h in depth_of)
        at_depth.setdefault(depth, []).append(c)
    card_of = list(game.hid.hcard)
    assigned = [None] * len(fd)
    remaining = list(suits)
    nodes = [0]

    def rec(k, decoys_left):
        if k == len(order):
            return True
        nodes[0] += 1
        if budget is not None and nodes[0] > budget:
            raise _Budget
        i = order[k]
        x = base + i
        if x in forced_set:
            cands = [D.DECOY_FIRST] if decoys_left else []
        else:
            cands = list(remaining)
            rng.shuffle(cands)
            if decoys_left and x in allowed_set:
                cands.insert(int(rng.integers(len(cands) + 1)), D.DECOY_FIRST)
        checks = at_depth.get(k, ())
        for c in cands:
            card_of[fd[i]] = c
            if all(_ok([q], card_of, thr) for q in checks):
                assigned[i] = c
                if c >= D.DECOY_FIRST:
                    if rec(k + 1, decoys_left - 1):
                        return True
                else:
                    remaining.remove(c)
                    if rec(k + 1, decoys_left):
                        return True
                    remaining.append(c)
        return False

    if not rec(0, n_decoys):
        return None
    used_decoys = sum(1 for c in assigned if c >= D.DECOY_FIRST)
    rest = list(remaining) + [D.DECOY_FIRST] * (n_decoys - used_decoys)
    rest = [rest[int(i)] for i in rng.permutation(len(rest))]
    return rest + assigned
