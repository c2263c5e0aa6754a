"""Spy Games data tables (rules/spy_games.md §2, §9.1): penalty track, plan-card deck,
mission/reaction effect rows, agent abilities, payment sources and the action index
layout. Everything here is plain data so it can be retuned without touching rules.py.
"""

from __future__ import annotations

# ---------------------------------------------------------------- board (§2.2)
ZONES = 3
SUIT_NAMES = ("circle", "square", "triangle")  # zone k carries suit k [C01]
#: penalty track, cell 1 (most negative) first [C03]
TRACK = (-4, -3, -3, -2, -2, -1, -1, 0, 0, 0)
#: ALLOC permutations: cases placed in (zone 1, zone 2, zone 3) [C02, §9.1]
ALLOCS = ((10, 8, 6), (10, 6, 8), (8, 10, 6), (8, 6, 10), (6, 10, 8), (6, 8, 10))
FIXED_ALLOC = 0
CASES_PER_COLOUR = 24
MAX_PLAYERS = 4
AGENTS = 5


def penalty(initial: int, current: int) -> int:
    """Sum of |cells| vacated since setup (§2.2)."""
    return sum(-TRACK[i] for i in range(current, initial))


#: PENALTY[initial][current], precomputed
PENALTY = {n0: [penalty(n0, n) for n in range(n0 + 1)] for n0 in (6, 8, 10)}

# ---------------------------------------------------------------- deck (§2.3)
TYPE_NAMES = ("Safecracker", "Interceptor", "Codebreaker", "Demolitionist", "Provocateur", "Liquidator")
NUM_TYPES = 6
SCOUT_TYPES = (0, 1, 2)
PIPS_PER_SUIT = (1, 1, 2, 3)  # per type and suit [C06]
NUM_KINDS = NUM_TYPES * 9  # kind = type*9 + suit*3 + (pips-1)
DECK_SIZE = 72


def kind_of(t: int, suit: int, pips: int) -> int:
    return t * 9 + suit * 3 + (pips - 1)


