"""Card data of The Agents as replaceable tables (rules file 2.3 and 2.4).

Half-arrow colours (C3), Free Agent IP values (C4), copy counts (C1, C2) and the
"background" groups (C5) are completions: replace the rows below to change them; the
rules code reads nothing else about cards.
"""

from __future__ import annotations

B, W = 0, 1  # half-arrow colours: black, white

# verbs and background groups (C5)
KILL, REMOVE, TURN, SWAP, FREELANCE = "KILL", "REMOVE", "TURN", "SWAP", "FREELANCE"

#: (name, faction agent?, group, verb, data end: (L, R) halves or Free Agent IP)
AGENTS: tuple[tuple[str, bool, str, str, object], ...] = (
    ("Marksman", True, KILL, "KILL", (B, B)),
    ("Assassin", True, KILL, "KILL", (W, W)),
    ("Abductor", True, REMOVE, "REMOVE", (W, W)),
    ("Extractor", True, REMOVE, "REMOVE", (B, B)),
    ("Hacker", True, TURN, "TURN", (B, W)),
    ("Temptress", True, TURN, "TURN", (W, B)),
    ("Decoy", True, SWAP, "SWAP", (W, B)),
    ("Activist", True, SWAP, "SWAP", (B, W)),
    ("Medic", True, FREELANCE, "REVIVE", (B, B)),
    ("Infiltrator", True, FREELANCE, "REACTIVATE", (W, W)),
    ("Jack of all Trades", True, FREELANCE, "REACTIVATE", (B, W)),
    ("Gunner", False, KILL, "KILL", 3),
    ("Recruiter", False, FREELANCE, "DRAW", 3),
    ("Strategist", False, FREELANCE, "STEAL", 3),
    ("Mercenary", False, FREELANCE, "BONUS", 3),
    ("Tracker", False, FREELANCE, "SEARCH", 3),
    ("Undercover", False, TURN, "TURN", 3),
    ("Interrogator", False, FREELANCE, "INTERROGATE", 3),
)
AGENT_COPIES = 2  # C1: every type has this many copies
NUM_AGENT_TYPES = len(AGENTS)

# agent type ids (rows of AGENTS)
(MARKSMAN, ASSASSIN, ABDUCTOR, EXTRACTOR, HACKER, TEMPTRESS, DECOY, ACTIVIST, MEDIC,
 INFILTRATOR, JACK, GUNNER, RECRUITER, STRATEGIST, MERCENARY, TRACKER, UNDERCOVER,
 INTERROGATOR) = range(18)

AGENT_NAMES = tuple(a[0] for a in AGENTS)
IS_FACTION = tuple(a[1] for a in AGENTS)
FACTION_TYPES = tuple(t for t in range(NUM_AGENT_TYPES) if IS_FACTION[t])
FREE_TYPES = tuple(t for t in range(NUM_AGENT_TYPES) if not IS_FACTION[t])
GROUP = tuple(a[2] for a in AGENTS)
VERB = tuple(a[3] for a in AGENTS)
HALF_L = tuple(a[4][0] if a[1] else -1 for a in AGENTS)
HALF_R = tuple(a[4][1] if a[1] else -1 for a in AGENTS)
FREE_IP = tuple(0 if a[1] else a[4] for a in AGENTS)
#: agents eligible for a Moral High Ground reveal (C31: verb KILL or TURN), in id order
MHG_ELIGIBLE = tuple(t for t in range(NUM_AGENT_TYPES) if VERB[t] in ("KILL", "TURN"))

#: (name, seed's Hungarian name, IP value or per-unit value)
MISSIONS: tuple[tuple[str, str, int], ...] = (
    ("Bloodbath", "Vérfürdő", 3),
    ("The Chosen Few", "A kiválasztott kevesek", 1),
    ("Code Breaker", "Kódtörés", 1),
    ("Code of Honor", "Becsületkódex", 1),
    ("Man Down", "Ember a földön", 1),
    ("Meet your Match", "Egyezés", 2),
    ("Poor Man's Game", "Szegény ember játéka", 3),
    ("Reinforcements", "Erősítés", 4),
    ("Stand United", "Egységben az erő", 4),
    ("Moral High Ground", "(illustration)", 1),
)
MISSION_COPIES = 2  # C2
(BLOODBATH, CHOSEN_FEW, CODE_BREAKER, CODE_OF_HONOR, MAN_DOWN, MEET_YOUR_MATCH,
 POOR_MANS_GAME, REINFORCEMENTS, STAND_UNITED, MORAL_HIGH_GROUND) = range(10)
MISSION_NAMES = tuple(m[0] for m in MISSIONS)
MISSION_VALUE = tuple(m[2] for m in MISSIONS)
NUM_MISSION_TYPES_MAX = len(MISSIONS)

WIN_IP = 40
START_IP = 5
START_AGENTS = 3
START_MISSIONS = 1
BUY_COST = (1, 2, 3, 4)  # agent deck, agent retired, mission deck, mission retired
