"""Observation encoding: board planes over the 32x23 map plus a vector of public and
private facts, built only from what the observer may know (§6). Hunters are listed
egocentrically (the observing hunter first); agents as main, second."""

from __future__ import annotations

import numpy as np

from spyenvs.core import Layout

from . import board as B
from .belief import LAST_SEEN, SEEN
from .data import A1, A2, A2T, A3, A4, DECISIONS

PLANES = [
    ("structure", "structures (incl. objectives, compass, title block)"),
    ("road", "road cells"),
    ("escape", "escape points in use"),
    ("objective", "open objective cells the observer knows (1) or candidates (1/6, 4-5p hunters)"),
    ("completed", "completed objectives"),
    ("vehicle", "vehicle token"),
    ("hunter_0", "hunter slot 0 (the observer if a hunter), on the board"),
    ("hunter_1", "hunter slot 1"),
    ("hunter_2", "hunter slot 2"),
    ("hunter_3", "hunter slot 3"),
    ("smoke", "smoke clouds"),
    ("flash", "flash-bang tokens"),
    ("hunter_vision", "union of the hunters' current sight (public)"),
    ("sighting_main", "latest placement of the main agent: 1 seen / 0.5 last seen"),
    ("sighting_second", "latest placement of the second agent (5p)"),
    ("own_position", "the observer's own cell if it is an agent"),
    ("own_path", "cells the observing agent occupied this turn"),
]
BELIEF_PLANES = [
    ("belief_main", "cells where the main agent can be, from the observer's knowledge (§6.1)"),
    ("belief_second", "the same for the revealed second agent"),
]
ND = len(DECISIONS)
AGENT_FEATS = 5 + 5 + 1 + 1 + 2 + 1 + 8 + 1 + 1 + 10 + 2
HUNTER_FEATS = 4 + 8 + 4
PRIVATE_FEATS = 4 + 2 + 8 + 3 + 2 + 1 + 8 + 2


def build_layout(game):
    lay = Layout()
    planes = PLANES + (BELIEF_PLANES if game.config["belief_planes"] else [])
    lay.add("board", (len(planes), B.H, B.W), 0, 1, "planes: " + "; ".join(f"{n}: {d}" for n, d in planes))
    lay.add("round", 1, 0, 1, "round / 40")
    lay.add("decision", ND, 0, 1, "pending decision one-hot: " + ", ".join(DECISIONS))
    lay.add("me", 5, 0, 1, "observer is: agent, hunter, second agent, the undisclosed traitor (own knowledge), acting now")
    lay.add("traitor_seat", 4, 0, 1, "main agent only: the seat she gave the traitor card")
    lay.add("hunters", (4, HUNTER_FEATS), 0, 1,
            "per hunter slot: character one-hot, in play, riding, stunned, blind, acted, revoked, acting, exposed traitor, sniper N/E/S/W")
    lay.add("vehicle", 1, 0, 1, "vehicle allowance left / 10")
    lay.add("objectives", 5, 0, 1, "completed per section, count / 4")
    lay.add("precog", 1, 0, 1, "Pre-Cognition announced")
    lay.add("agents", (2, AGENT_FEATS), 0, 1,
            "per agent (main, second): in play, escaped, active, char-known flag, unknown; character one-hot; damage / 8; "
            "public now; sighting kind seen/last; sighting age; card uses per type; rotated uses / 4; cards / 5; "
            "sensor answer (9 dirs + no motion); Beast close / not close")
    lay.add("private", PRIVATE_FEATS, 0, 1,
            "observer's own agent: character; hp / 8, max hp / 8; charges per card type / 2; stealth, velocity, "
            "decoy used; steps / 6, max steps / 6; card used; pending card; after-move window; moved 3+")
    lay.add("hunter_turn", 3, 0, 1, "acting hunter: spaces moved / 5, walked 5, started in vehicle")
    # static planes
    static = np.zeros(lay.size, np.float32)
    board = static[lay.blocks["board"].slice].reshape(len(planes), B.N)
    board[0] = B.to_plane(B.STRUCT)
    board[1] = B.to_plane(B.ROAD)
    return lay, static


