"""Cards, characters and the action space of Specter Ops as data tables (rules §2, §8.2)."""

from __future__ import annotations

AGENT_NAMES = ("Spider", "Cobra", "Blue Jay", "Orangutan")
SPIDER, COBRA, BLUEJAY, ORANGUTAN = range(4)
HUNTER_NAMES = ("Beast", "Gun", "Puppet", "Prophet")
BEAST, GUN, PUPPET, PROPHET = range(4)

CARD_NAMES = (
    "Adrenal Surge", "Flash Bang", "Smoke Grenade", "Stealth Field",
    "Tangle Line", "Velocity Blade", "Power Fists", "Holo Decoy",
)
SURGE, FLASH, SMOKE, STEALTH, TANGLE, VELOCITY, FISTS, HOLO = range(8)
COPIES = (2, 2, 2, 2, 1, 1, 1, 1)
CHARGES = (1, 1, 1, 1, 2, 2, 2, 1)
#: unique card -> the only agent who may take and use it (C36)
OWNER = {TANGLE: SPIDER, VELOCITY: COBRA, HOLO: BLUEJAY, FISTS: ORANGUTAN}
REVEALED, ROTATED, SILENT = range(3)
VISIBILITY = (ROTATED, REVEALED, REVEALED, ROTATED, REVEALED, REVEALED, REVEALED, SILENT)


def usable_by(card: int, char: int) -> bool:
    return OWNER.get(card, char) == char


# ---------------------------------------------------------------- actions (§8.2)
NUM_CELLS = 736
NO = 736
YES = 737
DIR0 = 738  # N E S W
CARD0 = 742
SEAT0 = 750
CHAR0 = 754
SENSOR = 758
DRIVE = 759
EXIT = 760
ENTER = 761
POSTCOG = 762
REVEAL = 763
NUM_ACTIONS = 768

# ---------------------------------------------------------------- decisions (§8.3)
DECISIONS = (
    "S1_hunter_character", "S2_agent_character", "S3_equipment", "S4_traitor_seat",
    "A1_complete_objective", "A2_equipment_before", "A2t_equipment_target", "A3_move_step",
    "A4_equipment_after", "A5_pre_cognition", "X1_traitor_character", "X2_traitor_equipment",
    "H0_vote", "H1_turn_order", "H2_hunter_action", "H2v_vehicle_action", "H3_vehicle_destination",
    "H4_exit", "H5_sniper_shot", "H6_attack_target", "I1_ambush_roll", "I2_velocity_blade",
    "A6_turn_padding",
)
(S1, S2, S3, S4, A1, A2, A2T, A3, A4, A5, X1, X2, H0, H1, H2, H2V, H3, H4, H5, H6, I1, I2,
 PAD) = range(len(DECISIONS))
#: pad_agent_turn (C58): every agent-turn segment (an agent's turn, or the reveal
#: sequence X1..X3) lasts exactly this many decisions, one slot per possible one:
#: A1 + A2 + A2t + 6 A3 + A4 + A2t + I2 (Quick Draw) + A5 = 13 (rules.PHASE_START)
PAD_LEN = 13
