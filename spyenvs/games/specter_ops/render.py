"""Words and pictures: action labels (``action_label``, and ``action_label_for`` as
one viewer sees a move), the text (ansi) and picture renderings of the board from one
viewer's knowledge (``viewer=None`` is omniscient): the agent appears only in her own
or an omniscient view; every viewer but the omniscient one sees the hunters' belief set
about her (the agent too: §6 amendment)."""

from __future__ import annotations

import numpy as np

from spyenvs.core.textimage import GLYPH_H, GLYPH_W, draw_text

from . import board as B
from .belief import SEEN
from .data import (
    A2T, A3, AGENT_NAMES, CARD0, CARD_NAMES, CHAR0, DECISIONS, DIR0, DRIVE, ENTER, EXIT, H0, H1, H2, H2V, H3, H4, H5, H6, HUNTER_NAMES, NO, PAD, POSTCOG, REVEAL, S1, SEAT0, SENSOR, YES,
)

#: decisions whose chosen action every role sees (hunters' moves are public, §6)
_PUBLIC_HUNTER_DECISIONS = frozenset((S1, H1, H2, H2V, H3, H4, H5, H6))


def action_label(game, a):
    a = int(a)
    dec = game.dec
    if a < 736:
        verb = {A3: "step to", H2: "walk to", H3: "drive to", H4: "exit to", A2T: "target"}.get(dec, "cell")
        return f"{verb} {B.name(a)}"
    if a == NO:
        return {A3: "stop", H4: "stay inside", H5: "no sniper shot", PAD: "pass (padding)"}.get(dec, "no / pass")
    if a == YES:
        return "yes"
    if DIR0 <= a < DIR0 + 4:
        return "sniper " + "NESW"[a - DIR0]
    if CARD0 <= a < CARD0 + 8:
        return CARD_NAMES[a - CARD0]
    if SEAT0 <= a < SEAT0 + 4:
        return f"hunter_{a - SEAT0}"
    if CHAR0 <= a < CHAR0 + 4:
        if dec in (H6,):
            return f"attack {AGENT_NAMES[a - CHAR0]}"
        names = HUNTER_NAMES if dec == 0 else AGENT_NAMES
        return names[a - CHAR0]
    return {SENSOR: "motion sensor", DRIVE: "drive", EXIT: "exit vehicle", ENTER: "enter vehicle",
            POSTCOG: "Post-Cognition", REVEAL: "reveal as traitor"}.get(a, f"reserved {a}")


def action_label_for(game, action, viewer):
    """C58: another role sees a hunter's public move (character pick, turn order,
    walk, drive, exit, sniper, attack) as it is, but never the name of an agent's
    sub-step or a secret vote: those show only as who acts."""
    actor = game.actor
    if viewer is None or viewer == actor:
        return action_label(game, action)
    if game._viewer_kind(actor) == "hunter" and game.dec in _PUBLIC_HUNTER_DECISIONS:
        return action_label(game, action)
    if game.dec == H0:
        return "(secret vote)"
    return "(agent acts)" if game._viewer_kind(actor) == "agent" else "(second agent acts)"


def _knows_agent(game, viewer, a):
    if viewer is None:
        return True
    kind = game._viewer_kind(viewer)
    return (kind == "agent" and a == 0) or (kind == "second" and a == 1)


def _belief(game, viewer, a):
    bel = game.bel[a]
    if bel is None or game.round == 0:
        return 0
    keys = None
    if a == 0 and game._h_traitor >= 0 and not game.exposed and viewer is not None and viewer > 0:
        me = viewer - 1
        keys = (me,) if me == game._h_traitor else tuple(j for j in bel.hyps if j != me)
    return bel.union(keys)


def _objective_cells(game, viewer):
    show = viewer is None or not game.big or game._viewer_kind(viewer) == "agent"
    return {game._h_obj[s]: s for s in range(4) if show or s in game.completed}


#: what each map symbol means (the legend prints those the map uses)
SYMBOLS = {
    "A": "agent", "a": "second agent", "V": "vehicle", "O": "open objective", "*": "completed objective",
    "~": "smoke", "?": "where the hunters know the agent may be", "L": "agent's latest sighting", "#": "structure",
    "E": "escape point", "=": "road", ".": "floor",
}


