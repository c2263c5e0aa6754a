"""Spy Games observation encoding (rules/spy_games.md §7, §9.3).

A flat float32 vector of named blocks, egocentric: player offsets and case colours
are given relative to the viewer (offset 0 = the viewer); unseated offsets stay zero.
The encoder reads public state from the game and, from the hidden container, only
the viewer's own hand, plans, pending allocation, face-down addition and pins.
Non-zero entries are collected as (index, value) lists and written in one go.
"""

from __future__ import annotations

from array import array

import numpy as np

from spyenvs.core import Layout

from . import data as D

NK = D.NUM_KINDS
S_OVER = D.S_OVER
PEN = D.PENALTY
P4 = D.MAX_PLAYERS


def build_layout(game) -> Layout:
    L = Layout()
    add = L.add
    add("round", 3, doc="round 1-3 one-hot")
    add("phase", 5, doc="alloc, draw, spy actions, strengthen, upkeep")
    add("stage", D.NUM_STAGES, doc="pending decision (§9.2 stage ids)")
    add("decider", P4, doc="seat offset of the player to decide")
    add("active", P4, doc="seat offset of the turn's active player P")
    add("first_player", P4, doc="seat offset of the first player")
    add("negotiation", 1, doc="1 = structured negotiation")
    add("deck_size", 1, doc="deck size / 72")
    add("discard_up", NK, 0, 2, doc="face-up discard counts per kind")
    add("discard_down", 1, doc="face-down (recalled) discard count / 72")
    add("kompromat_supply", 1, doc="kompromat cards in supply / 2")
    add("slots_left", P4, 0, 1, doc="phase-2 action slots left per player / 5")
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
    add("pick_options", P4 + P4 * D.AGENTS, doc="RAID colours (offset) and PURGE targets (owner offset, agent) on offer")
    add("str_used", 1, doc="strengthen actions used by the active player / 4")
    add("str_pending", D.AGENTS + 1, doc="spy being strengthened, and whether it is blocked")
    add("upkeep_chooser", P4, doc="fewest-tokens player choosing the first player")
    if game.config["pins_block"]:
        add("pins", (P4 - 1, NK), 0, 2, doc="card kinds the viewer knows to be in each other hand (§9.5)")
    assert L.blocks["vp"].start + P4 - L.blocks["alloc_chosen"].start == 68, "player blocks must be contiguous"
    return L


class _Starts:
    """Block start offsets as attributes (faster than dict lookups per step)."""

    def __init__(self, layout):
        for name, b in layout.blocks.items():
            setattr(self, name, b.start)
        self.size = layout.size
        self.has_pins = "pins" in layout.blocks
        self.zeros = array("f", bytes(4 * layout.size))
        self.view_of = self.view = None  # see _pub_view
        last = layout.blocks["agent_known_scout"]
        self.seg_end = last.start + last.size
        seg0 = self.seg_start = layout.blocks["negotiation"].start
        for attr, name in (("r_neg", "negotiation"), ("r_deck", "deck_size"), ("r_disc", "discard_up"),
                           ("r_down", "discard_down"), ("r_ksup", "kompromat_supply"), ("r_slots", "slots_left"),
                           ("r_alloc", "alloc_chosen"), ("r_zones", "zones"), ("r_init", "initial"),
                           ("r_pen", "penalty"), ("r_base", "base"), ("r_rem", "removed"), ("r_hand", "hand_size"),
                           ("r_komp", "kompromat"), ("r_imm", "immune"), ("r_vp", "vp"),
                           ("r_aplay", "agent_in_play"), ("r_aowner", "agent_zone_owner"), ("r_azone", "agent_zone"),
                           ("r_acases", "agent_cases"), ("r_astr", "agent_strengthened"),
                           ("r_aks", "agent_known_scout")):
            setattr(self, attr, layout.blocks[name].start - seg0)

    def __getstate__(self):
        # the memoised numpy view of a game's pub must not travel: unpickled, it would be
        # a copy that no longer follows pub
        state = self.__dict__.copy()
        state["view_of"] = state["view"] = None
        return state


#: blocks of the cached public segment and which of their axes are player axes
SEGMENT = (
    ("negotiation", ()), ("deck_size", ()), ("discard_up", ()), ("discard_down", ()), ("kompromat_supply", ()),
    ("slots_left", (0,)), ("alloc_chosen", (0,)), ("zones", (0,)), ("initial", (0,)), ("penalty", (0,)),
    ("base", (0, 1)), ("removed", (0,)), ("hand_size", (0,)), ("kompromat", (0,)), ("immune", (0,)),
    ("vp", (0,)), ("agent_in_play", (0,)), ("agent_zone_owner", (0, 2)), ("agent_zone", (0,)),
    ("agent_cases", (0,)), ("agent_strengthened", (0,)), ("agent_known_scout", (0,)),
)
_PERMS: dict = {}


