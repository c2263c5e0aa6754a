"""Observation encoding of unrest_v0 (§5.3): a flat float32 vector of named blocks,
egocentric (``me`` says which role is observing).

The public blocks live in a persistent buffer (``pub.obuf``) that the rules update
incrementally after each decision (``sync_after``, ``write_handle``); ``encode``
copies it and adds the observer's blocks. The Rebel-only blocks come from buffers in
the hidden state and stay zero for the Empire. Face-down cards appear to the Empire
only as handles in play order (never by identity); Decoys show as one type.
``encode_reference`` builds the same vector from scratch; the invariant check
compares the two, so the incremental path cannot drift."""

from __future__ import annotations

import numpy as np

from spyenvs.core import Layout

from . import data as D
from .rules import ASSIGN, OVER, PLAY

MAX_EMPIRE_EVENTS = 16  # 2 actions x 8 rounds
EVENT_WIDTH = 4 + 24 + 9 + 5  # token, handle, from-location, to-district
NT = D.NUM_TYPES


def build_layout(game) -> Layout:
    L = Layout()
    add = L.add
    add("me", 2, doc="one-hot: observer is rebel / empire")
    add("acting", 2, doc="observer to act / opponent to act (zeros when over)")
    # status group: rewritten after every decision
    add("phase", 7, doc="area, play, empire_action_1, empire_action_2, assign, liberate, over")
    add("round", 8, doc="one-hot round 1-8")
    add("final_encounter", 1)
    add("final_all_hidden", 1, doc="the Final Encounter play was all face down (public proof of 3 Decoys)")
    add("hand_size", 6, doc="one-hot 0-5")
    add("deck_size", 1, doc="deck size / 19")
    add("assign_slot", 3, doc="pending slot now being assigned")
    # round group: area marker and tokens
    add("area", 4, doc="gap of the area marker")
    add("area_districts", 5, doc="district ids in the area")
    add("blockade", 5, doc="blockaded district id")
    add("tokens_available", 4, doc="surveillance, destroy, redirect, blockade")
    add("tokens_used_this_round", (2, 4), doc="first and second Empire action of this round")
    add("token_uses", 4, doc="times each token was used / 4")
    # board group: row, liberations, missions
    add("row", (5, 5), doc="row position x district id")
    add("liberated", 5, doc="per district id")
    add("liberated_mission", (5, D.NUM_MISSION_KINDS), doc="per district id: mission it claimed")
    add("liberated_round", (5, 8), doc="per district id: round of liberation")
    add("missions", (4, D.NUM_MISSION_KINDS), doc="mission slot -> mission kind")
    add("mission_available", 4)
    # handles (public handle h = 3*(round-1)+slot)
    add("handle_played", 24, doc="handle exists")
    add("handle_location", (24, 9), doc="pending slot 0-2, district id 0-4, destroyed")
    add("handle_face_up", 24)
    add("handle_type", (24, NT), doc="type of face-up handles (20 = Decoy)")
    # observer's own blocks
    add("my_hand", (5, NT), doc="rebel only: hand types in canonical (id) order")
    add("my_facedown_types", (24, NT), doc="rebel only: types of face-down handles")
    add(
        "unseen", NT, doc="cards the observer has not seen: rebel = deck, empire = never face up (Decoys / 4)"
    )
    if game.variant_c6:
        add(
            "empire_events",
            (MAX_EMPIRE_EVENTS, EVENT_WIDTH),
            doc="C6 variant log: token, handle, from-location, to-district of each Empire action",
        )
    return L


def block_offsets(L: Layout):
    """The start offsets the incremental writers use: every block by name (with the
    ends of the status, round, board and handle groups), the four handle blocks, and
    the status, round and observer blocks as tuples."""
    enc = {name: b.start for name, b in L.blocks.items()}
    enc["status_end"] = enc["area"]
    enc["round_end"] = enc["row"]
    enc["board_end"] = enc["handle_played"]
    enc["handles_end"] = enc["my_hand"]
    fast = (
        tuple(
            enc[k]
            for k in (
                "phase",
                "round",
                "final_encounter",
                "final_all_hidden",
                "hand_size",
                "deck_size",
                "assign_slot",
                "status_end",
            )
        ),
        tuple(
            enc[k]
            for k in (
                "area",
                "area_districts",
                "blockade",
                "tokens_available",
                "tokens_used_this_round",
                "token_uses",
                "round_end",
            )
        ),
        tuple(enc[k] for k in ("me", "acting", "unseen", "my_hand", "my_facedown_types")),
    )
    return (
        enc,
        (enc["handle_played"], enc["handle_location"], enc["handle_face_up"], enc["handle_type"]),
        fast,
    )


