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
KNOWN = R.KNOWN
SLOT_FEATURES = 2 + N_FTYPES + 2  # present, dead, faction type, cmd to first / second member
CTX, BUILD, CMD, END, MHG = R.CTX, R.BUILD, R.CMD, R.END, R.MHG


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
    # --- attached missions (cached per attachment version)
    L.add("attached", (nf, 2, 2, nm), doc="attached missions per member and slot")
    # --- agent cards and IP (cached per agent-card version)
    L.add("ip", n, 0, 3, "IP / 40 (clipped at 3)")
    L.add("reached_goal", n, doc="players who reached 40 IP (equal_turns)")
    L.add("hand_agents", NA, 0, D.AGENT_COPIES, "own agent cards by type")
    L.add("agent_hand_sizes", n - 1, 0, 36, "other players' agent card counts")
    L.add("pins_agents", (n - 1, NA), 0, D.AGENT_COPIES, "agent cards known in others' hands")
    L.add("agent_deck_size", 1, 0, 1, "agent draw deck size / 36")
    L.add("retired_agents", NA, 0, D.AGENT_COPIES, "agent retired pile by type")
    L.add("retired_top_agent", NA, doc="top card of the agent retired pile")
    # --- mission cards (cached per mission-card version)
    L.add("hand_missions", nm, 0, D.MISSION_COPIES, "own missions by type")
    L.add("mission_hand_sizes", n - 1, 0, 20, "other players' mission card counts")
    L.add("pins_missions", (n - 1, nm), 0, D.MISSION_COPIES, "missions known in others' hands")
    L.add("mission_deck_size", 1, 0, 1, "mission draw deck size / all missions")
    L.add("retired_missions", nm, 0, D.MISSION_COPIES, "mission retired pile by type")
    L.add("retired_top_mission", nm, doc="top card of the mission retired pile")
    return L


def encode(game, player) -> np.ndarray:
    """The observation of ``player``: the game's :class:`Encoder` (its buffers and
    caches) writes it."""
    return game.encoder.encode(game, player)


