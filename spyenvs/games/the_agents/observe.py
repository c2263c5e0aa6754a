"""Observation layout and encoder for The Agents (rules file 6, "Recommended
observation"). Egocentric: seats are relative to the viewer (0 = viewer) and factions
are rotated so that faction 0 is the one the viewer shares with the next seat
(N >= 3; at N = 2 both factions keep their canonical index). Positions inside a
faction stay canonical (left to right as seen by its first member), as the actions
use them; ``my_seat`` gives the absolute seat so canonical actions can be mapped.

Only public state, the viewer's own hand, the viewer's pins K_v(q) and the viewer's
private decision view (Interrogator / Tracker) are read.
"""

from __future__ import annotations

from array import array

import numpy as np

from spyenvs.core import Layout

from . import data as D
from . import rules as R

NA = D.NUM_AGENT_TYPES
N_FTYPES = len(D.FACTION_TYPES)
WIN = float(D.WIN_IP)
SLOT_FEATURES = 2 + N_FTYPES + 2  # present, dead, faction type, cmd to first / second member


def build_layout(g) -> Layout:
    n, nf, cap, nm = g.N, g.nf, g.cap, g.n_mtypes
    L = Layout()
    # --- the pending decision and the resolution stack (rebuilt every step)
    L.add("decision", len(R.DECISIONS), doc="one-hot pending decision kind (8)")
    L.add("decider", n, doc="relative seat of the player deciding now")
    L.add("active", n, doc="relative seat of the active player")
    L.add("executor", n, doc="executor of the command being resolved (if any)")
    L.add("actions_left", 1, 0, 2, "top-level actions left this turn")
    L.add("window_ops", 1, 0, R.MAX_FREE_OPS, "free mission operations used in this window (C48)")
    L.add("barred", n, doc="players barred by EMERGENCY_DRAW this turn (C45)")
    L.add("bonus_contexts", (2, n + 1), 0, 1, "open Mercenary contexts: actor one-hot, counter")
    L.add("chosen_step", 12, doc="step type chosen in the pending action")
    L.add("chosen_agent", NA, doc="agent card chosen in the pending action")
    L.add("chosen_mission", nm, doc="mission chosen for ATTACH")
    L.add("chosen_faction", nf, doc="faction chosen (rotated)")
    L.add("chosen_facing", n, doc="whom the chosen orientation's command faces")
    L.add("chosen_partner", n, doc="Free Agent partner chosen")
    L.add("source", (nf, cap), doc="source card of the command being resolved")
    L.add("chain", (nf, cap), doc="cards already in the current chain (C22)")
    L.add("first_target", (nf, cap), doc="first target chosen (Decoy, Activist, Medic)")
    L.add("first_target_type", NA, doc="type of the revealed Medic target")
    L.add("command_type", NA, doc="card whose command is being resolved")
    L.add("interrogated", n, doc="seat chosen by the Interrogator")
    L.add("strategist_target", n, doc="target of the Strategist")
    L.add("mhg_type", len(D.MHG_ELIGIBLE), doc="type asked in the Moral High Ground reveal")
    L.add("mhg_revealed", 1, 0, 12, "cards revealed this turn")
    L.add("transit", (3, NA + n), doc="Free Agents in transit: type, IP recipient")
    L.add("private_view", NA, 0, D.AGENT_COPIES, "Interrogator: target's agent cards; Tracker: deck")
    L.add("start_seat", n, doc="relative seat of the start player")
    L.add("turn_progress", 1, doc="player-turns played / max_turns")
    # --- static per viewer
    L.add("my_seat", n, doc="absolute seat of the viewer")
    L.add("faction_members", (nf, 2, n), doc="relative seats of each faction's first/second member")
    # --- the table (cached per board version)
    L.add("board", (nf, cap, SLOT_FEATURES), doc="factions: present, dead, type, cmd to 1st/2nd member")
    L.add("arrow_points", (nf, 2), 0, 2 * (cap - 1), "arrow points facing the first/second member")
    L.add("attached", (nf, 2, 2, nm), doc="attached missions per member and slot")
    # --- cards and IP (cached per card version)
    L.add("ip", n, 0, 3, "IP / 40 (clipped at 3)")
    L.add("reached_goal", n, doc="players who reached 40 IP (equal_turns)")
    L.add("hand_agents", NA, 0, D.AGENT_COPIES, "own agent cards by type")
    L.add("hand_missions", nm, 0, D.MISSION_COPIES, "own missions by type")
    L.add("hand_sizes", (n - 1, 2), 0, 36, "other players' agent and mission card counts")
    L.add("pins_agents", (n - 1, NA), 0, D.AGENT_COPIES, "agent cards known in others' hands")
    L.add("pins_missions", (n - 1, nm), 0, D.MISSION_COPIES, "missions known in others' hands")
    L.add("deck_sizes", 2, 0, 1, "agent / mission draw deck size, as fraction of all cards")
    L.add("retired_agents", NA, 0, D.AGENT_COPIES, "agent retired pile by type")
    L.add("retired_missions", nm, 0, D.MISSION_COPIES, "mission retired pile by type")
    L.add("retired_top_agent", NA, doc="top card of the agent retired pile")
    L.add("retired_top_mission", nm, doc="top card of the mission retired pile")
    return L