def observe(game, p):
    lay = game.layout
    obs = game._static.copy()
    blocks = lay.blocks
    nplanes = blocks["board"].shape[0]
    board = obs[blocks["board"].slice].reshape(nplanes, B.N)
    kind = game._viewer_kind(p) if game.round >= 0 else "hunter"
    nh = game.nh
    traitor_undisclosed = game._h_traitor >= 0 and not game.exposed
    me_seat = p - 1 if kind == "hunter" else -1
    slots = [(me_seat + k) % nh for k in range(nh)] if me_seat >= 0 else list(range(nh))
    board[2] = B.to_plane(game.escape_bits)
    # objectives
    obj = 0
    cand = 0
    for s in range(4):
        if s in game.completed:
            continue
        if not game.big or kind == "agent":
            obj |= 1 << game._h_obj[s]
        else:
            for o in B.OBJECTIVES[s]:
                cand |= 1 << o
    comp = 0
    for s in game.completed:
        comp |= 1 << game._h_obj[s]
    if obj:
        board[3] = B.to_plane(obj)
    if cand:
        board[3] += B.to_plane(cand) * np.float32(1 / 6)
    if comp:
        board[4] = B.to_plane(comp)
    board[5, game.vpos] = 1
    vision = 0
    for k, s in enumerate(slots):
        if game.hin[s] and not game.riding[s] and game.hpos[s] >= 0:
            board[6 + k, game.hpos[s]] = 1
        if game.hin[s] and game.round > 0:
            vision |= game._sight(s)
    if game.smoke_bits:
        board[10] = B.to_plane(game.smoke_bits)
    for t in game.flash:
        board[11, t] = 1
    if vision:
        board[12] = B.to_plane(vision)
    for a in range(2):
        pa = game.pa[a]
        if pa.sight_cell >= 0:
            board[13 + a, pa.sight_cell] = 1.0 if pa.sight_kind == SEEN else 0.5
    own = -1
    if kind == "agent":
        own = 0
    elif kind == "second":
        own = 1
    if own >= 0 and own < len(game.ag) and game.ag[own].in_play and game.round > 0:
        ag = game.ag[own]
        board[15, ag.pos] = 1
        for c in ag.path:
            board[16, c] = 1
    if nplanes > 17 and game.round > 0:
        for a in range(2):
            bel = game.bel[a]
            if bel is None or not game.pa[a].in_play:
                continue
            if own == a:
                board[17 + a, game.ag[a].pos] = 1
                continue
            keys = None
            if a == 0 and traitor_undisclosed and kind == "hunter":
                if me_seat == game._h_traitor:
                    keys = (me_seat,)
                else:
                    keys = tuple(j for j in bel.hyps if j != me_seat)
            u = bel.union(keys)
            if a == 0 and game.cur == 0 and game.dec in (A1, A2, A2T, A3, A4) and game.tr is not None:
                u &= game.tr["pre_mask"]
            if u:
                board[17 + a] = B.to_plane(u)
    # ---------------------------------------------------------------- vectors
    o = blocks["round"].start
    obs[o] = game.round / 40
    if game.actor == p:  # other seats' sub-steps stay private (C58)
        obs[blocks["decision"].start + game.dec] = 1
    o = blocks["me"].start
    obs[o + {"agent": 0, "hunter": 1, "second": 2}[kind]] = 1
    if kind == "hunter" and traitor_undisclosed and me_seat == game._h_traitor:
        obs[o + 3] = 1
    if game.actor == p and game.winner is None:
        obs[o + 4] = 1
    if kind == "agent" and game._h_traitor >= 0:
        obs[blocks["traitor_seat"].start + game._h_traitor] = 1
    o = blocks["hunters"].start
    for k, s in enumerate(slots):
        base = o + k * 16
        if game.hchar[s] >= 0:
            obs[base + game.hchar[s]] = 1
        obs[base + 4] = game.hin[s]
        obs[base + 5] = game.riding[s] and game.hin[s]
        obs[base + 6] = game.stunned[s]
        obs[base + 7] = game.blind[s]
        obs[base + 8] = game.acted[s]
        obs[base + 9] = game.revoked[s]
        obs[base + 10] = game.actor == s + 1 and game.winner is None
        obs[base + 11] = game.exposed and game._h_traitor == s
        if game.sniper[s] >= 0:
            obs[base + 12 + game.sniper[s]] = 1
    obs[blocks["vehicle"].start] = (10 - game.vused) / 10
    o = blocks["objectives"].start
    for s in game.completed:
        obs[o + s] = 1
    obs[o + 4] = len(game.completed) / 4
    obs[blocks["precog"].start] = game.precog
    o = blocks["agents"].start
    for a in range(2):
        pa = game.pa[a]
        base = o + a * AGENT_FEATS
        obs[base] = pa.in_play
        obs[base + 1] = pa.escaped
        obs[base + 2] = pa.active
        if pa.char_known >= 0:
            obs[base + 3] = 1
            obs[base + 5 + pa.char_known] = 1
        elif pa.active:
            obs[base + 4] = 1
        obs[base + 9] = min(pa.damage / 8, 1.0)
        obs[base + 10] = pa.public_now
        if pa.sight_kind == SEEN:
            obs[base + 11] = 1
        elif pa.sight_kind == LAST_SEEN:
            obs[base + 12] = 1
        if pa.sight_cell >= 0:
            obs[base + 13] = min((game.round - pa.sight_round) / 40, 1.0)
        for t in range(8):
            obs[base + 14 + t] = min(pa.uses[t] / 2, 1.0)
        obs[base + 22] = min(len(pa.rotated) / 4, 1.0)
        obs[base + 23] = pa.ncards / 5
        if pa.sensor >= 0:
            obs[base + 24 + pa.sensor] = 1
        if pa.close >= 0:
            obs[base + 34 + pa.close] = 1
    if own >= 0 and own < len(game.ag):
        ag = game.ag[own]
        base = blocks["private"].start
        if ag.char >= 0:
            obs[base + ag.char] = 1
        obs[base + 4] = max(ag.hp, 0) / 8
        obs[base + 5] = ag.maxhp / 8
        for t, ch in ag.hand:
            obs[base + 6 + t] = min(obs[base + 6 + t] + ch / 2, 1.0)
        obs[base + 14] = ag.stealth
        obs[base + 15] = ag.velocity
        obs[base + 16] = ag.holo_used
        obs[base + 17] = ag.steps / 6
        obs[base + 18] = ag.max_steps / 6
        obs[base + 19] = ag.card_used
        if ag.pending_card >= 0:
            obs[base + 20 + ag.pending_card] = 1
        obs[base + 28] = ag.window
        obs[base + 29] = ag.moved3
    ht = game.ht
    if ht is not None and game.actor == ht["seat"] + 1 and game.winner is None:
        o = blocks["hunter_turn"].start
        obs[o] = min(ht["moved"], 5) / 5
        obs[o + 1] = ht["walk5"]
        obs[o + 2] = ht["rode"]
    return obs