# ----------------------------------------------------------- incremental writers
def write_handle(game, h: int) -> None:
    """Rewrite handle h's rows (public buffer, Rebel's face-down types, the Empire's
    never-seen pool); called on every change of the handle."""
    pub = game.pub
    o_played, o_loc, o_up, o_type = game._henc
    b = pub.obuf
    b[o_played + h] = 1.0
    row = o_loc + 9 * h
    b[row : row + 9] = 0.0
    b[row + pub.hloc[h]] = 1.0
    row = o_type + NT * h
    fd = game.hid.fdbuf
    frow = NT * h
    b[row : row + NT] = 0.0
    fd[frow : frow + NT] = 0.0
    if pub.hup[h]:
        t = pub.htype[h]
        b[o_up + h] = 1.0
        b[row + t] = 1.0
        if t < D.NUM_SUIT_CARDS:
            pub.unseen_emp[t] = 0.0
    else:
        b[o_up + h] = 0.0
        fd[frow + D.CARD_TYPE[game.hid.hcard[h]]] = 1.0


def play_handle(game, h: int) -> None:
    """A new handle h was just played (its rows are still all zero)."""
    pub = game.pub
    o_played, o_loc, o_up, o_type = game._henc
    b = pub.obuf
    b[o_played + h] = 1.0
    b[o_loc + 9 * h + pub.hloc[h]] = 1.0
    if pub.hup[h]:
        t = pub.htype[h]
        b[o_up + h] = 1.0
        b[o_type + NT * h + t] = 1.0
        if t < D.NUM_SUIT_CARDS:
            pub.unseen_emp[t] = 0.0
    else:
        game.hid.fdbuf[NT * h + D.CARD_TYPE[game.hid.hcard[h]]] = 1.0


def move_handle(game, h: int, old: int) -> None:
    """Handle h moved from location ``old`` to its current location."""
    b = game.pub.obuf
    row = game._henc[1] + 9 * h
    b[row + old] = 0.0
    b[row + game.pub.hloc[h]] = 1.0


def reveal_handle(game, h: int) -> None:
    """Handle h (face down until now) turned face up."""
    pub = game.pub
    _, _, o_up, o_type = game._henc
    t = pub.htype[h]
    b = pub.obuf
    b[o_up + h] = 1.0
    b[o_type + NT * h + t] = 1.0
    game.hid.fdbuf[NT * h + t] = 0.0
    if t < D.NUM_SUIT_CARDS:
        pub.unseen_emp[t] = 0.0


def write_event(game, i: int) -> None:
    tok, h, src, dst = game.pub.emp_log[i]
    base = game._enc["empire_events"] + EVENT_WIDTH * i
    b = game.pub.obuf
    b[base + tok] = 1.0
    if h >= 0:
        b[base + 4 + h] = 1.0
        b[base + 28 + src] = 1.0
    if dst >= 0:
        b[base + 37 + dst] = 1.0


def sync_status(game) -> None:
    pub, b = game.pub, game.pub.obuf
    o_phase, o_round, o_final, o_fah, o_hand, o_deck, o_assign, o_end = game._fast[0]
    b[o_phase:o_end] = 0.0
    ph = pub.phase
    b[o_phase + ph] = 1.0
    b[o_round + pub.round - 1] = 1.0
    if pub.final:
        b[o_final] = 1.0
    if pub.final_all_hidden:
        b[o_fah] = 1.0
    b[o_hand + pub.hand_size] = 1.0
    b[o_deck] = pub.deck_size / 19.0
    if ph == ASSIGN:
        pend = pub.pending
        b[o_assign + (0 if pend[0] >= 0 else 1 if pend[1] >= 0 else 2)] = 1.0


