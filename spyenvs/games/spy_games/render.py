"""Spy Games display: action labels, a text summary and a picture of the table (hidden parts only for
the viewer, or everything when viewer is None)."""

from __future__ import annotations

from spyenvs.core import drawing as dr

from . import data as D
from .data import S_OVER, kind_name

SRC = ("zone1", "zone2", "zone3", "base+1", "base+2", "base+3", "cards")
#: answers of the Agent 2 / 3 / 4 stages (ignore, bonus, penalty), named as in §2.5
RESP_NAMES = {D.S_A2: ("ignore", "WELCOME (infiltrator draws 1)", "OBSTRUCT (infiltrator discards 1 at random)"),
              D.S_A3: ("ignore", "ASSIST (strengthener draws 1)", "BLOCK (strengthening cancelled)"),
              D.S_A4: ("ignore", "AMPLIFY (level +1)", "DAMPEN (level -1)")}


def _role(g, p: int) -> str:
    return g.roles[p] if 0 <= p < g.n else f"seat {p} (unseated)"


def _seat(g, base: int, off: int) -> str:
    """The player at seat offset ``off`` from ``base``, or a note for an unseated offset."""
    return g.roles[(base + off) % g.n] if off < g.n else f"seat+{off} (unseated)"


def _zone(g, owner: int, k: int) -> str:
    return f"{_role(g, owner)} zone {k + 1} ({D.SUIT_NAMES[k]})"


