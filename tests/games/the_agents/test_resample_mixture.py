"""Rules tests for 6.1 / C50 resampling where the viewer's pool tags stop being exact
(issue 14, part 1): a hidden hand-to-hand transfer between two other players from a
pinned hand, a public play from a hand that mixes pools (after a reshuffle, 4.7 / C16,
after the viewer's own Tracker search or Interrogator view), and a Moral High Ground
reveal (8.10) by a hand holding a pinned copy. The sampler (a mixture of pool structures
folded from the card-event log, ``belief`` / ``resample``) is checked against a brute-force
enumeration of every start deal and every history (each chance outcome, each hidden pick,
each copy a public play or reveal may have been) that agrees with everything the viewer
saw, weighted by the model in ``belief``'s docstring."""

from itertools import permutations, product
from math import comb, factorial

import numpy as np
import pytest

from spyenvs.games.the_agents import belief as B
from spyenvs.games.the_agents import data as D
from spyenvs.games.the_agents import resample as RS
from spyenvs.games.the_agents import rules as R
from spyenvs.games.the_agents.game import TheAgentsGame

from .helpers import STEP, agent, arrange, count, fslot, gap, ori, restart_log, seat

M, AS, AB, EX, HA, TE, DE, AC, ME, IN, JA = D.FACTION_TYPES
GU, RE, ST, MC, TR, UN, IT = D.FREE_TYPES

#: chi-square critical values at significance 0.001, by degrees of freedom
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 7: 24.32, 8: 26.12, 9: 27.88,
            10: 29.59, 11: 31.26, 12: 32.91, 13: 34.53, 14: 36.12, 15: 37.70, 16: 39.25, 17: 40.79,
            18: 42.31, 19: 43.82, 20: 45.31, 21: 46.80, 22: 48.27, 23: 49.73, 24: 51.18, 25: 52.62}
TV_BOUND = 0.07
SAMPLES = 1500
VIEWER = 0


def _zones(g, cls):
    return (g.hand_a, g.deck_a, g.tag_a) if cls == "a" else (g.hand_m, g.deck_m, g.tag_m)


def key(g, v, cls="a"):
    """What v cannot see of one card class, by type: other hands and the deck order."""
    hands, deck, _tags = _zones(g, cls)
    return (tuple(tuple(sorted(c >> 1 for c in hands[q])) for q in range(g.N) if q != v),
            tuple(c >> 1 for c in deck))


def _pin(g, q, t, viewers, cls="a"):
    """Pin one of q's cards of type t for ``viewers`` (as a public entry would, C49 rule
    1) and make the result the log's base."""
    hands, _deck, tags = _zones(g, cls)
    x = next(c for c in hands[q] if c >> 1 == t)
    for v in viewers:
        tags[v][x] = R.KNOWN
    g.cv = g.mv = next(R.VERSIONS)
    restart_log(g)


# ------------------------------------------------------------------ scenarios
def transfer_between_others(then_play=False):
    """N=3. P1 holds a Marksman pinned for everyone and one hidden card; P2 holds an
    Interrogator and one hidden card; one card in the deck. P2 plays the Interrogator
    (P2 executes) on P1 and takes a card P0 does not see. With ``then_play``, P2 then
    publicly plays a Marksman, which the taken card or P2's own hidden card may be."""
    start = arrange(3, hands={1: [M, AS], 2: [IT, HA]}, deck_a=[M], dump=0, ip=[5, 5, 5], active=2)
    _pin(start, 1, M, (0, 2))
    moves = [STEP["PLAY_FREE_AGENT"], agent(IT), seat(1), ori(0),  # toward P0: P2 executes
             seat(2),  # target P1
             agent(M)]  # the hidden pick: P1's pinned Marksman
    if then_play:
        moves += [STEP["PLAY_FACTION_AGENT"], agent(M)]
    return start, moves


