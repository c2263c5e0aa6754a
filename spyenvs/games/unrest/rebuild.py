"""A game rebuilt from the Rebel's observation (§5.1, §5.3): the inverse of ``encode``
for the Rebel, for players that look ahead from what they see alone.

The Rebel sees every card but the deck's order (§5.1), so her observation fixes the
state up to that order, which is dealt at random, as ``resample_hidden`` deals it for
her. What the observation does not carry has no effect on play from here: the order of
the handles within a district or the destroyed pile (every rule and mask names handles,
never places in a list), and the log of completed liberation checks (read only when
resampling for the Empire, R3 of §5.4); they come back sorted and empty. Decoys are
identical (§2.1), so they get their ids in order of place.

The rebuilt game holds every card once and encodes to the same Rebel observation
(both checked on every call); that it shows the Empire the same observation and offers
the same moves is tested (tests/games/unrest/test_rebuild.py, the conformance suite).
Anything else given as the observation is a one-line ValueError."""

from __future__ import annotations

import numpy as np

from . import data as D
from .observe import EVENT_WIDTH, MAX_EMPIRE_EVENTS, encode, rebuild_buffers
from .rules import EMPIRE, LOC_DESTROYED, LOC_DISTRICT, OVER, REBEL, HiddenState, PublicState, _Cache

NT = D.NUM_TYPES
NOT_HERS = "this observation is not one the Rebel of this unrest_v0 config can see"


def _one_hot_index(v: np.ndarray) -> int:
    """The index of a one-hot row, -1 for an all-zero one."""
    return int(np.argmax(v)) if v.any() else -1


def game_from_rebel_observation(template, observation: np.ndarray, rng: np.random.Generator):
    """A new game of ``template``'s config in the state the Rebel's ``observation`` shows,
    the deck's order dealt from ``rng`` (module docstring)."""
    obs = np.asarray(observation, np.float32)
    layout = template.layout
    if obs.shape != (layout.size,):
        raise ValueError(f"an unrest_v0 observation of this config has {layout.size} values, got shape {obs.shape}")
    blk = {name: obs[b.slice].reshape(b.shape) for name, b in layout.blocks.items()}
    if blk["me"][REBEL] != 1.0:
        raise ValueError("only the Rebel's observation fixes the state up to the deck's order; "
                         "this one is the Empire's")
    pub = PublicState.__new__(PublicState)
    hid = HiddenState.__new__(HiddenState)
    pub.phase = _one_hot_index(blk["phase"])
    pub.round = _one_hot_index(blk["round"]) + 1
    if pub.phase < 0 or pub.round < 1 or not blk["hand_size"].any():
        raise ValueError(NOT_HERS)
    pub.final = bool(blk["final_encounter"][0])
    pub.final_all_hidden = bool(blk["final_all_hidden"][0])
    pub.hand_size = _one_hot_index(blk["hand_size"])
    pub.deck_size = int(round(float(blk["deck_size"][0]) * 19))
    pub.area = _one_hot_index(blk["area"])
    pub.blockade = _one_hot_index(blk["blockade"])
    pub.tok_avail = [bool(x) for x in blk["tokens_available"]]
    pub.tok_uses = [int(round(float(x) * 4)) for x in blk["token_uses"]]
    pub.tok_used = [_one_hot_index(r) for r in blk["tokens_used_this_round"] if r.any()]
    pub.row = [_one_hot_index(r) for r in blk["row"] if r.any()]
    pub.missions = tuple(_one_hot_index(r) for r in blk["missions"])
    pub.mission_avail = [bool(x) for x in blk["mission_available"]]
    pub.lib_mission = [-1] * D.NUM_DISTRICTS
    pub.lib_round = [0] * D.NUM_DISTRICTS
    for d in np.flatnonzero(blk["liberated"]):
        pub.lib_mission[d] = pub.missions.index(_one_hot_index(blk["liberated_mission"][d]))
        pub.lib_round[d] = _one_hot_index(blk["liberated_round"][d]) + 1
    pub.lib = sorted(np.flatnonzero(blk["liberated"]).tolist(), key=lambda d: (pub.lib_round[d], d))
    pub.n_played = int(blk["handle_played"].sum())
    pub.hloc = [-1] * D.NUM_CARDS
    pub.hup = [False] * D.NUM_CARDS
    pub.htype = [-1] * D.NUM_CARDS
    pub.pending = [-1, -1, -1]
    pub.dist = [[] for _ in range(D.NUM_DISTRICTS)]
    pub.destroyed = []
    types = [-1] * D.NUM_CARDS  # each handle's card type: face up from the public rows, else hers
    for h in range(pub.n_played):
        loc = _one_hot_index(blk["handle_location"][h])
        pub.hloc[h] = loc
        if blk["handle_face_up"][h]:
            pub.hup[h] = True
            pub.htype[h] = types[h] = _one_hot_index(blk["handle_type"][h])
        else:
            types[h] = _one_hot_index(blk["my_facedown_types"][h])
        if 0 <= loc < LOC_DISTRICT:
            pub.pending[loc] = h
        elif loc == LOC_DESTROYED:
            pub.destroyed.append(h)
        elif loc >= LOC_DISTRICT:
            pub.dist[loc - LOC_DISTRICT].append(h)
    pub.check_log = []
    pub.emp_log = []
    if template.variant_c6:
        events = blk["empire_events"].reshape(MAX_EMPIRE_EVENTS, EVENT_WIDTH)
        for row in events:
            if not row[:4].any():
                break
            h = _one_hot_index(row[4:28])
            src = _one_hot_index(row[28:37]) if h >= 0 else -1
            pub.emp_log.append((_one_hot_index(row[:4]), h, src, _one_hot_index(row[37:42])))
    pub.winner = -1
    if pub.phase == OVER:
        pub.winner = REBEL if len(pub.lib) >= 3 else EMPIRE

    # card types by place (hand, handles, deck); Decoys get their ids in that order
    hand = [_one_hot_index(r) for r in blk["my_hand"][:max(pub.hand_size, 0)]]
    unseen = blk["unseen"]
    deck = [t for t in range(D.NUM_SUIT_CARDS) if unseen[t]]
    deck += [D.DECOY_TYPE] * int(round(float(unseen[D.DECOY_TYPE]) * 4))
    places = hand + types[:pub.n_played] + deck
    decoys = iter(range(D.DECOY_FIRST, D.NUM_CARDS))
    cards = [next(decoys, -1) if t == D.DECOY_TYPE else t for t in places]
    if sorted(cards) != list(range(D.NUM_CARDS)):  # every card once: hand, table and deck
        raise ValueError(NOT_HERS)
    n_hand, n_table = len(hand), pub.n_played
    hid.hand = sorted(cards[:n_hand])
    hid.hcard = cards[n_hand:n_hand + n_table] + [-1] * (D.NUM_CARDS - n_table)
    deck = cards[n_hand + n_table:]
    hid.deck = [deck[int(i)] for i in rng.permutation(len(deck))]

    game = type(template)(**template.config)  # the template may not have started
    game.pub, game.hid = pub, hid
    game._cache = _Cache()
    game._started = True
    game.rng = np.random.default_rng(rng.integers(2**63))
    rebuild_buffers(game)
    if not np.array_equal(encode(game, REBEL), obs):
        raise ValueError(NOT_HERS)
    return game