def _perm(g, v: int) -> np.ndarray:
    """Index array turning the absolute (seat-0) public segment into viewer v's egocentric one;
    positions of unseated offsets read the trailing zero."""
    key = (g.n, v)
    perm = _PERMS.get(key)
    if perm is not None:
        return perm
    n = g.n
    lay = g.layout.blocks
    seg0 = lay[SEGMENT[0][0]].start
    size = g._starts.seg_end - seg0
    out = np.empty(size, np.intp)
    for name, axes in SEGMENT:
        b = lay[name]
        for flat in range(b.size):
            ix = list(np.unravel_index(flat, b.shape))
            src = list(ix)
            zero = False
            for ax in axes:
                if ix[ax] >= n:
                    zero = True
                src[ax] = (ix[ax] + v) % n if ix[ax] < n else 0
            pos = b.start - seg0 + flat
            out[pos] = size if zero else b.start - seg0 + int(np.ravel_multi_index(src, b.shape))
    _PERMS[key] = out
    return out


def _segment_fresh(g) -> array:
    """The public segment recomputed from scratch in absolute seat order, as float32
    (reference for the incrementally maintained ``g.pub``; check_invariants compares
    the two). Plain list writes: this runs at every step of the fuzz tests."""
    S = g._starts
    n = g.n
    out = [0.0] * (S.seg_end - S.seg_start + 1)
    if g.structured:
        out[S.r_neg] = 1.0
    out[S.r_deck] = len(g.h.deck) / 72.0
    out[S.r_disc:S.r_disc + NK] = g.disc_up
    out[S.r_down] = len(g.h.disc_down) / 72.0
    out[S.r_ksup] = g.komp_supply / 2.0
    spy = g.phase == 2
    done = g.alloc_done
    r_aplay, r_aowner, r_azone, r_acases, r_astr, r_aks = S.r_aplay, S.r_aowner, S.r_azone, S.r_acases, S.r_astr, S.r_aks
    for q in range(n):
        if spy:
            out[S.r_slots + q] = g.slots_left(q) / 5.0
        if g.alloc_chosen[q]:
            out[S.r_alloc + q] = 1.0
        zq = g.zone[q]
        b = S.r_zones + 3 * q
        out[b:b + 3] = [z / 10.0 for z in zq]
        pen = 0
        if done:
            iq = g.init[q]
            b = S.r_init + 3 * q
            out[b:b + 3] = [z / 10.0 for z in iq]
            pen = PEN[iq[0]][zq[0]] + PEN[iq[1]][zq[1]] + PEN[iq[2]][zq[2]]
        out[S.r_pen + q] = pen / 48.0
        bq = g.base[q]
        b = S.r_base + 4 * q
        out[b:b + n] = [x / 24.0 for x in bq]
        out[S.r_rem + q] = g.removed[q] / 24.0
        out[S.r_hand + q] = g.hsize[q] / 72.0
        if g.komp[q]:
            out[S.r_komp + q] = 1.0
        if g.immune[q]:
            out[S.r_imm + q] = 1.0
        out[S.r_vp + q] = (zq[0] + zq[1] + zq[2] + 3 * sum(bq) - 2 * bq[q] - pen) / 100.0
        locs = g.spy_loc[q]
        for j in range(5):
            loc = locs[j]
            if loc >= 0:
                aj = 5 * q + j
                out[r_aplay + aj] = 1.0
                out[r_aowner + 4 * aj + loc // 3] = 1.0
                out[r_azone + 3 * aj + loc % 3] = 1.0
                out[r_acases + aj] = g.spy_c[q][j] / 4.0
                if g.spy_str[q][j]:
                    out[r_astr + aj] = 1.0
                if g.spy_ks[q][j]:
                    out[r_aks + aj] = 1.0
    return array("f", out)


def _pub_view(g, S) -> np.ndarray:
    """float32 numpy view of ``g.pub``, memoised on the shared _Starts by identity (a view
    is never stored on the game, so pickling and clones stay independent)."""
    pub = g.pub
    if S.view_of is not pub:
        S.view_of = pub
        S.view = np.frombuffer(pub, np.float32)
    return S.view


def encode(g, v: int) -> np.ndarray:
    S = g._starts
    n = g.n
    h = g.h
    # one-hots and scalars go into a fresh array.array (cheap item writes, inlined: a
    # helper call per entry cost more than the write); the own hand is copied in as an
    # array slice and the public segment gathered through a numpy view of the buffer
    buf = S.zeros[:]
    st = g.stage
    over = st == S_OVER
    buf[S.round + g.round] = 1.0
    if g.phase < 5:
        buf[S.phase + g.phase] = 1.0
    if not over:
        buf[S.stage + st] = 1.0
        buf[S.decider + (g.decider - v) % n] = 1.0
        buf[S.active + (g.active - v) % n] = 1.0
    buf[S.first_player + (g.first - v) % n] = 1.0
    b = S.own_plans
    for kind in h.plans[v]:
        if kind >= 0:
            buf[b + kind] = 1.0
        b += NK
    if h.alloc[v] >= 0:
        buf[S.own_alloc + h.alloc[v]] = 1.0
    if g.decl:
        buf[S.decl_type + g.decl - 1] = 1.0
        buf[S.decl_target + (g.decl_target - v) % n] = 1.0
        buf[S.decl_zone + g.decl_k] = 1.0
        if g.decl_j >= 0:
            buf[S.decl_agent + g.decl_j] = 1.0
        if g.decl_owner >= 0:
            buf[S.decl_spy_owner + (g.decl_owner - v) % n] = 1.0
        if g.offer is not None:
            kind, a, src = g.offer
            b = S.buyout_offer
            buf[b + kind - 1] = 1.0
            buf[b + 2 + a] = 1.0
            if src >= 0:
                buf[b + 6 + src] = 1.0
    if g.cf_on:
        _encode_conf(g, v, n, h, S, buf)
    if g.res_on:
        buf[S.res_on] = 1.0
        buf[S.res_kind + (0 if g.res_kind == D.D_MISSION else 1)] = 1.0
        buf[S.res_plan + g.res_plan] = 1.0
        buf[S.res_level + min(max(g.res_level, 0), D.MAX_LEVEL)] = 1.0
        b = S.res_spy
        buf[b + (g.res_A - v) % n] = 1.0
        buf[b + 4 + (g.res_B - v) % n] = 1.0
        buf[b + 8 + g.res_k] = 1.0
        buf[b + 11 + g.res_j] = 1.0
        buf[S.res_picks_left] = g.res_left / 4.0
        if st == D.S_RAID:
            bb = g.base[g.res_B]
            for c in range(n):
                if bb[c]:
                    buf[S.pick_options + (c - v) % n] = 1.0
        elif st == D.S_PURGE:
            for w, j in g._others_spies_in(g.res_B * 3 + g.res_k, g.res_A):
                buf[S.pick_options + 4 + 5 * ((w - v) % n) + j] = 1.0
    if g.phase == 3:
        buf[S.str_used] = g.s_used / 4.0
        if g.s_j >= 0:
            buf[S.str_pending + g.s_j] = 1.0
            if g.s_block:
                buf[S.str_pending + D.AGENTS] = 1.0
    if g.upkeep_F >= 0 and not over:
        buf[S.upkeep_chooser + (g.upkeep_F - v) % n] = 1.0
    if S.has_pins and any(h.pins[v]):  # usually nobody's hand is pinned
        pv = h.pins[v]
        for i in range(1, n):
            row = pv[(v + i) % n]
            if row:
                b = S.pins + NK * (i - 1)
                for k, c in row.items():
                    buf[b + k] = c
    buf[S.own_hand:S.own_hand + NK] = h.hf[v]
    obs = np.frombuffer(buf, np.float32)
    obs[S.seg_start:S.seg_end] = _pub_view(g, S)[S.perms[v]]
    return obs


def _encode_conf(g, v, n, h, S, buf) -> None:
    """The confrontation blocks (only while one runs)."""
    buf[S.conf_on] = 1.0
    buf[S.conf_kind + (0 if g.cf_kind == D.D_MISSION else 1)] = 1.0
    buf[S.conf_I + (g.cf_I - v) % n] = 1.0
    buf[S.conf_D + (g.cf_D - v) % n] = 1.0
    if g.cf_ref >= 0:
        buf[S.conf_referee + (g.cf_ref - v) % n] = 1.0
    buf[S.conf_fixer + g.cf_fix] = 1.0
    buf[S.conf_zone_suit + g.cf_k] = 1.0
    for c in g.cf_cands:
        buf[S.conf_candidates + c] = 1.0
    if g.cf_trump2 >= 0:
        buf[S.conf_trump2 + g.cf_trump2] = 1.0
    for x in range(2):
        kind = g.cf_up[x]
        buf[S.conf_face_up + (NK + 1) * x + (kind if kind >= 0 else NK)] = 1.0
        if g.cf_added[x]:
            buf[S.conf_added + x] = 1.0
        if g.cf_addrev[x] >= 0:
            buf[S.conf_added_kinds + NK * x + g.cf_addrev[x]] = 1.0
        if g.cf_kplay[x]:
            buf[S.conf_kompromat_played + x] = 1.0
        off_x = g.cf_offer[x]
        if off_x is not None:
            cand, a, src = off_x
            bo = S.conf_offers + 12 * x
            buf[bo + cand] = 1.0
            buf[bo + 1 + a] = 1.0
            buf[bo + 5 + src] = 1.0
    if g.cf_revealed:
        buf[S.conf_revealed] = 1.0
        buf[S.conf_totals] = g.cf_total[0] / 10.0
        buf[S.conf_totals + 1] = g.cf_total[1] / 10.0
        buf[S.conf_a1] = g.cf_a1[0] / 3.0
        buf[S.conf_a1 + 1] = g.cf_a1[1] / 3.0
    else:
        if g.cf_I == v and h.add[0] >= 0:
            buf[S.my_added_card + h.add[0]] = 1.0
        if g.cf_D == v and h.add[1] >= 0:
            buf[S.my_added_card + h.add[1]] = 1.0
    if g.cf_pledge >= 0:
        buf[S.conf_pledge + g.cf_pledge] = 1.0