def transfer_then_faction_choice():
    """N=3. As ``transfer_between_others``, but the hidden cards are Gunner, Recruiter and
    the other Marksman, and P2 then chooses PLAY_FACTION_AGENT: the pending card choice
    tells P0 that P2 holds a faction agent (the taken card or its own hidden one)."""
    start = arrange(3, hands={1: [M, GU], 2: [IT, RE]}, deck_a=[M], dump=0, ip=[5, 5, 5], active=2)
    _pin(start, 1, M, (0, 2))
    moves = [STEP["PLAY_FREE_AGENT"], agent(IT), seat(1), ori(0), seat(2), agent(M),
             STEP["PLAY_FACTION_AGENT"]]
    return start, moves


def reshuffle_then_public_play():
    """N=3. P1 holds a Recruiter and a Gunner, P2 an Assassin, the deck one Hacker (all
    hidden from P0); the retired pile holds Gunner, Undercover, Strategist. P1's Recruiter
    draws the Hacker (the deck empties and the retired pile is reshuffled, 4.7) and one
    card of the new deck, so P1's hand mixes the old pool and the reshuffled one; then P1
    publicly plays a Gunner, which either pool may have held."""
    start = arrange(3, fac={0: [(M, 0)]}, hands={1: [RE, GU], 2: [AS]}, deck_a=[HA],
                    ret_a=[GU, UN, ST], dump=0, ip=[0, 0, 0], active=1)
    moves = [STEP["PLAY_FREE_AGENT"], agent(RE), seat(1), ori(0),  # P1 executes: draws two
             STEP["PLAY_FREE_AGENT"], agent(GU)]
    return start, moves


def own_tracker_then_public_play():
    """N=3. P0 plays a Tracker, sees the deck (Gunner, Recruiter, Strategist) and takes
    the Strategist; P1 buys the deck's top card and publicly plays a Gunner, which its old
    card (one of the old pool's Gunner / Undercover) or the drawn one may be."""
    start = arrange(3, hands={0: [TR], 1: [GU], 2: [UN]}, deck_a=[GU, RE, ST], dump=0,
                    ip=[0, 5, 0], active=0)
    moves = [STEP["PLAY_FREE_AGENT"], agent(TR), seat(1), ori(0), agent(ST),  # P0 executes
             STEP["PLAY_FACTION_AGENT"], agent(M), fslot(0), ori(0), gap(0), R.A_DONE,
             STEP["BUY_AGENT_DECK"], STEP["PLAY_FREE_AGENT"], agent(GU)]
    return start, moves


def own_interrogator_then_public_play():
    """N=2. P0's Interrogator looks at P1's hand (Gunner, Undercover) and takes the
    Undercover; P1 buys the deck's top card and publicly plays a Gunner: the one P0 saw
    (pinned copies are taken to leave first, C49 rule 2) or the drawn one."""
    start = arrange(2, hands={0: [IT], 1: [GU, UN]}, deck_a=[GU, RE, ST], dump=0, ip=[0, 5])
    moves = [STEP["PLAY_FREE_AGENT"], agent(IT), seat(1), ori(0), seat(1), agent(UN),
             STEP["PLAY_FACTION_AGENT"], agent(M), fslot(0), ori(0), gap(0), R.A_DONE,
             STEP["BUY_AGENT_DECK"], STEP["PLAY_FREE_AGENT"], agent(GU)]
    return start, moves


def moral_high_ground_reveal():
    """N=2. P1 owns an attached Moral High Ground and holds a Marksman pinned for P0 and
    two hidden cards (the other Marksman, a Hacker and a Recruiter are hidden from P0). At its scoring P1 reveals one Marksman (8.10): the pins stay at one
    (C49 rule 3), but a hand holding both Marksmen is twice as likely to show one."""
    start = arrange(2, fac={0: [(AS, 0)]}, att={(0, 1): [D.MORAL_HIGH_GROUND]},
                    hands={1: [M, M, HA]}, deck_a=[RE], dump=0, ip=[0, 0],
                    active=1, phase="end")
    _pin(start, 1, M, (0,))
    moves = [R.A_DONE, count(1)] + [count(0)] * (len(D.MHG_ELIGIBLE) - 1)
    return start, moves


BB, CF, MD, SU = D.BLOODBATH, D.CHOSEN_FEW, D.MAN_DOWN, D.STAND_UNITED


