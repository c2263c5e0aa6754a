"""Hidden-state resampling for The Agents (rules file 6.1, C50): what a viewer cannot
see, re-dealt from the exact posterior of the viewer's view of the history.

**Target.** The posterior of ``belief`` (its docstring states the model: every hidden
card id equally likely to be the one an event exposes or moves; other players' choices
carry no other evidence, C50), conditioned on the pending decision staying possible as
the viewer sees it: when the viewer decides, its legal set is unchanged; when another
player decides, that decision has at least one option.

**Method.** ``belief`` folds the state's card-event log into a weighted mixture of pool
structures for each card class (agents, missions). A *deal* of a structure puts its
known cards in their hands (the viewer's pinned cards stay where they are) and deals
each pool's cards uniformly into its slots (hands unordered, the deck ordered, random
order, never sorted); card ids are then given to the dealt types at random. Exact
under that posterior, never the truth as a shortcut:

1. Rejection: a component is drawn by weight per class and dealt; the clone is kept if
   consistent (up to ``REJECTION_TRIES`` times).
2. Enumeration, when those tries fail: the consistency test reads other players' hands
   only through counts of acceptance-equivalent card classes (``AGENT_CLASS``: all
   faction agents one class, each Free Agent type its own; missions by type, and only
   for another player's ATTACH choice: every other legality test reads mission counts
   only). So every (component, table) pair, a table being "how many cards of each class
   each hidden hand holds, per pool", is consistent or not as a whole. The pairs are
   enumerated, each tested on one deal inside it, and a consistent pair is chosen with
   probability component weight x the table's share of that component's deals; a deal
   uniform inside it follows. The other class is dealt from its mixture freely.
3. More pairs than ``ENUMERATION_BUDGET``: rejection goes on without a bound (exact; the
   true deal is consistent, so it ends with probability 1).

Which step runs depends on the state only (the consistent pairs are cached by content),
never on a random draw, so the result stays exact.

**The clone's knowledge.** Every viewer's knowledge tags follow the slots (the card now
in a slot takes the tags its previous card had), so every seat's pins stay coherent in
the clone. The clone keeps the viewer's log (its view is identical), but its other
viewers' logs describe the original's truth, so it is marked (``clog_for``): a later
resample of it for another viewer uses that viewer's tag structure instead
(``tag_resample``, main's sampler before the log: exact while the tags are, sound
always: pins, conservation and the pending decision hold). A state whose log does not
describe it (edited without ``_start_log``) falls back the same way (``STATS``).
"""

from __future__ import annotations

from bisect import bisect_right
from math import lgamma

import numpy as np

from . import belief as B
from . import data as D
from . import rules as R

KNOWN = R.KNOWN
REJECTION_TRIES = 12
ENUMERATION_BUDGET = 3000
#: how each call was served: "log" (the exact mixture), "tags" (the tag structure)
STATS = {"log": 0, "tags": 0, "mismatch": 0}

#: acceptance-equivalent agent classes: 0 = any faction agent, 1.. = each Free Agent type
AGENT_CLASS = tuple(0 if D.IS_FACTION[t] else 1 + D.FREE_TYPES.index(t) for t in range(D.NUM_AGENT_TYPES))
N_AGENT_CLASSES = 1 + len(D.FREE_TYPES)
MISSION_CLASS = tuple(range(D.NUM_MISSION_TYPES_MAX))
CLS = {"a": R.CLS_A, "m": R.CLS_M}


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


def _recount(g):
    g.cv = next(R.VERSIONS)
    g.mv = next(R.VERSIONS)
    for q in range(g.N):
        g.cnt_a[q] = list(g._type_counts(g.hand_a[q], D.NUM_AGENT_TYPES))
        g.cnt_m[q] = list(g._type_counts(g.hand_m[q], 10))


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
    """6.1: a clone with everything hidden from ``viewer`` re-dealt from the exact
    posterior of its view (module docstring)."""
    mixes = _beliefs(g, viewer)
    if mixes is None:
        STATS["tags"] += 1
        new = tag_resample(g, viewer, rng, tries, budget)
        if getattr(new, "clog", None) is not None:
            new.clog_for = -1  # no viewer's log describes it any more
        return new
    STATS["log"] += 1
    new = _mixture_resample(g, viewer, rng, mixes, tries, budget)
    new.clog_for = viewer
    return new


