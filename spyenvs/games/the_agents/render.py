"""Words and pictures for The Agents: action labels (``action_label``, and
``action_label_for`` as one viewer sees a move), a text view of the state and a
picture of the table (``render_text``, ``render_rgb``), per viewer."""

from __future__ import annotations

from . import data as D
from . import rules as R


def _slot_card(g, s):
    """The card on board slot s, in words (public: dead identities only if shown, C34)."""
    f, i = divmod(s, 7)
    row = g.fac[f] if f < len(g.fac) else []
    if i >= len(row):
        return f"F{f}[{i}]"
    c = row[i]
    if c[1] < 0:
        name = D.AGENT_NAMES[c[0] >> 1] if g.config["dead_identities_visible"] else "card"
        return f"dead {name} at F{f}[{i}]"
    return f"{D.AGENT_NAMES[c[0] >> 1]} at F{f}[{i}]"


def _mission_slot(g, a):
    f, r = divmod(a - R.A_MSLOT, 4)
    m, s = divmod(r, 2)
    try:
        c = g.att[f][m][s]
        return f"{D.MISSION_NAMES[c >> 1]} of P{g.members[f][m]} on F{f}"
    except IndexError:
        return f"attached mission F{f} member {m} slot {s}"


def _orientation(g, o):
    """Whom the command of orientation o faces, for the pending decision."""
    p = g.decider
    top = g.stack[-1] if g.stack else None
    if top is not None and top[0] == R.BUILD and top[1] == R.D_PFR_ORI:
        q = top[7]
        to, ip = (p, q) if o == 0 else (q, p)
        return f"command toward P{to}, IP to P{ip}"
    f = -1
    if top is not None and top[0] == R.BUILD and top[1] == R.D_PFA_ORI:
        f = top[5]
    elif top is not None and top[0] == R.CMD and top[1] == R.D_MEDIC_ORI:
        f = top[7] // 7
    if f < 0 or p not in g.members[f]:
        return ("command toward the decider", "command toward the other player")[o]
    a, b = g.members[f]
    return f"command toward P{p if o == 0 else (b if a == p else a)}"


def _gap(g, k):
    top = g.stack[-1] if g.stack else None
    if top is None or top[0] != R.BUILD or top[5] < 0:
        return f"gap {k}"
    f = top[5]
    n = len(g.fac[f])
    if n == 0:
        return f"into empty F{f}"
    if k == 0:
        return f"left end of F{f} (gap 0)"
    if k == n:
        return f"right end of F{f} (gap {k})"
    return f"between F{f}[{k - 1}] and F{f}[{k}] (gap {k})"


def action_label(g, a: int) -> str:
    """Action a of the pending decision in words. Built from public information only
    (the resolution stack and the table are public, 6), so every seat reads the same
    words for a move it may see; ``game.action_label_for`` hides the private ones."""
    try:
        return _label(g, a)
    except (AttributeError, IndexError, TypeError):  # a bare or finished game
        return _plain_label(a)


def _label(g, a):
    d = g.decision
    if a == R.A_DONE:
        return "FINISH (end the turn)"
    if a < R.A_AGENT:
        return R.STEP_NAMES[a - R.A_STEP]
    if a < R.A_MISSION:
        return D.AGENT_NAMES[a - R.A_AGENT]
    if a < R.A_FSLOT:
        return ("discard " if d == R.D_SWAPM else "") + D.MISSION_NAMES[a - R.A_MISSION]
    if a < R.A_GAP:
        return f"faction F{g.own[g.decider][a - R.A_FSLOT]}"
    if a < R.A_ORI:
        return _gap(g, a - R.A_GAP)
    if a < R.A_SEAT:
        return _orientation(g, a - R.A_ORI)
    if a < R.A_BOARD:
        return f"P{(g.decider + a - R.A_SEAT + 1) % g.N}"
    if a < R.A_MSLOT:
        return _slot_card(g, a - R.A_BOARD)
    if a < R.A_RANDOM:
        return ("discard " if d == R.D_SWAPM else "") + _mission_slot(g, a)
    if a == R.A_RANDOM:
        return "a random mission from hand"
    t = D.MHG_ELIGIBLE[g.stack[-1][2]]
    return f"reveal {a - R.A_COUNT} {D.AGENT_NAMES[t]}"