def strategist_between_others_then_attach():
    """N=3, missions. P1 holds a Bloodbath pinned for everyone and one hidden mission; P2
    holds one hidden mission. P2's Strategist steals a random mission of P1's hand (P0
    does not see which), then P2 publicly attaches a Bloodbath: the stolen one, or its
    own hidden mission (the other Bloodbath is hidden from P0 too)."""
    start = arrange(3, fac={2: [(AS, 2)]}, hands={2: [ST]}, missions={1: [BB, CF], 2: [MD]},
                    deck_m=[BB, SU], dump=0, ip=[5, 5, 5], active=2)
    _pin(start, 1, BB, (0, 2), cls="m")
    start.rng = _FixedPick(0)  # the true steal takes P1's first mission: the pinned Bloodbath
    moves = [STEP["PLAY_FREE_AGENT"], agent(ST), seat(2), ori(0),  # P2 executes, P1 target
             R.A_RANDOM, STEP["ATTACH"], R.A_MISSION + BB]
    return start, moves


def own_strategist_steal():
    """N=2, missions. P1 holds a Bloodbath pinned for P0 and one hidden mission; P0's
    Strategist steals a random one and P0 sees a Bloodbath: the pinned one, or the hidden
    one if it was the other Bloodbath (then the pinned one is still in P1's hand)."""
    start = arrange(2, hands={0: [ST]}, missions={1: [BB, CF]}, deck_m=[BB, SU], dump=0,
                    ip=[5, 5])
    _pin(start, 1, BB, (0,), cls="m")
    start.rng = _FixedPick(0)  # the steal draws P1's first mission: the pinned Bloodbath
    moves = [STEP["PLAY_FREE_AGENT"], agent(ST), seat(1), ori(0), R.A_RANDOM]
    return start, moves


class _FixedPick:
    """A stand-in RNG for a scenario's true history: ``integers`` returns ``k``."""

    bit_generator = np.random.PCG64(0)

    def __init__(self, k):
        self.k = k

    def integers(self, n):
        return self.k


SCENARIOS = {
    "transfer": (transfer_between_others, {}),
    "transfer_then_public_play": (transfer_between_others, {"then_play": True}),
    "transfer_then_faction_choice": (transfer_then_faction_choice, {}),
    "reshuffle_then_public_play": (reshuffle_then_public_play, {}),
    "own_tracker_then_public_play": (own_tracker_then_public_play, {}),
    "own_interrogator_then_public_play": (own_interrogator_then_public_play, {}),
    "moral_high_ground_reveal": (moral_high_ground_reveal, {}),
    "strategist_between_others_then_attach": (strategist_between_others_then_attach, {}),
    "own_strategist_steal": (own_strategist_steal, {}),
}
#: the card class each scenario's statistic reads
CLASS = {"strategist_between_others_then_attach": "m", "own_strategist_steal": "m"}


def _true_clone(start):
    g = start.clone()
    if isinstance(start.rng, _FixedPick):
        g.rng = start.rng  # clone() copies a real generator only
    return g


def build(name):
    fn, kw = SCENARIOS[name]
    start, moves = fn(**kw)
    truth = _true_clone(start)
    for a in moves:
        truth.step(a)
        truth.check_invariants()
    return start, moves, truth


# ---------------------------------------------------------------- brute force
class _Branch(Exception):
    def __init__(self, options, weight):
        self.options = options
        self.weight = weight


class ScriptRng:
    """A stand-in for the game's RNG: every chance outcome comes from a script; asking
    past its end raises _Branch with all outcomes and their probability."""

    bit_generator = np.random.PCG64(0)  # what a clone's copy reads (its draws are unused)

    def __init__(self, script):
        self.script = script
        self.i = 0

    def _next(self, options, weight):
        if self.i == len(self.script):
            raise _Branch(options, weight)
        x = self.script[self.i]
        self.i += 1
        return x

    def permutation(self, n):
        return np.array(self._next(list(permutations(range(n))), 1 / factorial(n)), dtype=int)

    def integers(self, n):
        return self._next(list(range(n)), 1 / n)


