"""Spy Games observation encoding (rules/spy_games.md §7, §9.3).

A flat float32 vector of named blocks, egocentric: player offsets and case colours
are given relative to the viewer (offset 0 = the viewer); unseated offsets stay zero.
The encoder reads public state from the game and, from the hidden container, only
the viewer's own hand, plans, pending allocation, face-down addition and pins.
Non-zero entries are collected as (index, value) lists and written in one go.
"""

from __future__ import annotations

import numpy as np

from spyenvs.core import Layout

from . import data as D

NK = D.NUM_KINDS
P4 = D.MAX_PLAYERS


def build_layout(game):
    L = Layout()
    add = L.add
    add("round", 3, doc="round 1-3 one-hot")
    add("phase", 5, doc="alloc, draw, spy actions, strengthen, upkeep")
    add("stage", D.NUM_STAGES, doc="pending decision (§9.2 stage ids)")
    add("decider", P4, doc="seat offset of the player to decide")
    add("active", P4, doc="seat offset of the turn's active player P")
    add("first_player", P4, doc="seat offset of the first player")
    add("slots_left", P4, 0, 1, doc="phase-2 action slots left per player / 5")
    add("negotiation", 1, doc="1 = structured negotiation")
    add("deck_size", 1, doc="deck size / 72")
    add("discard_up", NK, 0, 2, doc="face-up discard counts per kind")
    add("discard_down", 1, doc="face-down (recalled) discard count / 72")
    add("kompromat_supply", 1, doc="kompromat cards in supply / 2")
    add("alloc_chosen", P4, doc="player has chosen the allocation")
    add("zones", (P4, 3), doc="cases per zone / 10")
    add("initial", (P4, 3), doc="initial cases per zone / 10 (zero until revealed)")
    add("penalty", P4, doc="penalty so far / 48")
    add("base", (P4, P4), doc="cases in each player's base by colour offset from the viewer / 24")
    add("removed", P4, doc="cases removed from the game per colour offset / 24")
    add("hand_size", P4, doc="hand size / 72")
    add("kompromat", P4, doc="holds kompromat")
    add("immune", P4, doc="immune this turn (accepted buyout)")
    add("vp", P4, -2, 4, doc="current VP / 100")
    add("agent_in_play", (P4, D.AGENTS), doc="agent pair j of player offset i is in play")
    add("agent_zone_owner", (P4, D.AGENTS, P4), doc="seat offset of the zone owner where the spy sits")
    add("agent_zone", (P4, D.AGENTS, 3), doc="zone index where the spy sits")
    add("agent_cases", (P4, D.AGENTS), doc="cases on the spy / 4")
    add("agent_strengthened", (P4, D.AGENTS), doc="strengthened this round")
    add("agent_known_scout", (P4, D.AGENTS), doc="public known-Scout flag (§4.2)")
    add("own_plans", (D.AGENTS, NK), doc="plan kind under each own spy")
    add("own_hand", NK, 0, 2, doc="own hand counts per kind")
    add("own_alloc", 6, doc="own allocation choice while unrevealed")
    add("decl_type", 3, doc="declared action: infiltrate, mission, expose")
    add("decl_target", P4, doc="targeted player (offset)")
    add("decl_zone", 3, doc="zone of the declaration")
    add("decl_agent", D.AGENTS, doc="agent number of the declaration")
    add("decl_spy_owner", P4, doc="owner of the spy concerned (offset)")
    add("buyout_offer", 3 + 3 + D.NUM_SOURCES, doc="offer on the table: kind, amount, source")
    add("conf_on", 1, doc="a confrontation is running")
    add("conf_kind", 2, doc="mission / exposure")
    add("conf_I", P4, doc="initiator (offset)")
    add("conf_D", P4, doc="defender (offset)")
    add("conf_referee", P4, doc="referee (offset); zero with 2 players")
    add("conf_fixer", 3, doc="Fixer take-over: none, referee, defender")
    add("conf_zone_suit", 3)
    add("conf_candidates", 3, doc="candidate second-trump suits")
    add("conf_trump2", 3, doc="chosen second trump")
    add("conf_face_up", (2, NK + 1), doc="face-up card of I and D (last column: none)")
    add("conf_added", 2, doc="I / D added a face-down card")
    add("conf_revealed", 1)
    add("conf_added_kinds", (2, NK), doc="revealed added cards")
    add("my_added_card", NK, doc="own face-down addition (private until the reveal)")
    add("conf_totals", 2, -1, 2, doc="totals / 10 after the reveal")
    add("conf_a1", 2, -1, 1, doc="Agent 1 modifiers / 3")
    add("conf_kompromat_played", 2)
    add("conf_pledge", 2, doc="tie pledged to I / D")
    add("conf_offers", (2, 2 + 3 + D.NUM_SOURCES), doc="referee offers of I, D: candidate, amount, source")
    add("res_on", 1, doc="a mission or exposure is resolving")
    add("res_kind", 2, doc="mission / exposure resolution")
    add("res_plan", NK, doc="revealed plan of the resolving spy")
    add("res_level", D.MAX_LEVEL + 1, doc="level L (after Agent 4 answers so far, clamped)")
    add("res_spy", P4 + P4 + 3 + D.AGENTS, doc="spy owner A, zone owner B, zone, agent")
    add("res_picks_left", 1, doc="RAID picks left / 4")
    add("str_used", 1, doc="strengthen actions used by the active player / 4")
    add("str_pending", D.AGENTS + 1, doc="spy being strengthened, and whether it is blocked")
    add("upkeep_chooser", P4, doc="fewest-tokens player choosing the first player")
    if game.config["pins_block"]:
        add("pins", (P4 - 1, NK), 0, 2, doc="card kinds the viewer knows to be in each other hand (§9.5)")
    return L, L.slices()


