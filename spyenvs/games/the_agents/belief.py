"""A viewer's exact knowledge of the hidden cards of The Agents (rules file 6, 6.1, C49,
C50), folded lazily from the card-event log that ``rules`` keeps (``CardLog``).

**Target distribution.** Every hidden card id is equally likely to be the one an event
exposes or moves: chance is uniform (shuffles, draws, the Strategist's random pick);
another player's hidden pick (an Interrogator taking a card, a Tracker picking from the
deck) is uniform over the cards it picks from; a public exit of type t from hand q has
likelihood proportional to the number of t copies in q's hand (each copy equally likely
to be the one that left); a Moral High Ground reveal of k cards of type t has likelihood
proportional to C(number of t in the hand, k). Other players' choices carry no other
evidence (C50). Under this model the rules' fast path (6.1: one pool, shuffled) is exact,
and the belief below is the exact posterior for it.

**Representation.** Per viewer v and card class (agents, missions) a *mixture*: a dict
{structure: weight}, weights summing to 1. A *structure* describes v's knowledge of the
cards hidden from v (other players' hands and the draw deck) as

* ``known``: per seat q, counts by type of cards v knows to be in q's hand (all zero for
  v itself: v's own hand is not hidden). It contains the pins K_v(q) and may know more
  (a formerly pinned card that may still be there, in some components);
* ``pools``: a sorted tuple of (slots, types): ``slots[q]`` hand slots of seat q,
  ``slots[N]`` deck slots, and ``types`` the counts by type of the pool's cards.

Under one structure the posterior is uniform over the deals of each pool's cards into its
slots (pools are independent). Pools are anonymous (events name seats and types, never
pools), so equal structures reached by different paths merge, adding their weights. The
deck always lies inside one pool: cards enter it only by a reshuffle into an empty deck
(a new pool with the public retired pile's content) and v's own Tracker search turns it
into a pool of its own.

**Events** (``_apply``) update every component exactly: draws move a deck slot (v's own
draw also weighs by the drawn type's share of the deck pool), public entries add known
cards, public exits and hidden transfers split over where the card came from, views and
reveals split over how the seen cards divide among the pools, each split weighted by the
likelihood above. Zero-weight components are dropped.

Folds are cached on the log (per viewer and class, by log length), so ISMCTS re-sampling
one root pays the fold once and a game's later states extend an earlier fold.
"""

from __future__ import annotations

from math import comb

from . import data as D
from . import rules as R

KNOWN = R.KNOWN
WIDTH = {R.CLS_A: D.NUM_AGENT_TYPES, R.CLS_M: 10}
#: cached folds kept per (viewer, class) on one log
FOLDS_KEPT = 4
#: a mixture past this many components is given up (the caller falls back to the tag
#: structure, sound but not exact). Measured over the conformance suite's sampled states
#: of 120 random games: 99% of folds stay under 60 components; the largest were 6,260
#: (5 players, 4 of 15,600 viewer-class folds above 3,000; 0.96 s to fold from the
#: start) and 1,780 (4 players, 60 games). The cap leaves 8x room above that.
MAX_COMPONENTS = 50_000


class Mismatch(Exception):
    """The log does not describe this state (its base was not exact, or the state was
    edited without restarting the log): the caller falls back to the tag structure."""


class TooLarge(Exception):
    """The mixture outgrew ``MAX_COMPONENTS``."""


# ---------------------------------------------------------------------- helpers
def compositions(total, caps):
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


def _falling(n, k):
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _canon(known, pools):
    """A hashable structure; pools without slots (hence without cards) are dropped."""
    ps = []
    for slots, types in pools:
        if any(slots):
            ps.append((tuple(slots), tuple(types)))
        elif any(types):
            raise Mismatch("a pool has cards but no slots")
    ps.sort()
    return (tuple(tuple(k) for k in known), tuple(ps))


def _replace_pool(S, i, slots, types, known=None):
    kn, pools = S
    ps = list(pools)
    if any(slots):
        ps[i] = (tuple(slots), tuple(types))
    else:
        if any(types):
            raise Mismatch("a pool has cards but no slots")
        del ps[i]
    ps.sort()
    return (kn if known is None else known, tuple(ps))


def _set_known(kn, q, t, delta):
    row = list(kn[q])
    row[t] += delta
    out = list(kn)
    out[q] = tuple(row)
    return tuple(out)


def _deck_pool(pools, N):
    idx = [i for i, (s, _t) in enumerate(pools) if s[N]]
    if len(idx) != 1:
        raise Mismatch("the deck is not one pool")
    return idx[0]


def hand_size(S, q):
    kn, pools = S
    return sum(kn[q]) + sum(s[q] for s, _t in pools)