def _deals(start, v, cls):
    """Every deal of one class's hidden cards within v's pools, each equally likely."""
    hands, deck, tags = _zones(start, cls)
    slots, cards = [], []
    for q in range(start.N):
        if q != v:
            for i, c in enumerate(hands[q]):
                if tags[v][c] != R.KNOWN:
                    slots.append((q, i))
                    cards.append(c)
    for i, c in enumerate(deck):
        slots.append((-1, i))
        cards.append(c)
    pools = {}
    for k, c in enumerate(cards):
        pools.setdefault(tags[v][c], []).append(k)
    groups = list(pools.values())
    for perms in product(*(permutations(ks) for ks in groups)):
        w = start.clone()
        w_hands, w_deck, _t = _zones(w, cls)
        for ks, perm in zip(groups, perms):
            for k, j in zip(ks, perm):
                q, i = slots[k]
                (w_deck if q < 0 else w_hands[q])[i] = cards[j]
        w.cnt_a = [[sum(1 for c in h if c >> 1 == t) for t in range(D.NUM_AGENT_TYPES)] for h in w.hand_a]
        w.cnt_m = [[sum(1 for c in h if c >> 1 == t) for t in range(10)] for h in w.hand_m]
        w.cv = w.mv = next(R.VERSIONS)
        w.legal = w._legal_now()
        w._set_mask()
        yield w


#: decisions whose choice is a public exit of a hand card of the chosen type
_EXITS = {R.D_PFA_CARD, R.D_PFR_CARD}
_MISSION_EXITS = {R.D_ATT_M, R.D_SWAPM}


def exact_distribution(start, moves, truth, v, cls="a"):
    """P(hidden agent state | everything v saw) under ``belief``'s model: each deal of the
    start state equally likely, every chance event uniform, another player's hidden pick
    (Interrogator card, Tracker card) a uniform card of its source; another player's
    public play of type t weighs by the number of t copies it held (each copy equally
    likely to be the one that left), a reveal of k copies by C(copies held, k). A history
    counts when each public move is legal, v's own decisions had the legal sets v saw,
    and v's observation after every step is the one v had; the pending decision must
    stay possible (as v sees it) at the end."""
    views, legals = [], []
    replay = _true_clone(start)
    for a in moves:
        legals.append((replay.decider, replay.decision, list(replay.legal)))
        replay.step(a)
        views.append(replay.observe(v).copy())
    out = {}

    def run(deal, script):
        w = deal.clone()
        w.rng = ScriptRng(script)
        weight = 1.0
        for a, view, (p, d, legal) in zip(moves, views, legals):
            if w.over or w.decider != p or w.decision != d:
                return None, 0.0
            if p == v and w.legal != legal:
                return None, 0.0
            if p != v:
                if d == R.D_INT_CARD and w.stack[-1][7] != v:
                    hand = w.hand_a[w.stack[-1][7]]
                    a = R.A_AGENT + (hand[w.rng._next(list(range(len(hand))), 1 / len(hand))] >> 1)
                elif d == R.D_TRACK:
                    deck = w.deck_a
                    a = R.A_AGENT + (deck[w.rng._next(list(range(len(deck))), 1 / len(deck))] >> 1)
                elif d in _EXITS:
                    weight *= w.cnt_a[p][a - R.A_AGENT]
                elif d in _MISSION_EXITS and R.A_MISSION <= a < R.A_FSLOT:
                    weight *= w.cnt_m[p][a - R.A_MISSION]
                elif d == R.D_MHG and a > R.A_COUNT:
                    weight *= comb(w.cnt_a[p][D.MHG_ELIGIBLE[w.stack[-1][2]]], a - R.A_COUNT)
            if a not in w.legal:
                return None, 0.0
            w.step(a)
            if not np.array_equal(w.observe(v), view):
                return None, 0.0
        legal = w._legal_now()
        if not legal or (w.decider == v and legal != truth.legal):
            return None, 0.0
        return key(w, v, cls), weight

    def explore(deal, script, weight):
        try:
            k, f = run(deal, script)
        except _Branch as b:
            for o in b.options:
                explore(deal, script + [o], weight * b.weight)
            return
        if k is not None and f > 0:
            out[k] = out.get(k, 0.0) + weight * f

    deals = list(_deals(start, v, cls))
    for deal in deals:
        explore(deal, [], 1.0 / len(deals))
    total = sum(out.values())
    return {k: p / total for k, p in out.items()}