class Encoder:
    """Precomputed offsets and two caches: the table segment by (viewer, board
    version) and the cards segment by (viewer, card version); versions are globally
    unique stamps the rules bump on every change (``rules.VERSIONS``).
    ``encode(g, v)`` returns a fresh float32 vector."""

    def __init__(self, g):
        self.L = g.layout
        s = {k: b.start for k, b in self.L.blocks.items()}
        self.s = s
        n, nf = g.N, g.nf
        self.size = self.L.size
        self.rot = [[(f - v) % nf if n > 2 else f for f in range(nf)] for v in range(n)]
        self.templates = []
        for v in range(n):
            t = array("f", bytes(4 * self.size))
            t[s["my_seat"] + v] = 1.0
            for f in range(nf):
                rf = self.rot[v][f]
                for k in (0, 1):
                    t[s["faction_members"] + (rf * 2 + k) * n + (g.members[f][k] - v) % n] = 1.0
            self.templates.append(t)
        self.ftype_index = {t: i for i, t in enumerate(D.FACTION_TYPES)}
        self.show_dead = g.config["dead_identities_visible"]
        self.b0 = s["board"]
        self.b1 = s["ip"]
        self.c0 = s["ip"]
        self.c1 = self.size
        self.bcache = {}
        self.ccache = {}
        self.fcache = {}
        self.kcache = {}
        c0 = self.c0
        nm = g.n_mtypes
        self.coffs = []
        for v in range(n):
            others = [((v + k) % n, s["hand_sizes"] - c0 + (k - 1) * 2, s["pins_agents"] - c0 + (k - 1) * NA,
                       s["pins_missions"] - c0 + (k - 1) * nm) for k in range(1, n)]
            self.coffs.append(tuple(s[b] - c0 for b in (
                "ip", "reached_goal", "hand_agents", "hand_missions", "deck_sizes", "retired_agents",
                "retired_missions", "retired_top_agent", "retired_top_mission")) + (others,))

    def __getstate__(self):
        # caches are a pure speed-up: keep them out of pickles (state snapshots)
        d = dict(self.__dict__)
        d["bcache"] = {}
        d["ccache"] = {}
        d["fcache"] = {}
        d["kcache"] = {}
        return d

    def faction_entry(self, g, f):
        """(board, arrow points, attached) sub-segments of faction f, cached by content
        (they do not depend on the viewer, only where they go does)."""
        row = g.fac[f]
        A = g.att[f]
        key = (f, tuple(row), tuple(A[0]), tuple(A[1]))
        ent = self.fcache.get(key)
        if ent is not None:
            return ent
        if len(self.fcache) > 20000:
            self.fcache.clear()
        cap, nm = g.cap, g.n_mtypes
        fti = self.ftype_index
        board = array("f", bytes(4 * cap * SLOT_FEATURES))
        a = g.members[f][0]
        for i, c in enumerate(row):
            base = i * SLOT_FEATURES
            board[base] = 1.0
            if c[1] < 0:
                board[base + 1] = 1.0
                if self.show_dead:
                    board[base + 2 + fti[c[0] >> 1]] = 1.0
            else:
                board[base + 2 + fti[c[0] >> 1]] = 1.0
                board[base + 2 + N_FTYPES + (0 if c[1] == a else 1)] = 1.0
        pa, pb, _, _ = g.arrows(f) if len(row) > 1 else (0, 0, 0, 0)
        att = array("f", bytes(4 * 4 * nm))
        for m in (0, 1):
            for sl, c in enumerate(A[m]):
                att[(m * 2 + sl) * nm + (c >> 1)] = 1.0
        ent = self.fcache[key] = (board, array("f", (pa, pb)), att)
        return ent

    def table_segment(self, g, v):
        """board, arrow_points and attached blocks for viewer v."""
        s = self.s
        b0 = self.b0
        seg = array("f", bytes(4 * (self.b1 - b0)))
        rot = self.rot[v]
        BS = g.cap * SLOT_FEATURES
        AS = 4 * g.n_mtypes
        ob = s["board"] - b0
        oa = s["arrow_points"] - b0
        om = s["attached"] - b0
        for f in range(g.nf):
            if not g.fac[f]:
                continue
            board, arrows, att = self.faction_entry(g, f)
            rf = rot[f]
            seg[ob + rf * BS:ob + (rf + 1) * BS] = board
            seg[oa + rf * 2:oa + rf * 2 + 2] = arrows
            seg[om + rf * AS:om + (rf + 1) * AS] = att
        return seg

    def _counts(self, cards, width, tags=None):
        """array('f') of per-type counts of a tuple of card ids (only those with a
        KNOWN tag when ``tags`` is given), cached by content."""
        key = (width, cards, tags)
        out = self.kcache.get(key)
        if out is None:
            if len(self.kcache) > 50000:
                self.kcache.clear()
            out = array("f", bytes(4 * width))
            if tags is None:
                for c in cards:
                    out[c >> 1] += 1
            else:
                for c, t in zip(cards, tags):
                    if t < 0:
                        out[c >> 1] += 1
            self.kcache[key] = out
        return out

    def cards_segment(self, g, v):
        """ip .. retired_top_mission blocks for viewer v."""
        o_ip, o_goal, o_ha, o_hm, o_deck, o_ra, o_rm, o_rta, o_rtm, others = self.coffs[v]
        nm = g.n_mtypes
        seg = array("f", bytes(4 * (self.c1 - self.c0)))
        ip = g.ip
        n = g.N
        for k in range(n):
            x = ip[(v + k) % n]
            seg[o_ip + k] = x / WIN if x < 3 * WIN else 3.0
        for q in g.reached:
            seg[o_goal + (q - v) % n] = 1.0
        counts = self._counts
        seg[o_ha:o_ha + NA] = counts(tuple(g.hand_a[v]), NA)
        seg[o_hm:o_hm + nm] = counts(tuple(g.hand_m[v]), nm)
        ta = g.tag_a[v].__getitem__
        tm = g.tag_m[v].__getitem__
        hand_a, hand_m = g.hand_a, g.hand_m
        for q, o_size, o_pa, o_pm in others:
            h = hand_a[q]
            if h:
                seg[o_size] = len(h)
                h = tuple(h)
                seg[o_pa:o_pa + NA] = counts(h, NA, tuple(map(ta, h)))
            h = hand_m[q]
            if h:
                seg[o_size + 1] = len(h)
                h = tuple(h)
                seg[o_pm:o_pm + nm] = counts(h, nm, tuple(map(tm, h)))
        seg[o_deck] = len(g.deck_a) / g.n_agents
        seg[o_deck + 1] = len(g.deck_m) / g.n_missions
        if g.ret_a:
            seg[o_ra:o_ra + NA] = counts(tuple(g.ret_a), NA)
            seg[o_rta + (g.ret_a[-1] >> 1)] = 1.0
        if g.ret_m:
            seg[o_rm:o_rm + nm] = counts(tuple(g.ret_m), nm)
            seg[o_rtm + (g.ret_m[-1] >> 1)] = 1.0
        return seg

    def encode(self, g, v, cached=True):
        s = self.s
        n, cap = g.N, g.cap
        rot = self.rot[v]
        buf = self.templates[v][:]
        # table and cards: cached segments
        if cached:
            key = (v, g.bv)
            seg = self.bcache.get(key)
            if seg is None:
                if len(self.bcache) > 20000:
                    self.bcache.clear()
                seg = self.bcache[key] = self.table_segment(g, v)
            buf[self.b0:self.b1] = seg
            key = (v, g.cv)
            seg = self.ccache.get(key)
            if seg is None:
                if len(self.ccache) > 20000:
                    self.ccache.clear()
                seg = self.ccache[key] = self.cards_segment(g, v)
            buf[self.c0:self.c1] = seg
        else:
            buf[self.b0:self.b1] = self.table_segment(g, v)
            buf[self.c0:self.c1] = self.cards_segment(g, v)
        # the pending decision and the stack
        buf[s["active"] + (g.active - v) % n] = 1.0
        buf[s["start_seat"] + (g.start - v) % n] = 1.0
        mt = g.config["max_turns"] or 400
        buf[s["turn_progress"]] = min(g.turns / mt, 1.0)
        if g.mhg_revealed:
            buf[s["mhg_revealed"]] = min(g.mhg_revealed, 12)
        for j, (c, q) in enumerate(g.transit[:3]):
            base = s["transit"] + j * (NA + n)
            buf[base + (c >> 1)] = 1.0
            if q >= 0:
                buf[base + NA + (q - v) % n] = 1.0
        if g.over:
            return np.frombuffer(buf, np.float32)
        buf[s["decision"] + g.decision] = 1.0
        buf[s["decider"] + (g.decider - v) % n] = 1.0
        barred = g.barred
        if barred:
            for q in range(n):
                if (barred >> q) & 1:
                    buf[s["barred"] + (q - v) % n] = 1.0
        stack = g.stack
        fr = stack[0]
        if fr[0] == R.CTX and not fr[3]:
            buf[s["actions_left"]] = fr[2]
            buf[s["window_ops"]] = fr[4]
        elif fr[0] == R.END:
            buf[s["window_ops"]] = fr[2]
        if len(stack) > 2:
            nbonus = 0
            for fr in stack:
                if fr[0] == R.CTX and fr[3]:
                    if nbonus < 2:
                        base = s["bonus_contexts"] + nbonus * (n + 1)
                        buf[base + (fr[1] - v) % n] = 1.0
                        if fr[2]:
                            buf[base + n] = 1.0
                    nbonus += 1
        fr = stack[-1]
        k = fr[0]
        if k == R.BUILD:
            buf[s["chosen_step"] + fr[3]] = 1.0
            if fr[4] >= 0:
                buf[s["chosen_agent"] + (fr[4] >> 1)] = 1.0
            if fr[5] >= 0:
                buf[s["chosen_faction"] + rot[fr[5]]] = 1.0
                if fr[6] >= 0:
                    m = g.members[fr[5]]
                    other = m[1] if m[0] == fr[2] else m[0]
                    buf[s["chosen_facing"] + ((fr[2] if fr[6] == 0 else other) - v) % n] = 1.0
            if fr[7] >= 0 and fr[3] == R.S_PFR:
                buf[s["chosen_partner"] + (fr[7] - v) % n] = 1.0
            if fr[8] >= 0:
                buf[s["chosen_mission"] + (fr[8] >> 1)] = 1.0
        elif k == R.CMD:
            E, t, f, pos, chain, first = fr[2], fr[3], fr[4], fr[5], fr[6], fr[7]
            buf[s["executor"] + (E - v) % n] = 1.0
            buf[s["command_type"] + t] = 1.0
            if f >= 0:
                buf[s["source"] + rot[f] * cap + pos] = 1.0
                x = 0
                while chain:
                    if chain & 1:
                        cf, cp = divmod(x, 7)
                        buf[s["chain"] + rot[cf] * cap + cp] = 1.0
                    chain >>= 1
                    x += 1
            d = fr[1]
            if first >= 0:
                if d == R.D_INT_CARD:
                    buf[s["interrogated"] + (first - v) % n] = 1.0
                    if E == v:
                        for c in g.hand_a[first]:
                            buf[s["private_view"] + (c >> 1)] += 1
                else:
                    cf, cp = divmod(first, 7)
                    buf[s["first_target"] + rot[cf] * cap + cp] = 1.0
                    if d == R.D_MEDIC_ORI:
                        buf[s["first_target_type"] + (g.fac[cf][cp][0] >> 1)] = 1.0
            if fr[8] >= 0:
                buf[s["strategist_target"] + (fr[8] - v) % n] = 1.0
            if d == R.D_TRACK and E == v:
                for c in g.deck_a:
                    buf[s["private_view"] + (c >> 1)] += 1
        elif k == R.MHG:
            buf[s["mhg_type"] + fr[2]] = 1.0
        return np.frombuffer(buf, np.float32)
