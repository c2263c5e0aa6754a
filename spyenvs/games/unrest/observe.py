"""Observation encoding of unrest_v0 (§5.3): a flat float32 vector of named blocks,
egocentric (``me`` says which role is observing). The public part is read from the
public state only; the Rebel-only blocks are filled from the hidden state only when
the observer is the Rebel, and stay zero for the Empire. Face-down cards appear to
the Empire only as handles in play order (never by identity); Decoys show as one type."""

from __future__ import annotations

import numpy as np

from spyenvs.core import Layout

from . import data as D

MAX_EMPIRE_EVENTS = 16  # 2 actions x 8 rounds
EVENT_WIDTH = 4 + 24 + 9 + 5  # token, handle, from-location, to-district


def build_layout(game) -> tuple[Layout, dict[str, int]]:
    L = Layout()
    add = L.add
    add("me", 2, doc="one-hot: observer is rebel / empire")
    add("acting", 2, doc="observer to act / opponent to act (zeros when over)")
    add("phase", 7, doc="area, play, empire_action_1, empire_action_2, assign, liberate, over")
    add("round", 8, doc="one-hot round 1-8")
    add("final_encounter", 1)
    add("final_all_hidden", 1, doc="the Final Encounter play was all face down (public proof of 3 Decoys)")
    add("row", (5, 5), doc="row position x district id")
    add("liberated", 5, doc="per district id")
    add("liberated_mission", (5, D.NUM_MISSION_KINDS), doc="per district id: mission it claimed")
    add("liberated_round", (5, 8), doc="per district id: round of liberation")
    add("area", 4, doc="gap of the area marker")
    add("area_districts", 5, doc="district ids in the area")
    add("blockade", 5, doc="blockaded district id")
    add("tokens_available", 4, doc="surveillance, destroy, redirect, blockade")
    add("tokens_used_this_round", (2, 4), doc="first and second Empire action of this round")
    add("token_uses", 4, high=1.0, doc="times each token was used / 4")
    add("missions", (4, D.NUM_MISSION_KINDS), doc="mission slot -> mission kind")
    add("mission_available", 4)
    add("hand_size", 6, doc="one-hot 0-5")
    add("deck_size", 1, doc="deck size / 19")
    add("assign_slot", 3, doc="pending slot now being assigned")
    add("handle_played", 24, doc="handle h = 3*(round-1)+slot exists")
    add("handle_location", (24, 9), doc="pending slot 0-2, district id 0-4, destroyed")
    add("handle_face_up", 24)
    add("handle_type", (24, D.NUM_TYPES), doc="type of face-up handles (20 = Decoy)")
    add("my_hand", (5, D.NUM_TYPES), doc="rebel only: hand types in canonical (id) order")
    add("my_facedown_types", (24, D.NUM_TYPES), doc="rebel only: types of face-down handles")
    add("unseen", D.NUM_TYPES, doc="cards the observer has not seen: rebel = deck, empire = never face up (Decoys / 4)")
    if game.variant_c6:
        add(
            "empire_events",
            (MAX_EMPIRE_EVENTS, EVENT_WIDTH),
            doc="C6 variant log: token, handle, from-location, to-district of each Empire action",
        )
    enc = {name: b.start for name, b in L.blocks.items()}
    return L, enc


def encode(game, player: int) -> np.ndarray:
    pub = game.pub
    o = game._enc
    ones = [o["me"] + player]
    ph = pub.phase
    if ph != 6:
        ones.append(o["acting"] + (0 if game.current_player == player else 1))
    ones.append(o["phase"] + ph)
    ones.append(o["round"] + pub.round - 1)
    if pub.final:
        ones.append(o["final_encounter"])
    if pub.final_all_hidden:
        ones.append(o["final_all_hidden"])
    b = o["row"]
    for p, d in enumerate(pub.row):
        ones.append(b + 5 * p + d)
    for d in pub.lib:
        ones.append(o["liberated"] + d)
        ones.append(o["liberated_mission"] + D.NUM_MISSION_KINDS * d + pub.missions[pub.lib_mission[d]])
        ones.append(o["liberated_round"] + 8 * d + pub.lib_round[d] - 1)
    if pub.area >= 0:
        ones.append(o["area"] + pub.area)
        ones.append(o["area_districts"] + pub.row[pub.area])
        ones.append(o["area_districts"] + pub.row[pub.area + 1])
    if pub.blockade >= 0:
        ones.append(o["blockade"] + pub.blockade)
    b = o["tokens_available"]
    for t in range(4):
        if pub.tok_avail[t]:
            ones.append(b + t)
    b = o["tokens_used_this_round"]
    for i, t in enumerate(pub.tok_used):
        ones.append(b + 4 * i + t)
    b = o["missions"]
    for m in range(4):
        ones.append(b + D.NUM_MISSION_KINDS * m + pub.missions[m])
        if pub.mission_avail[m]:
            ones.append(o["mission_available"] + m)
    ones.append(o["hand_size"] + pub.hand_size)
    if ph == 4:
        for s in range(3):
            if pub.pending[s] >= 0:
                ones.append(o["assign_slot"] + s)
                break
    bp, bl, bu, bt = o["handle_played"], o["handle_location"], o["handle_face_up"], o["handle_type"]
    hloc, hup, htype = pub.hloc, pub.hup, pub.htype
    for h in range(pub.n_played):
        ones.append(bp + h)
        ones.append(bl + 9 * h + hloc[h])
        if hup[h]:
            ones.append(bu + h)
            ones.append(bt + D.NUM_TYPES * h + htype[h])
    if game.variant_c6:
        b = o["empire_events"]
        for i, (tok, h, src, dst) in enumerate(pub.emp_log):
            base = b + EVENT_WIDTH * i
            ones.append(base + tok)
            if h >= 0:
                ones.append(base + 4 + h)
                ones.append(base + 28 + src)
            if dst >= 0:
                ones.append(base + 37 + dst)
    buf = np.zeros(game.layout.size, np.float32)
    ct = D.CARD_TYPE
    u = o["unseen"]
    if player == 0:
        hid = game.hid
        b = o["my_hand"]
        for i, c in enumerate(hid.hand):
            ones.append(b + D.NUM_TYPES * i + ct[c])
        b = o["my_facedown_types"]
        hc = hid.hcard
        for h in range(pub.n_played):
            if not hup[h]:
                ones.append(b + D.NUM_TYPES * h + ct[hc[h]])
        decoys = 0
        for c in hid.deck:
            if c < D.DECOY_FIRST:
                ones.append(u + c)
            else:
                decoys += 1
    else:
        seen = [False] * D.NUM_TYPES
        decoys = 4
        for h in range(pub.n_played):
            if hup[h]:
                t = htype[h]
                if t == D.DECOY_TYPE:
                    decoys -= 1
                else:
                    seen[t] = True
        for t in range(D.NUM_SUIT_CARDS):
            if not seen[t]:
                ones.append(u + t)
    buf[ones] = 1.0
    buf[u + D.DECOY_TYPE] = decoys / 4.0
    buf[o["deck_size"]] = pub.deck_size / 19.0
    b = o["token_uses"]
    tu = pub.tok_uses
    buf[b] = tu[0] / 4.0
    buf[b + 1] = tu[1] / 4.0
    buf[b + 2] = tu[2] / 4.0
    buf[b + 3] = tu[3] / 4.0
    return buf
