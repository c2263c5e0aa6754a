"""Hidden-state resampling for The Agents (rules file 6.1, C50): what a viewer cannot
see, re-dealt uniformly among the deals consistent with what it knows.

What the viewer knows is held in its knowledge tags (``rules``: one tag per card id,
``KNOWN`` or the id of an exchangeable pool). A *deal* assigns the viewer's hidden
cards (other players' unpinned hand cards and both decks, per card class) to the
hidden slots, each card staying inside its pool; decks are ordered, hands are not.
The deals consistent with the viewer's view are those pool deals that also keep the
pending decision possible: when the viewer decides, its legal set is unchanged (it
sees it); when another player decides, that decision has at least one option (the
viewer sees that it is pending). ``resample_hidden`` returns a clone holding one of
them, chosen uniformly (every card-id deal equally likely), and never the truth as a
shortcut:

1. Rejection: a uniform pool deal is drawn and kept if consistent (up to
   ``REJECTION_TRIES`` times). Accepted draws are uniform over the consistent deals.
2. Exact enumeration, when those tries fail (a rare constraint, as in issue 14's
   repro): the consistency test reads other players' hands only through counts of
   acceptance-equivalent card classes (``AGENT_CLASS``: all faction agents are one
   class, each Free Agent type its own; missions by type, and only for an ATTACH
   choice of another player: every other legality test reads mission counts only).
   So every table "how many cards of each class each hidden hand holds, per pool"
   is consistent or not as a whole. The tables are enumerated, each one tested on a
   deal drawn inside it, and one consistent table is chosen with probability
   proportional to its number of card-id deals, prod over pools and classes of
   ``avail! / (prod_hands n! * deck_n!)``; a deal uniform inside it follows.
3. More tables than ``ENUMERATION_BUDGET``: rejection goes on without a bound. It
   stays exact (the true deal is consistent, so it ends with probability 1).

The consistent tables of a state are cached by content (ISMCTS re-samples one root
many times); a state found there skips step 1. Which step runs depends on the state
only, never on a random draw, so the result stays uniform.

Other viewers' knowledge tags follow the slots (the card now in a slot takes the
tags its previous card had), so every seat's knowledge stays coherent in the clone.
"""

from __future__ import annotations

from math import lgamma

import numpy as np

from . import data as D
from . import rules as R

KNOWN = R.KNOWN
REJECTION_TRIES = 12
ENUMERATION_BUDGET = 3000

#: acceptance-equivalent agent classes: 0 = any faction agent, 1.. = each Free Agent type
AGENT_CLASS = tuple(0 if D.IS_FACTION[t] else 1 + D.FREE_TYPES.index(t) for t in range(D.NUM_AGENT_TYPES))
N_AGENT_CLASSES = 1 + len(D.FREE_TYPES)
MISSION_CLASS = tuple(range(D.NUM_MISSION_TYPES_MAX))


def hidden_key(g, viewer):
    """What ``viewer`` cannot see, as a hashable key (tests compare it)."""
    return (
        tuple(tuple(g.cnt_a[q]) for q in range(g.N) if q != viewer),
        tuple(tuple(g.cnt_m[q]) for q in range(g.N) if q != viewer),
        tuple(c >> 1 for c in g.deck_a),
        tuple(c >> 1 for c in g.deck_m),
    )


# ----------------------------------------------------------------- slots
def _zones(g, cls):
    if cls == "a":
        return g.hand_a, g.tag_a, g.deck_a
    return g.hand_m, g.tag_m, g.deck_m


def _hidden_slots(g, v, cls):
    """(slots, locations, cards): every slot hidden from v in one card class, as
    (zone list, index), its location (a seat, or -1 for the deck) and its card."""
    hands, tags, deck = _zones(g, cls)
    tv = tags[v]
    slots, locs, cards = [], [], []
    for q in range(g.N):
        if q != v:
            h = hands[q]
            for i, c in enumerate(h):
                if tv[c] != KNOWN:
                    slots.append((h, i))
                    locs.append(q)
                    cards.append(c)
    for i, c in enumerate(deck):
        slots.append((deck, i))
        locs.append(-1)
        cards.append(c)
    return slots, locs, cards


def _write(g, cls, slots, old, new):
    """Put ``new`` into the slots; every viewer's tags follow the slots."""
    for (z, i), x in zip(slots, new):
        z[i] = x
    for tw in _zones(g, cls)[1]:
        oldt = [tw[c] for c in old]
        for x, t in zip(new, oldt):
            tw[x] = t


