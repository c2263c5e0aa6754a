"""Static tables of Unrest / "Rebelia kontra Imperium": the 24 Rebel cards, the
districts, the mission cards with their conditions, the Empire's tokens (rules
file §2). Replace these tables to change the content without touching the rules."""

from __future__ import annotations

# --- cards (§2.1): ids 0-19 are suit cards, suit = id // 5, value = id % 5 + 2;
# ids 20-23 are the four identical Decoys.
SUITS = ("Intel", "Riots", "Coup", "Supplies")
SUITS_PL = ("Wywiad", "Rozruchy", "Przewrót", "Zaopatrzenie")  # C1: the fourth label
INTEL, RIOTS, COUP, SUPPLIES = range(4)
NUM_CARDS = 24
NUM_SUIT_CARDS = 20
DECOY_FIRST = 20
#: observation/card types: 0-19 the suit cards, 20 = "Decoy" (Decoy ids never shown)
NUM_TYPES = 21
DECOY_TYPE = 20
CARD_SUIT = tuple(c // 5 if c < 20 else -1 for c in range(NUM_CARDS))
CARD_VALUE = tuple(c % 5 + 2 if c < 20 else 0 for c in range(NUM_CARDS))
CARD_TYPE = tuple(c if c < 20 else DECOY_TYPE for c in range(NUM_CARDS))


def card_name(card_or_type: int) -> str:
    if card_or_type >= DECOY_FIRST:
        return "Decoy"
    return f"{SUITS[card_or_type // 5]} {card_or_type % 5 + 2}"


# --- districts (§2.2), ids in the seed's listing order (C19); no individual rules (C14)
DISTRICTS = ("Ministry of Plenty", "Ministry of Peace", "Capitol", "Police HQ", "Ministry of Truth")
DISTRICTS_PL = (
    "Ministerstwo Urodzaju",
    "Ministerstwo Pokoju",
    "Kapitol",
    "Komenda Główna Policji",
    "Ministerstwo Prawdy",
)
NUM_DISTRICTS = 5

# --- Empire tokens (§4.3)
TOKENS = ("Surveillance", "Destroy", "Redirect", "Blockade")
SURVEILLANCE, DESTROY, REDIRECT, BLOCKADE = range(4)

# --- missions (§2.3). A district summary is (sums[4], counts[4], value_counts[7]) where
# value_counts is indexed by value 0-6; Decoys are excluded everywhere.
REVOLUTION = 0
MISSION_NAMES = (
    "Revolution",
    "Media Support",
    "Espionage",
    "Coup d'etat",
    "General Strike",
    "Street Riots",
    "Barricades",
    "Sabotage",
    "Smuggling",
    "Arming the Militia",
    "Conspiracy Cells",
    "Coordinated Strike",
)
MISSION_TEXT = (
    "sum of all suit cards >= {thr}",
    "Intel > Coup and Coup >= 3",
    "Intel >= 4 and Riots >= 4",
    "at least one card of each suit",
    "at least 3 suit cards of the same value",
    "Riots >= 8 and no Intel card",
    "Riots >= 4 and Supplies >= 4",
    "Supplies > Riots and Riots >= 3",
    "Supplies >= 8 and no Coup card",
    "Coup >= 4 and Supplies >= 4",
    "at least 3 cards of one suit",
    "4 consecutive values (2-3-4-5 or 3-4-5-6)",
)
NUM_MISSION_KINDS = 12
POOL = tuple(range(1, 11))  # the 10 pool missions (C16)
MISSION_12 = 11  # optional 12th card (C4), off by default


def mission_satisfied(m: int, sums, counts, vals, revolution_threshold: int) -> bool:
    """Whether a district with these suit sums/counts and value counts meets mission m."""
    if m == 0:
        return sums[0] + sums[1] + sums[2] + sums[3] >= revolution_threshold
    if m == 1:
        return sums[INTEL] > sums[COUP] and sums[COUP] >= 3
    if m == 2:
        return sums[INTEL] >= 4 and sums[RIOTS] >= 4
    if m == 3:
        return counts[0] > 0 and counts[1] > 0 and counts[2] > 0 and counts[3] > 0
    if m == 4:
        return max(vals) >= 3
    if m == 5:
        return sums[RIOTS] >= 8 and counts[INTEL] == 0
    if m == 6:
        return sums[RIOTS] >= 4 and sums[SUPPLIES] >= 4
    if m == 7:
        return sums[SUPPLIES] > sums[RIOTS] and sums[RIOTS] >= 3
    if m == 8:
        return sums[SUPPLIES] >= 8 and counts[COUP] == 0
    if m == 9:
        return sums[COUP] >= 4 and sums[SUPPLIES] >= 4
    if m == 10:
        return max(counts) >= 3
    if m == 11:
        return bool(vals[3] and vals[4] and vals[5] and (vals[2] or vals[6]))
    raise ValueError(f"unknown mission {m}")


def summarize(cards) -> tuple[list[int], list[int], list[int]]:
    """Suit sums, suit counts and value counts (index = value) of some card ids."""
    sums = [0, 0, 0, 0]
    counts = [0, 0, 0, 0]
    vals = [0] * 7
    for c in cards:
        if c < DECOY_FIRST:
            s = c // 5
            v = c % 5 + 2
            sums[s] += v
            counts[s] += 1
            vals[v] += 1
    return sums, counts, vals