# ------------------------------------------------------------------ statistics
def sampled(sampler, n, seed):
    rng = np.random.default_rng(seed)
    counts = {}
    for _ in range(n):
        k = sampler(rng)
        counts[k] = counts.get(k, 0) + 1
    return {k: c / n for k, c in counts.items()}


def tv(p, q):
    return 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in set(p) | set(q))


def chi2(sample, exact, n):
    if not set(sample) <= set(exact):
        return float("inf")  # a state the viewer's view rules out
    return sum((sample.get(k, 0.0) * n - e * n) ** 2 / (e * n) for k, e in exact.items())


def matches(sample, exact, n):
    return tv(sample, exact) < TV_BOUND and chi2(sample, exact, n) < CHI2_999[len(exact) - 1]


_EXACT = {}
PATHS = {"default": {}, "enumeration": {"tries": 0}, "rejection_only": {"tries": 0, "budget": 0}}


def exact_for(name):
    if name not in _EXACT:
        start, moves, truth = build(name)
        _EXACT[name] = (truth, exact_distribution(start, moves, truth, VIEWER, CLASS.get(name, "a")))
    return _EXACT[name]


def _check_mixture_sampler(name, seed, **kw):
    truth, exact = exact_for(name)
    cls = CLASS.get(name, "a")
    assert 2 <= len(exact) <= 26
    assert tv(exact, {key(truth, VIEWER, cls): 1.0}) > 3 * TV_BOUND
    served = RS.STATS["log"]
    sample = sampled(lambda rng: key(RS.resample_hidden(truth, VIEWER, rng, **kw), VIEWER, cls), SAMPLES, seed)
    assert RS.STATS["log"] == served + SAMPLES, "the log did not serve every call"
    assert set(sample) <= set(exact), f"inconsistent states sampled: {set(sample) - set(exact)}"
    assert tv(sample, exact) < TV_BOUND, (sample, exact)
    assert chi2(sample, exact, SAMPLES) < CHI2_999[len(exact) - 1]


# ------------------------------------------------------------------------ tests
@pytest.mark.parametrize("name", ["transfer", "transfer_then_public_play"])
def test_6_1_hidden_transfer_between_others_matches_enumeration(name):
    _check_mixture_sampler(name, seed=3)


@pytest.mark.parametrize("path", sorted(PATHS))
def test_6_1_hidden_transfer_then_a_constraining_choice_matches_enumeration(path):
    # rejection, the (component, table) enumeration, and unbounded rejection all give
    # the exact constrained posterior
    truth, exact = exact_for("transfer_then_faction_choice")
    assert len(exact) >= 3
    _check_mixture_sampler("transfer_then_faction_choice", seed=13, **PATHS[path])


def test_6_1_mixed_pool_public_play_after_reshuffle_matches_enumeration():
    _check_mixture_sampler("reshuffle_then_public_play", seed=4)


def test_6_1_public_play_after_own_tracker_search_matches_enumeration():
    _check_mixture_sampler("own_tracker_then_public_play", seed=6)


def test_6_1_public_play_after_own_interrogator_view_matches_enumeration():
    _check_mixture_sampler("own_interrogator_then_public_play", seed=7)


@pytest.mark.parametrize("name", ["strategist_between_others_then_attach", "own_strategist_steal"])
def test_6_1_strategist_steal_from_hand_matches_enumeration(name):
    _check_mixture_sampler(name, seed=10)


