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

import numpy as np

from spyenvs.core import Layout

from . import data as D
from . import rules as R

NA = D.NUM_AGENT_TYPES
N_FTYPES = len(D.FACTION_TYPES)
SLOT_FEATURES = 2 + N_FTYPES + 2  # present, dead, faction type, cmd to first / second member


def build_layout(g) -> Layout:
    n, nf, cap, nm = g.N, g.nf, g.cap, g.n_mtypes
    L = Layout()
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
    L.add("board", (nf, cap, SLOT_FEATURES), doc="factions: present, dead, type, cmd to 1st/2nd member")
    L.add("faction_members", (nf, 2, n), doc="relative seats of each faction's first/second member")
    L.add("arrow_points", (nf, 2), 0, 2 * (cap - 1), "arrow points facing the first/second member")
    L.add("attached", (nf, 2, 2, nm), doc="attached missions per member and slot")
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
    L.add("private_view", NA, 0, D.AGENT_COPIES, "Interrogator: target's agent cards; Tracker: deck")
    L.add("my_seat", n, doc="absolute seat of the viewer")
    L.add("start_seat", n, doc="relative seat of the start player")
    L.add("turn_progress", 1, doc="player-turns played / max_turns")
    return L


class Encoder:
    """Precomputed offsets; ``encode(g, v)`` returns a fresh float32 vector."""

    def __init__(self, g):
        self.L = g.layout
        s = {k: b.start for k, b in self.L.blocks.items()}
        self.s = s
        n, nf, cap = g.N, g.nf, g.cap
        self.size = self.L.size
        # rotated faction index per viewer
        self.rot = [[(f - v) % nf if n > 2 else f for f in range(nf)] for v in range(n)]
        self.static_ones = []
        for v in range(n):
            ones = [s["my_seat"] + v]
            for f in range(nf):
                rf = self.rot[v][f]
                for k in (0, 1):
                    ones.append(s["faction_members"] + (rf * 2 + k) * n + (g.members[f][k] - v) % n)
            self.static_ones.append(ones)
        self.ftype_index = {t: i for i, t in enumerate(D.FACTION_TYPES)}

    def encode(self, g, v):
        s = self.s
        n, nf, cap, nm = g.N, g.nf, g.cap, g.n_mtypes
        rot = self.rot[v]
        ones = list(self.static_ones[v])
        acc = {}
        ap = ones.append
        if not g.over:
            ap(s["decision"] + g.decision)
            ap(s["decider"] + (g.decider - v) % n)
        ap(s["active"] + (g.active - v) % n)
        ap(s["start_seat"] + (g.start - v) % n)
        barred = g.barred
        for q in range(n):
            if (barred >> q) & 1:
                ap(s["barred"] + (q - v) % n)
        nbonus = 0
        for fr in g.stack:
            k = fr[0]
            if k == R.CTX:
                if fr[3]:
                    if nbonus < 2:
                        base = s["bonus_contexts"] + nbonus * (n + 1)
                        ap(base + (fr[1] - v) % n)
                        if fr[2]:
                            ap(base + n)
                    nbonus += 1
                else:
                    acc[s["actions_left"]] = acc.get(s["actions_left"], 0) + fr[2]
                    acc[s["window_ops"]] = acc.get(s["window_ops"], 0) + fr[4]
            elif k == R.END:
                acc[s["window_ops"]] = acc.get(s["window_ops"], 0) + fr[2]
        if g.stack and not g.over:
            fr = g.stack[-1]
            k = fr[0]
            if k == R.BUILD:
                ap(s["chosen_step"] + fr[3])
                if fr[4] >= 0:
                    ap(s["chosen_agent"] + (fr[4] >> 1))
                if fr[5] >= 0:
                    ap(s["chosen_faction"] + rot[fr[5]])
                    if fr[6] >= 0:
                        m = g.members[fr[5]]
                        other = m[1] if m[0] == fr[2] else m[0]
                        ap(s["chosen_facing"] + ((fr[2] if fr[6] == 0 else other) - v) % n)
                if fr[7] >= 0 and fr[3] == R.S_PFR:
                    ap(s["chosen_partner"] + (fr[7] - v) % n)
                if fr[8] >= 0:
                    ap(s["chosen_mission"] + (fr[8] >> 1))
            elif k == R.CMD:
                E, t, f, pos, chain, first = fr[2], fr[3], fr[4], fr[5], fr[6], fr[7]
                ap(s["executor"] + (E - v) % n)
                ap(s["command_type"] + t)
                if f >= 0:
                    ap(s["source"] + rot[f] * cap + pos)
                    x = 0
                    while chain:
                        if chain & 1:
                            cf, cp = divmod(x, 7)
                            ap(s["chain"] + rot[cf] * cap + cp)
                        chain >>= 1
                        x += 1
                d = fr[1]
                if first >= 0:
                    if d == R.D_INT_CARD:
                        ap(s["interrogated"] + (first - v) % n)
                        if E == v:
                            for c in g.hand_a[first]:
                                acc[s["private_view"] + (c >> 1)] = acc.get(s["private_view"] + (c >> 1), 0) + 1
                    else:
                        cf, cp = divmod(first, 7)
                        ap(s["first_target"] + rot[cf] * cap + cp)
                        if d == R.D_MEDIC_ORI:
                            ap(s["first_target_type"] + (g.fac[cf][cp][0] >> 1))
                if fr[8] >= 0:
                    ap(s["strategist_target"] + (fr[8] - v) % n)
                if d == R.D_TRACK and E == v:
                    for c in g.deck_a:
                        acc[s["private_view"] + (c >> 1)] = acc.get(s["private_view"] + (c >> 1), 0) + 1
            elif k == R.MHG:
                ap(s["mhg_type"] + fr[2])
        acc[s["mhg_revealed"]] = acc.get(s["mhg_revealed"], 0) + min(g.mhg_revealed, 12)
        for j, (c, q) in enumerate(g.transit[:3]):
            base = s["transit"] + j * (NA + n)
            ap(base + (c >> 1))
            if q >= 0:
                ap(base + NA + (q - v) % n)
        # board
        show_dead = g.config["dead_identities_visible"]
        fti = self.ftype_index
        board = s["board"]
        for f in range(nf):
            row = g.fac[f]
            rf = rot[f]
            a, b = g.members[f]
            for i, c in enumerate(row):
                base = board + ((rf * cap) + i) * SLOT_FEATURES
                ap(base)
                to = c[1]
                if to < 0:
                    ap(base + 1)
                    if show_dead:
                        ap(base + 2 + fti[c[0] >> 1])
                else:
                    ap(base + 2 + fti[c[0] >> 1])
                    ap(base + 2 + N_FTYPES + (0 if to == a else 1))
            if len(row) > 1:
                pa, pb, _, _ = g.arrows(f)
                acc[s["arrow_points"] + rf * 2] = acc.get(s["arrow_points"] + rf * 2, 0) + pa
                acc[s["arrow_points"] + rf * 2 + 1] = acc.get(s["arrow_points"] + rf * 2 + 1, 0) + pb
            for m in (0, 1):
                for sl, c in enumerate(g.att[f][m]):
                    ap(s["attached"] + ((rf * 2 + m) * 2 + sl) * nm + (c >> 1))
        for q in range(n):
            rq = (q - v) % n
            acc[s["ip"] + rq] = acc.get(s["ip"] + rq, 0) + min(g.ip[q] / D.WIN_IP, 3.0)
        for q in g.reached:
            ap(s["reached_goal"] + (q - v) % n)
        for c in g.hand_a[v]:
            acc[s["hand_agents"] + (c >> 1)] = acc.get(s["hand_agents"] + (c >> 1), 0) + 1
        for c in g.hand_m[v]:
            acc[s["hand_missions"] + (c >> 1)] = acc.get(s["hand_missions"] + (c >> 1), 0) + 1
        ta = g.tag_a[v]
        tm = g.tag_m[v]
        for k in range(1, n):
            q = (v + k) % n
            acc[s["hand_sizes"] + (k - 1) * 2] = acc.get(s["hand_sizes"] + (k - 1) * 2, 0) + g.na[q]
            acc[s["hand_sizes"] + (k - 1) * 2 + 1] = acc.get(s["hand_sizes"] + (k - 1) * 2 + 1, 0) + len(g.hand_m[q])
            for c in g.hand_a[q]:
                if ta[c] == R.KNOWN:
                    acc[s["pins_agents"] + (k - 1) * NA + (c >> 1)] = acc.get(s["pins_agents"] + (k - 1) * NA + (c >> 1), 0) + 1
            for c in g.hand_m[q]:
                if tm[c] == R.KNOWN:
                    acc[s["pins_missions"] + (k - 1) * nm + (c >> 1)] = acc.get(s["pins_missions"] + (k - 1) * nm + (c >> 1), 0) + 1
        acc[s["deck_sizes"]] = acc.get(s["deck_sizes"], 0) + len(g.deck_a) / g.n_agents
        acc[s["deck_sizes"] + 1] = acc.get(s["deck_sizes"] + 1, 0) + len(g.deck_m) / g.n_missions
        for c in g.ret_a:
            acc[s["retired_agents"] + (c >> 1)] = acc.get(s["retired_agents"] + (c >> 1), 0) + 1
        for c in g.ret_m:
            acc[s["retired_missions"] + (c >> 1)] = acc.get(s["retired_missions"] + (c >> 1), 0) + 1
        if g.ret_a:
            ap(s["retired_top_agent"] + (g.ret_a[-1] >> 1))
        if g.ret_m:
            ap(s["retired_top_mission"] + (g.ret_m[-1] >> 1))
        mt = g.config["max_turns"] or 400
        acc[s["turn_progress"]] = acc.get(s["turn_progress"], 0) + min(g.turns / mt, 1.0)
        obs = np.zeros(self.size, np.float32)
        obs[ones] = 1.0
        if acc:
            obs[list(acc)] = list(acc.values())
        return obs