def _map_rows(game, viewer):
    """The 32 map rows as strings (row 1 first) and the set of symbols used."""
    objs = _objective_cells(game, viewer)
    agents = {}
    for a, ag in enumerate(game.ag):
        if ag.in_play and game.round > 0 and _knows_agent(game, viewer, a):
            agents[ag.pos] = "A" if a == 0 else "a"
    bel = _belief(game, viewer, 0) if viewer is not None else 0  # her own view too (§6 amendment)
    hunters = {}
    for s in range(game.nh):
        if game.hin[s] and not game.riding[s] and game.hpos[s] >= 0:
            hunters[game.hpos[s]] = str(s)
    sights = {game.pa[a].sight_cell for a in range(2)}
    rows, used = [], set()
    for r in range(B.H):
        row = []
        for c in range(B.W):
            i = r * B.W + c
            if i in agents:
                ch = agents[i]
            elif i in hunters:
                ch = hunters[i]
            elif i == game.vpos:
                ch = "V"
            elif i in objs:
                ch = "*" if objs[i] in game.completed else "O"
            elif (game.smoke_bits >> i) & 1 and (B.OPEN >> i) & 1:
                ch = "~"
            elif (bel >> i) & 1:
                ch = "?"
            elif i in sights:
                ch = "L"
            elif (B.STRUCT >> i) & 1:
                ch = "#"
            elif i in game.escapes:
                ch = "E"
            elif (B.ROAD >> i) & 1:
                ch = "="
            else:
                ch = "."
            row.append(ch)
            used.add(ch)
        rows.append("".join(row))
    return rows, used


def legend(game, used):
    """One line naming every symbol in ``used``: hunters by seat digit and character."""
    parts = []
    for s in range(game.nh):
        if str(s) in used:
            parts.append(f"{s} hunter_{s} {HUNTER_NAMES[game.hchar[s]] if game.hchar[s] >= 0 else ''}".rstrip())
    parts += [f"{k} {v}" for k, v in SYMBOLS.items() if k in used]
    return "legend: " + ", ".join(parts)


def status_line(game, viewer=None):
    """One line for a terminal between sub-steps: round, who is to move (the decision
    name only for its actor, C58), hunters, vehicle, objectives, the viewer's agent."""
    shown = viewer is None or viewer == game.actor
    pending = f"{DECISIONS[game.dec]} by " if shown else "to move: "
    bits = [f"round {game.round}", f"{pending}{game.roles[game.actor]}"]
    if game.winner:
        bits.append(f"winner: {game.winner}")
    for s in range(game.nh):
        if game.hin[s]:
            where = "vehicle" if game.riding[s] else (B.name(game.hpos[s]) if game.hpos[s] >= 0 else "-")
            bits.append(f"h{s} {where}{' stunned' if game.stunned[s] else ''}")
    bits.append(f"vehicle {B.name(game.vpos)} {game.vused}/10")
    bits.append(f"objectives {len(game.completed)}/4")
    for a, ag in enumerate(game.ag):
        if _knows_agent(game, viewer, a) and ag.char >= 0 and ag.in_play and game.round > 0:
            bits.append(f"{'you' if viewer is not None else 'agent' if a == 0 else 'second'} {B.name(ag.pos)} "
                        f"HP {ag.hp}/{ag.maxhp} steps {ag.steps}/{ag.max_steps}")
    return " | ".join(bits)