def _plain_label(a: int) -> str:
    if a == R.A_DONE:
        return "FINISH"
    if a < R.A_AGENT:
        return R.STEP_NAMES[a - R.A_STEP]
    if a < R.A_MISSION:
        return f"agent {D.AGENT_NAMES[a - R.A_AGENT]}"
    if a < R.A_FSLOT:
        return f"mission {D.MISSION_NAMES[a - R.A_MISSION]}"
    if a < R.A_GAP:
        return f"own faction slot {a - R.A_FSLOT}"
    if a < R.A_ORI:
        return f"gap {a - R.A_GAP}"
    if a < R.A_SEAT:
        return ("command toward the decider", "command toward the other player")[a - R.A_ORI]
    if a < R.A_BOARD:
        return f"seat +{a - R.A_SEAT + 1}"
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


def private_move_label(g) -> str | None:
    """What another seat may read of the pending move when it is private (6): the
    Tracker's pick (seen by its executor only) and the Interrogator's pick (seen by
    its executor and its target). None when the move is public."""
    if g.over:
        return None
    top = g.stack[-1]
    if g.decision == R.D_TRACK:
        return f"P{g.decider} takes a card from the agent deck (Tracker; hidden)"
    if g.decision == R.D_INT_CARD:
        return f"P{g.decider} takes an agent card from P{top[7]}'s hand (Interrogator; hidden)"
    return None


def action_label_for(g, a: int, viewer) -> str:
    """Every choice is public (6) except the Tracker's pick (seen by its executor)
    and the Interrogator's pick (seen by its executor and its target)."""
    if viewer is None or viewer == g.decider or g.over:
        return action_label(g, a)
    if g.decision == R.D_INT_CARD and viewer == g.stack[-1][7]:
        return action_label(g, a)
    return private_move_label(g) or action_label(g, a)


def turn_status(g) -> str:
    """The public progress of the turn (4.1, 4.8, C48): actions left, free mission
    operations used in the current window, open Mercenary bonus contexts."""
    if g.over or not g.stack:
        return ""
    fr0 = g.stack[0]
    p = fr0[1]
    if fr0[0] == R.CTX:
        s = (f"P{p}'s turn: actions left {fr0[2]} (the turn ends when they run out); free mission "
             f"operations {fr0[4]}/{R.MAX_FREE_OPS} before the next action (they cost none)")
    elif fr0[0] == R.END:
        s = (f"P{p}'s end window: free mission operations {fr0[2]}/{R.MAX_FREE_OPS}, "
             "then FINISH ends the turn")
    else:
        s = f"P{p}'s turn ends: Moral High Ground reveals, then scoring"
    for fr in g.stack:
        if fr[0] == R.CTX and fr[3]:
            s += f"; Mercenary bonus: P{fr[1]} has {fr[2]} action(s) (no mission operations)"
    return s


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
        lines.append(turn_status(g))
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


# ------------------------------------------------------------------ picture
# ``render_rgb(g, viewer)``: a fixed-size (per player count) picture of the table.
# Each faction is a row of card tiles between its two members: the first member sits
# below the row and the second above it, so that card j+1 lies right of card j (the
# left/right halves of 5.1 then meet at the seams). A card's command band is at the
# end facing the player its command points at, its two data halves at the other end.
# A viewer sees only public zones, its own hand and, when it decides, its options.

from spyenvs.core import drawing as dr  # noqa: E402

CW, CH = 84, 78          # faction card tile
GAP = 8                  # between tiles (arrow badges sit on the seams)
MW, MH = 86, 42          # small tiles: hands, piles, transit
PAD = 10
LABEL_W = 104
CHIP_W = 176
LINE = 14
HEADER_H = 4 * LINE + 12
FB_H = CH + 16
PILES_H = MH + 24
PH = MH + 10

