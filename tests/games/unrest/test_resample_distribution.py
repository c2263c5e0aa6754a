"""§5.4 / C21: ``resample_hidden(empire)`` is uniform over the deals consistent with
R1-R5, checked against exact enumeration on small explicit Final Encounter states
(no hand, no deck: the hidden cards are exactly the face-down handles). The consistent
deals are enumerated here from the rules text, independently of resample.py, and the
sampled deals must match them in a chi-square test at fixed seeds. One state is so
constrained that under 1 deal in 300 drawn uniformly meets R3-R5: that is where a
capped rejection loop with a search fallback (the old sampler) was biased; it fails
this test with ``SPYENVS_RESAMPLE_SCALE=4`` (four times the samples, for longer runs)."""

from __future__ import annotations

import math
import os
from collections import Counter

import numpy as np

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest.rules import EMPIRE, EMPIRE_1, EMPIRE_2, LIBERATE, LOC_DESTROYED, LOC_DISTRICT

from .helpers import DECOYS, C, I, R, S, new_game

DEC = DECOYS[0]
#: multiplies the sample counts (CI keeps 1: each test well under 3 s)
SCALE = int(os.environ.get("SPYENVS_RESAMPLE_SCALE", "1"))


def final_round(
    cards,
    *,
    face_down,
    where,
    lib=None,
    checks=(),
    missions=(2, 5, 10),
    phase=EMPIRE_1,
    final_all_hidden=False,
    **cfg,
):
    """A round-8 state after the Final Encounter play: handle h holds ``cards[h]``
    (all 24 cards), face down if h is in ``face_down``; ``where[h]`` is "pending",
    "destroyed" or a district id. ``lib`` maps liberated district ids to the mission
    slot they claimed; ``checks`` are past completed liberation checks as
    (row district ids, available mission slots), judged on the handles each district
    held in the round of the check (the C19 handle order: h // 3 + 1 is the round)."""
    assert sorted(cards) == list(range(24))
    g = new_game(3, **cfg)
    pub, hid = g.pub, g.hid
    lib = lib or {}
    pub.missions = (0, *sorted(missions))
    pub.row = [d for d in range(5) if d not in lib]
    pub.lib = list(lib)
    pub.lib_mission = [lib.get(d, -1) for d in range(5)]
    pub.lib_round = [7 if d in lib else 0 for d in range(5)]
    pub.mission_avail = [m not in lib.values() for m in range(4)]
    pub.dist = [[] for _ in range(5)]
    pub.destroyed = []
    pub.pending = [-1, -1, -1]
    for h, c in enumerate(cards):
        hid.hcard[h] = c
        pub.hup[h] = h not in face_down
        pub.htype[h] = -1 if h in face_down else D.CARD_TYPE[c]
        w = where[h]
        if w == "pending":
            pub.hloc[h] = h % 3
            pub.pending[h % 3] = h
        elif w == "destroyed":
            pub.hloc[h] = LOC_DESTROYED
            pub.destroyed.append(h)
        else:
            pub.hloc[h] = LOC_DISTRICT + w
            pub.dist[w].append(h)
    pub.check_log = [
        (
            tuple(tuple(h for h in pub.dist[d] if h // 3 + 1 <= rnd) for d in row),
            tuple(pub.missions[m] for m in slots),
        )
        for rnd, row, slots in checks
    ]
    pub.n_played = 24
    pub.round, pub.final, pub.phase = 8, True, phase
    pub.final_all_hidden = final_all_hidden
    pub.area = -1
    pub.tok_avail = [False, False, True, True]
    pub.tok_uses = [4, 4, 3, 3]
    hid.hand, hid.deck = [], []
    pub.hand_size = pub.deck_size = 0
    g.touch()
    return g


def _sat(m, cards, thr):
    sums, counts, vals = D.summarize(cards)
    return D.mission_satisfied(m, sums, counts, vals, thr)


def consistent_deals(g):
    """Every deal (a card type per face-down handle, Decoys alike) meeting R1-R5,
    enumerated with pruning, and the number of deals meeting R1-R2 (by counting)."""
    pub, thr = g.pub, g.threshold
    fd = [h for h in range(24) if not pub.hup[h]]
    left = Counter(D.CARD_TYPE[g.hid.hcard[h]] for h in fd)
    card = [D.CARD_TYPE[c] if pub.hup[h] else None for h, c in enumerate(g.hid.hcard)]
    avail = [pub.missions[m] for m in range(4) if pub.mission_avail[m]]
    rules = []  # (handles, holds(cards of those handles))
    for hs_row, ms in pub.check_log:  # R3
        rules += [(hs, lambda cs, ms=ms: not any(_sat(m, cs, thr) for m in ms)) for hs in hs_row]
    if pub.phase == LIBERATE:  # R4
        groups = [pub.dist[d] for d in pub.row]
        rules.append(
            (
                [h for hs in groups for h in hs],
                lambda _, gs=groups: any(_sat(m, [card[h] for h in hs], thr) for hs in gs for m in avail),
            )
        )
    if not g.config["reveal_all_on_liberation"]:  # R5
        rules += [(pub.dist[d], lambda cs, m=pub.missions[pub.lib_mission[d]]: _sat(m, cs, thr)) for d in pub.lib]
    forced = {21, 22, 23} if pub.final_all_hidden else set()  # R2

    def may_hold(h, t):
        if h in forced:
            return t == D.DECOY_TYPE
        return not (t == D.DECOY_TYPE and pub.hloc[h] == LOC_DESTROYED)  # R1

    out = []

    def deal(k):
        if k == len(fd):
            out.append(tuple(card[h] for h in fd))
            return
        h = fd[k]
        for t in sorted(left):
            if left[t] and may_hold(h, t):
                left[t] -= 1
                card[h] = t
                complete = [(hs, holds) for hs, holds in rules if h in hs and None not in [card[x] for x in hs]]
                if all(holds([card[x] for x in hs]) for hs, holds in complete):
                    deal(k + 1)
                card[h] = None
                left[t] += 1

    deal(0)
    decoy_places = sum(1 for h in fd if h not in forced and pub.hloc[h] != LOC_DESTROYED)
    n_decoys = left[D.DECOY_TYPE] - len(forced)
    r12 = math.comb(decoy_places, n_decoys) * math.factorial(len(fd) - left[D.DECOY_TYPE])
    return out, r12


def chi2_critical(df: int, z: float = 3.09) -> float:
    """The chi-square quantile at p = 0.001 (Wilson-Hilferty), to avoid needing scipy."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def check_uniform_over_consistent(g, samples: int, seed: int, max_share: float):
    deals, r12 = consistent_deals(g)
    assert 4 <= len(deals) < r12, "the state must constrain the deal, not fix it"
    assert len(deals) / r12 <= max_share, f"{len(deals)} of {r12} deals consistent"
    truth = tuple(D.CARD_TYPE[g.hid.hcard[h]] for h in range(24) if not g.pub.hup[h])
    assert truth in deals
    samples *= SCALE
    rng = np.random.default_rng(seed)
    seen = Counter()
    obs = g.observe(EMPIRE)
    for _ in range(samples):
        s = g.resample_hidden(EMPIRE, rng)
        seen[tuple(D.CARD_TYPE[s.hid.hcard[h]] for h in range(24) if not g.pub.hup[h])] += 1
    assert np.array_equal(s.observe(EMPIRE), obs)
    assert set(seen) <= set(deals), f"inconsistent deals sampled: {set(seen) - set(deals)}"
    expected = samples / len(deals)
    chi2 = sum((seen[d] - expected) ** 2 / expected for d in deals)
    assert chi2 < chi2_critical(len(deals) - 1), (
        f"resampled deals are not uniform over the {len(deals)} consistent ones: chi2 {chi2:.1f}; "
        f"truth drawn {seen[truth]} times, expected {expected:.1f}"
    )
    # each face-down handle's type on its own: far fewer categories, so far more power
    for i, h in enumerate(h for h in range(24) if not g.pub.hup[h]):
        exact = Counter(d[i] for d in deals)
        got = Counter(d[i] for d in seen.elements())
        if len(exact) < 2:
            assert set(got) == set(exact), f"handle {h} must be {set(exact)}"
            continue
        chi2 = sum((got[t] - samples * n / len(deals)) ** 2 / (samples * n / len(deals)) for t, n in exact.items())
        assert chi2 < chi2_critical(len(exact) - 1), (
            f"handle {h}: sampled types {dict(got)} against exact shares {dict(exact)} of {len(deals)}"
        )
    return len(deals), r12


def state(hidden, face_up, places, **kw):
    """A ``final_round`` with these face-down and face-up cards by handle (the other
    cards face up, the remaining handles destroyed, 21-23 pending); ``places`` maps
    handles to district ids."""
    cards = [None] * 24
    for h, c in {**hidden, **face_up}.items():
        cards[h] = c
    used = set(hidden.values()) | set(face_up.values())
    rest = iter(c for c in range(24) if c not in used)
    cards = [c if c is not None else next(rest) for c in cards]
    where = {h: places.get(h, "pending" if h >= 21 else "destroyed") for h in range(24)}
    return final_round(cards, face_down=set(hidden), where=where, **kw)


def test_c21_resample_is_uniform_over_consistent_deals_r1_r3():
    """Face down: h1 destroyed (a suit card, R1), h19-h20 in Capitol (id 2) beside a
    face-up Riots 2, h22-h23 pending. Capitol met no mission at the round-7 check (R3):
    no Riots 6 there (Street Riots), nor Intel 5 with it (Espionage)."""
    g = state(
        {1: I(5), 19: C(2), 20: DEC, 22: R(6), 23: S(3)},
        {18: R(2)},
        {18: 2, 19: 2, 20: 2},
        missions=(2, 5, 10),
        checks=[(7, [0, 1, 2, 3, 4], [0, 1, 2, 3])],
    )
    check_uniform_over_consistent(g, samples=1500, seed=0, max_share=0.9)


def test_c21_resample_is_uniform_where_few_deals_meet_r3_r5():
    """With ``reveal_all_on_liberation`` off (R5): Police HQ (id 3) was liberated by
    Revolution with a face-up Decoy and four face-down cards (so they sum to 21: 6, 6, 5
    and 4) and Peace (id 1) by Media Support with a face-up Coup 3 and one face-down card
    (an Intel above 3, which leaves it Intel 4). The other four cards lie free: two in
    Plenty, one pending, one destroyed (a suit card, R1). About 1 deal in 980 meeting
    R1-R2 meets R5, and the free places get a Decoy 2 times in 3, not 1 in 2 as a search
    that offers "a Decoy" as one candidate among the suit cards would give."""
    g = state(
        {10: I(6), 11: R(6), 12: C(5), 13: S(4), 15: I(4), 17: R(2), 19: DEC, 20: DECOYS[1], 22: S(2)},
        {9: DECOYS[2], 14: C(3), 18: S(6)},
        {9: 3, 10: 3, 11: 3, 12: 3, 13: 3, 14: 1, 15: 1, 18: 0, 19: 0, 20: 0},
        lib={3: 0, 1: 1},
        missions=(1, 8, 10),
        phase=EMPIRE_2,
        reveal_all_on_liberation=False,
    )
    check_uniform_over_consistent(g, samples=300, seed=1, max_share=1 / 300)
