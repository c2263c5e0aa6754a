"""Builders of explicit unrest_v0 states for the rules tests."""

from __future__ import annotations

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest.game import UnrestGame
from spyenvs.games.unrest.rules import AREA, LOC_DESTROYED, LOC_DISTRICT, PAIRS, PLAY

DECOYS = (20, 21, 22, 23)


def card(suit: str, value: int) -> int:
    return D.SUITS.index(suit) * 5 + value - 2


I = lambda v: card("Intel", v)  # noqa: E731, E741
R = lambda v: card("Riots", v)  # noqa: E731
C = lambda v: card("Coup", v)  # noqa: E731
S = lambda v: card("Supplies", v)  # noqa: E731


def new_game(seed: int = 0, **cfg) -> UnrestGame:
    g = UnrestGame(**cfg)
    g.reset(seed)
    return g


def stage(
    g: UnrestGame,
    districts: dict[int, list[tuple[int, bool]]] | None = None,
    *,
    hand: list[int] | None = None,
    row: list[int] | None = None,
    missions: tuple[int, int, int] | None = None,
    phase: int = AREA,
    padding: list[int] | None = None,
) -> UnrestGame:
    """Rewrite g so that district id d holds the given (card, face_up) handles, in play
    order. Handles are padded to whole rounds with face-up cards in the destroyed pile
    (out of play). The round follows from the handles played; ``hand`` (default: the
    lowest unused suit cards) is the Rebel's hand and the rest is the deck."""
    pub, hid = g.pub, g.hid
    districts = districts or {}
    if row is not None:
        pub.row = list(row)
    if missions is not None:
        pub.missions = (0, *sorted(missions))
    placed = [(d, c, up) for d, cs in districts.items() for c, up in cs]
    used = {c for _, c, _ in placed} | set(hand or ())
    pad_pool = [c for c in (padding or range(19, -1, -1)) if c not in used]
    while len(placed) % 3:
        c = pad_pool.pop(0)
        used.add(c)
        placed.append((-1, c, True))
    pub.dist = [[] for _ in range(5)]
    pub.destroyed = []
    pub.hloc = [-1] * 24
    pub.hup = [False] * 24
    pub.htype = [-1] * 24
    hid.hcard = [-1] * 24
    for h, (d, c, up) in enumerate(placed):
        hid.hcard[h] = c
        pub.hup[h] = up
        pub.htype[h] = D.CARD_TYPE[c] if up else -1
        if d < 0:
            pub.hloc[h] = LOC_DESTROYED
            pub.destroyed.append(h)
        else:
            pub.hloc[h] = LOC_DISTRICT + d
            pub.dist[d].append(h)
    n = len(placed)
    pub.n_played = n
    pub.round = n // 3 + 1
    rest = [c for c in range(24) if c not in used]
    if hand is None:
        hand = rest[: 5 if phase in (AREA, PLAY) else 2]
    hid.hand = sorted(hand)
    hid.deck = [c for c in rest if c not in hand]
    pub.hand_size = len(hid.hand)
    pub.deck_size = len(hid.deck)
    pub.phase = phase
    pub.pending = [-1, -1, -1]
    g.touch()
    return g


def play_action(g: UnrestGame, up: int | None, downs) -> int:
    """The PLAY action index that shows ``up`` and hides ``downs`` (card ids)."""
    hand = g.hid.hand
    if up is None:
        return 34
    r = hand.index(up)
    rest = [i for i in range(len(hand)) if i != r]
    pos = tuple(sorted(rest.index(hand.index(c)) for c in downs))
    return 4 + 6 * r + PAIRS.index(pos)


def slot_of(g: UnrestGame, c: int) -> int:
    for s, h in enumerate(g.pub.pending):
        if h >= 0 and g.hid.hcard[h] == c:
            return s
    raise AssertionError(f"card {c} is not pending")


def handle_of(g: UnrestGame, c: int) -> int:
    return g.hid.hcard.index(c)


def surveil(s):
    return s


def destroy(s):
    return 3 + s


def redirect(s, p):
    return 6 + 5 * s + p


def blockade(p):
    return 21 + p


def assign(p):
    return 35 + p


def liberate(p, m):
    return 40 + 4 * p + m


def legal(g) -> list[int]:
    return g.legal_actions()