def sync_round(game) -> None:
    pub, b = game.pub, game.pub.obuf
    o_area, o_ad, o_block, o_tok, o_used, o_uses, o_end = game._fast[1]
    b[o_area:o_end] = 0.0
    area = pub.area
    if area >= 0:
        b[o_area + area] = 1.0
        b[o_ad + pub.row[area]] = 1.0
        b[o_ad + pub.row[area + 1]] = 1.0
    if pub.blockade >= 0:
        b[o_block + pub.blockade] = 1.0
    av = pub.tok_avail
    uses = pub.tok_uses
    for t in range(4):
        if av[t]:
            b[o_tok + t] = 1.0
        if uses[t]:
            b[o_uses + t] = uses[t] / 4.0
    for i, t in enumerate(pub.tok_used):
        b[o_used + 4 * i + t] = 1.0


def sync_board(game) -> None:
    pub, o, b = game.pub, game._enc, game.pub.obuf
    b[o["row"] : o["board_end"]] = 0.0
    base = o["row"]
    for p, d in enumerate(pub.row):
        b[base + 5 * p + d] = 1.0
    for d in pub.lib:
        b[o["liberated"] + d] = 1.0
        b[o["liberated_mission"] + D.NUM_MISSION_KINDS * d + pub.missions[pub.lib_mission[d]]] = 1.0
        b[o["liberated_round"] + 8 * d + pub.lib_round[d] - 1] = 1.0
    for m in range(4):
        b[o["missions"] + D.NUM_MISSION_KINDS * m + pub.missions[m]] = 1.0
        if pub.mission_avail[m]:
            b[o["mission_available"] + m] = 1.0


def sync_hand(game) -> None:
    """The Rebel's hand buffer (hidden state)."""
    hid = game.hid
    hb = hid.handbuf
    hb[:] = 0.0
    ct = D.CARD_TYPE
    for i, c in enumerate(hid.hand):
        hb[NT * i + ct[c]] = 1.0


def sync_private(game) -> None:
    """The Rebel's hand and deck-contents buffers (hidden state)."""
    hid = game.hid
    sync_hand(game)
    db = hid.deckbuf
    db[:] = 0.0
    for c in hid.deck:
        if c < D.DECOY_FIRST:
            db[c] = 1.0
        else:
            db[D.DECOY_TYPE] += 0.25


def sync_after(game, prev_phase: int, new_round: bool, liberated: bool) -> None:
    """Bring the buffers up to date after a decision (handles are written as they move)."""
    sync_status(game)
    if liberated:
        sync_board(game)
    if new_round or liberated:
        sync_round(game)
        sync_private(game)
        return
    if prev_phase != PLAY and prev_phase != ASSIGN:
        sync_round(game)  # area marker or tokens moved
    if prev_phase == PLAY:
        sync_hand(game)


def rebuild_buffers(game) -> None:
    """Recompute every buffer from the state (new game, resample, hand-edited tests)."""
    pub, hid = game.pub, game.hid
    pub.obuf = np.zeros(game.layout.size, np.float32)
    pub.unseen_emp = np.ones(NT, np.float32)
    hid.fdbuf = np.zeros(24 * NT, np.float32)
    hid.handbuf = np.zeros(5 * NT, np.float32)
    hid.deckbuf = np.zeros(NT, np.float32)
    pub.up_decoys = sum(1 for h in range(pub.n_played) if pub.hup[h] and pub.htype[h] == D.DECOY_TYPE)
    for h in range(pub.n_played):
        write_handle(game, h)
    if game.variant_c6:
        for i in range(len(pub.emp_log)):
            write_event(game, i)
    sync_status(game)
    sync_round(game)
    sync_board(game)
    sync_private(game)