# ------------------------------------------------------------ the mixture
class _Prepared:
    """One class's mixture, ready to sample: components, cumulative weights, and the
    consistent (component, table) pairs enumerated per state content."""

    __slots__ = ("mix", "comps", "cum", "tables")

    def __init__(self, mix):
        self.mix = mix  # keeps the dict alive: _PREPARED is keyed by its id
        self.comps = list(mix)
        self.cum = np.cumsum([mix[S] for S in self.comps]).tolist()
        self.tables = {}

    def draw(self, rng):
        x = rng.random() * self.cum[-1]
        return self.comps[min(bisect_right(self.cum, x), len(self.comps) - 1)]


_PREPARED: dict = {}


def _prepared(mix):
    got = _PREPARED.get(id(mix))
    if got is None or got.mix is not mix:
        if len(_PREPARED) > 512:
            _PREPARED.clear()
        got = _PREPARED[id(mix)] = _Prepared(mix)
    return got


def _pins(g, v, cls):
    """Per seat q != v: counts by type of q's cards pinned for v (K_v(q))."""
    hands, tags, _deck = _zones(g, cls)
    tv = tags[v]
    width = B.WIDTH[CLS[cls]]
    out = {}
    for q in range(g.N):
        if q != v:
            row = [0] * width
            for c in hands[q]:
                if tv[c] == KNOWN:
                    row[c >> 1] += 1
            out[q] = row
    return out


def _matches(g, v, cls, prep):
    """Whether every component fits the state: hand and deck sizes, the pins inside the
    known cards, and the hidden cards' types."""
    hands, tags, deck = _zones(g, cls)
    N = g.N
    pins = _pins(g, v, cls)
    width = B.WIDTH[CLS[cls]]
    hidden = [0] * width
    for q in range(N):
        if q != v:
            for c in hands[q]:
                hidden[c >> 1] += 1
    for c in deck:
        hidden[c >> 1] += 1
    for S in prep.comps:
        kn, pools = S
        if sum(s[N] for s, _t in pools) != len(deck):
            return False
        total = [0] * width
        for q in range(N):
            if q == v:
                continue
            if B.hand_size(S, q) != len(hands[q]):
                return False
            k, p = kn[q], pins[q]
            for t in range(width):
                if k[t] < p[t]:
                    return False
                total[t] += k[t]
        for _s, ty in pools:
            for t in range(width):
                total[t] += ty[t]
        if total != hidden:
            return False
    return True


def _beliefs(g, v):
    """{"a": prepared, "m": prepared} for v, or None when the log does not serve."""
    out = {}
    for cls in ("a", "m"):
        mix = B.belief(g, v, CLS[cls])
        if mix is None:
            if getattr(g, "clog", None) is not None and g.clog_for in (None, v):
                STATS["mismatch"] += 1  # includes a mixture given up as too large
            return None
        prep = _prepared(mix)
        if not _matches(g, v, cls, prep):
            STATS["mismatch"] += 1
            return None
        out[cls] = prep
    return out


