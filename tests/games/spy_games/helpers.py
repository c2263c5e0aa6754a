"""Explicit-state builders for Spy Games rules tests."""

from __future__ import annotations

from spyenvs.games.spy_games import data as D
from spyenvs.games.spy_games.data import kind_of
from spyenvs.games.spy_games.game import SpyGamesGame
from spyenvs.games.spy_games.rules import PH_SPY, PH_STRENGTHEN

SAFE, INTER, CODE, DEMO, PROV, LIQ = range(6)
CIRCLE, SQUARE, TRIANGLE = range(3)


def K(t: int, suit: int = CIRCLE, pips: int = 1) -> int:
    return kind_of(t, suit, pips)


def game(n=4, negotiation="off", auto_forced=False, **cfg) -> SpyGamesGame:
    """A game after fixed 10/8/6 setup, at player 0's first phase-2 turn of round 1."""
    g = SpyGamesGame(num_players=n, allocation="fixed", negotiation=negotiation, auto_forced=auto_forced, **cfg)
    g.reset(0)
    g.round = 0
    g.first = 0
    main_turn(g, 0)
    return g


def main_turn(g, p: int, round_=None):
    if round_ is not None:
        g.round = round_
    g.phase = PH_SPY
    g.t = (p - g.first) % g.n
    g.active = g.decider = p
    g.stage = D.S_MAIN
    g.immune = [False] * g.n
    g._clear_decl()
    g._resync()


def strengthen_turn(g, p: int, used: int = 0):
    g.phase = PH_STRENGTHEN
    g.s_idx = (p - g.first) % g.n
    g.s_used = used
    g.active = g.decider = p
    g.stage = D.S_STRENGTHEN
    g._clear_decl()
    g._resync()


def arrange(g, hands=None, spies=(), deck_top=(), discard=(), rest_to=None):
    """Set hands ({p: [kinds]}), spies [(owner, j, zone_owner, k, cases, plan)], the top of
    the deck (first drawn first) and the face-up discard; other cards form the deck (or
    go to player ``rest_to``'s hand). Cases on spies come from the owner's zone k."""
    h = g.h
    n = g.n
    pool = list(D.FULL_DECK)
    h.hands = [[0] * D.NUM_KINDS for _ in range(n)]
    for p, kinds in (hands or {}).items():
        for k in kinds:
            h.hands[p][k] += 1
            pool.remove(k)
    for p in range(n):
        for j in range(D.AGENTS):
            if g.spy_loc[p][j] >= 0:
                g.zone[p][g.spy_loc[p][j] % 3] += g.spy_c[p][j]
            g.spy_loc[p][j] = -1
            g.spy_c[p][j] = 0
            g.spy_str[p][j] = False
            g.spy_ks[p][j] = False
            h.plans[p][j] = -1
    for owner, j, zo, k, c, plan in spies:
        g.spy_loc[owner][j] = zo * 3 + k
        g.spy_c[owner][j] = c
        h.plans[owner][j] = plan
        g.zone[owner][k] -= c
        pool.remove(plan)
    g.disc_up = [0] * D.NUM_KINDS
    for k in discard:
        g.disc_up[k] += 1
        pool.remove(k)
    for k in deck_top:
        pool.remove(k)
    if rest_to is not None:
        for k in pool:
            h.hands[rest_to][k] += 1
        pool = []
    h.deck = pool + list(reversed(deck_top))
    h.disc_down = []
    h.pins = [[{} for _ in range(n)] for _ in range(n)]
    g._resync()
    g.check_invariants()
    return g


def do(g, *actions):
    for a in actions:
        g.step(a)
        g.check_invariants()
    return g


# action index helpers (zone index k and seat offsets as in rules/spy_games.md §9.1; k 0-based)
def INFIL(o, k):
    return D.A_INFIL + 3 * (o - 1) + k


def EXPOSE(o, j):
    return D.A_EXPOSE + 5 * (o - 1) + j


def MISSION(j):
    return D.A_MISSION + j


def RECALL(j):
    return D.A_RECALL + j


def STRENGTHEN(j):
    return D.A_STRENGTHEN + j


def PICK_AGENT(j):
    return D.A_PICK_AGENT + j


def CARD(kind):
    return D.A_PICK_CARD + kind


def STANDDOWN(a, s):
    return D.A_STANDDOWN + 7 * (a - 1) + s


def WITHDRAW(a, s):
    return D.A_WITHDRAW + 7 * (a - 1) + s


def DEMAND(a):
    return D.A_DEMAND + a - 1


def PAY_FROM(s):
    return D.A_PAY_FROM + s


def REF_OFFER(cand, a, s):
    return D.A_REF_OFFER + 21 * cand + 7 * (a - 1) + s


def REF_FREE(cand):
    return D.A_REF_FREE + cand


IGNORE, BONUS, PENALTY = D.A_RESP, D.A_RESP + 1, D.A_RESP + 2
A1_NONE, A1_I_PLUS, A1_I_MINUS, A1_D_PLUS, A1_D_MINUS = range(D.A_A1, D.A_A1 + 5)


def legal(g):
    return set(g.legal_actions())


# ------------------------------------------------- a confrontation the initiator wins
#: deck top for a confrontation: I draws square 3 (the zone trump), D triangle 1 (no trump)
WIN_I = [K(PROV, SQUARE, 3), K(PROV, TRIANGLE, 1)]


def win(g):
    """Referee picks circle, nobody adds: I (square 3) beats D (triangle 1)."""
    do(g, REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)


def mission(plan, c, extra=(), hands=None):
    """Seat 0's spy (plan ``plan``, ``c`` cases) in seat 1's zone 1 declares its mission."""
    g = game()
    arrange(g, hands=hands or {}, spies=[(0, 0, 1, 1, c, plan)] + list(extra), deck_top=WIN_I)
    do(g, MISSION(0))
    return g


def exposure(plan, c, extra=(), hands=None, j=1):
    """Seat 1's spy ``j`` (plan ``plan``, ``c`` cases) in seat 0's zone 1 is exposed by seat 0."""
    g = game()
    arrange(g, hands=hands or {}, spies=[(1, j, 0, 1, c, plan)] + list(extra), deck_top=WIN_I)
    do(g, EXPOSE(1, j))
    return g