def _where(g, p: int, j: int) -> str:
    loc = g.spy_loc[p][j]
    return _zone(g, loc // 3, loc % 3) if loc >= 0 else "reserve"


def _cases(n: int) -> str:
    return f"{n} case{'' if n == 1 else 's'}"


def payment_text(g, payer: int, a: int, s: int) -> str:
    """A payment of amount a from source s (§5) of ``payer``, in words."""
    if s < 3:
        return f"{_cases(a)} from zone {s + 1}"
    if s < 6:
        off = s - 2
        colour = _seat(g, payer, off)
        return f"{a} {colour}-coloured case{'' if a == 1 else 's'} from base"
    return f"{a} random card{'' if a == 1 else 's'}"


def _cand(g, c: int) -> str:
    cands = g.cf_cands
    return D.SUIT_NAMES[cands[c]] if g.cf_on and 0 <= c < len(cands) and cands[c] >= 0 else f"candidate {c}"


def action_label(g, a: int) -> str:
    """The pending decision's action ``a`` in words, from the decider's seat (absolute
    player names; seat offsets resolved)."""
    P = g.decider
    st = g.stage
    if a < D.A_PASS:
        return f"ALLOC {'/'.join(map(str, D.ALLOCS[a]))} to zones 1/2/3"
    if a == D.A_PASS:
        return "PASS"
    if a == D.A_DRAW_EMPTY:
        return "DRAW_EMPTY (draw 3)"
    if a < D.A_INFIL:
        j = a - D.A_RECALL
        return f"RECALL agent {j + 1} from {_where(g, P, j)}"
    if a < D.A_MISSION:
        o, k = divmod(a - D.A_INFIL, 3)
        return f"INFILTRATE {_seat(g, P, o + 1)} zone {k + 1} ({D.SUIT_NAMES[k]})"
    if a < D.A_EXPOSE:
        j = a - D.A_MISSION
        return f"MISSION agent {j + 1} in {_where(g, P, j)}"
    if a < D.A_STRENGTHEN:
        o, j = divmod(a - D.A_EXPOSE, 5)
        if o + 1 >= g.n:
            return f"EXPOSE seat+{o + 1} (unseated) agent {j + 1}"
        w = (P + o + 1) % g.n
        return f"EXPOSE {g.roles[w]}'s agent {j + 1} in {_where(g, w, j)}"
    if a < D.A_TAKE_CARD:
        j = a - D.A_STRENGTHEN
        return f"STRENGTHEN agent {j + 1} in {_where(g, P, j)}"
    if a == D.A_TAKE_CARD:
        return "TAKE_CARD"
    if a < D.A_PICK_CARD:
        j = a - D.A_PICK_AGENT
        return f"PICK_AGENT {j + 1} ({D.AGENT_NAMES[j]})"
    if a < D.A_NO_CARD:
        kind = kind_name(a - D.A_PICK_CARD)
        return f"ADD {kind} face down" if st == D.S_ADD_CARD else f"PLAN {kind}"
    if a == D.A_NO_CARD:
        return "NO_CARD (add nothing)"
    if a == D.A_OFFER_NONE:
        return "OFFER_NONE"
    if a < D.A_WITHDRAW:
        x = a - D.A_STANDDOWN
        return f"OFFER_STANDDOWN: pay {payment_text(g, P, x // 7 + 1, x % 7)}"
    if a < D.A_DEMAND:
        x = a - D.A_WITHDRAW
        return f"OFFER_WITHDRAW (spy recalled): pay {payment_text(g, P, x // 7 + 1, x % 7)}"
    if a < D.A_REJECT:
        return f"OFFER_DEMAND: pay me {a - D.A_DEMAND + 1} and I recall the spy"
    if a == D.A_REJECT:
        return "REJECT"
    if a == D.A_ACCEPT:
        return "ACCEPT"
    if a < D.A_REF_OFFER:
        amt = g.offer[1] if g.offer is not None else 1
        return f"ACCEPT_PAY_FROM {SRC[a - D.A_PAY_FROM]}: pay {payment_text(g, P, amt, a - D.A_PAY_FROM)}"
    if a < D.A_REF_ACCEPT_I:
        x = a - D.A_REF_OFFER
        return f"REF_OFFER {_cand(g, x // 21)}: pay {payment_text(g, P, (x % 21) // 7 + 1, x % 7)}"
    if a == D.A_REF_ACCEPT_I or a == D.A_REF_ACCEPT_D:
        idx = a - D.A_REF_ACCEPT_I
        who = (g.cf_I, g.cf_D)[idx]
        off = g.cf_offer[idx] if g.cf_on else None
        what = f": {_cand(g, off[0])} for {payment_text(g, who, off[1], off[2])}" if off else ""
        return f"REF_ACCEPT_{'ID'[idx]} ({_role(g, who)}'s offer{what})"
    if a < D.A_TIE_I:
        return f"REF_FREE {_cand(g, a - D.A_REF_FREE)}"
    if a < D.A_A1:
        idx = a - D.A_TIE_I
        return f"TIE_TO {'ID'[idx]} ({_role(g, (g.cf_I, g.cf_D)[idx])})"
    if a < D.A_RESP:
        x = a - D.A_A1
        if x == 0:
            return "A1 none"
        side = "I" if x <= 2 else "D"
        who = _role(g, g.cf_I if side == "I" else g.cf_D)
        return f"A1 {side}{'+1' if x % 2 else '-1'} ({who})"
    if a < D.A_FIXER:
        return RESP_NAMES.get(st, ("ignore", "bonus", "penalty"))[a - D.A_RESP]
    if a < D.A_KOMP:
        return ("FIXER decline", "FIXER take over")[a - D.A_FIXER]
    if a < D.A_RAID:
        return ("KOMPROMAT hold", "KOMPROMAT play")[a - D.A_KOMP]
    if a < D.A_PURGE:
        return f"RAID_PICK a {_seat(g, P, a - D.A_RAID)}-coloured case"
    if a < D.A_FIRST:
        o, j = divmod(a - D.A_PURGE, 5)
        return f"PURGE_PICK {_seat(g, P, o + 1)}'s agent {j + 1}"
    if a < D.NUM_ACTIONS:
        return f"FIRST_PLAYER {_seat(g, P, a - D.A_FIRST)}"
    return f"invalid action {a}"


def action_label_for(g, a: int, viewer) -> str:
    """How ``viewer`` sees the pending decision's action ``a`` (§7): every move is
    public except an unrevealed allocation, the plan card of an infiltration and the
    identity of a face-down addition (whether one was added is public)."""
    if viewer is None or viewer == g.decider or g.stage == S_OVER:
        return action_label(g, a)
    st = g.stage
    if st == D.S_ALLOC:
        return "ALLOC (hidden until everyone has chosen)"
    if st == D.S_INFIL_PLAN:
        return "PLAN (a card from hand, face down)"
    if st == D.S_ADD_CARD and a != D.A_NO_CARD:
        return "ADD a card face down"
    return action_label(g, a)


def declaration_text(g) -> str:
    """The declared action on the table (public), or ''."""
    if not g.decl or g.decl_target < 0:
        return ""
    P = g.active
    if g.decl == D.D_INFIL:
        what = f"INFILTRATE {_zone(g, g.decl_target, g.decl_k)}"
    elif g.decl == D.D_MISSION:
        j = g.decl_j
        what = (f"MISSION with agent {j + 1} ({_cases(g.spy_c[P][j])}) in {_zone(g, g.decl_target, g.decl_k)}")
    else:
        w, j = g.decl_owner, g.decl_j
        what = f"EXPOSE {_role(g, w)}'s agent {j + 1} ({_cases(g.spy_c[w][j])}) in {_zone(g, P, g.decl_k)}"
    return f"declared: {_role(g, P)} {what}"


def offer_text(g) -> str:
    """The buyout offer on the table (public), or ''."""
    if g.offer is None:
        return ""
    kind, amt, s = g.offer
    T = g.decl_target
    if kind == D.O_DEMAND:
        return f"offer: {_role(g, T)} DEMANDS {amt} from {_role(g, g.active)} to recall agent {g.decl_j + 1}"
    name = "STAND-DOWN" if kind == D.O_STANDDOWN else f"WITHDRAW (agent {g.decl_j + 1} recalled)"
    return f"offer: {_role(g, T)} offers {name} for {payment_text(g, T, amt, s)}"


def _conf_lines(g, viewer) -> list[str]:
    def card(kind):
        return kind_name(kind) if kind >= 0 else "none"

    ref = _role(g, g.cf_ref) if g.cf_ref >= 0 else "coin"
    fixer = ("", " (Fixer took over the referee)", " (defender's Fixer picks the suit)")[g.cf_fix]
    trump2 = D.SUIT_NAMES[g.cf_trump2] if g.cf_trump2 >= 0 else "?"
    cands = "/".join(D.SUIT_NAMES[c] for c in g.cf_cands if c >= 0)
    lines = [f"confrontation ({'mission' if g.cf_kind == D.D_MISSION else 'exposure'}) in "
             f"{_zone(g, g.cf_zo, g.cf_k)}: I={_role(g, g.cf_I)} D={_role(g, g.cf_D)} referee={ref}{fixer}; "
             f"trumps {D.SUIT_NAMES[g.cf_k]} + {trump2} (candidates {cands})"]
    for idx, who in enumerate((g.cf_I, g.cf_D)):
        side = "ID"[idx]
        if g.cf_revealed:
            added = card(g.cf_addrev[idx])
        elif not g.cf_added[idx]:
            added = "nothing"
        elif (viewer is None or viewer == who) and g.h.add[idx] >= 0:
            added = f"{card(g.h.add[idx])} face down"
        else:
            added = "a card face down"
        parts = [f"  {side} {_role(g, who)}: face-up {card(g.cf_up[idx])}, added {added}"]
        if g.cf_revealed:
            parts.append(f"total {g.cf_total[idx]}" + (f" (A1 {g.cf_a1[idx]:+d})" if g.cf_a1[idx] else ""))
        off = g.cf_offer[idx]
        if off is not None:
            parts.append(f"referee offer {_cand(g, off[0])} for {payment_text(g, who, off[1], off[2])}")
        if g.cf_kplay[idx]:
            parts.append("played kompromat")
        if g.cf_pledge == idx:
            parts.append("tie pledged")
        lines.append(", ".join(parts))
    return lines


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
        decl = declaration_text(g)
        if decl:
            lines.append(decl)
        offer = offer_text(g)
        if offer:
            lines.append(offer)
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
        lines.extend(_conf_lines(g, viewer))
    if g.res_on:
        lines.append(f"resolving {'mission' if g.res_kind == D.D_MISSION else 'exposure'} of "
                     f"{kind_name(g.res_plan)} at level {g.res_level}")
    return "\n".join(lines)


# ------------------------------------------------------------------ picture
# One panel per seat (zones with their penalty tracks and the spies sitting in them,
# base, agents in reserve, hand), a status bar, the confrontation table and the
# pending decision. Fixed size for a given player count, so frames line up in videos.
PLAYER_COLORS = ((200, 60, 50), (50, 100, 190), (46, 146, 70), (214, 150, 20))
TYPE_ABBR = ("SAF", "INT", "COD", "DEM", "PRV", "LIQ")
TYPE_COLORS = ((40, 110, 150), (40, 130, 120), (70, 90, 160), (170, 70, 40), (160, 60, 110), (110, 50, 50))
SHAPES = ("circle", "square", "triangle")
M = 10
TOP_H = 24
CONF_Y, CONF_H = 30, 78
PANEL_Y0 = CONF_Y + CONF_H + 8
PANEL_H = 138
INFO_W, ZONE_W, BASE_W, GAP = 150, 206, 112, 6
WIDTH = 2 * M + INFO_W + 3 * (ZONE_W + GAP) + BASE_W + GAP
SPY_W, SPY_H = 36, 50
HAND_Y = 104
FOOT_H = 24


def _height(n: int) -> int:
    return PANEL_Y0 + n * (PANEL_H + 6) + FOOT_H


def _plan_card(img, x, y, w, h, kind: int) -> None:
    """A face-up plan card: type band on top, the suit shape and pips below."""
    t = D.KIND_TYPE[kind]
    col = TYPE_COLORS[t]
    dr.card(img, x, y, w, h, col, (), border=dr.shade(col, -0.5), band=15, band_text=TYPE_ABBR[t])
    s = min(12, w - 18)
    sy = y + 18
    dr.shape(img, x + 3, sy, s, SHAPES[D.KIND_SUIT[kind]], dr.shade(col, -0.3))
    dr.text(img, x + 5 + s, sy, str(D.KIND_PIPS[kind]), dr.INK)


def _spy(img, x, y, g, owner: int, j: int, viewer) -> None:
    """A spy in a zone: the owner's agent number and cases over its plan card."""
    col = PLAYER_COLORS[owner]
    dr.fill(img, x, y, SPY_W, 14, col)
    dr.text(img, x + 1, y + 1, f"A{j + 1}", (255, 255, 255))
    cases = str(g.spy_c[owner][j])
    cx = x + SPY_W - 1 - dr.text_width(cases)
    dr.shape(img, cx - 9, y + 3, 8, "square", dr.shade(col, 0.6))  # the cases on the spy
    dr.text(img, cx, y + 1, cases, (255, 255, 255))
    py = y + 15
    if viewer is None or viewer == owner:
        _plan_card(img, x, py, SPY_W, SPY_H - 15, g.h.plans[owner][j])
    else:
        dr.card_back(img, x, py, SPY_W, SPY_H - 15, "S?" if g.spy_ks[owner][j] else None)
    if g.spy_str[owner][j]:
        dr.box(img, x - 1, y - 1, SPY_W + 2, SPY_H + 2, None, (240, 200, 40), 2)


def _hand(img, x, y, w, g, p: int, viewer) -> None:
    if viewer is None or viewer == p:
        kinds = [k for k in range(D.NUM_KINDS) for _ in range(g.h.hands[p][k])]
        cw, step = 30, 32
        if kinds and len(kinds) * step > w:
            step = max(8, (w - cw) // max(1, len(kinds) - 1))
        for i, k in enumerate(kinds):
            _plan_card(img, x + i * step, y, cw, 30, k)
    else:
        n = g.hsize[p]
        step = 20 if n * 20 <= w else max(4, (w - 26) // max(1, n - 1))
        for i in range(n):
            dr.card_back(img, x + i * step, y, 26, 30)


def _panel(img, g, p: int, y: int, viewer) -> None:
    col = PLAYER_COLORS[p]
    over = g.stage == S_OVER
    acting = not over and g.decider == p
    dr.box(img, M, y, WIDTH - 2 * M, PANEL_H, dr.shade(col, 0.9), dr.shade(col, -0.3), 3 if acting else 1)
    # info block
    x = M + 4
    dr.fill(img, x, y + 4, INFO_W - 4, 17, col)
    name = g.roles[p] + ("  (you)" if viewer == p else "")
    dr.text(img, x + 4, y + 6, name, (255, 255, 255), INFO_W - 12)
    vp = g.final_scores()[p] if over else g.vp(p)
    lines = [f"VP {vp}   penalty {g.penalty(p)}", f"hand {g.hsize[p]}  removed {g.removed[p]}"]
    if g.first == p:
        lines.append("first player")
    for i, line in enumerate(lines):
        dr.text(img, x + 2, y + 25 + i * dr.GLYPH_H, line, dr.INK, INFO_W - 6)
    if g.komp[p]:
        dr.box(img, x + 2, y + 66, 78, 16, (60, 40, 40), (20, 10, 10))
        dr.text(img, x + 6, y + 68, "KOMPROMAT", (255, 220, 120))
    # agents in reserve (not in any zone)
    ry = y + 86
    dr.text(img, x + 2, ry, "reserve", (90, 80, 70))
    for j in range(D.AGENTS):
        if g.spy_loc[p][j] < 0:
            dr.box(img, x + 58 + j * 17, ry - 1, 15, 15, dr.shade(col, 0.5), col)
            dr.text(img, x + 62 + j * 17, ry, str(j + 1), dr.INK)
    # zones
    alloc_known = g.alloc_done
    for k in range(3):
        zx = M + INFO_W + GAP + k * (ZONE_W + GAP)
        dr.box(img, zx, y + 4, ZONE_W, HAND_Y - 8, (246, 243, 234), dr.shade(col, -0.2))
        dr.shape(img, zx + 4, y + 7, 11, SHAPES[k], (70, 70, 80))
        if alloc_known:
            head = f"zone {k + 1}  {g.zone[p][k]} cases"
        elif viewer == p and g.h.alloc[p] >= 0:
            head = f"zone {k + 1}  will get {D.ALLOCS[g.h.alloc[p]][k]}"
        else:
            head = f"zone {k + 1}  " + ("allocated" if g.alloc_chosen[p] else "allocating")
        dr.text(img, zx + 19, y + 6, head, dr.INK, ZONE_W - 22)
        # penalty track: filled cells hold cases, vacated cells cost their value
        n0, n1 = (g.init[p][k], g.zone[p][k]) if alloc_known else (0, 0)
        for c in range(10):
            cx, cy = zx + 4 + c * 20, y + 22
            if c < n1:
                dr.box(img, cx, cy, 19, 11, col, dr.shade(col, -0.4))
            elif c < n0:
                dr.box(img, cx, cy, 19, 11, (250, 214, 205), (190, 80, 70))
                dr.text(img, cx + 3, cy - 1, str(D.TRACK[c]), (170, 40, 40))
            else:
                dr.box(img, cx, cy, 19, 11, (246, 243, 234), (210, 206, 196))
        spies = [(w, j) for w in range(g.n) for j in range(D.AGENTS) if g.spy_loc[w][j] == p * 3 + k]
        step = SPY_W + 4 if len(spies) * (SPY_W + 4) <= ZONE_W - 6 else (ZONE_W - 8 - SPY_W) // (len(spies) - 1)
        for i, (w, j) in enumerate(spies):
            _spy(img, zx + 4 + i * step, y + 40, g, w, j, viewer)
    # base: cases by colour
    bx = M + INFO_W + GAP + 3 * (ZONE_W + GAP)
    dr.box(img, bx, y + 4, BASE_W, HAND_Y - 8, (246, 243, 234), dr.shade(col, -0.2))
    dr.text(img, bx + 4, y + 6, "base", dr.INK)
    for c in range(g.n):
        cy = y + 24 + c * 17
        dr.box(img, bx + 6, cy, 14, 14, PLAYER_COLORS[c], dr.shade(PLAYER_COLORS[c], -0.4))
        dr.text(img, bx + 26, cy, f"x {g.base[p][c]}" + (" own" if c == p else ""), dr.INK, BASE_W - 30)
    # hand
    dr.text(img, x + 2, y + HAND_Y + 8, "hand", (90, 80, 70))
    _hand(img, M + INFO_W + GAP, y + HAND_Y, WIDTH - 2 * M - INFO_W - GAP - 8, g, p, viewer)


def _conf(img, g, viewer) -> None:
    y = CONF_Y
    dr.box(img, M, y, WIDTH - 2 * M, CONF_H, (236, 232, 222), (180, 174, 160))
    if not g.cf_on and not g.res_on:
        msg = "no confrontation in progress"
        if g.decl and g.decl_target >= 0:
            msg = f"declared: {('', 'infiltrate', 'mission', 'expose')[g.decl]} against {g.roles[g.decl_target]}"
        dr.text(img, M + 8, y + 8, msg, (110, 100, 90))
        return
    x = M + 8
    if g.cf_on:
        kind = ("", "infiltration", "mission", "exposure")[g.cf_kind] if g.cf_kind < 4 else str(g.cf_kind)
        where = f"{g.roles[g.cf_zo]} zone {g.cf_k + 1}" if g.cf_zo >= 0 else ""
        ref = g.roles[g.cf_ref] if g.cf_ref >= 0 else "coin"
        dr.text(img, x, y + 5, f"CONFRONTATION ({kind}) in {where} - referee {ref}", dr.INK, 560)
        # trumps: the zone's suit, plus the second once chosen
        tx = M + 580
        dr.text(img, tx, y + 5, "trumps", (90, 80, 70))
        dr.shape(img, tx + 50, y + 5, 12, SHAPES[g.cf_k], (40, 40, 40))
        if g.cf_trump2 >= 0:
            dr.shape(img, tx + 68, y + 5, 12, SHAPES[g.cf_trump2], (40, 40, 40))
        else:
            dr.text(img, tx + 68, y + 5, "?", dr.INK)
        for i, w in enumerate((g.cf_I, g.cf_D)):
            bx = x + i * 420
            col = PLAYER_COLORS[w]
            dr.fill(img, bx, y + 22, 150, 16, col)
            dr.text(img, bx + 3, y + 24, f"{'I' if i == 0 else 'D'}: {g.roles[w]}", (255, 255, 255), 146)
            total = str(g.cf_total[i]) if g.cf_revealed else "?"
            extra = ("  +kompromat" if g.cf_kplay[i] else "") + (f"  A1 {g.cf_a1[i]:+d}" if g.cf_a1[i] else "")
            dr.text(img, bx, y + 42, f"total {total}{extra}", dr.INK, 150)
            if g.cf_pledge == i:
                dr.text(img, bx, y + 58, "referee pledged", (120, 60, 20))
            cx = bx + 158
            if g.cf_up[i] >= 0:
                _plan_card(img, cx, y + 22, 34, 50, g.cf_up[i])
            else:
                dr.box(img, cx, y + 22, 34, 50, None, (200, 196, 186))
            ax = cx + 40
            if g.cf_addrev[i] >= 0:
                _plan_card(img, ax, y + 22, 34, 50, g.cf_addrev[i])
            elif g.cf_added[i]:
                if (viewer is None or viewer == w) and g.h.add[i] >= 0:
                    _plan_card(img, ax, y + 22, 34, 50, g.h.add[i])
                    dr.card_back(img, ax + 28, y + 22, 6, 50)  # hatched edge: still face down
                else:
                    dr.card_back(img, ax, y + 22, 34, 50)
            else:
                dr.box(img, ax, y + 22, 34, 50, None, (200, 196, 186))
    if g.res_on:
        what = "mission" if g.res_kind == D.D_MISSION else "exposure"
        msg = f"resolving {what}: {kind_name(g.res_plan)} at level {g.res_level}"
        if g.cf_on:
            dr.text(img, M + 580, y + 24, msg[:40], dr.INK, WIDTH - M - 590)
        else:
            dr.text(img, x, y + 8, msg.upper()[:9] + msg[9:], dr.INK)
            if g.res_plan >= 0:
                _plan_card(img, x, y + 24, 34, 50, g.res_plan)


def render_rgb(g, viewer=None):
    n = g.n
    H = _height(n)
    img = dr.canvas(H, WIDTH)
    dr.fill(img, 0, 0, WIDTH, TOP_H, (36, 42, 52))
    phase = ("allocation", "draw", "spy actions", "strengthen", "upkeep", "over")[g.phase]
    top = (f"SPY GAMES  round {g.round + 1}/3  {phase}   deck {len(g.h.deck)}  discard {sum(g.disc_up)} up"
           f" + {len(g.h.disc_down)} down   kompromat supply {g.komp_supply}")
    dr.text(img, M, 6, top, (240, 236, 220), WIDTH - 2 * M - 160)
    who = "view: " + ("omniscient" if viewer is None else g.roles[viewer])
    dr.text(img, WIDTH - M - dr.text_width(who), 6, who, (190, 200, 220))
    _conf(img, g, viewer)
    for p in range(n):
        _panel(img, g, p, PANEL_Y0 + p * (PANEL_H + 6), viewer)
    fy = H - FOOT_H
    dr.fill(img, 0, fy, WIDTH, FOOT_H, (232, 226, 210))
    if g.stage == S_OVER:
        vp = g.final_scores()
        msg, col = "GAME OVER - VP " + ", ".join(f"{g.roles[p]} {vp[p]}" for p in range(n)), (150, 40, 40)
    elif viewer is not None and viewer == g.decider:
        msg, col = f"YOUR DECISION ({g.roles[viewer]}): {D.STAGE_NAMES[g.stage]}", (20, 100, 40)
    else:
        msg, col = f"waiting for {g.roles[g.decider]}: {D.STAGE_NAMES[g.stage]}", dr.INK
    dr.text(img, M, fy + 6, msg, col, WIDTH - 2 * M)
    return img