def render_text(game, viewer=None, compact=False):
    """The viewer's picture of the game: the map with its legend, then the state lines
    and the latest public events. ``compact``: no map (status line, state lines and
    events), for a terminal between the steps of one turn."""
    lines = []
    if not compact:
        rows, used = _map_rows(game, viewer)
        lines.append("    " + B.COLS)
        lines += [f"{r + 1:3d} {row}" for r, row in enumerate(rows)]
        lines.append(legend(game, used))
        # C58: the pending decision's name is the actor's (or omniscient) knowledge only
        shown = viewer is None or viewer == game.actor
        pending = f"decision {DECISIONS[game.dec]} by " if shown else "to move: "
        lines.append(f"round {game.round}  {pending}{game.roles[game.actor]}"
                     + (f"  winner: {game.winner}" if game.winner else ""))
    else:
        lines.append(status_line(game, viewer))
    hs = []
    for s in range(game.nh):
        name = HUNTER_NAMES[game.hchar[s]] if game.hchar[s] >= 0 else "?"
        st = "out" if not game.hin[s] else ("in vehicle" if game.riding[s] else B.name(game.hpos[s]) if game.hpos[s] >= 0 else "-")
        flags = ("S" if game.stunned[s] else "") + ("B" if game.blind[s] else "") + ("R" if game.revoked[s] else "")
        hs.append(f"hunter_{s} {name} {st} {flags}".rstrip())
    flagged = any(game.stunned) or any(game.blind) or any(game.revoked)
    lines.append("; ".join(hs) + f"; vehicle {B.name(game.vpos)} used {game.vused}/10"
                 + ("  (S stunned, B blinded, R no vehicle access)" if flagged and not compact else ""))
    lines.append(f"objectives completed: {len(game.completed)}")
    for a, ag in enumerate(game.ag):
        pa = game.pa[a]
        who = "agent" if a == 0 else "second agent"
        known = AGENT_NAMES[pa.char_known] if pa.char_known >= 0 else "unknown"
        line = f"{who}: character {known}, damage {pa.damage}"
        if _knows_agent(game, viewer, a) and ag.char >= 0:
            hand = ", ".join(f"{CARD_NAMES[t]}({ch})" for t, ch in ag.hand)
            line += f" | true: {AGENT_NAMES[ag.char]} on {B.name(ag.pos)} HP {ag.hp}/{ag.maxhp} cards: {hand}"
        lines.append(line)
    if viewer is None or (viewer == 0):
        if game._h_traitor >= 0:
            lines.append(f"traitor: hunter_{game._h_traitor}" + (" (exposed)" if game.exposed else ""))
    lines += game.events[-4:]
    return "\n".join(lines)


CELL = 18
COLORS = {
    "floor": (236, 232, 220), "struct": (96, 100, 108), "road": (196, 196, 188), "line": (250, 250, 250),
    "objective": (60, 110, 220), "done": (200, 40, 40), "escape": (40, 170, 80), "vehicle": (240, 170, 30),
    "hunter": (150, 30, 30), "agent": (20, 120, 200), "second": (120, 60, 200), "belief": (255, 236, 120),
    "smoke": (170, 170, 170), "last": (230, 110, 200), "grid": (214, 210, 198),
}


#: the picture's legend: colour swatch, label drawn on it, meaning
RGB_LEGEND = (
    ("agent", "A", "agent"), ("hunter", "0", "hunter seat"), ("vehicle", "V", "vehicle"),
    ("objective", "1", "objective (section)"), ("done", "1", "completed"), ("escape", "E", "escape point"),
    ("last", "S", "seen / L last seen"), ("belief", "", "she may be here"), ("smoke", "", "smoke"),
    ("struct", "", "structure"), ("road", "", "road"),
)


def _wrap(line, width):
    """Split a caption line at '; ' or spaces so that nothing is cut off."""
    out = []
    while len(line) > width:
        cut = line.rfind("; ", 0, width)
        cut = cut + 1 if cut > 0 else line.rfind(" ", 0, width)
        if cut <= 0:
            cut = width
        out.append(line[:cut].rstrip())
        line = "  " + line[cut:].lstrip()
    out.append(line)
    return out


def caption_lines(game, viewer, width):
    """The picture's caption: the state lines of render_text (no map), wrapped to ``width``."""
    text = render_text(game, viewer, compact=True).splitlines()
    out = []
    for line in text:
        out += _wrap(line, width)
    return out