KIND_TYPE = [k // 9 for k in range(NUM_KINDS)]
KIND_SUIT = [(k % 9) // 3 for k in range(NUM_KINDS)]
KIND_PIPS = [k % 3 + 1 for k in range(NUM_KINDS)]
KIND_SCOUT = [KIND_TYPE[k] in SCOUT_TYPES for k in range(NUM_KINDS)]
#: copies of each kind in the 72-card deck
KIND_COPIES = [0] * NUM_KINDS
for _t in range(NUM_TYPES):
    for _s in range(3):
        for _p in PIPS_PER_SUIT:
            KIND_COPIES[kind_of(_t, _s, _p)] += 1
FULL_DECK = [k for k in range(NUM_KINDS) for _ in range(KIND_COPIES[k])]
assert len(FULL_DECK) == DECK_SIZE


def kind_name(k: int) -> str:
    return f"{TYPE_NAMES[KIND_TYPE[k]]}-{SUIT_NAMES[KIND_SUIT[k]]}{KIND_PIPS[k]}"


# ------------------------------------------------------- effects (§2.4, C07-C09)
STEAL, DESTROY, RAID, SNATCH, FORCE_DISCARD, DRAW, SEIZE_K, PURGE1, PURGE_ALL, ESCAPE, SELF_DESTRUCT, COUNTER_STEAL = range(12)
OP_NAMES = ("STEAL", "DESTROY", "RAID", "SNATCH", "FORCE-DISCARD", "DRAW", "SEIZE-K", "PURGE-1", "PURGE-ALL",
            "ESCAPE", "SELF-DESTRUCT", "COUNTER-STEAL")
_ = ()
#: MISSION[type][L] for L = 0..4: a tuple of (op, n), resolved left to right [C43]
MISSION = (
    (_, ((STEAL, 1),), ((STEAL, 2),), ((STEAL, 3),), ((STEAL, 4),)),
    (_, ((RAID, 1), (SNATCH, 1)), ((RAID, 2), (SNATCH, 1)), ((RAID, 3), (SNATCH, 1), (SEIZE_K, 0)),
     ((RAID, 4), (SNATCH, 2), (SEIZE_K, 0))),
    (_, ((SNATCH, 2),), ((SNATCH, 2), (STEAL, 1)), ((SNATCH, 3), (STEAL, 2)), ((SNATCH, 3), (STEAL, 3))),
    (_, _, _, ((DESTROY, 3), (STEAL, 2)), ((DESTROY, 4), (STEAL, 3))),
    (_, _, _, ((STEAL, 3), (FORCE_DISCARD, 2), (SEIZE_K, 0)), ((STEAL, 4), (FORCE_DISCARD, 3), (SEIZE_K, 0))),
    (_, _, _, ((PURGE1, 0), (STEAL, 1)), ((PURGE_ALL, 0), (STEAL, 2))),
)
#: row used instead when the mission row purges but no other player's spy is in the zone
MISSION_FALLBACK = (
    (None,) * 5, (None,) * 5, (None,) * 5, (None,) * 5, (None,) * 5,
    (None, None, None, ((STEAL, 2),), ((STEAL, 3),)),
)
#: REACTION[type][L]; an empty row means CAPTURE [C09]
REACTION = (
    (_, _, _, ((ESCAPE, 0),), ((ESCAPE, 0), (COUNTER_STEAL, 1))),
    (_, _, _, ((ESCAPE, 0),), ((ESCAPE, 0), (SNATCH, 1))),
    (_, _, _, ((ESCAPE, 0), (DRAW, 1)), ((ESCAPE, 0), (DRAW, 2))),
    (_, ((SELF_DESTRUCT, 0), (DESTROY, 2)), ((SELF_DESTRUCT, 0), (DESTROY, 2)), ((SELF_DESTRUCT, 0), (DESTROY, 3)),
     ((SELF_DESTRUCT, 0), (DESTROY, 4))),
    (_, ((ESCAPE, 0), (SNATCH, 1)), ((ESCAPE, 0), (SNATCH, 2)), ((ESCAPE, 0), (SNATCH, 2), (SEIZE_K, 0)),
     ((ESCAPE, 0), (SNATCH, 3), (SEIZE_K, 0))),
    (_, ((ESCAPE, 0), (COUNTER_STEAL, 1)), ((ESCAPE, 0), (COUNTER_STEAL, 1)), ((ESCAPE, 0), (COUNTER_STEAL, 2)),
     ((ESCAPE, 0), (COUNTER_STEAL, 3))),
)
#: Saboteurs cannot declare a mission below this case count [S]
SABOTEUR_MIN_MISSION = 3
MAX_LEVEL = 4

# ---------------------------------------------------------- agents (§2.5, C16)
AGENT_NAMES = ("Informant", "Gatekeeper", "Liaison", "Analyst", "Fixer")
INFORMANT, GATEKEEPER, LIAISON, ANALYST, FIXER = range(5)  # agent number j-1

# ------------------------------------------------------------- phases (§4)
ROUNDS = 3
SLOTS_PER_ROUND = (4, 4, 5)
DRAW_PHASE_CARDS = 3
DRAW_EMPTY_CARDS = 3  # [C14]
START_HAND = 3
STRENGTHEN_ACTIONS = 4
KOMPROMAT_CARDS = 2

# --------------------------------------------------------- payments (§5, C30)
PAY_AMOUNTS = (1, 2, 3)
NUM_SOURCES = 7  # 0-2 own zones, 3-5 base colour offset +1..+3, 6 random hand cards
SRC_CARDS = 6

# ------------------------------------------------------ action layout (§9.1)
A_ALLOC = 0
A_PASS = 6
A_DRAW_EMPTY = 7
A_RECALL = 8
A_INFIL = 13
A_MISSION = 22
A_EXPOSE = 27
A_STRENGTHEN = 42
A_TAKE_CARD = 47
A_PICK_AGENT = 48
A_PICK_CARD = 53
A_NO_CARD = 107
A_OFFER_NONE = 108
A_STANDDOWN = 109
A_WITHDRAW = 130
A_DEMAND = 151  # a = 1..3 -> 151..153 (150 + a)
A_REJECT = 154
A_ACCEPT = 155
A_PAY_FROM = 156
A_REF_OFFER = 163
A_REF_ACCEPT_I = 205
A_REF_ACCEPT_D = 206
A_REF_FREE = 207
A_TIE_I = 209
A_TIE_D = 210
A_A1 = 211  # none, I+1, I-1, D+1, D-1
A_RESP = 216  # ignore, bonus, penalty
A_FIXER = 219  # decline, take over
A_KOMP = 221  # hold, play
A_RAID = 223
A_PURGE = 227
A_FIRST = 242
NUM_ACTIONS = 246

A1_DELTAS = ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))

# ------------------------------------------------------------- stages (§9.2)
STAGE_NAMES = (
    "alloc", "main", "buyout_offer", "buyout_reply", "infil_agent", "infil_plan", "a2_response", "fixer",
    "ref_offer", "ref_choice", "add_card", "a1_response", "kompromat", "tie", "a4_response", "raid_pick",
    "purge_pick", "strengthen", "a3_response", "first_player",
)
(S_ALLOC, S_MAIN, S_BUY_OFFER, S_BUY_REPLY, S_INFIL_AGENT, S_INFIL_PLAN, S_A2, S_FIXER, S_REF_OFFER,
 S_REF_CHOICE, S_ADD_CARD, S_A1, S_KOMP, S_TIE, S_A4, S_RAID, S_PURGE, S_STRENGTHEN, S_A3, S_FIRST) = range(20)
S_OVER = 20
NUM_STAGES = 20

# declared-action types
D_INFIL, D_MISSION, D_EXPOSE = 1, 2, 3
# buyout offer kinds
O_STANDDOWN, O_WITHDRAW, O_DEMAND = 1, 2, 3