PLAYER_COLORS = ((196, 58, 58), (48, 98, 196), (36, 140, 68), (214, 128, 20), (138, 70, 170))
GROUP_COLORS = {D.KILL: (168, 40, 40), D.REMOVE: (150, 92, 28), D.TURN: (116, 58, 156),
                D.SWAP: (36, 100, 168), D.FREELANCE: (34, 122, 86)}
MISSION_COLOR = (90, 80, 50)
HALF_COLORS = ((34, 34, 34), (246, 246, 240))  # D.B, D.W
HIGHLIGHT = (230, 170, 0)
SHORT_VERB = {"REACTIVATE": "REACT", "INTERROGATE": "INTERROG"}


def frame_size(n: int) -> tuple[int, int]:
    """(height, width) of the picture for ``n`` players (fixed per player count)."""
    cap = 7 if n == 2 else 5
    w = PAD + LABEL_W + cap * (CW + GAP) + CHIP_W + PAD
    h = HEADER_H + n * FB_H + PILES_H + n * PH + PAD
    return h, w


def _tri(img, x, y, size, up, color):
    """A small filled triangle pointing up or down."""
    for k in range(size):
        half = (k + 1) // 2 if up else (size - k) // 2
        c = x + size // 2
        dr.fill(img, c - half, y + k, 2 * half + 1, 1, color)


_TILES: dict[tuple, object] = {}


