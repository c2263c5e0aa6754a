"""Hidden-state resampling for unrest_v0 (§5.4, C21).

Viewer = Rebel: only the deck order is hidden; it is reshuffled.

Viewer = Empire: the pool of never-face-up cards (hand, deck, every face-down handle)
is re-dealt onto the same places, exactly uniformly over the deals that meet R1-R5:
R1 (face-down destroyed cards are suit cards), R2 (an all-face-down Final Encounter
play is 3 Decoys), R3 (no past completed liberation check had a qualifying pair), R4 (a
LIBERATE decision has a qualifying pair) and R5 (unrevealed liberated districts met
their mission).

Method: rejection sampling with no cap and no fallback. A deal uniform over R1-R2 is
drawn place by place (a place that may hold a Decoy gets one with probability
decoys left / such places left, otherwise a uniformly random suit card left; a place
that may not gets a suit card), which is exactly the §5.4 method in another order.
Only the face-down handles that R3-R5 mention are dealt first, each constraint is
checked as soon as its handles are dealt, and any failure restarts the whole deal:
an early restart changes the cost, not the distribution. The accepted deal is then
completed uniformly (Decoys on a random subset of the places allowed them, the suit
cards permuted over the rest). The true deal is consistent, so the loop ends with
probability 1; its expected length is 1 / P(R3-R5 | R1-R2), a few hundred attempts
in the hardest states seen in play. A capped loop with a search fallback would be
biased, and a fallback to the true deal would leak it."""

from __future__ import annotations

import numpy as np

from . import data as D
from .rules import LIBERATE, LOC_DESTROYED, REBEL

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


def hidden_key(game, viewer: int):
    hid = game.hid
    ct = D.CARD_TYPE
    deck = tuple(ct[c] for c in hid.deck)
    if viewer == REBEL:
        return deck
    pub = game.pub
    facedown = tuple(ct[hid.hcard[h]] for h in range(pub.n_played) if not pub.hup[h])
    return (tuple(ct[c] for c in hid.hand), deck, facedown)


def resample_hidden(game, viewer: int, rng: np.random.Generator):
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
    # the pool is public (the cards never seen face up); sorting it keeps the deal a
    # function of public facts and the rng alone
    suits = sorted(c for c in pool if c < D.DECOY_FIRST)
    nh, nd = len(hid.hand), len(hid.deck)
    # places: 0..nh-1 hand, nh..nh+nd-1 deck, then the face-down handles in fd order
    base = nh + nd
    places = base + len(fd)
    forced = set()
    if pub.final_all_hidden and game.config["final_encounter_one_faceup"]:
        forced = {base + i for i, h in enumerate(fd) if h >= 21}  # R2: the last play
    may_decoy = [
        x not in forced and (x < base or pub.hloc[fd[x - base]] != LOC_DESTROYED)  # R1
        for x in range(places)
    ]
    cons = _constraints(game, set(fd))
    order, checks = _constrained_order(game, fd, base, forced, cons)
    thr = game.threshold
    card_of = list(hid.hcard)
    for x in forced:
        card_of[fd[x - base]] = D.DECOY_FIRST
    free_decoys = len(decoys) - len(forced)
    allowed_total = sum(may_decoy)
    while True:
        # one attempt: deal the constrained handles, restarting at the first failure
        left = list(suits)
        d, a = free_decoys, allowed_total
        u = rng.random(2 * len(order)).tolist()
        ok = True
        for k, x in enumerate(order):
            if may_decoy[x]:
                if u[2 * k] * a < d:
                    c = D.DECOY_FIRST
                    d -= 1
                else:
                    c = left.pop(int(u[2 * k + 1] * len(left)))
                a -= 1
            else:
                c = left.pop(int(u[2 * k + 1] * len(left)))
            card_of[fd[x - base]] = c
            q = checks[k]
            if q and not _ok(q, card_of, thr):
                ok = False
                break
        if ok:
            break
    # complete the other places uniformly given what the constrained handles used
    slot = [-1] * places
    for x in forced:
        slot[x] = D.DECOY_FIRST
    for x in order:
        slot[x] = card_of[fd[x - base]]
    rest_allowed = [x for x in range(places) if slot[x] < 0 and may_decoy[x]]
    if d:
        for i in rng.choice(len(rest_allowed), d, replace=False):
            slot[rest_allowed[int(i)]] = D.DECOY_FIRST
    rest = [x for x in range(places) if slot[x] < 0]
    for x, i in zip(rest, rng.permutation(len(left))):
        slot[x] = left[int(i)]
    # give the Decoys their ids (identical cards: any order)
    k = 0
    for x in range(places):
        if slot[x] >= D.DECOY_FIRST:
            slot[x] = decoys[k]
            k += 1
    hid.hand = sorted(slot[:nh])
    hid.deck = slot[nh:base]
    for i, h in enumerate(fd):
        hid.hcard[h] = slot[base + i]


def _constrained_order(game, fd, base, forced, cons):
    """The places of the face-down handles that R3-R5 mention, district by district
    (the most constrained first, handles in play order so that a district's earlier
    checks, which hold a prefix of its handles, come first), and for each position
    the constraints whose last handle is dealt there."""
    pub = game.pub
    pos = {h: base + i for i, h in enumerate(fd)}
    weight: dict[int, int] = {}
    for hs, _, _ in cons:
        for h in hs:
            if h in pos:
                weight[pub.hloc[h]] = weight.get(pub.hloc[h], 0) + 1
    hs_all = sorted({h for hs, _, _ in cons for h in hs if h in pos and pos[h] not in forced})
    hs_all.sort(key=lambda h: (-weight[pub.hloc[h]], pub.hloc[h], h))
    order = [pos[h] for h in hs_all]
    index = {h: k for k, h in enumerate(hs_all)}
    checks: list[list] = [[] for _ in order]
    for c in cons:
        ks = [index[h] for h in c[0] if h in index]
        if ks:  # (one over forced Decoys and face-up cards alone holds in every deal)
            checks[max(ks)].append(c)
    return order, checks