def _deal_component(g, v, cls, S, rng, table=None):
    """Write into ``g`` (a clone) a deal of structure S: uniform among all its deals,
    or with ``table`` (class counts per (pool, seat) cell, ``_cells``) uniform among
    the deals with those counts. The viewer's pinned cards stay in place."""
    hands, tags, deck = _zones(g, cls)
    N = g.N
    kn, pools = S
    width = len(kn[0])
    pins = _pins(g, v, cls)
    want = [[] for _ in range(N + 1)]  # types per location (N: the deck)
    for q in range(N):
        if q != v:
            k, p = kn[q], pins[q]
            for t in range(width):
                if k[t] > p[t]:
                    want[q].extend([t] * (k[t] - p[t]))
    if table is None:
        for s, ty in pools:
            cards = [t for t in range(width) for _ in range(ty[t])]
            perm = rng.permutation(len(cards)).tolist()
            pos = 0
            for loc in range(N + 1):
                n = s[loc]
                if n:
                    want[loc].extend(cards[j] for j in perm[pos:pos + n])
                    pos += n
    else:
        klass = AGENT_CLASS if cls == "a" else MISSION_CLASS
        counts = dict(zip(_cells(S, v, N), table))
        for i, (s, ty) in enumerate(pools):
            by_class = {}
            for t in range(width):
                if ty[t]:
                    by_class.setdefault(klass[t], []).extend([t] * ty[t])
            for k, cards in by_class.items():
                order = [cards[j] for j in rng.permutation(len(cards)).tolist()]
                pos = 0
                for q in range(N):
                    if q != v and s[q]:
                        n = counts[(i, q)][k]
                        want[q].extend(order[pos:pos + n])
                        pos += n
                want[N].extend(order[pos:])
    slots, locs, old = _hidden_slots(g, v, cls)
    ids = {}
    for c in old:
        ids.setdefault(c >> 1, []).append(c)
    for t, lst in ids.items():
        if len(lst) > 1:
            ids[t] = [lst[j] for j in rng.permutation(len(lst)).tolist()]
    for loc in range(N + 1):
        w = want[loc]
        if len(w) > 1:
            want[loc] = [w[j] for j in rng.permutation(len(w)).tolist()]
    new = []
    for loc in locs:
        t = want[N if loc < 0 else loc].pop()
        new.append(ids[t].pop())
    _write(g, cls, slots, old, new)


def _deal_both(g, v, mixes, rng, fixed=None):
    for cls in ("a", "m"):
        if fixed is not None and fixed[0] == cls:
            _deal_component(g, v, cls, fixed[1], rng, fixed[2])
        else:
            _deal_component(g, v, cls, mixes[cls].draw(rng), rng)
    _recount(g)


def _mixture_resample(g, v, rng, mixes, tries, budget):
    if g.over:
        new = g.clone()
        _deal_both(new, v, mixes, rng)
        new.rng = np.random.default_rng(rng.integers(2**63))
        return new
    decider = g.decider
    want = list(g.legal)
    cls = _enumerated_class(g, v)
    key = _content_key(g, v, budget)
    new = None
    if key in mixes[cls].tables:
        tries = 0  # this state was enumerated before: sample its pairs at once
    for _ in range(tries):
        cand = g.clone()
        _deal_both(cand, v, mixes, rng)
        if _consistent(cand, v, decider, want):
            new = cand
            break
    if new is None:
        found = _consistent_pairs(g, v, mixes, cls, decider, want, budget, key, rng)
        if found is not None:
            pairs, prob = found
            S, table = pairs[int(rng.choice(len(pairs), p=prob))]
            new = g.clone()
            _deal_both(new, v, mixes, rng, fixed=(cls, S, table))
            if not _consistent(new, v, decider, want):
                raise AssertionError("class counts did not decide consistency")
    while new is None:
        cand = g.clone()
        _deal_both(cand, v, mixes, rng)
        if _consistent(cand, v, decider, want):
            new = cand
    new.rng = np.random.default_rng(rng.integers(2**63))
    return new


# ------------------------------------------------------------ enumeration
def _enumerated_class(g, v):
    # only another player's ATTACH choice reads hidden mission types (8.2a); every other
    # legality test reads other players' missions by count, so then agents are enumerated
    return "m" if (g.decision == R.D_ATT_M and g.decider != v) else "a"


def _cells(S, v, N):
    """The enumerated cells of a structure: (pool index, seat) with hand slots there;
    each pool's deck part takes the rest."""
    return [(i, q) for i, (s, _t) in enumerate(S[1]) for q in range(N) if q != v and s[q]]


def _class_avail(ty, klass, nk):
    out = [0] * nk
    for t, n in enumerate(ty):
        if n:
            out[klass[t]] += n
    return out


