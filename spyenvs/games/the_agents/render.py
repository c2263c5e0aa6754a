"""Words for The Agents: action labels and a text view of the state (per viewer)."""

from __future__ import annotations

from . import data as D
from . import rules as R


def action_label(g, a: int) -> str:
    if a == R.A_DONE:
        return "FINISH"
    if a < R.A_AGENT:
        return R.STEP_NAMES[a - R.A_STEP]
    if a < R.A_MISSION:
        return f"agent {D.AGENT_NAMES[a - R.A_AGENT]}"
    if a < R.A_FSLOT:
        return f"mission {D.MISSION_NAMES[a - R.A_MISSION]}"
    if a < R.A_GAP:
        k = a - R.A_FSLOT
        try:
            return f"faction F{g.own[g.decider][k]}"
        except (AttributeError, IndexError):
            return f"own faction slot {k}"
    if a < R.A_ORI:
        return f"gap {a - R.A_GAP}"
    if a < R.A_SEAT:
        return ("command toward me", "command toward the other player")[a - R.A_ORI]
    if a < R.A_BOARD:
        k = a - R.A_SEAT + 1
        try:
            return f"seat +{k} (P{(g.decider + k) % g.N})"
        except AttributeError:
            return f"seat +{k}"
    if a < R.A_MSLOT:
        f, i = divmod(a - R.A_BOARD, 7)
        return f"card F{f}[{i}]"
    if a < R.A_RANDOM:
        f, r = divmod(a - R.A_MSLOT, 4)
        m, s = divmod(r, 2)
        return f"attached mission F{f} member {m} slot {s}"
    if a == R.A_RANDOM:
        return "random mission from hand"
    return f"reveal {a - R.A_COUNT}"


def _card(c, show_dead=True):
    t = c[0] >> 1
    if c[1] < 0:
        return f"[dead {D.AGENT_NAMES[t]}]" if show_dead else "[dead ?]"
    return f"{D.AGENT_NAMES[t]}->P{c[1]}"


def render_text(g, viewer=None) -> str:
    lines = []
    if g.over:
        res = "truncated" if g.truncated else f"winners {g.winners}"
        lines.append(f"GAME OVER ({res}); turns {g.turns}")
    else:
        lines.append(f"turn {g.turns}: active P{g.active}; P{g.decider} decides {R.DECISIONS[g.decision]}")
    lines.append("IP: " + " ".join(f"P{q}={g.ip[q]}" for q in range(g.N)))
    show_dead = g.config["dead_identities_visible"] or viewer is None
    for f in range(g.nf):
        a, b = g.members[f]
        row = ", ".join(_card(c, show_dead) for c in g.fac[f]) or "(empty)"
        pa, pb, _, _ = g.arrows(f)
        miss = []
        for m in (0, 1):
            for c in g.att[f][m]:
                miss.append(f"{D.MISSION_NAMES[c >> 1]}(P{g.members[f][m]})")
        lines.append(f"F{f} (P{a}|P{b}) arrows {pa}/{pb}: {row}" + (f"  missions: {', '.join(miss)}" if miss else ""))
    for q in range(g.N):
        if viewer is None or viewer == q:
            ha = ", ".join(D.AGENT_NAMES[c >> 1] for c in sorted(g.hand_a[q]))
            hm = ", ".join(D.MISSION_NAMES[c >> 1] for c in sorted(g.hand_m[q]))
            lines.append(f"P{q} hand: agents [{ha}] missions [{hm}]")
        else:
            lines.append(f"P{q} hand: {g.na[q]} agents, {len(g.hand_m[q])} missions")
    lines.append(f"decks: agents {len(g.deck_a)}, missions {len(g.deck_m)}; retired: "
                 f"{[D.AGENT_NAMES[c >> 1] for c in g.ret_a]} / {[D.MISSION_NAMES[c >> 1] for c in g.ret_m]}")
    if g.transit:
        lines.append("in transit: " + ", ".join(f"{D.AGENT_NAMES[c >> 1]} (IP to P{q})" for c, q in g.transit))
    if viewer is None:
        lines.append(f"deck order: {[D.AGENT_NAMES[c >> 1] for c in g.deck_a]}")
    return "\n".join(lines)