def encode(g, v: int) -> np.ndarray:
    s = g._slices
    n = g.n
    h = g.h
    idx: list[int] = []
    val: list[float] = []
    I = idx.append
    V = val.append

    def one(name, i):
        I(s[name].start + i)
        V(1.0)

    def put(pos, x):
        if x:
            I(pos)
            V(x)

    def off(q):
        return (q - v) % n

    st = g.stage
    over = st == D.S_OVER
    one("round", g.round)
    ph = g.phase
    if ph < 5:
        one("phase", ph)
    if not over:
        one("stage", st)
        one("decider", off(g.decider))
        one("active", off(g.active))
    one("first_player", off(g.first))
    b = s["slots_left"].start
    for q in range(n):
        put(b + off(q), g.slots_left(q) / 5.0)
    if g.structured:
        one("negotiation", 0)
    put(s["deck_size"].start, len(h.deck) / 72.0)
    b = s["discard_up"].start
    for k, c in enumerate(g.disc_up):
        if c:
            I(b + k)
            V(float(c))
    put(s["discard_down"].start, len(h.disc_down) / 72.0)
    put(s["kompromat_supply"].start, g.komp_supply / 2.0)

    bz, bi, bp, bb, br, bh, bk, bim, bv, ba = (
        s[x].start for x in ("zones", "initial", "penalty", "base", "removed", "hand_size", "kompromat", "immune",
                             "vp", "alloc_chosen"))
    bip, bzo, bzn, bca, bst, bks = (
        s[x].start for x in ("agent_in_play", "agent_zone_owner", "agent_zone", "agent_cases",
                             "agent_strengthened", "agent_known_scout"))
    for q in range(n):
        i = off(q)
        if g.alloc_chosen[q]:
            I(ba + i)
            V(1.0)
        z = g.zone[q]
        for k in range(3):
            put(bz + 3 * i + k, z[k] / 10.0)
            if g.alloc_done:
                put(bi + 3 * i + k, g.init[q][k] / 10.0)
        put(bp + i, g.penalty(q) / 48.0)
        bq = g.base[q]
        for c in range(n):
            put(bb + 4 * i + off(c), bq[c] / 24.0)
        put(br + i, g.removed[q] / 24.0)
        put(bh + i, g.hsize[q] / 72.0)
        if g.komp[q]:
            I(bk + i)
            V(1.0)
        if g.immune[q]:
            I(bim + i)
            V(1.0)
        put(bv + i, g.vp(q) / 100.0)
        locs = g.spy_loc[q]
        for j in range(D.AGENTS):
            loc = locs[j]
            if loc >= 0:
                aj = 5 * i + j
                I(bip + aj)
                V(1.0)
                I(bzo + 4 * aj + off(loc // 3))
                V(1.0)
                I(bzn + 3 * aj + loc % 3)
                V(1.0)
                put(bca + aj, g.spy_c[q][j] / 4.0)
                if g.spy_str[q][j]:
                    I(bst + aj)
                    V(1.0)
                if g.spy_ks[q][j]:
                    I(bks + aj)
                    V(1.0)
    b = s["own_plans"].start
    for j, kind in enumerate(h.plans[v]):
        if kind >= 0:
            I(b + NK * j + kind)
            V(1.0)
    b = s["own_hand"].start
    for k, c in enumerate(h.hands[v]):
        if c:
            I(b + k)
            V(float(c))
    if h.alloc[v] >= 0:
        one("own_alloc", h.alloc[v])
    if g.decl:
        one("decl_type", g.decl - 1)
        one("decl_target", off(g.decl_target))
        one("decl_zone", g.decl_k)
        if g.decl_j >= 0:
            one("decl_agent", g.decl_j)
        if g.decl_owner >= 0:
            one("decl_spy_owner", off(g.decl_owner))
        if g.offer is not None:
            kind, a, src = g.offer
            one("buyout_offer", kind - 1)
            one("buyout_offer", 3 + a - 1)
            if src >= 0:
                one("buyout_offer", 6 + src)
    if g.cf_on:
        one("conf_on", 0)
        one("conf_kind", 0 if g.cf_kind == D.D_MISSION else 1)
        one("conf_I", off(g.cf_I))
        one("conf_D", off(g.cf_D))
        if g.cf_ref >= 0:
            one("conf_referee", off(g.cf_ref))
        one("conf_fixer", g.cf_fix)
        one("conf_zone_suit", g.cf_k)
        for c in g.cf_cands:
            one("conf_candidates", c)
        if g.cf_trump2 >= 0:
            one("conf_trump2", g.cf_trump2)
        b = s["conf_face_up"].start
        for x in range(2):
            kind = g.cf_up[x]
            I(b + (NK + 1) * x + (kind if kind >= 0 else NK))
            V(1.0)
            if g.cf_added[x]:
                one("conf_added", x)
            if g.cf_addrev[x] >= 0:
                one("conf_added_kinds", NK * x + g.cf_addrev[x])
            if g.cf_kplay[x]:
                one("conf_kompromat_played", x)
            off_x = g.cf_offer[x]
            if off_x is not None:
                cand, a, src = off_x
                bo = s["conf_offers"].start + 12 * x
                for pos in (cand, 2 + a - 1, 5 + src):
                    I(bo + pos)
                    V(1.0)
        if g.cf_revealed:
            one("conf_revealed", 0)
            b = s["conf_totals"].start
            put(b, g.cf_total[0] / 10.0)
            put(b + 1, g.cf_total[1] / 10.0)
            b = s["conf_a1"].start
            put(b, g.cf_a1[0] / 3.0)
            put(b + 1, g.cf_a1[1] / 3.0)
        else:
            for x, w in enumerate((g.cf_I, g.cf_D)):
                if w == v and h.add[x] >= 0:
                    one("my_added_card", h.add[x])
        if g.cf_pledge >= 0:
            one("conf_pledge", g.cf_pledge)
    if g.res_on:
        one("res_on", 0)
        one("res_kind", 0 if g.res_kind == D.D_MISSION else 1)
        one("res_plan", g.res_plan)
        one("res_level", min(max(g.res_level, 0), D.MAX_LEVEL))
        b = s["res_spy"].start
        for pos in (off(g.res_A), 4 + off(g.res_B), 8 + g.res_k, 11 + g.res_j):
            I(b + pos)
            V(1.0)
        put(s["res_picks_left"].start, g.res_left / 4.0)
    if g.phase == 3:
        put(s["str_used"].start, g.s_used / 4.0)
        if g.s_j >= 0:
            one("str_pending", g.s_j)
            if g.s_block:
                one("str_pending", D.AGENTS)
    if g.upkeep_F >= 0 and not over:
        one("upkeep_chooser", off(g.upkeep_F))
    if "pins" in s:
        b = s["pins"].start
        pv = h.pins[v]
        for q in range(n):
            if q != v:
                row = pv[q]
                bq = b + NK * (off(q) - 1)
                for k in range(NK):
                    if row[k]:
                        I(bq + k)
                        V(float(row[k]))
    obs = np.zeros(g.layout.size, np.float32)
    obs[idx] = val
    return obs