def _component_tables(S, v, N, klass, nk, budget):
    """(tables, log-probabilities within S) of every class-count table of S, or None
    past ``budget``."""
    pools = S[1]
    cells = _cells(S, v, N)
    avail = [_class_avail(ty, klass, nk) for _s, ty in pools]
    left = [list(a) for a in avail]
    out = []
    cur = []

    def rec(j):
        if len(out) > budget:
            return
        if j == len(cells):
            out.append(tuple(cur))
            return
        i, q = cells[j]
        caps = left[i]
        for n in B.compositions(pools[i][0][q], caps):
            for k in range(nk):
                caps[k] -= n[k]
            cur.append(n)
            rec(j + 1)
            cur.pop()
            for k in range(nk):
                caps[k] += n[k]

    rec(0)
    if len(out) > budget:
        return None
    # P(table | S): per pool, prod over cells (deck included) of size! / |P|!, times
    # prod over classes of avail! / prod over cells of n!
    const = 0.0
    for (s, ty), a in zip(pools, avail):
        const += sum(lgamma(x + 1) for x in s) - lgamma(sum(ty) + 1)
        const += sum(lgamma(x + 1) for x in a)
    logp = []
    for table in out:
        used = [[0] * nk for _ in pools]
        w = const
        for (i, _q), n in zip(cells, table):
            u = used[i]
            for k in range(nk):
                if n[k]:
                    w -= lgamma(n[k] + 1)
                    u[k] += n[k]
        for i, a in enumerate(avail):
            for k in range(nk):
                w -= lgamma(a[k] - used[i][k] + 1)
        logp.append(w)
    return out, logp


def _content_key(g, v, budget):
    """Equal keys mean equal content: the version stamps cover cards, tags, board,
    attached missions and IP; the rest of what legality reads is listed."""
    return (v, budget, g.bv, g.cv, g.av, g.mv, g.decision, g.decider, g.barred, g.active,
            tuple(tuple(fr) for fr in g.stack), tuple(tuple(e) for e in g.transit))


def _consistent_pairs(g, v, mixes, cls, decider, want, budget, key, rng):
    """(pairs, probabilities) of the consistent (component, table) pairs of the
    enumerated class, or None past ``budget`` (cached on the prepared mixture)."""
    prep = mixes[cls]
    if key in prep.tables:
        return prep.tables[key]
    klass, nk = (AGENT_CLASS, N_AGENT_CLASSES) if cls == "a" else (MISSION_CLASS, len(MISSION_CLASS))
    out = None
    per = []
    left = budget
    for S in prep.comps:
        got = _component_tables(S, v, g.N, klass, nk, left)
        if got is None:
            per = None
            break
        per.append(got)
        left -= len(got[0])
        if left < 0:
            per = None
            break
    if per is not None:
        pairs, logw = [], []
        for S, (tables, logp) in zip(prep.comps, per):
            lw = np.log(prep.mix[S])
            for table, lp in zip(tables, logp):
                cand = g.clone()
                _deal_component(cand, v, cls, S, rng, table)
                _recount(cand)
                if _consistent(cand, v, decider, want):
                    pairs.append((S, table))
                    logw.append(lw + lp)
        if not pairs:  # cannot happen: the true deal is consistent
            raise AssertionError("no consistent deal")
        w = np.exp(np.array(logw) - max(logw))
        out = (pairs, w / w.sum())
    if len(prep.tables) > 64:
        prep.tables.clear()
    prep.tables[key] = out
    return out


# ------------------------------------------------------------ tag structure
def _pool_deal(g, v, cls, rng):
    """A uniform deal of one card class by v's tags: the cards of each pool permuted
    among that pool's slots (decks are slots too, so their order is new as well)."""
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


def redeal(g, v, rng):
    """Re-deal, in place, everything hidden from v by v's tags (both card classes)."""
    _pool_deal(g, v, "a", rng)
    _pool_deal(g, v, "m", rng)
    _recount(g)


def tag_resample(g, viewer, rng, tries=REJECTION_TRIES, budget=ENUMERATION_BUDGET):
    """The sampler by ``viewer``'s tag structure (module docstring): uniform among the
    pool deals consistent with the pending decision; exact while the tags are."""
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



class _Structure:
    """(Tag structure) one card class's hidden slots grouped as pools x locations, with class counts."""

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
            for n in B.compositions(len(self.pools[p]["locs"][q]), caps):
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