def test_8_10_moral_high_ground_reveal_matches_enumeration():
    truth, exact = exact_for("moral_high_ground_reveal")
    # P1's two hidden cards hold the other Marksman with prior 2/3 (three cards hidden:
    # Marksman, Hacker, Recruiter); showing one Marksman is twice as likely with both:
    # 2/3 * 2 / (2/3 * 2 + 1/3) = 4/5
    both = sum(p for k, p in exact.items() if k[0][0].count(M) == 2)
    assert both == pytest.approx(4 / 5)
    _check_mixture_sampler("moral_high_ground_reveal", seed=8)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_6_1_the_statistic_catches_the_tag_sampler_and_the_truth(name):
    # the pool-tag sampler alone (main's resample before the log) and a sampler that
    # returns the truth both fail the bound the mixture sampler passes
    truth, exact = exact_for(name)
    cls = CLASS.get(name, "a")
    n = SAMPLES
    tags_only = sampled(lambda rng: key(RS.tag_resample(truth, VIEWER, rng), VIEWER, cls), n, 5)
    assert not matches(tags_only, exact, n)
    assert not matches({key(truth, VIEWER, cls): 1.0}, exact, n)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_6_1_mixture_resample_keeps_the_view_and_plays_on(name):
    _start, _moves, truth = build(name)
    rng = np.random.default_rng(9)
    for v in range(truth.N):
        obs = truth.observe(v).copy()
        mask = truth.legal_mask().copy()
        for _ in range(6):
            s = RS.resample_hidden(truth, v, rng)
            assert np.array_equal(s.observe(v), obs)
            assert s.current_player == truth.current_player
            if truth.current_player == v:
                assert np.array_equal(s.legal_mask(), mask)
            s.check_invariants()
            assert s.clog_for == v and truth.clog_for is None
            # a resample of the resample is again consistent with v's view (the log
            # still serves v); for another viewer w it falls back to w's tags
            served = RS.STATS["log"]
            s2 = RS.resample_hidden(s, v, rng)
            assert RS.STATS["log"] == served + 1
            assert np.array_equal(s2.observe(v), obs)
            w = (v + 1) % truth.N
            obs_w = s.observe(w).copy()
            s3 = RS.resample_hidden(s, w, rng)
            assert s3.clog_for == -1 and np.array_equal(s3.observe(w), obs_w)
            s3.check_invariants()
            for _ in range(60):
                if s.is_over:
                    break
                s.step(int(rng.choice(np.flatnonzero(s.legal_mask()))))
                s.check_invariants()
            if not s.is_over:  # its log, extended in play, still describes it for v
                mismatches = RS.STATS["mismatch"]
                RS.resample_hidden(s, v, rng).check_invariants()
                assert RS.STATS["mismatch"] == mismatches


def test_6_1_card_log_describes_random_games_for_every_viewer():
    # in random play (reshuffles, Tracker searches, transfers, reveals) every viewer's
    # fold fits the state (sizes, pins, conservation) and no resample falls back to tags
    rng = np.random.default_rng(1)
    for n in (3, 5):
        g = TheAgentsGame(num_players=n)
        g.reset(n)
        for step in range(240):
            if g.is_over:
                break
            if step % 20 == 0:
                for v in range(n):
                    mismatches, tags = RS.STATS["mismatch"], RS.STATS["tags"]
                    s = g.resample_hidden(v, rng)
                    assert (RS.STATS["mismatch"], RS.STATS["tags"]) == (mismatches, tags)
                    assert np.array_equal(s.observe(v), g.observe(v))
            g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))


def test_6_1_a_log_that_does_not_describe_the_state_falls_back_to_the_tags():
    # a state edited by hand after its log started: the fold no longer fits it, so the
    # resample uses the tag structure (sound) instead of trusting the log
    g = arrange(2, hands={1: [GU, ST]}, ip=[5, 5])
    g.hand_a[1].append(g.deck_a.pop())
    g.cnt_a[1][g.hand_a[1][-1] >> 1] += 1
    g.na[1] += 1
    g.cv = next(R.VERSIONS)
    mismatches = RS.STATS["mismatch"]
    s = RS.resample_hidden(g, 0, np.random.default_rng(0))
    assert RS.STATS["mismatch"] == mismatches + 1
    assert np.array_equal(s.observe(0), g.observe(0))


