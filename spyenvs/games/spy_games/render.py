"""Spy Games text display: action labels and a state summary (hidden parts only for
the viewer, or everything when viewer is None)."""

from __future__ import annotations

from . import data as D
from .data import kind_name

SRC = ("zone1", "zone2", "zone3", "base+1", "base+2", "base+3", "cards")


def action_label(g, a: int) -> str:
    if a < D.A_PASS:
        return f"ALLOC {'/'.join(map(str, D.ALLOCS[a]))}"
    if a == D.A_PASS:
        return "PASS"
    if a == D.A_DRAW_EMPTY:
        return "DRAW_EMPTY"
    if a < D.A_INFIL:
        return f"RECALL agent {a - D.A_RECALL + 1}"
    if a < D.A_MISSION:
        o, k = divmod(a - D.A_INFIL, 3)
        return f"INFILTRATE seat+{o + 1} zone {k + 1}"
    if a < D.A_EXPOSE:
        return f"MISSION agent {a - D.A_MISSION + 1}"
    if a < D.A_STRENGTHEN:
        o, j = divmod(a - D.A_EXPOSE, 5)
        return f"EXPOSE seat+{o + 1} agent {j + 1}"
    if a < D.A_TAKE_CARD:
        return f"STRENGTHEN agent {a - D.A_STRENGTHEN + 1}"
    if a == D.A_TAKE_CARD:
        return "TAKE_CARD"
    if a < D.A_PICK_CARD:
        return f"PICK_AGENT {a - D.A_PICK_AGENT + 1}"
    if a < D.A_NO_CARD:
        return f"PICK_CARD {kind_name(a - D.A_PICK_CARD)}"
    if a == D.A_NO_CARD:
        return "NO_CARD"
    if a == D.A_OFFER_NONE:
        return "OFFER_NONE"
    if a < D.A_WITHDRAW:
        x = a - D.A_STANDDOWN
        return f"OFFER_STANDDOWN {x // 7 + 1} from {SRC[x % 7]}"
    if a < D.A_DEMAND:
        x = a - D.A_WITHDRAW
        return f"OFFER_WITHDRAW {x // 7 + 1} from {SRC[x % 7]}"
    if a < D.A_REJECT:
        return f"OFFER_DEMAND {a - D.A_DEMAND + 1}"
    if a == D.A_REJECT:
        return "REJECT"
    if a == D.A_ACCEPT:
        return "ACCEPT"
    if a < D.A_REF_OFFER:
        return f"ACCEPT_PAY_FROM {SRC[a - D.A_PAY_FROM]}"
    if a < D.A_REF_ACCEPT_I:
        x = a - D.A_REF_OFFER
        return f"REF_OFFER candidate {x // 21} pay {(x % 21) // 7 + 1} from {SRC[x % 7]}"
    if a == D.A_REF_ACCEPT_I:
        return "REF_ACCEPT_I"
    if a == D.A_REF_ACCEPT_D:
        return "REF_ACCEPT_D"
    if a < D.A_TIE_I:
        return f"REF_FREE candidate {a - D.A_REF_FREE}"
    if a < D.A_A1:
        return ("TIE_TO I", "TIE_TO D")[a - D.A_TIE_I]
    if a < D.A_RESP:
        return ("A1 none", "A1 I+1", "A1 I-1", "A1 D+1", "A1 D-1")[a - D.A_A1]
    if a < D.A_FIXER:
        return ("ignore", "bonus", "penalty")[a - D.A_RESP]
    if a < D.A_KOMP:
        return ("FIXER decline", "FIXER take over")[a - D.A_FIXER]
    if a < D.A_RAID:
        return ("KOMPROMAT hold", "KOMPROMAT play")[a - D.A_KOMP]
    if a < D.A_PURGE:
        return f"RAID_PICK colour+{a - D.A_RAID}"
    if a < D.A_FIRST:
        o, j = divmod(a - D.A_PURGE, 5)
        return f"PURGE_PICK seat+{o + 1} agent {j + 1}"
    if a < D.NUM_ACTIONS:
        return f"FIRST_PLAYER seat+{a - D.A_FIRST}"
    return f"invalid action {a}"


def render_text(g, viewer=None) -> str:
    h = g.h
    lines = [
        f"Spy Games  round {g.round + 1}  phase {('alloc', 'draw', 'spy', 'strengthen', 'upkeep', 'over')[g.phase]}"
        f"  first player_{g.first}  deck {len(h.deck)}  discard {sum(g.disc_up)}+{len(h.disc_down)} face down"
        f"  kompromat supply {g.komp_supply}",
    ]
    if g.stage == D.S_OVER:
        lines.append(f"game over; VP {g.final_scores()}")
    else:
        lines.append(f"pending: {D.STAGE_NAMES[g.stage]} by player_{g.decider}")
    for p in range(g.n):
        show = viewer is None or viewer == p
        hand = ", ".join(kind_name(k) for k in range(D.NUM_KINDS) for _ in range(h.hands[p][k])) if show else "?"
        init = "/".join(map(str, g.init[p])) if g.alloc_done else "?"
        lines.append(
            f"player_{p}: zones {g.zone[p]} (init {init}) penalty {g.penalty(p)} base {g.base[p]} "
            f"VP {g.vp(p)} kompromat {int(g.komp[p])} hand[{g.hsize[p]}] {hand}"
        )
        for j in range(D.AGENTS):
            loc = g.spy_loc[p][j]
            if loc >= 0:
                plan = kind_name(h.plans[p][j]) if show else ("Scout?" if g.spy_ks[p][j] else "?")
                lines.append(
                    f"   agent {j + 1} in player_{loc // 3} zone {loc % 3 + 1}: {g.spy_c[p][j]} cases, plan {plan}"
                    f"{' (strengthened)' if g.spy_str[p][j] else ''}"
                )
    if g.cf_on:
        lines.append(
            f"confrontation: I=player_{g.cf_I} D=player_{g.cf_D} referee={g.cf_ref} zone suit "
            f"{D.SUIT_NAMES[g.cf_k]} trump2={g.cf_trump2} face-up {g.cf_up} added {g.cf_added} "
            f"totals {g.cf_total if g.cf_revealed else '?'} pledge {g.cf_pledge}"
        )
    if g.res_on:
        lines.append(f"resolving {'mission' if g.res_kind == D.D_MISSION else 'exposure'} of "
                     f"{kind_name(g.res_plan)} at level {g.res_level}")
    return "\n".join(lines)