# ------------------------------------------------------------------------ base
def base_structure(base, v, N, width):
    """The structure of v's knowledge tags at the log's base (exact there by contract)."""
    hands, deck, tags = base
    tv = tags[v]
    known = [[0] * width for _ in range(N)]
    pools = {}
    for q in range(N):
        if q == v:
            continue
        for c in hands[q]:
            if tv[c] == KNOWN:
                known[q][c >> 1] += 1
            else:
                p = pools.setdefault(tv[c], ([0] * (N + 1), [0] * width))
                p[0][q] += 1
                p[1][c >> 1] += 1
    for c in deck:
        if tv[c] == KNOWN:
            raise Mismatch("a deck card is tagged known")
        p = pools.setdefault(tv[c], ([0] * (N + 1), [0] * width))
        p[0][N] += 1
        p[1][c >> 1] += 1
    S = _canon(known, pools.values())
    if sum(1 for s, _t in S[1] if s[N]) > 1:
        raise Mismatch("the base deck is not one pool")
    return S


# ---------------------------------------------------------------------- events
def _apply(S, rec, v, cls, N):
    """[(structure, likelihood factor)] after one log record, as v sees it."""
    kind = rec[0]
    kn, pools = S
    if kind == R.EV_DRAW or kind == R.EV_PICK:
        if kind == R.EV_DRAW:
            q, c = rec[2], rec[3]
        else:
            q, c = rec[1], rec[2]
        i = _deck_pool(pools, N)
        slots, types = list(pools[i][0]), list(pools[i][1])
        slots[N] -= 1
        if q == v:
            t = c >> 1
            n = types[t]
            if not n:
                return []
            # chance: the drawn type's share of the deck pool; v's own Tracker pick is
            # a choice from a deck v has seen whole (the same factor in every component)
            factor = n / sum(types) if kind == R.EV_DRAW else 1.0
            types[t] -= 1
            return [(_replace_pool(S, i, slots, types), factor)]
        slots[q] += 1
        return [(_replace_pool(S, i, slots, types), 1.0)]
    if kind == R.EV_RESHUFFLE:
        if any(s[N] for s, _t in pools):
            raise Mismatch("reshuffle into a non-empty deck")
        counts = rec[2]
        slots = [0] * (N + 1)
        slots[N] = sum(counts)
        ps = sorted(pools + ((tuple(slots), tuple(counts)),))
        return [((kn, tuple(ps)), 1.0)]
    if kind == R.EV_ENTER:
        q, t = rec[2], rec[3]
        if q == v:
            return [(S, 1.0)]
        return [((_set_known(kn, q, t, 1), pools), 1.0)]
    if kind == R.EV_EXIT:
        q, t = rec[2], rec[3]
        if q == v:
            return [(S, 1.0)]
        out = []
        j = kn[q][t]
        if j:  # a copy v knew left: each copy equally likely
            out.append(((_set_known(kn, q, t, -1), pools), float(j)))
        for i, (s, ty) in enumerate(pools):
            if s[q] and ty[t]:
                slots, types = list(s), list(ty)
                slots[q] -= 1
                types[t] -= 1
                # expected number of t copies among q's slots of this pool
                out.append((_replace_pool(S, i, slots, types), s[q] * ty[t] / sum(ty)))
        return out
    if kind == R.EV_TRANSFER:
        E, T, c = rec[2], rec[3], rec[4]
        size = hand_size(S, T)  # T's hand before the move
        if v == T:
            return [((_set_known(kn, E, c >> 1, 1), pools), 1.0)]
        out = []
        if v == E:  # v sees the type: it leaves T's hidden hand for v's own
            t = c >> 1
            j = kn[T][t]
            if j:
                out.append(((_set_known(kn, T, t, -1), pools), j / size))
            for i, (s, ty) in enumerate(pools):
                if s[T] and ty[t]:
                    slots, types = list(s), list(ty)
                    slots[T] -= 1
                    types[t] -= 1
                    out.append((_replace_pool(S, i, slots, types), s[T] / size * ty[t] / sum(ty)))
            return out
        # a transfer v does not see: the moved card is a uniform card of T's hand
        for t in range(len(kn[T])):
            j = kn[T][t]
            if j:
                out.append(((_set_known(_set_known(kn, T, t, -1), E, t, 1), pools), j / size))
        for i, (s, ty) in enumerate(pools):
            if s[T]:
                slots = list(s)
                slots[T] -= 1
                slots[E] += 1
                out.append((_replace_pool(S, i, slots, ty), s[T] / size))
        return out
    if kind == R.EV_REVEAL:
        q, t, k = rec[1], rec[2], rec[3]
        if q == v:
            return [(S, 1.0)]
        j = kn[q][t]
        src = [i for i, (s, ty) in enumerate(pools) if s[q] and ty[t]]
        caps = [j] + [min(pools[i][0][q], pools[i][1][t]) for i in src]
        out = []
        for split in compositions(k, caps):
            w = float(comb(j, split[0]))
            ps = list(pools)
            gained = 0
            for i, x in zip(src, split[1:]):
                if not x:
                    continue
                s, ty = ps[i]
                w *= comb(s[q], x) * _falling(ty[t], x) / _falling(sum(ty), x)
                slots, types = list(s), list(ty)
                slots[q] -= x
                types[t] -= x
                ps[i] = (tuple(slots), tuple(types))
                gained += x
            out.append((_canon(_set_known(kn, q, t, gained), ps), w))
        return out
    if kind == R.EV_SEARCH:
        E, counts = rec[1], rec[2]
        if E != v:
            return [(S, 1.0)]
        i = _deck_pool(pools, N)
        s, ty = pools[i]
        d = s[N]
        if d != sum(counts):
            raise Mismatch("searched deck size")
        w = 1.0
        types = list(ty)
        for t, x in enumerate(counts):
            if x:
                if ty[t] < x:
                    return []
                w *= comb(ty[t], x)
                types[t] -= x
        w /= comb(sum(ty), d)
        slots = list(s)
        slots[N] = 0
        deck = [0] * (N + 1)
        deck[N] = d
        ps = [p for k, p in enumerate(pools) if k != i] + [(slots, types), (deck, counts)]
        return [(_canon(kn, ps), w)]
    if kind == R.EV_VIEW:
        E, T, counts = rec[1], rec[2], rec[3]
        if E != v:
            return [(S, 1.0)]
        rest = [x - y for x, y in zip(counts, kn[T])]
        if min(rest) < 0:
            return []
        src = [i for i, (s, _ty) in enumerate(pools) if s[T]]
        out = []
        ps0 = list(pools)

        def rec_split(k, left, ps, w):
            if k == len(src):
                if not any(left):
                    known = list(kn)
                    known[T] = tuple(counts)
                    out.append((_canon(known, ps), w))
                return
            i = src[k]
            s, ty = ps0[i]
            a = s[T]
            types_at = [t for t in range(len(left)) if left[t] and ty[t]]
            for r in compositions(a, [min(left[t], ty[t]) for t in types_at]):
                f = 1.0
                types = list(ty)
                nl = list(left)
                for t, x in zip(types_at, r):
                    if x:
                        f *= comb(ty[t], x)
                        types[t] -= x
                        nl[t] -= x
                f /= comb(sum(ty), a)
                slots = list(s)
                slots[T] = 0
                ps2 = list(ps)
                ps2[i] = (slots, types)
                rec_split(k + 1, nl, ps2, w * f)

        rec_split(0, rest, ps0, 1.0)
        return out
    raise AssertionError(f"unknown card event {rec!r}")