class Encoder:
    """Precomputed offsets and, per viewer, a full vector kept up to date in place.

    The blocks after the static ones fall into four groups that change together (the
    table, attached missions, agent cards and IP, mission cards); the rules bump a
    globally unique version stamp per group on every change (``rules.VERSIONS``), so
    equal stamps mean equal content. Per viewer we remember the stamps the vector was
    written at and rewrite only groups whose stamp moved; inside the table and the
    attached missions only factions whose content differs from what was written are
    rewritten (content compare, so clones sharing this encoder stay correct).
    ``encode(g, v)`` copies the viewer's vector, adds the pending decision and the
    stack, and returns a fresh float32 array; ``encode(g, v, cached=False)`` builds
    the same vector from scratch (``check_invariants`` compares the two)."""

    def __init__(self, g):
        self.L = g.layout
        s = {k: b.start for k, b in self.L.blocks.items()}
        self.s = s
        n, nf = g.N, g.nf
        self.n, self.nf, self.nm = n, nf, g.n_mtypes
        self.size = self.L.size
        self.rot = [[(f - v) % nf if n > 2 else f for f in range(nf)] for v in range(n)]
        self.rel = [[(q - v) % n for q in range(n)] for v in range(n)]
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
        # the agent and mission groups are rewritten whole: zero them first
        self.agents_span = (s["ip"], s["hand_missions"])
        self.missions_span = (s["hand_missions"], self.size)
        self.z_agents = array("f", bytes(4 * (s["hand_missions"] - s["ip"])))
        self.z_missions = array("f", bytes(4 * (self.size - s["hand_missions"])))
        self.BS = g.cap * SLOT_FEATURES
        self.z_faction = array("f", bytes(4 * self.BS))
        self.z_arrows = array("f", bytes(8))
        self.z_attached = array("f", bytes(4 * 4 * self.nm))
        self.fcache = {}
        self.kcache = {}
        self.others = [[((v + k) % n, k - 1) for k in range(1, n)] for v in range(n)]
        self.max_turns = g.config["max_turns"] or 400
        self.a_offsets = tuple(s[k] for k in (
            "ip", "reached_goal", "hand_agents", "agent_hand_sizes", "pins_agents",
            "agent_deck_size", "retired_agents", "retired_top_agent"))
        self.m_offsets = tuple(s[k] for k in (
            "hand_missions", "mission_hand_sizes", "pins_missions", "mission_deck_size",
            "retired_missions", "retired_top_mission"))
        self._fresh_caches()
        self.offsets = tuple(s[k] for k in (
            "decision", "decider", "active", "executor", "actions_left", "window_ops", "barred",
            "bonus_contexts", "chosen_step", "chosen_agent", "chosen_mission", "chosen_faction",
            "chosen_facing", "chosen_partner", "source", "chain", "first_target", "first_target_type",
            "command_type", "interrogated", "strategist_target", "mhg_type", "mhg_revealed", "transit",
            "private_view", "start_seat", "turn_progress"))

    def _fresh_caches(self):
        """Per viewer: the full vector, the group stamps it was written at (-1: never),
        and the faction rows / attached missions it shows (None: unknown)."""
        n, nf = self.n, self.nf
        self.full = [t[:] for t in self.templates]
        self.stamps = [[-1, -1, -1, -1] for _ in range(n)]
        self.seen_rows = [[None] * nf for _ in range(n)]
        self.seen_att = [[None] * nf for _ in range(n)]

    def __getstate__(self):
        # caches are a pure speed-up: keep them out of pickles (state snapshots)
        d = dict(self.__dict__)
        for k in ("full", "stamps", "seen_rows", "seen_att"):
            d.pop(k)
        d["fcache"] = {}
        d["kcache"] = {}
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)
        self._fresh_caches()

    def faction_entry(self, g, f):
        """(board, arrow points) sub-segments of faction f, cached by content (they do
        not depend on the viewer, only where they go does)."""
        row = g.fac[f]
        key = (f, tuple(row))
        ent = self.fcache.get(key)
        if ent is not None:
            return ent
        if len(self.fcache) > 20000:
            self.fcache.clear()
        fti = self.ftype_index
        board = array("f", bytes(4 * self.BS))
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
        ent = self.fcache[key] = (board, array("f", (pa, pb)))
        return ent

    def write_board(self, g, v, out, seen=None):
        """board and arrow_points blocks for viewer v (rotated factions); with
        ``seen`` (the rows ``out`` shows) only factions whose row changed."""
        rot = self.rot[v]
        BS = self.BS
        ob = self.s["board"]
        oa = self.s["arrow_points"]
        fac = g.fac
        for f in range(self.nf):
            row = fac[f]
            if seen is not None:
                if seen[f] == row:
                    continue
                seen[f] = row[:]
            rf = rot[f]
            o = ob + rf * BS
            if row:
                board, arrows = self.faction_entry(g, f)
                out[o:o + BS] = board
                out[oa + rf * 2:oa + rf * 2 + 2] = arrows
            else:
                out[o:o + BS] = self.z_faction
                out[oa + rf * 2:oa + rf * 2 + 2] = self.z_arrows

    def write_attached(self, g, v, out, seen=None):
        """attached block for viewer v; with ``seen`` only factions that changed."""
        rot = self.rot[v]
        nm = self.nm
        W = 4 * nm
        o0 = self.s["attached"]
        att = g.att
        for f in range(self.nf):
            A = att[f]
            if seen is not None:
                if seen[f] == A:
                    continue
                seen[f] = [A[0][:], A[1][:]]
            base = o0 + rot[f] * W
            out[base:base + W] = self.z_attached
            for m in (0, 1):
                for sl, c in enumerate(A[m]):
                    out[base + (m * 2 + sl) * nm + (c >> 1)] = 1.0

    def _counts(self, cards, width):
        """array('f') of per-type counts of a tuple of card ids, cached by content."""
        key = (width, cards)
        out = self.kcache.get(key)
        if out is None:
            if len(self.kcache) > 50000:
                self.kcache.clear()
            out = array("f", bytes(4 * width))
            for c in cards:
                out[c >> 1] += 1
            self.kcache[key] = out
        return out

    def write_agents(self, g, v, out):
        """ip .. retired_top_agent blocks for viewer v (into a zeroed span)."""
        o_ip, o_reached, o_hand, o_size, o_pins, o_deck, o_ret, o_top = self.a_offsets
        rel = self.rel[v]
        for q, x in enumerate(g.ip):
            out[o_ip + rel[q]] = x / WIN if x < 3 * WIN else 3.0
        for q in g.reached:
            out[o_reached + rel[q]] = 1.0
        out[o_hand:o_hand + NA] = array("f", g.cnt_a[v])  # counts of v's hand by type
        ta = g.tag_a[v]
        hands = g.hand_a
        for q, k in self.others[v]:
            h = hands[q]
            if h:
                out[o_size + k] = len(h)
                o = o_pins + k * NA
                for c in h:
                    if ta[c] < 0:  # KNOWN to v
                        out[o + (c >> 1)] += 1.0
        out[o_deck] = len(g.deck_a) / g.n_agents
        if g.ret_a:
            out[o_ret:o_ret + NA] = self._counts(tuple(g.ret_a), NA)
            out[o_top + (g.ret_a[-1] >> 1)] = 1.0

    def write_missions(self, g, v, out):
        """hand_missions .. retired_top_mission blocks for viewer v (into a zeroed span)."""
        o_hand, o_size, o_pins, o_deck, o_ret, o_top = self.m_offsets
        nm = self.nm
        cm = g.cnt_m[v]  # counts of v's hand by type (width 10; type 9 absent without MHG)
        out[o_hand:o_hand + nm] = array("f", cm if nm == 10 else cm[:nm])
        tm = g.tag_m[v]
        hands = g.hand_m
        for q, k in self.others[v]:
            h = hands[q]
            if h:
                out[o_size + k] = len(h)
                o = o_pins + k * nm
                for c in h:
                    if tm[c] < 0:  # KNOWN to v
                        out[o + (c >> 1)] += 1.0
        out[o_deck] = len(g.deck_m) / g.n_missions
        if g.ret_m:
            out[o_ret:o_ret + nm] = self._counts(tuple(g.ret_m), nm)
            out[o_top + (g.ret_m[-1] >> 1)] = 1.0

    def cached_groups(self, g, v):
        """The viewer's full vector with the four groups brought up to date."""
        full = self.full[v]
        st = self.stamps[v]
        ver = g.bv
        if st[0] != ver:
            self.write_board(g, v, full, self.seen_rows[v])
            st[0] = ver
        ver = g.av
        if st[1] != ver:
            self.write_attached(g, v, full, self.seen_att[v])
            st[1] = ver
        ver = g.cv
        if st[2] != ver:
            a, b = self.agents_span
            full[a:b] = self.z_agents
            self.write_agents(g, v, full)
            st[2] = ver
        ver = g.mv
        if st[3] != ver:
            a, b = self.missions_span
            full[a:b] = self.z_missions
            self.write_missions(g, v, full)
            st[3] = ver
        return full

    def from_scratch(self, g, v):
        """The groups written into a copy of the viewer's template, ignoring the per-viewer
        vectors and stamps (the content-keyed faction and pile tables are reused)."""
        buf = self.templates[v][:]
        self.write_board(g, v, buf)
        self.write_attached(g, v, buf)
        self.write_agents(g, v, buf)
        self.write_missions(g, v, buf)
        return buf

    def encode(self, g, v, cached=True):
        (o_decision, o_decider, o_active, o_executor, o_actions, o_ops, o_barred, o_bonus, o_step,
         o_agent, o_mission, o_faction, o_facing, o_partner, o_source, o_chain, o_first,
         o_first_type, o_cmd, o_interrogated, o_strategist, o_mhg_type, o_mhg_revealed, o_transit,
         o_private, o_start, o_turn) = self.offsets
        n = g.N
        rel = self.rel[v]  # rel[q]: seat q relative to the viewer
        buf = self.cached_groups(g, v)[:] if cached else self.from_scratch(g, v)
        # the pending decision and the stack
        buf[o_active + rel[g.active]] = 1.0
        buf[o_start + rel[g.start]] = 1.0
        x = g.turns / self.max_turns
        buf[o_turn] = x if x < 1.0 else 1.0
        if g.mhg_revealed:
            buf[o_mhg_revealed] = min(g.mhg_revealed, 12)
        if g.transit:
            for j, (c, q) in enumerate(g.transit[:3]):
                base = o_transit + j * (NA + n)
                buf[base + (c >> 1)] = 1.0
                if q >= 0:
                    buf[base + NA + rel[q]] = 1.0
        if g.over:
            return np.frombuffer(buf, np.float32)
        buf[o_decision + g.decision] = 1.0
        buf[o_decider + rel[g.decider]] = 1.0
        barred = g.barred
        if barred:
            for q in range(n):
                if (barred >> q) & 1:
                    buf[o_barred + rel[q]] = 1.0
        stack = g.stack
        fr = stack[0]
        k = fr[0]
        if k == CTX and not fr[3]:
            buf[o_actions] = fr[2]
            buf[o_ops] = fr[4]
        elif k == END:
            buf[o_ops] = fr[2]
        if len(stack) > 2:
            nbonus = 0
            for fr in stack:
                if fr[0] == CTX and fr[3]:
                    if nbonus < 2:
                        base = o_bonus + nbonus * (n + 1)
                        buf[base + rel[fr[1]]] = 1.0
                        if fr[2]:
                            buf[base + n] = 1.0
                    nbonus += 1
        fr = stack[-1]
        k = fr[0]
        if k == BUILD:
            rot = self.rot[v]
            buf[o_step + fr[3]] = 1.0
            if fr[4] >= 0:
                buf[o_agent + (fr[4] >> 1)] = 1.0
            if fr[5] >= 0:
                buf[o_faction + rot[fr[5]]] = 1.0
                if fr[6] >= 0:
                    m = g.members[fr[5]]
                    other = m[1] if m[0] == fr[2] else m[0]
                    buf[o_facing + rel[fr[2] if fr[6] == 0 else other]] = 1.0
            if fr[7] >= 0 and fr[3] == R.S_PFR:
                buf[o_partner + rel[fr[7]]] = 1.0
            if fr[8] >= 0:
                buf[o_mission + (fr[8] >> 1)] = 1.0
        elif k == CMD:
            rot = self.rot[v]
            cap = g.cap
            E, t, f, pos, chain, first = fr[2], fr[3], fr[4], fr[5], fr[6], fr[7]
            buf[o_executor + rel[E]] = 1.0
            buf[o_cmd + t] = 1.0
            if f >= 0:
                buf[o_source + rot[f] * cap + pos] = 1.0
                x = 0
                while chain:
                    if chain & 1:
                        cf, cp = divmod(x, 7)
                        buf[o_chain + rot[cf] * cap + cp] = 1.0
                    chain >>= 1
                    x += 1
            d = fr[1]
            if first >= 0:
                if d == R.D_INT_CARD:
                    buf[o_interrogated + rel[first]] = 1.0
                    if E == v:
                        for c in g.hand_a[first]:
                            buf[o_private + (c >> 1)] += 1
                else:
                    cf, cp = divmod(first, 7)
                    buf[o_first + rot[cf] * cap + cp] = 1.0
                    if d == R.D_MEDIC_ORI:
                        buf[o_first_type + (g.fac[cf][cp][0] >> 1)] = 1.0
            if fr[8] >= 0:
                buf[o_strategist + rel[fr[8]]] = 1.0
            if d == R.D_TRACK and E == v:
                for c in g.deck_a:
                    buf[o_private + (c >> 1)] += 1
        elif k == MHG:
            buf[o_mhg_type + fr[2]] = 1.0
        return np.frombuffer(buf, np.float32)