def test_c49_pins_are_unchanged_by_the_log():
    # the belief knows more than the pins, but the observed pins follow C49 exactly:
    # after the Interrogator view and the Gunner play, P0's pin on P1's Gunner is gone
    # (rule 2) while the belief still holds a component where it stayed
    _start, _moves, truth = build("own_interrogator_then_public_play")
    pins = truth.layout.view(truth.observe(0), "pins_agents")[0]
    assert pins[GU] == 0 and sum(pins) == 0
    mix = B.belief(truth, 0, R.CLS_A)
    assert any(S[0][1][GU] == 1 for S in mix)  # "the Gunner P0 saw may still be there"
    assert any(S[0][1][GU] == 0 for S in mix)
    assert sum(mix.values()) == pytest.approx(1.0)


def test_6_1_log_is_shared_by_clones_and_forks_on_write():
    g = arrange(2, hands={0: [GU], 1: [ST]}, ip=[5, 5])
    c = g.clone()
    assert c.clog is g.clog
    g.step(STEP["BUY_AGENT_DECK"])
    c.step(STEP["BUY_AGENT_DECK"])
    assert c.clog is not g.clog and len(c.clog.records) == len(g.clog.records) == 1
    assert c.clog_n == g.clog_n == 1


def test_6_1_a_mixture_past_its_cap_falls_back_to_the_tags(monkeypatch):
    # past MAX_COMPONENTS the fold is given up (remembered on the log) and the resample
    # uses the tag structure: sound (the view is kept), no longer exact
    _start, _moves, truth = build("transfer_then_public_play")
    g = truth.clone()
    g.clog = g.clog.fork(g.clog_n)  # no cached folds
    g.clog.folds.clear()
    monkeypatch.setattr(B, "MAX_COMPONENTS", 1)
    assert B.belief(g, 0, R.CLS_A) is None
    assert g.clog.folds[(0, R.CLS_A)][-1] == (g.clog_n, None)
    tags = RS.STATS["tags"]
    s = RS.resample_hidden(g, 0, np.random.default_rng(0))
    assert RS.STATS["tags"] == tags + 1 and s.clog_for == -1
    assert np.array_equal(s.observe(0), g.observe(0))


@pytest.mark.parametrize("name", ["reshuffle_then_public_play", "transfer_then_public_play"])
def test_6_1_table_probabilities_of_each_component_sum_to_one(name):
    # the enumeration weighs a (component, table) pair by the component's weight times
    # the table's share of the component's deals: those shares must sum to one
    _start, _moves, truth = build(name)
    mix = B.belief(truth, 0, R.CLS_A)
    assert len(mix) >= 2
    for S in mix:
        tables, logp = RS._component_tables(S, 0, truth.N, RS.AGENT_CLASS, RS.N_AGENT_CLASSES, 10_000)
        assert sum(np.exp(logp)) == pytest.approx(1.0)


def test_6_1_enumerated_resample_of_a_mixture_keeps_the_pending_decision():
    # the enumeration path (no rejection tries) on a mixed state where another player
    # decides: every sample keeps that decision possible and v's view
    _start, _moves, truth = build("transfer_then_public_play")
    rng = np.random.default_rng(4)
    exact = exact_for("transfer_then_public_play")[1]
    sample = sampled(lambda r: key(RS.resample_hidden(truth, 0, r, tries=0), 0), 600, 12)
    assert set(sample) <= set(exact)
    for _ in range(20):
        s = RS.resample_hidden(truth, 0, rng, tries=0)
        assert s._legal_now() and np.array_equal(s.observe(0), truth.observe(0))


def test_6_1_card_log_survives_pickling_without_its_cache():
    # states travel between processes: the log (base and records) is pickled, its fold
    # cache is not, and the unpickled state is served from the log again
    import pickle

    _start, _moves, truth = build("reshuffle_then_public_play")
    assert B.belief(truth, 0, R.CLS_A) is not None and truth.clog.folds
    back = pickle.loads(pickle.dumps(truth))
    assert back.clog.records == truth.clog.records and not back.clog.folds
    assert B.belief(back, 0, R.CLS_A) == B.belief(truth, 0, R.CLS_A)
    served = RS.STATS["log"]
    s = RS.resample_hidden(back, 0, np.random.default_rng(1))
    assert RS.STATS["log"] == served + 1 and np.array_equal(s.observe(0), truth.observe(0))