def _tile(t: int, band_top: bool, cmd_to: int, mark: int):
    """Pixels of a face-up faction card (cached): ``mark`` 0 plain, 1 chain, 2 source/pick."""
    key = (t, band_top, cmd_to, mark)
    img = _TILES.get(key)
    if img is not None:
        return img
    img = dr.canvas(CH, CW)
    col = GROUP_COLORS[D.GROUP[t]]
    border = (HIGHLIGHT if mark == 2 else (200, 150, 40)) if mark else dr.INK
    thick = 3 if mark else 1
    dr.box(img, 0, 0, CW, CH, dr.shade(col, 0.8), border, thick)
    band = 16
    by = thick if band_top else CH - thick - band
    dr.fill(img, thick, by, CW - 2 * thick, band, col)
    verb = SHORT_VERB.get(D.VERB[t], D.VERB[t])
    dr.text_center(img, 0, by + 2, CW, verb, (255, 255, 255))
    tw = len(verb) * dr.GLYPH_W
    for tx in ((CW - tw) // 2 - 12, (CW + tw) // 2 + 4):
        _tri(img, tx, by + 4, 8, band_top, (255, 255, 255))
    # data halves at the other end: L is on the left of the player the data faces
    hy = CH - thick - 13 if band_top else thick + 1
    hw = (CW - 2 * thick - 6) // 2
    left, right = (D.HALF_L[t], D.HALF_R[t]) if band_top else (D.HALF_R[t], D.HALF_L[t])
    dr.box(img, thick + 2, hy, hw, 12, HALF_COLORS[left], dr.INK)
    dr.box(img, CW - thick - 2 - hw, hy, hw, 12, HALF_COLORS[right], dr.INK)
    ny = thick + band + 3 if band_top else thick + 15
    for line in dr.wrap(D.AGENT_NAMES[t], (CW - 6) // dr.GLYPH_W, 2):
        dr.text_center(img, 0, ny, CW, line)
        ny += 13
    dr.text_center(img, 0, ny + 1, CW, f"cmd>P{cmd_to}", dr.shade(PLAYER_COLORS[cmd_to], -0.25))
    _TILES[key] = img
    return img


def _dead_tile(t: int, mark: int):
    key = ("dead", t, mark)
    img = _TILES.get(key)
    if img is None:
        img = dr.canvas(CH, CW)
        dr.card_back(img, 0, 0, CW, CH)
        dr.fill(img, 6, 8, CW - 12, 15, (60, 30, 30))
        dr.text_center(img, 0, 9, CW, "DEAD", (255, 230, 220))
        if t >= 0:
            lines = dr.wrap(D.AGENT_NAMES[t], (CW - 4) // dr.GLYPH_W, 2)
            dr.fill(img, 2, CH - 8 - 13 * len(lines) - 2, CW - 4, 13 * len(lines) + 2, (235, 228, 210))
            for k, line in enumerate(lines):
                dr.text_center(img, 0, CH - 8 - 13 * (len(lines) - k), CW, line)
        if mark:
            dr.box(img, 0, 0, CW, CH, None, HIGHLIGHT if mark == 2 else (200, 150, 40), 3)
        _TILES[key] = img
    return img


def _blit(img, x, y, tile):
    h, w = tile.shape[:2]
    H, W = img.shape[:2]
    img[y:min(y + h, H), x:min(x + w, W)] = tile[:H - y, :W - x]


def _cached(img, x, y, w, h, key, draw, *args):
    """Blit a small opaque picture drawn once by ``draw(tile, 0, 0, *args)`` (lettering is slow)."""
    tile = _TILES.get(key)
    if tile is None:
        tile = dr.canvas(h, w)
        draw(tile, 0, 0, *args)
        if len(_TILES) < 4000:
            _TILES[key] = tile
    _blit(img, x, y, tile)


def _mini_agent(img, x, y, t, note="", w=MW, count=1):
    """A small face-up agent card (hands, piles, transit), ``w`` pixels wide."""
    _cached(img, x, y, w, MH, ("ma", t, note, w, count), _draw_mini_agent, t, note, w, count)


def _draw_mini_agent(img, x, y, t, note, w, count):
    col = GROUP_COLORS[D.GROUP[t]]
    dr.box(img, x, y, w, MH, dr.shade(col, 0.8), dr.INK)
    dr.fill(img, x + 1, y + 1, w - 2, 13, col)
    verb = SHORT_VERB.get(D.VERB[t], D.VERB[t])
    dr.text_center(img, x, y + 1, w - _count_badge(img, x + w, y, count), verb, (255, 255, 255))
    dr.text_center(img, x, y + 15, w, D.AGENT_NAMES[t] if t != D.JACK else "Jack")
    if note:
        dr.text_center(img, x, y + 28, w, note, (80, 60, 20))
    elif D.IS_FACTION[t]:
        hw = (w - 8) // 2
        dr.box(img, x + 3, y + MH - 11, hw, 8, HALF_COLORS[D.HALF_L[t]], dr.INK)
        dr.box(img, x + w - 3 - hw, y + MH - 11, hw, 8, HALF_COLORS[D.HALF_R[t]], dr.INK)
    else:
        dr.text_center(img, x, y + 28, w, f"FREE +{D.FREE_IP[t]}", (120, 90, 0))


def _wrap_hard(s, width, lines):
    """Word wrap that also splits (with a hyphen) words longer than a line."""
    words = []
    for w in s.split():
        while len(w) > width:
            words.append(w[:width - 1] + "-")
            w = w[width - 1:]
        words.append(w)
    return dr.wrap(" ".join(words), width, lines)


def _mini_mission(img, x, y, mt, w=MW, count=1):
    _cached(img, x, y, w, MH, ("mm", mt, w, count), _draw_mini_mission, mt, w, count)


def _draw_mini_mission(img, x, y, mt, w, count):
    dr.box(img, x, y, w, MH, (236, 226, 196), dr.INK)
    dr.fill(img, x + 1, y + 1, w - 2, 13, MISSION_COLOR)
    v = D.MISSION_VALUE[mt]
    each = mt in (D.CODE_BREAKER, D.CODE_OF_HONOR, D.MAN_DOWN, D.MORAL_HIGH_GROUND)
    bw = _count_badge(img, x + w, y, count)
    dr.text_center(img, x, y + 1, w - bw, f"{v} IP each" if each and w - bw >= 70 else f"{v} IP",
                   (255, 240, 200))
    for k, line in enumerate(_wrap_hard(D.MISSION_NAMES[mt], max(w // dr.GLYPH_W, 2), 2)):
        dr.text_center(img, x, y + 15 + 13 * k, w, line)


def _count_badge(img, right, y, k):
    """'xk' in the top right corner of a small card (k > 1); returns its width."""
    if k < 2:
        return 0
    s = f"x{k}"
    bw = dr.text_width(s) + 4
    dr.box(img, right - bw, y, bw, 15, (255, 236, 140), dr.INK)
    dr.text(img, right - bw + 2, y + 1, s)
    return bw


def _counts(cards):
    out = {}
    for c in cards:
        out[c >> 1] = out.get(c >> 1, 0) + 1
    return sorted(out.items())


def _hand(img, x, y, right, agents, missions):
    """A face-up hand: one tile per card type with its count, narrowed to fit."""
    items = [("a", t, k) for t, k in _counts(agents)] + [("m", t, k) for t, k in _counts(missions)]
    if not items:
        dr.text(img, x, y + 14, "empty hand", (130, 125, 110))
        return
    w = min(MW, (right - x - 4 * (len(items) - 1)) // len(items))
    for kind, t, k in items:
        if kind == "a":
            _mini_agent(img, x, y, t, w=w, count=k)
        else:
            _mini_mission(img, x, y, t, w=w, count=k)
        x += w + 4


def _backs(img, x, y, n, what):
    """A stack of ``n`` face-down cards with their count."""
    if n:
        _cached(img, x, y, 5 * (min(n, 4) - 1) + MW, MH, ("bk", n, what), _draw_backs, n, what)
        return x + 5 * (min(n, 4) - 1) + MW
    return _draw_backs(img, x, y, n, what)


def _draw_backs(img, x, y, n, what):
    for k in range(min(n, 4)):
        dr.card_back(img, x + 5 * k, y, MW, MH)
    if n:
        label = f"{n} {what}" if n > 1 or what == "left" else f"1 {what[:-1]}"
        dr.card_back(img, x + 5 * (min(n, 4) - 1), y, MW, MH, label)
    else:
        dr.box(img, x, y, MW, MH, None, (170, 165, 150))
        dr.text_center(img, x, y + (MH - 13) // 2, MW, "empty" if what == "left" else f"no {what}",
                       (150, 145, 130))
    return x + 5 * (max(min(n, 4), 1) - 1) + MW


def _chip(img, x, y, w, text, value, owner):
    col = PLAYER_COLORS[owner]
    dr.box(img, x, y, w, 17, dr.shade(col, 0.82), col)
    dr.text(img, x + 3, y + 2, text, dr.INK, max_w=w - 34)
    vs = f"+{value}" if value else "0"
    dr.text(img, x + w - 4 - dr.text_width(vs), y + 2, vs, (20, 110, 40) if value else (130, 130, 130))


def _player_label(img, x, y, w, h, q, lines, active):
    _cached(img, x, y, w, h, ("pl", w, h, q, tuple(lines), active), _draw_player_label, w, h, q, lines, active)


def _draw_player_label(img, x, y, w, h, q, lines, active):
    col = PLAYER_COLORS[q]
    dr.box(img, x, y, w, h, col if active else dr.shade(col, 0.75), dr.INK, 2 if active else 1)
    ink = (255, 255, 255) if active else dr.INK
    for k, line in enumerate(lines):
        dr.text(img, x + 5, y + 3 + 13 * k, line, ink, max_w=w - 8)


def _pending(g, viewer):
    """Header lines: the pending decision, its public context and (for its decider) the options."""
    if g.over:
        res = "truncated, no winner" if g.truncated else "winner " + ", ".join(f"P{q}" for q in g.winners)
        return [f"GAME OVER after {g.turns} turns: {res}"]
    d = g.decider
    who = "you" if viewer == d else f"P{d}"
    lines = [f"{who} to decide: {R.DECISIONS[g.decision].replace('_', ' ')}"]
    ctx = []
    fr0 = g.stack[0]
    if fr0[0] == R.CTX and not fr0[3]:
        ctx.append(f"actions left {fr0[2]}")
    bonus = sum(1 for fr in g.stack if fr[0] == R.CTX and fr[3])
    if bonus:
        ctx.append(f"Mercenary bonus x{bonus}")
    top = g.stack[-1]
    if top[0] == R.BUILD:
        ctx.append(R.STEP_NAMES[top[3]].replace("_", " ").lower())
        if top[4] >= 0:
            ctx.append(D.AGENT_NAMES[top[4] >> 1])
        if top[8] >= 0:
            ctx.append(D.MISSION_NAMES[top[8] >> 1])
        if top[5] >= 0:
            ctx.append(f"faction F{top[5]}")
        if top[7] >= 0 and top[3] == R.S_PFR:
            ctx.append(f"partner P{top[7]}")
    elif top[0] == R.CMD:
        s = f"command of {D.AGENT_NAMES[top[3]]}, executor P{top[2]}"
        if top[4] >= 0:
            s += f" (F{top[4]}[{top[5]}])"
        ctx.append(s)
        if top[1] == R.D_INT_CARD and top[7] >= 0:
            ctx.append(f"interrogating P{top[7]}")
        if top[8] >= 0:
            ctx.append(f"IP to P{top[8]}")
    elif top[0] == R.MHG:
        ctx.append(f"Moral High Ground: reveal {D.AGENT_NAMES[D.MHG_ELIGIBLE[top[2]]]}s")
    if g.barred:
        ctx.append("barred " + ",".join(f"P{q}" for q in range(g.N) if (g.barred >> q) & 1))
    lines[0] += ("  (" + "; ".join(ctx) + ")") if ctx else ""
    if viewer is None or viewer == d:
        opts = ", ".join(action_label(g, a) for a in sorted(g.legal))
        lines.append("options: " + opts)
    else:
        lines.append(f"waiting for P{d}")
    return lines


def render_rgb(g, viewer=None):
    """The table as an (H, W, 3) uint8 picture from ``viewer``'s seat (None: omniscient)."""
    n, cap = g.N, g.cap
    H, W = frame_size(n)
    img = dr.canvas(H, W)
    show_dead = g.config["dead_identities_visible"] or viewer is None

    # header: title, pending decision, options
    who = "omniscient" if viewer is None else f"P{viewer}"
    dr.fill(img, 0, 0, W, LINE + 6, (44, 48, 60))
    dr.text(img, PAD, 3, f"The Agents - turn {g.turns + 1} - active P{g.active} - view: {who}"
            f" - first to {D.WIN_IP} IP", (245, 240, 225), max_w=W - 2 * PAD)
    chars = (W - 2 * PAD) // dr.GLYPH_W
    y = LINE + 10
    pend = _pending(g, viewer)
    hl = dr.wrap(pend[0], chars, 1) if len(pend[0]) > chars else [pend[0]]
    if len(pend) > 1:
        hl += dr.wrap(pend[1], chars, 2)
    for k, line in enumerate(hl[:3]):
        dr.text(img, PAD, y + LINE * k, line, (150, 40, 20) if k == 0 else dr.INK)

    # highlights from the resolution stack (public)
    marks = {}
    top = g.stack[-1] if g.stack else None
    if top is not None and top[0] == R.CMD:
        chain, x = top[6], 0
        while chain:
            if chain & 1:
                marks[divmod(x, 7)] = 1
            chain >>= 1
            x += 1
        if top[4] >= 0:
            marks[(top[4], top[5])] = 2
        if top[7] >= 0 and top[1] != R.D_INT_CARD:
            marks[divmod(top[7], 7)] = 2
    elif top is not None and top[0] == R.BUILD and top[5] >= 0:
        marks[("F", top[5])] = 1

    # factions
    arrows = [g.arrows(f) for f in range(g.nf)]
    cards_x = PAD + LABEL_W + 6
    chips_x = cards_x + cap * (CW + GAP) + 2
    for f in range(g.nf):
        y0 = HEADER_H + f * FB_H
        a, b = g.members[f]
        ty = y0 + 8
        if f:
            dr.fill(img, PAD, y0, W - 2 * PAD, 1, (200, 195, 180))
        if ("F", f) in marks:
            dr.fill(img, cards_x - 4, ty - 3, cap * (CW + GAP), CH + 6, (250, 226, 150))
        pa, pb = arrows[f][0], arrows[f][1]
        _player_label(img, PAD, ty, LABEL_W, 30, b, [f"P{b}" + (" (you)" if b == viewer else ""),
                                                     f"arrows {pb}"], False)
        _player_label(img, PAD, ty + CH - 30, LABEL_W, 30, a, [f"P{a}" + (" (you)" if a == viewer else ""),
                                                               f"arrows {pa}"], False)
        dr.text(img, PAD + 4, ty + CH // 2 - 7, f"F{f} {len(g.fac[f])}/{cap}", (90, 85, 70))
        row = g.fac[f]
        for j in range(cap):
            x = cards_x + j * (CW + GAP)
            if j >= len(row):
                dr.box(img, x, ty, CW, CH, None, (214, 208, 192))
                continue
            cid, to = row[j]
            t = cid >> 1
            mark = marks.get((f, j), 0)
            if to < 0:
                _blit(img, x, ty, _dead_tile(t if show_dead else -1, mark))
            else:
                _blit(img, x, ty, _tile(t, to == b, to, mark))
        # complete arrows: a badge on the seam, at the end the data faces
        for j in range(len(row) - 1):
            c1, c2 = row[j], row[j + 1]
            if c1[1] < 0 or c1[1] != c2[1]:
                continue
            t1, t2 = c1[0] >> 1, c2[0] >> 1
            if c1[1] == b:   # data to a (bottom)
                val = 2 if D.HALF_R[t1] == D.HALF_L[t2] else 1
                face, by = a, ty + CH - 16
            else:
                val = 2 if D.HALF_L[t1] == D.HALF_R[t2] else 1
                face, by = b, ty + 1
            sx = cards_x + j * (CW + GAP) + CW + GAP // 2 - 8
            dr.shape(img, sx - 1, by - 1, 18, "circle", dr.INK)
            dr.shape(img, sx, by, 16, "circle", PLAYER_COLORS[face])
            dr.text(img, sx + 5, by + 2, str(val), (255, 255, 255))
        # attached missions: the second member's above, the first member's below
        for m, yy, dy in ((1, ty, 19), (0, ty + CH - 17, -19)):
            o = g.members[f][m]
            for k, c in enumerate(g.att[f][m]):
                pts = g.mission_points(o, f, c >> 1, arrows)
                _chip(img, chips_x, yy + dy * k, CHIP_W - 4, D.MISSION_NAMES[c >> 1], pts, o)

    # piles and transit
    y0 = HEADER_H + g.nf * FB_H
    dr.fill(img, 0, y0, W, PILES_H, (232, 228, 214))
    ly, cy = y0 + 3, y0 + 18
    x = PAD
    dr.text(img, x, ly, "agent deck")
    x = _backs(img, x, cy, len(g.deck_a), "left") + 12
    dr.text(img, x, ly, f"retired {len(g.ret_a)}")
    if g.ret_a:
        _mini_agent(img, x, cy, g.ret_a[-1] >> 1)
    else:
        dr.box(img, x, cy, MW, MH, None, (170, 165, 150))
    x += MW + 18
    dr.text(img, x, ly, "mission deck")
    x = _backs(img, x, cy, len(g.deck_m), "left") + 12
    dr.text(img, x, ly, f"retired {len(g.ret_m)}")
    if g.ret_m:
        _mini_mission(img, x, cy, g.ret_m[-1] >> 1)
    else:
        dr.box(img, x, cy, MW, MH, None, (170, 165, 150))
    x += MW + 18
    if g.transit:
        dr.text(img, x, ly, "in transit")
        for c, q in g.transit[:3]:
            _mini_agent(img, x, cy, c >> 1, f"IP to P{q}" if q >= 0 else "")
            x += MW + 6

    # players: IP, hands (own face up, others' as backs)
    for q in range(n):
        y = y0 + PILES_H + q * PH + 5
        act = q == g.active and not g.over
        _player_label(img, PAD, y, LABEL_W, MH, q,
                      [f"P{q}" + (" (you)" if q == viewer else "") + (" to play" if act else "")], act)
        dr.big_text(img, PAD + 6, y + 15, f"{g.ip[q]} IP", (255, 255, 255) if act else dr.INK)
        x = PAD + LABEL_W + 8
        if viewer is None or viewer == q:
            _hand(img, x, y, W - PAD, g.hand_a[q], g.hand_m[q])
        else:
            x = _backs(img, x, y, g.na[q], "agents") + 14
            _backs(img, x, y, len(g.hand_m[q]), "missions")
    return img