def _pool_deal(g, v, cls, rng):
    """A uniform deal of one card class: the cards of each pool permuted among that
    pool's slots (decks are slots too, so their order is new as well)."""
    slots, _locs, old = _hidden_slots(g, v, cls)
    if len(old) < 2:
        return
    tv = _zones(g, cls)[1][v]
    keys = rng.random(len(old)).tolist()
    groups = {}
    for k, c in enumerate(old):
        groups.setdefault(tv[c], []).append(k)
    new = list(old)
    for ks in groups.values():
        if len(ks) > 1:
            order = sorted(ks, key=keys.__getitem__)
            for k, j in zip(ks, order):
                new[k] = old[j]
    _write(g, cls, slots, old, new)


def _recount(g):
    g.cv = next(R.VERSIONS)
    g.mv = next(R.VERSIONS)
    for q in range(g.N):
        ca = [0] * D.NUM_AGENT_TYPES
        for c in g.hand_a[q]:
            ca[c >> 1] += 1
        g.cnt_a[q] = ca
        cm = [0] * 10
        for c in g.hand_m[q]:
            cm[c >> 1] += 1
        g.cnt_m[q] = cm


def redeal(g, v, rng):
    """Re-deal, in place, everything hidden from v (both card classes)."""
    _pool_deal(g, v, "a", rng)
    _pool_deal(g, v, "m", rng)
    _recount(g)


# ------------------------------------------------------------ consistency
def _consistent(new, v, decider, want):
    """Whether the pending decision is still possible as v sees it; on success the
    clone's cached options and mask are refreshed."""
    legal = new._legal_now()
    if not legal or (decider == v and legal != want):
        return False
    new.legal = legal
    new._set_mask()
    return True


def resample_hidden(g, viewer, rng, tries=REJECTION_TRIES, budget=ENUMERATION_BUDGET):
    """6.1: a clone with everything hidden from ``viewer`` re-dealt uniformly among the
    deals consistent with its view (module docstring)."""
    if g.over:
        new = g.clone()
        redeal(new, viewer, rng)
        new.rng = np.random.default_rng(rng.integers(2**63))
        return new
    decider = g.decider
    want = list(g.legal)
    new = None
    if _TABLES.get(_content_key(g, viewer, budget)) is not None:
        tries = 0  # this state was enumerated before: sample its tables at once
    for _ in range(tries):
        cand = g.clone()
        redeal(cand, viewer, rng)
        if _consistent(cand, viewer, decider, want):
            new = cand
            break
    if new is None:
        new = _enumerated(g, viewer, rng, decider, want, budget)
    while new is None:
        cand = g.clone()
        redeal(cand, viewer, rng)
        if _consistent(cand, viewer, decider, want):
            new = cand
    new.rng = np.random.default_rng(rng.integers(2**63))
    return new


# ------------------------------------------------------------ enumeration
def _compositions(total, caps):
    """Every vector n with sum(n) == total and 0 <= n[i] <= caps[i]."""
    k = len(caps)
    suffix = [0] * (k + 1)
    for i in range(k - 1, -1, -1):
        suffix[i] = suffix[i + 1] + caps[i]
    out = []
    cur = [0] * k

    def rec(i, left):
        if i == k:
            if left == 0:
                out.append(tuple(cur))
            return
        if left > suffix[i]:
            return
        for x in range(min(caps[i], left) + 1):
            cur[i] = x
            rec(i + 1, left - x)
        cur[i] = 0

    rec(0, total)
    return out


