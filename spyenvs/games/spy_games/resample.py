"""Spy Games hidden information: ``hidden_key(game, viewer)``, what the viewer may
not know, and ``resample_hidden`` (rules/spy_games.md §9.5): re-deal every card the
viewer cannot locate (other hands, other players' unrevealed plans, face-down
discards, the deck, another participant's unrevealed addition) and other players'
unrevealed allocations, keeping the viewer's pins and the known-Scout constraint.

The deal is exact for those constraints, with no rejection step and no fallback:
pinned cards are placed first, known-Scout plans are drawn uniformly from the Scouts
left in the pool, and every other hidden slot takes a uniform shuffle of the rest. So
each consistent assignment of the pool's physical cards to the hidden slots is
equally likely. Other players' pins (their private memory, hidden from the viewer)
are re-drawn from the re-dealt hands rather than copied from the real game; only
their sizes are kept.
"""

from __future__ import annotations

from array import array

import numpy as np

from . import data as D

NK = D.NUM_KINDS


def hidden_key(g, viewer: int):
    h = g.h
    return (
        tuple(tuple(h.hands[p]) for p in range(g.n) if p != viewer),
        tuple(tuple(h.plans[p]) for p in range(g.n) if p != viewer),
        tuple(sorted(h.disc_down)),
        tuple(h.deck),
        tuple(h.add[i] for i, w in enumerate((g.cf_I, g.cf_D)) if w != viewer),
        tuple(h.alloc[p] for p in range(g.n) if p != viewer),
        # other players' private memory of hands (pins) is hidden from the viewer too
        tuple(tuple(sorted(h.pins[w][p].items())) for w in range(g.n) if w != viewer for p in range(g.n)),
    )


def resample_hidden(g, v: int, rng: np.random.Generator):
    new = g.clone()
    h = new.h
    n = g.n
    pool = list(D.KIND_COPIES)

    def take(kind):
        pool[kind] -= 1

    # cards whose location v knows
    for k in range(NK):
        pool[k] -= h.hands[v][k] + g.disc_up[k]
    for kind in h.plans[v]:
        if kind >= 0:
            take(kind)
    for kind in g.cf_up + g.cf_addrev:
        if kind >= 0:
            take(kind)
    parts = (g.cf_I, g.cf_D) if g.cf_on else (-1, -1)
    for x in range(2):
        if parts[x] == v and h.add[x] >= 0:
            take(h.add[x])
    revealed = (g.res_A, g.res_j) if g.res_on else None
    if revealed is not None and revealed[0] != v:
        take(h.plans[revealed[0]][revealed[1]])

    # other players' hands (with an unrevealed addition): pinned kinds first
    groups = {}
    for p in range(n):
        if p == v:
            continue
        size = g.hsize[p]
        add_x = -1
        for x in range(2):
            if parts[x] == p and h.add[x] >= 0:
                add_x = x
                size += 1
        pinned = []
        for k, c in h.pins[v][p].items():
            pinned.extend([k] * c)
            pool[k] -= c
        groups[p] = (size, add_x, pinned)
    # known-Scout spies get Scouts; other hidden plans come from the common pool
    plan_slots = []
    scout_slots = []
    for p in range(n):
        if p == v:
            continue
        for j in range(D.AGENTS):
            if g.spy_loc[p][j] >= 0 and (p, j) != revealed:
                (scout_slots if g.spy_ks[p][j] else plan_slots).append((p, j))
    if scout_slots:
        scouts = [k for k in range(NK) if D.KIND_SCOUT[k] for _ in range(pool[k])]
        rng.shuffle(scouts)
        for (p, j), kind in zip(scout_slots, scouts):
            h.plans[p][j] = kind
            pool[kind] -= 1
    assert min(pool) >= 0, "resample pool went negative"
    cards = [k for k in range(NK) for _ in range(pool[k])]
    rng.shuffle(cards)
    pos = 0
    dealt = {}  # p -> (its cards, hand plus an unrevealed addition; how many are v's pins)
    for p, (size, add_x, pinned) in groups.items():
        need = size - len(pinned)
        group = pinned + cards[pos:pos + need]
        pos += need
        dealt[p] = (group[:], len(pinned))
        if add_x >= 0:
            r = int(rng.integers(len(group)))
            h.add[add_x] = group.pop(r)
        hand = [0] * NK
        for k in group:
            hand[k] += 1
        h.hands[p] = hand
        h.hf[p] = array("f", hand)
    for p, j in plan_slots:
        h.plans[p][j] = cards[pos]
        pos += 1
    nd = len(h.disc_down)
    h.disc_down = cards[pos:pos + nd]
    pos += nd
    h.deck = cards[pos:]
    assert len(h.deck) == len(g.h.deck), "resample dealt a wrong number of cards"
    # other players' unrevealed allocations
    if not g.alloc_done:
        for p in range(n):
            if p != v and h.alloc[p] >= 0:
                h.alloc[p] = int(rng.integers(len(D.ALLOCS)))
    # Other players' pins are their memory of cards that went into a hand, hidden from v.
    # Copying the real ones (even clipped to the new hands) would hand v's search the
    # true kinds, so each is re-drawn as that many cards of the re-dealt hand (plus an
    # unrevealed addition), taken from the cards that are not v's own pins (those came
    # from v, not from w) while enough remain.
    for w in range(n):
        if w == v:
            continue
        for p in range(n):
            if p == v or p == w:
                continue
            row = h.pins[w][p]
            if row:
                cards_p, n_vpins = dealt[p]
                cands = cards_p[n_vpins:]
                size = sum(row.values())
                if len(cands) < size:
                    cands = cards_p
                size = min(size, len(cands))
                picked = {}
                for i in rng.choice(len(cands), size, replace=False):
                    kind = cands[i]
                    picked[kind] = picked.get(kind, 0) + 1
                h.pins[w][p] = picked
    new.rng = np.random.default_rng(rng.integers(2**63))
    new._mask = None
    return new