# ------------------------------------------------------------------ encoders
def encode(game, player: int) -> np.ndarray:
    pub = game.pub
    o_me, o_acting, o_unseen, o_hand, o_fd = game._fast[2]
    buf = pub.obuf.copy()
    buf[o_me + player] = 1.0
    if pub.phase != OVER:
        buf[o_acting + (0 if game.current_player == player else 1)] = 1.0
    if player == 0:
        hid = game.hid
        buf[o_hand : o_hand + 5 * NT] = hid.handbuf
        buf[o_fd : o_fd + 24 * NT] = hid.fdbuf
        buf[o_unseen : o_unseen + NT] = hid.deckbuf
    else:
        buf[o_unseen : o_unseen + NT] = pub.unseen_emp
        buf[o_unseen + D.DECOY_TYPE] = (4 - pub.up_decoys) / 4.0
    return buf


def encode_reference(game, player: int) -> np.ndarray:
    """The observation built from scratch from the state (slow; for checks)."""
    pub = game.pub
    o = game._enc
    buf = np.zeros(game.layout.size, np.float32)
    buf[o["me"] + player] = 1
    ph = pub.phase
    if ph != OVER:
        buf[o["acting"] + (0 if game.current_player == player else 1)] = 1
    buf[o["phase"] + ph] = 1
    buf[o["round"] + pub.round - 1] = 1
    buf[o["final_encounter"]] = pub.final
    buf[o["final_all_hidden"]] = pub.final_all_hidden
    buf[o["hand_size"] + pub.hand_size] = 1
    buf[o["deck_size"]] = pub.deck_size / 19.0
    if ph == ASSIGN:
        s = min(s for s in range(3) if pub.pending[s] >= 0)
        buf[o["assign_slot"] + s] = 1
    if pub.area >= 0:
        buf[o["area"] + pub.area] = 1
        for p in (pub.area, pub.area + 1):
            buf[o["area_districts"] + pub.row[p]] = 1
    if pub.blockade >= 0:
        buf[o["blockade"] + pub.blockade] = 1
    for t in range(4):
        buf[o["tokens_available"] + t] = pub.tok_avail[t]
        buf[o["token_uses"] + t] = pub.tok_uses[t] / 4.0
    for i, t in enumerate(pub.tok_used):
        buf[o["tokens_used_this_round"] + 4 * i + t] = 1
    for p, d in enumerate(pub.row):
        buf[o["row"] + 5 * p + d] = 1
    for d in pub.lib:
        buf[o["liberated"] + d] = 1
        buf[o["liberated_mission"] + D.NUM_MISSION_KINDS * d + pub.missions[pub.lib_mission[d]]] = 1
        buf[o["liberated_round"] + 8 * d + pub.lib_round[d] - 1] = 1
    for m in range(4):
        buf[o["missions"] + D.NUM_MISSION_KINDS * m + pub.missions[m]] = 1
        buf[o["mission_available"] + m] = pub.mission_avail[m]
    seen = set()
    decoys_up = 0
    for h in range(pub.n_played):
        buf[o["handle_played"] + h] = 1
        buf[o["handle_location"] + 9 * h + pub.hloc[h]] = 1
        if pub.hup[h]:
            buf[o["handle_face_up"] + h] = 1
            buf[o["handle_type"] + NT * h + pub.htype[h]] = 1
            if pub.htype[h] == D.DECOY_TYPE:
                decoys_up += 1
            else:
                seen.add(pub.htype[h])
    if game.variant_c6:
        for i, (tok, h, src, dst) in enumerate(pub.emp_log):
            base = o["empire_events"] + EVENT_WIDTH * i
            buf[base + tok] = 1
            if h >= 0:
                buf[base + 4 + h] = 1
                buf[base + 28 + src] = 1
            if dst >= 0:
                buf[base + 37 + dst] = 1
    u = o["unseen"]
    if player == 0:
        hid = game.hid
        for i, c in enumerate(hid.hand):
            buf[o["my_hand"] + NT * i + D.CARD_TYPE[c]] = 1
        for h in range(pub.n_played):
            if not pub.hup[h]:
                buf[o["my_facedown_types"] + NT * h + D.CARD_TYPE[hid.hcard[h]]] = 1
        for c in hid.deck:
            if c < D.DECOY_FIRST:
                buf[u + c] = 1
            else:
                buf[u + D.DECOY_TYPE] += 0.25
    else:
        for t in range(D.NUM_SUIT_CARDS):
            buf[u + t] = t not in seen
        buf[u + D.DECOY_TYPE] = (4 - decoys_up) / 4.0
    return buf