def render_rgb(game, viewer=None):
    top = 16
    left = 24
    w = left + B.W * CELL + 4
    width = (w - 8) // GLYPH_W
    names = ", ".join(f"{s} {HUNTER_NAMES[game.hchar[s]] if game.hchar[s] >= 0 else '?'}" for s in range(game.nh))
    legend_rows = len(RGB_LEGEND) // 2 + len(RGB_LEGEND) % 2
    caption = _wrap("hunters: " + names, width) + caption_lines(game, viewer, width)
    legend_top = top + B.H * CELL + 4
    cap_top = legend_top + legend_rows * (GLYPH_H + 4) + 4
    h = cap_top + len(caption) * GLYPH_H + 6
    img = np.empty((h, w, 3), np.uint8)
    img[:] = (250, 248, 240)
    for c in range(B.W):
        draw_text(img, left + c * CELL + 5, 2, B.COLS[c], (60, 60, 60))
    objs = _objective_cells(game, viewer)
    bel = _belief(game, viewer, 0) if viewer is not None else 0  # her own view too (§6 amendment)
    for i in range(B.N):
        r, c = divmod(i, B.W)
        y, x = top + r * CELL, left + c * CELL
        if c == 0:
            draw_text(img, 2, y + 3, f"{r + 1:2d}", (60, 60, 60))
        if i in objs:
            col = COLORS["done"] if objs[i] in game.completed else COLORS["objective"]
        elif (B.STRUCT >> i) & 1:
            col = COLORS["struct"]
        elif (B.ROAD >> i) & 1:
            col = COLORS["road"]
        else:
            col = COLORS["floor"]
        if (bel >> i) & 1:
            col = COLORS["belief"]
        if (game.smoke_bits >> i) & 1 and (B.OPEN >> i) & 1:
            col = COLORS["smoke"]
        img[y:y + CELL - 1, x:x + CELL - 1] = col
        img[y + CELL - 1, x:x + CELL] = COLORS["grid"]
        img[y:y + CELL, x + CELL - 1] = COLORS["grid"]
        if i in game.escapes:
            img[y + 2:y + CELL - 3, x + 2:x + CELL - 3] = COLORS["escape"]
            draw_text(img, x + 5, y + 2, "E", (255, 255, 255))
        if i in objs:
            draw_text(img, x + 5, y + 2, str(objs[i] + 1), (255, 255, 255))

    # dashed centre lines of the road strips
    for _name, cells in B.STRIPS:
        rows = sorted({c // B.W for c in cells})
        cols = sorted({c % B.W for c in cells})
        if len(cols) == 2:  # vertical strip: line between its two columns
            x = left + cols[1] * CELL - 1
            for r in rows:
                y = top + r * CELL
                img[y + 4:y + CELL - 4, x - 1:x + 1] = COLORS["line"]
        else:
            y = top + rows[1] * CELL - 1
            for c in cols:
                x = left + c * CELL
                img[y - 1:y + 1, x + 4:x + CELL - 4] = COLORS["line"]

    def token(i, color, label, inset=3):
        r, c = divmod(i, B.W)
        y, x = top + r * CELL, left + c * CELL
        img[y + inset:y + CELL - 1 - inset, x + inset:x + CELL - 1 - inset] = color
        draw_text(img, x + 5, y + 2, label, (255, 255, 255))

    for a in range(2):
        pa = game.pa[a]
        if pa.sight_cell >= 0:
            token(pa.sight_cell, COLORS["last"], "S" if pa.sight_kind == SEEN else "L", 4)
    token(game.vpos, COLORS["vehicle"], "V", 1)
    for s in range(game.nh):
        if game.hin[s] and not game.riding[s] and game.hpos[s] >= 0:
            token(game.hpos[s], COLORS["hunter"], str(s))  # seat digit: Puppet and Prophet share an initial
    for a, ag in enumerate(game.ag):
        if ag.in_play and game.round > 0 and _knows_agent(game, viewer, a):
            token(ag.pos, COLORS["agent"] if a == 0 else COLORS["second"], "A" if a == 0 else "a", 2)
    # legend: two columns of swatches
    col_w = (w - 8) // 2
    for k, (colour, label, meaning) in enumerate(RGB_LEGEND):
        x = 4 + (k % 2) * col_w
        y = legend_top + (k // 2) * (GLYPH_H + 4)
        img[y:y + GLYPH_H + 2, x:x + GLYPH_H + 2] = COLORS[colour]
        if label:
            draw_text(img, x + 3, y + 1, label, (255, 255, 255))
        draw_text(img, x + GLYPH_H + 6, y + 1, meaning[: (col_w - GLYPH_H - 10) // GLYPH_W], (30, 30, 30))
    y = cap_top
    for line in caption:
        draw_text(img, 4, y, line, (30, 30, 30))
        y += GLYPH_H
    return img