def _relevant(rec, cls):
    kind = rec[0]
    if kind in (R.EV_REVEAL, R.EV_SEARCH, R.EV_PICK, R.EV_VIEW):
        return cls == R.CLS_A
    return rec[1] == cls


def fold(mix, records, v, cls, N):
    """The mixture after ``records`` (a dict {structure: weight}, weights summing to 1)."""
    for rec in records:
        if not _relevant(rec, cls):
            continue
        out = {}
        for S, w in mix.items():
            for S2, f in _apply(S, rec, v, cls, N):
                if f > 0.0:
                    out[S2] = out.get(S2, 0.0) + w * f
        total = sum(out.values())
        if not total > 0.0:
            raise Mismatch(f"no history explains {rec!r}")
        if len(out) > MAX_COMPONENTS:
            raise TooLarge(len(out))
        mix = {S: w / total for S, w in out.items()}
    return mix


def belief(g, v, cls):
    """v's mixture for one card class of state g (a dict {structure: weight}), or None
    when the log does not describe g for v (no log, or g is a resample for another
    viewer: its other viewers' logs hold a different truth), or the mixture grew past
    ``MAX_COMPONENTS`` (remembered on the log, so later states do not fold again)."""
    lg = getattr(g, "clog", None)
    if lg is None or g.clog_for not in (None, v):
        return None
    n = g.clog_n
    key = (v, cls)
    entries = lg.folds.get(key, [])
    best = None
    for e in entries:
        if e[0] <= n and (best is None or e[0] > best[0]):
            best = e
    if best is not None and best[1] is None:
        return None  # given up at or before this point of the log
    try:
        if best is None:
            start, mix = 0, {base_structure(lg.base[cls], v, g.N, WIDTH[cls]): 1.0}
        else:
            start, mix = best
        if start < n or best is None:
            mix = fold(mix, lg.records[start:n], v, cls, g.N)
            entries = [e for e in entries if e[0] != n][-(FOLDS_KEPT - 1):] + [(n, mix)]
            lg.folds[key] = entries
    except Mismatch:
        return None
    except TooLarge:
        lg.folds[key] = entries[-(FOLDS_KEPT - 1):] + [(n, None)]
        return None
    return mix