class _Structure:
    """One card class's hidden slots grouped as pools x locations, with class counts."""

    def __init__(self, g, v, cls):
        self.cls = cls
        self.v = v
        self.klass = AGENT_CLASS if cls == "a" else MISSION_CLASS
        self.nk = N_AGENT_CLASSES if cls == "a" else len(MISSION_CLASS)
        self.slots, self.locs, self.old = _hidden_slots(g, v, cls)
        tv = _zones(g, cls)[1][v]
        self.pools = {}  # pool -> {"cards": {class: [ids]}, "locs": {loc: [slot idx]}}
        for k, c in enumerate(self.old):
            p = self.pools.setdefault(tv[c], {"cards": {}, "locs": {}})
            p["cards"].setdefault(self.klass[c >> 1], []).append(c)
            p["locs"].setdefault(self.locs[k], []).append(k)
        # the enumerated cells: (pool, hand) pairs; each pool's deck part takes the rest
        self.cells = [(p, q) for p, d in self.pools.items() for q in sorted(d["locs"]) if q >= 0]

    def avail(self, p):
        cards = self.pools[p]["cards"]
        return [len(cards.get(k, ())) for k in range(self.nk)]

    def tables(self, budget):
        """Every joint table (one class-count vector per cell), or None past ``budget``."""
        left = {p: self.avail(p) for p in self.pools}
        out = []
        cur = []

        def rec(i):
            if len(out) > budget:
                return
            if i == len(self.cells):
                out.append(tuple(cur))
                return
            p, q = self.cells[i]
            caps = left[p]
            for n in _compositions(len(self.pools[p]["locs"][q]), caps):
                for k in range(self.nk):
                    caps[k] -= n[k]
                cur.append(n)
                rec(i + 1)
                cur.pop()
                for k in range(self.nk):
                    caps[k] += n[k]

        rec(0)
        return None if len(out) > budget else out

    def log_weight(self, table):
        """log of the number of card-id deals with these class counts."""
        w = 0.0
        used = {p: [0] * self.nk for p in self.pools}
        for (p, _q), n in zip(self.cells, table):
            u = used[p]
            for k in range(self.nk):
                if n[k]:
                    w -= lgamma(n[k] + 1)
                    u[k] += n[k]
        for p in self.pools:
            a = self.avail(p)
            for k in range(self.nk):
                w += lgamma(a[k] + 1) - lgamma(a[k] - used[p][k] + 1)
        return w

    def deal(self, g, table, rng):
        """Write a deal drawn uniformly among those with these class counts into g (the
        game this structure was built from, or a clone with the same content)."""
        slots, _locs, old = _hidden_slots(g, self.v, self.cls)
        assert old == self.old
        new = list(old)
        want = {cell: n for cell, n in zip(self.cells, table)}
        for p, d in self.pools.items():
            given = {}  # loc -> ids
            for k, ids in d["cards"].items():
                order = [ids[j] for j in rng.permutation(len(ids))]
                pos = 0
                for q in d["locs"]:
                    if q < 0:
                        continue
                    n = want[(p, q)][k]
                    given.setdefault(q, []).extend(order[pos:pos + n])
                    pos += n
                given.setdefault(-1, []).extend(order[pos:])
            for q, ks in d["locs"].items():
                ids = given.get(q, [])
                assert len(ids) == len(ks)
                for k, j in zip(ks, rng.permutation(len(ids))):
                    new[k] = ids[j]
        _write(g, self.cls, slots, old, new)


#: consistent tables per (state content, viewer, budget): ISMCTS re-samples one root
#: state many times, and the enumeration depends only on that state
_TABLES: dict = {}


def _content_key(g, v, budget):
    """Equal keys mean equal content: the version stamps cover cards, tags, board,
    attached missions and IP; the rest of what legality reads is listed."""
    return (v, budget, g.bv, g.cv, g.av, g.mv, g.decision, g.decider, g.barred, g.active,
            tuple(tuple(fr) for fr in g.stack), tuple(tuple(e) for e in g.transit))


def _consistent_tables(g, v, decider, want, budget, rng):
    """(class, tables, probabilities) of the consistent tables, or None past ``budget``."""
    key = _content_key(g, v, budget)
    if key in _TABLES:
        return _TABLES[key]
    # only another player's ATTACH choice reads hidden mission types (8.2a); every other
    # legality test reads other players' missions by count, so then agents are enumerated
    cls = "m" if (g.decision == R.D_ATT_M and decider != v) else "a"
    st = _Structure(g, v, cls)
    tables = st.tables(budget)
    out = None
    if tables is not None:
        ok, logw = [], []
        for t in tables:
            cand = g.clone()
            st.deal(cand, t, rng)
            _recount(cand)
            if _consistent(cand, v, decider, want):
                ok.append(t)
                logw.append(st.log_weight(t))
        if not ok:  # cannot happen: the true deal is consistent
            raise AssertionError("no consistent deal")
        w = np.exp(np.array(logw) - max(logw))
        out = (cls, ok, w / w.sum())
    if len(_TABLES) > 256:
        _TABLES.clear()
    _TABLES[key] = out
    return out


def _enumerated(g, v, rng, decider, want, budget):
    """Step 2 of the module docstring; None when there are more tables than ``budget``."""
    found = _consistent_tables(g, v, decider, want, budget, rng)
    if found is None:
        return None
    cls, ok, prob = found
    t = ok[int(rng.choice(len(ok), p=prob))]
    new = g.clone()
    _Structure(new, v, cls).deal(new, t, rng)
    _pool_deal(new, v, "a" if cls == "m" else "m", rng)
    _recount(new)
    if not _consistent(new, v, decider, want):
        raise AssertionError("class counts did not decide consistency")
    return new
