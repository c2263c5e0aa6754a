"""Spy Games ``resample_hidden`` against exact enumeration (rules/spy_games.md §9.5): on a
small explicit state whose hidden cards are few, the distribution of re-dealt hidden
states equals the uniform distribution over every consistent assignment of the hidden
physical cards (pins kept, known-Scout plans Scouts), within a chi-square bound; it
never hands back the truth more often than chance, and other players' pins are
re-drawn, not copied."""

from collections import Counter
from itertools import permutations

import numpy as np

from spyenvs.games.spy_games import data as D

from .helpers import CIRCLE, CODE, DEMO, INTER, LIQ, PROV, SAFE, SQUARE, TRIANGLE, K, arrange, game

A = K(SAFE, CIRCLE, 1)  # a Scout kind with two copies
B = K(DEMO, SQUARE, 3)
C = K(CODE, TRIANGLE, 2)  # Scout
E = K(LIQ, CIRCLE, 2)
F = K(INTER, SQUARE, 3)  # Scout
HIDDEN = [A, A, B, C, E, F]  # the physical cards viewer 0 cannot locate
SAMPLES = 6000


def chi2_bound(dof: int, z: float = 3.72) -> float:
    """The chi-square quantile at normal score z (3.72: p = 1e-4), by Wilson-Hilferty
    (accurate to well under 1% at these degrees of freedom; no scipy needed)."""
    c = 2.0 / (9.0 * dof)
    return dof * (1.0 - c + z * c ** 0.5) ** 3


def small_state():
    """3 players, viewer 0. Hidden from 0: player 1's hand of 2 (0 paid it the E, so
    it is pinned), player 1's known-Scout spy (plan A), player 2's hand of 1 and spy
    (plan B), and a 1-card deck. Player 2 remembers an A in player 1's hand. Every
    other card lies face up in the discard."""
    g = game(n=3)
    arrange(g, hands={0: [K(PROV)], 1: [E, A], 2: [C]}, spies=[(1, 0, 0, 0, 1, A), (2, 0, 0, 1, 1, B)],
            deck_top=[F])
    h = g.h
    for k in h.deck[:-1]:
        g.disc_up[k] += 1
    h.deck = [F]
    g.spy_ks[1][0] = True
    h.pins[0][1] = {E: 1}
    h.pins[2][1] = {A: 1}
    g._resync()
    g.check_invariants()
    return g


def key(g):
    """Everything hidden from viewer 0 (hands as multisets)."""
    h = g.h
    hand = lambda p: tuple(sorted(k for k in range(D.NUM_KINDS) for _ in range(h.hands[p][k])))  # noqa: E731
    return (hand(1), h.plans[1][0], hand(2), h.plans[2][0], tuple(h.deck), tuple(sorted(h.pins[2][1].items())))


def exact_distribution():
    """Uniform over the assignments of the 6 physical hidden cards to the slots
    (hand 1: 2 cards, plan 1, hand 2: 1 card, plan 2, deck) with the E in hand 1 and a
    Scout under player 1's spy. Player 2's pin is one card of hand 1 other than 0's E."""
    counts = Counter()
    for perm in permutations(range(len(HIDDEN))):
        cards = [HIDDEN[i] for i in perm]
        h1, plan1, h2, plan2, deck = cards[0:2], cards[2], cards[3:4], cards[4], cards[5:]
        if E not in h1 or not D.KIND_SCOUT[plan1]:
            continue
        rest = list(h1)
        rest.remove(E)
        counts[(tuple(sorted(h1)), plan1, tuple(h2), plan2, tuple(deck), ((rest[0], 1),))] += 1
    total = sum(counts.values())
    return {k: c / total for k, c in counts.items()}


def test_s9_5_resample_matches_exact_enumeration_of_consistent_deals():
    g = small_state()
    exact = exact_distribution()
    assert len(exact) > 20  # a real spread of outcomes, so the check cannot pass vacuously
    rng = np.random.default_rng(2024)
    seen = Counter()
    for _ in range(SAMPLES):
        r = g.resample_hidden(0, rng)
        seen[key(r)] += 1
    assert set(seen) <= set(exact), f"inconsistent deals: {set(seen) - set(exact)}"
    stat = sum((seen[k] - SAMPLES * p) ** 2 / (SAMPLES * p) for k, p in exact.items())
    dof = len(exact) - 1
    assert stat < chi2_bound(dof), (stat, dof)
    tv = 0.5 * sum(abs(seen[k] / SAMPLES - p) for k, p in exact.items())
    assert tv < 0.08, tv
    # the true deal comes back at its exact rate, no more
    truth = key(g)
    assert seen[truth] / SAMPLES < exact[truth] + 4 * np.sqrt(exact[truth] / SAMPLES)


def test_s9_5_chi_square_check_rejects_a_resample_biased_towards_the_truth():
    """The same statistic on a sampler that returns the real state 30% of the time
    (the failure mode of a rejection fallback) fails the bound."""
    g = small_state()
    exact = exact_distribution()
    rng = np.random.default_rng(7)
    seen = Counter()
    for _ in range(SAMPLES):
        seen[key(g) if rng.random() < 0.3 else key(g.resample_hidden(0, rng))] += 1
    stat = sum((seen[k] - SAMPLES * p) ** 2 / (SAMPLES * p) for k, p in exact.items())
    assert stat > chi2_bound(len(exact) - 1)


def test_s9_5_other_players_pins_are_redrawn_from_the_new_hand_not_copied():
    g = small_state()
    rng = np.random.default_rng(3)
    pins = Counter()
    for _ in range(300):
        r = g.resample_hidden(0, rng)
        row = r.h.pins[2][1]
        assert sum(row.values()) == 1 and all(r.h.hands[1][k] >= c for k, c in row.items())
        pins[next(iter(row))] += 1
    assert len(pins) >= 3  # not always the real A
