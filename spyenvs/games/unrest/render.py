"""Text, pictures and move labels of unrest_v0, per view. A viewer sees only what the
rules make public plus what it knows itself: the Rebel knows every card it played and
its hand (not the deck order); the Empire knows face-up cards and where every handle
went. ``viewer=None`` is the omniscient debugging view.

Move labels (``action_label``, ``action_label_for``) name cards, not hand slots or pending slots. Every move
of both roles is public (§4, §5.1) except the identities of the cards the Rebel plays
face down, so the Empire reads a PLAY as ``play Riots 5 face up; 2 cards face down``
and the Rebel as ``play Riots 5 face up; Coup 4 + Supplies 6 face down``."""

from __future__ import annotations

from spyenvs.core import drawing as dr

from . import data as D
from .rules import (
    A_ASSIGN,
    A_LIBERATE,
    A_PLAY,
    A_PLAY_ALL_HIDDEN,
    EMPIRE,
    LOC_DESTROYED,
    LOC_DISTRICT,
    PHASE_NAMES,
    REBEL,
)


def knows_cards(viewer) -> bool:
    """Whether ``viewer`` knows the Rebel's hand and face-down cards (§5.1)."""
    return viewer is None or viewer == REBEL


def _place(game, p: int) -> str:
    row = game.pub.row
    if 0 <= p < len(row):
        return f"{D.DISTRICTS[row[p]]} (position {p})"
    return f"position {p} (not in the row)"


def _where(game, h: int) -> str:
    loc = game.pub.hloc[h]
    if 0 <= loc < LOC_DISTRICT:
        return "pending"
    if loc == LOC_DESTROYED:
        return "destroyed"
    return f"in {D.DISTRICTS[loc - LOC_DISTRICT]}"


def action_label(game, a: int) -> str:
    """The pending decision's action ``a`` as the role deciding it sees it."""
    return action_label_for(game, a, game.current_player)


def action_label_for(game, a: int, viewer) -> str:
    """Action ``a`` of the pending decision as ``viewer`` sees it (None: omniscient).
    Every move is public except the identities of the cards the Rebel plays face
    down (§5.1)."""
    pub = game.pub
    if game.current_player == EMPIRE and not game.is_over:
        # every Empire action is public: token, target handle and destination (§4.3)
        tok, h, p = game.decode_empire(a)
        if tok == D.BLOCKADE:
            return f"Blockade {_place(game, p)}"
        if h < 0:
            return f"{D.TOKENS[tok]} an empty pending slot"
        card = f"{_handle(game, h, viewer)} ({_where(game, h)})"
        if tok == D.SURVEILLANCE:
            return f"Surveillance: turn {card} face up"
        if tok == D.DESTROY:
            return f"Destroy {card}"
        return f"Redirect {card} to {_place(game, p)}"
    if a < A_PLAY:
        return f"area between {_place(game, a)} and {_place(game, a + 1)}"
    if a < A_PLAY_ALL_HIDDEN:
        return _play_label(game, a, viewer)
    if a == A_PLAY_ALL_HIDDEN:
        n = pub.hand_size
        if knows_cards(viewer):
            return f"play all {n} face down: " + " + ".join(D.card_name(c) for c in game.hid.hand)
        if game.config["final_encounter_one_faceup"]:
            # a suit card would have to go face up, so all face down shows 3 Decoys (§4.6, R2)
            return f"play all {n} cards face down (so all are Decoys)"
        return f"play all {n} cards face down"
    if a < A_LIBERATE:
        h = next((h for h in pub.pending if h >= 0), -1)
        card = _handle(game, h, viewer) if h >= 0 else "no pending card"
        return f"assign {card} to {_place(game, a - A_ASSIGN)}"
    p, m = divmod(a - A_LIBERATE, 4)
    return f"liberate {_place(game, p)} with {D.MISSION_NAMES[pub.missions[m]]} (mission slot {m})"


def _play_label(game, a: int, viewer) -> str:
    """A PLAY names the face-up card (public once played) and, for a viewer who knows
    them, the two face-down cards; the index itself names sorted hand slots (§7.1),
    which the Empire never learns (§5.2 note 5)."""
    hand = game.hid.hand
    try:
        r, i, j = game.decode_play(a)
    except IndexError:  # a pair beyond the hand: not a play of this hand
        r = i = j = len(hand)
    if not (r < len(hand) and i < len(hand) and j < len(hand)):
        return f"play action {a} (no such cards in a hand of {len(hand)})"
    up = f"play {D.card_name(hand[r])} face up; "
    if knows_cards(viewer):
        return up + f"{D.card_name(hand[i])} + {D.card_name(hand[j])} face down"
    return up + "2 cards face down"


def _handle(game, h: int, viewer) -> str:
    pub = game.pub
    if pub.hup[h]:
        return f"h{h}:{D.card_name(pub.htype[h])}"
    if knows_cards(viewer):
        return f"h{h}:[{D.card_name(game.hid.hcard[h])}]"
    return f"h{h}:?"


def legend(viewer) -> str:
    """What the card notation of ``render_text`` means for this viewer."""
    face_down = (
        "hN:[Riots 5] = face down, known only to the Rebel"
        if knows_cards(viewer)
        else "hN:? = face down, unknown to you"
    )
    return (
        "legend: hN = card handle N, played in round N // 3 + 1 into pending slot N % 3 "
        f"(slot 0 holds the face-up card); hN:Riots 5 = face up; {face_down}; -- = empty pending slot"
    )


def render_text(game, viewer=None) -> str:
    pub = game.pub
    who = "omniscient" if viewer is None else game.roles[viewer]
    lines = [
        f"Unrest round {pub.round}{' (Final Encounter)' if pub.final else ''} - {PHASE_NAMES[pub.phase]} - view: {who}",
    ]
    if pub.winner >= 0:
        lines.append(f"winner: {game.roles[pub.winner]}")
    ms = []
    for m in range(4):
        k = pub.missions[m]
        txt = D.MISSION_TEXT[k].format(thr=game.threshold)
        ms.append(f"  slot {m}: {D.MISSION_NAMES[k]} ({txt}){'' if pub.mission_avail[m] else ' [used]'}")
    lines.append("missions:")
    lines.extend(ms)
    toks = ", ".join(f"{D.TOKENS[t]}={'up' if pub.tok_avail[t] else 'used'}" for t in range(4))
    used = ", ".join(D.TOKENS[t] for t in pub.tok_used) or "-"
    lines.append(f"tokens: {toks}; used this round: {used}")
    area = "-"
    if pub.area >= 0:
        area = f"gap {pub.area} ({D.DISTRICTS[pub.row[pub.area]]} + {D.DISTRICTS[pub.row[pub.area + 1]]})"
    blockade = D.DISTRICTS[pub.blockade] if pub.blockade >= 0 else "-"
    lines.append(f"area: {area}; blockade: {blockade}")
    lines.append("row:")
    for p, d in enumerate(pub.row):
        cards = " ".join(_handle(game, h, viewer) for h in pub.dist[d]) or "(empty)"
        lines.append(f"  {p}: {D.DISTRICTS[d]}: {cards}")
    for d in pub.lib:
        cards = " ".join(_handle(game, h, viewer) for h in pub.dist[d])
        lines.append(
            f"  liberated {D.DISTRICTS[d]} in round {pub.lib_round[d]} by {D.MISSION_NAMES[pub.missions[pub.lib_mission[d]]]}: {cards}"
        )
    pend = " ".join(_handle(game, h, viewer) if h >= 0 else "--" for h in pub.pending)
    lines.append(f"pending: {pend}")
    lines.append("destroyed: " + (" ".join(_handle(game, h, viewer) for h in pub.destroyed) or "-"))
    if knows_cards(viewer):
        cards = ", ".join(D.card_name(c) for c in game.hid.hand)
        lines.append(f"hand ({len(game.hid.hand)} cards): {cards or '-'}")
    else:
        lines.append(f"hand: {pub.hand_size} cards")
    if viewer is None:
        lines.append("deck (top last): " + ", ".join(D.card_name(c) for c in game.hid.deck))
    else:
        lines.append(f"deck: {pub.deck_size} cards")
    lines.append(legend(viewer))
    return "\n".join(lines)


# ------------------------------------------------------------------ picture
# Colours per suit (Intel, Riots, Coup, Supplies) and for Decoys; the table layout
# is fixed-size so a replay or a video gets equal frames throughout a game.
SUIT_COLORS = ((48, 98, 170), (196, 52, 44), (124, 70, 164), (52, 136, 68))
DECOY_COLOR = (128, 128, 120)
TOKEN_COLORS = ((200, 140, 20), (170, 40, 40), (60, 120, 160), (150, 96, 40))
COL_W, COL_GAP, MARGIN = 150, 8, 10
TILE_H, TILE_STEP, SLOTS = 22, 25, 8
WIDTH = 2 * MARGIN + 5 * COL_W + 4 * COL_GAP
HEADER_H, MISSION_Y, MISSION_H = 24, 32, 60
ROW_Y = MISSION_Y + MISSION_H + 26
DIST_H = 44
CARDS_Y = ROW_Y + DIST_H + 4
BOTTOM_Y = CARDS_Y + SLOTS * TILE_STEP + 26
FOOT_Y = BOTTOM_Y + 16 + 6 * TILE_STEP + 6
HEIGHT = FOOT_Y + 24


def _col_x(i: int) -> int:
    return MARGIN + i * (COL_W + COL_GAP)


def _card_tile(img, x, y, w, t: int, facedown: bool = False) -> None:
    """A face-up card, or a face-down one that the viewer knows (hatched corner)."""
    if t == D.DECOY_TYPE or t >= D.DECOY_FIRST:
        col, val, name = DECOY_COLOR, "D", "Decoy"
    else:
        col, val, name = SUIT_COLORS[t // 5], str(t % 5 + 2), D.SUITS[t // 5]
    dr.box(img, x, y, w, TILE_H, dr.shade(col, 0.8), dr.shade(col, -0.45))
    dr.fill(img, x + 1, y + 1, 24, TILE_H - 2, col)
    dr.text_center(img, x + 1, y + (TILE_H - dr.GLYPH_H) // 2, 24, val, (255, 255, 255))
    dr.text(img, x + 30, y + (TILE_H - dr.GLYPH_H) // 2, name, dr.shade(col, -0.55), w - 52)
    if facedown:  # the hatched end marks a card lying face down that this viewer knows
        dr.card_back(img, x + w - 20, y + 1, 19, TILE_H - 2)


def _handle_tile(game, img, x, y, w, h: int, viewer) -> None:
    pub = game.pub
    if pub.hup[h]:
        _card_tile(img, x, y, w, pub.htype[h])
    elif viewer is None or viewer == REBEL:
        _card_tile(img, x, y, w, D.CARD_TYPE[game.hid.hcard[h]], facedown=True)
    else:
        dr.card_back(img, x, y, w, TILE_H, "face down")


def _stack(img, x, y, items, draw, slots: int = SLOTS) -> None:
    """Tiles down a column; more than ``slots`` tiles overlap to fit."""
    n = len(items)
    step = TILE_STEP if n <= slots else max(6, (slots - 1) * TILE_STEP // max(1, n - 1))
    for i, it in enumerate(items):
        draw(x, y + i * step, it)


def render_rgb(game, viewer=None):
    pub = game.pub
    img = dr.canvas(HEIGHT, WIDTH)
    ink = dr.INK
    # header
    dr.fill(img, 0, 0, WIDTH, HEADER_H, (44, 40, 52))
    who = "omniscient" if viewer is None else game.roles[viewer]
    title = f"UNREST  round {pub.round}{'  FINAL ENCOUNTER' if pub.final else ''}  -  {PHASE_NAMES[pub.phase]}"
    dr.text(img, MARGIN, 6, title, (250, 240, 210))
    right = f"view: {who}"
    dr.text(img, WIDTH - MARGIN - dr.text_width(right), 6, right, (200, 200, 220))

    # missions
    mw = (WIDTH - 2 * MARGIN - 3 * COL_GAP) // 4
    for m in range(4):
        x = MARGIN + m * (mw + COL_GAP)
        kind = pub.missions[m]
        avail = pub.mission_avail[m]
        col = (150, 110, 40) if kind == D.REVOLUTION else (70, 96, 110)
        if not avail:
            col = (170, 170, 165)
        dr.box(img, x, MISSION_Y, mw, MISSION_H, dr.shade(col, 0.85), dr.shade(col, -0.4))
        dr.fill(img, x + 1, MISSION_Y + 1, mw - 2, 17, col)
        dr.text(img, x + 5, MISSION_Y + 3, f"{m}: {D.MISSION_NAMES[kind]}", (255, 255, 255), mw - 10)
        if not avail:
            dr.text(img, x + mw - 5 - dr.text_width("USED"), MISSION_Y + 3, "USED", (120, 20, 20))
        cond = D.MISSION_TEXT[kind].format(thr=game.threshold)
        for i, line in enumerate(dr.wrap(cond, (mw - 10) // dr.GLYPH_W, 3)):
            dr.text(img, x + 5, MISSION_Y + 21 + i * dr.GLYPH_H, line, ink)

    # the district row, then the liberated districts
    dr.text(img, MARGIN, ROW_Y - 18, "DISTRICT ROW", (90, 80, 70))
    cols = [(p, d, False) for p, d in enumerate(pub.row)] + [(-1, d, True) for d in pub.lib]
    area = game.area_positions()
    if area:
        x0 = _col_x(area[0]) - 3
        dr.box(img, x0, ROW_Y - 4, 2 * COL_W + COL_GAP + 6, CARDS_Y + SLOTS * TILE_STEP - ROW_Y + 6,
               None, (230, 180, 30), 3)
        dr.fill(img, x0 + COL_W - 10, ROW_Y - 18, 2 * COL_GAP + 26, 14, (230, 180, 30))
        dr.text_center(img, x0 + COL_W - 10, ROW_Y - 18, 2 * COL_GAP + 26, "AREA", ink)
    for i, (p, d, lib) in enumerate(cols):
        x = _col_x(i)
        if lib:
            col = (40, 140, 70)
        elif d == pub.blockade:
            col = (150, 40, 40)
        else:
            col = (84, 84, 96)
        dr.box(img, x, ROW_Y, COL_W, DIST_H, col, dr.shade(col, -0.5))
        tag = (f"LIBERATED r{pub.lib_round[d]}" if lib else f"position {p}"
               + ("  BLOCKADE" if d == pub.blockade else ""))
        dr.text(img, x + 4, ROW_Y + 3, tag, (255, 236, 160), COL_W - 8)
        for k, line in enumerate(dr.wrap(D.DISTRICTS[d], (COL_W - 8) // dr.GLYPH_W, 2)):
            dr.text(img, x + 4, ROW_Y + 16 + k * dr.GLYPH_H, line, (255, 255, 255))
        if lib:
            # the mission that freed it, under the cards
            used = D.MISSION_NAMES[pub.missions[pub.lib_mission[d]]]
            dr.text(img, x + 2, CARDS_Y + SLOTS * TILE_STEP + 2, f"by {used}", (40, 110, 60), COL_W - 4)
        dr.box(img, x, CARDS_Y - 2, COL_W, SLOTS * TILE_STEP + 2, (238, 234, 222), (214, 208, 196))
        _stack(img, x + 3, CARDS_Y, pub.dist[d],
               lambda xx, yy, h: _handle_tile(game, img, xx, yy, COL_W - 6, h, viewer))

    # bottom: pending cards, tokens, destroyed pile, hand, deck
    labels = ("PLAYED (pending)", "EMPIRE TOKENS", "DESTROYED", "REBEL HAND", "DECK")
    for i, lab in enumerate(labels):
        dr.text(img, _col_x(i), BOTTOM_Y, lab, (90, 80, 70), COL_W)
    by = BOTTOM_Y + 16
    x = _col_x(0)
    for s in range(3):
        h = pub.pending[s]
        if h >= 0:
            _handle_tile(game, img, x, by + s * TILE_STEP, COL_W, h, viewer)
        else:
            dr.box(img, x, by + s * TILE_STEP, COL_W, TILE_H, None, (210, 204, 192))
    x = _col_x(1)
    for t in range(4):
        y = by + t * TILE_STEP
        if t in pub.tok_used:
            state, col = "used", TOKEN_COLORS[t]
        elif pub.tok_avail[t]:
            state, col = "ready", TOKEN_COLORS[t]
        else:
            state, col = "spent", (175, 172, 165)
        dr.box(img, x, y, COL_W, TILE_H, dr.shade(col, 0.75), dr.shade(col, -0.4))
        dr.shape(img, x + 5, y + 5, 12, "circle", col)
        dr.text(img, x + 22, y + 5, D.TOKENS[t], ink, COL_W - 30 - dr.text_width(state))
        dr.text(img, x + COL_W - 4 - dr.text_width(state), y + 5, state, dr.shade(col, -0.5))
    if pub.blockade >= 0:
        dr.text(img, x, by + 4 * TILE_STEP + 2, f"blockade: {D.DISTRICTS[pub.blockade]}", (150, 40, 40), COL_W)
    _stack(img, _col_x(2), by, pub.destroyed,
           lambda xx, yy, h: _handle_tile(game, img, xx, yy, COL_W, h, viewer), 6)
    x = _col_x(3)
    if viewer is None or viewer == REBEL:
        _stack(img, x, by, game.hid.hand, lambda xx, yy, c: _card_tile(img, xx, yy, COL_W, D.CARD_TYPE[c]), 6)
    else:
        _stack(img, x, by, range(pub.hand_size),
               lambda xx, yy, _: dr.card_back(img, xx, yy, COL_W, TILE_H, "hidden card"), 6)
    x = _col_x(4)
    if pub.deck_size:
        for k in range(min(4, (pub.deck_size + 2) // 3)):
            dr.card_back(img, x + 3 * k, by + 3 * k, 70, 96)
        dr.fill(img, x + 76 + 6, by + 36, 60, 18, dr.PAPER)
        dr.text(img, x + 84, by + 38, f"{pub.deck_size} cards", ink)
    else:
        dr.box(img, x, by, 70, 96, None, (200, 196, 186))
        dr.text(img, x + 84, by + 38, "empty", ink)

    # footer: the pending decision, from the viewer's side
    dr.fill(img, 0, FOOT_Y, WIDTH, HEIGHT - FOOT_Y, (232, 226, 210))
    if game.is_over:
        msg = f"GAME OVER - {game.roles[pub.winner].upper()} WINS" if pub.winner >= 0 else "GAME OVER"
        col = (150, 40, 40)
    else:
        actor = game.current_player
        dec = PHASE_NAMES[pub.phase]
        if viewer is not None and viewer == actor:
            msg, col = f"YOUR DECISION ({game.roles[actor]}): {dec}", (20, 100, 40)
        else:
            msg, col = f"waiting for {game.roles[actor]}: {dec}", ink
    dr.text(img, MARGIN, FOOT_Y + 6, msg, col, WIDTH - 2 * MARGIN - 300)
    if viewer is None or viewer == REBEL:
        dr.card_back(img, WIDTH - MARGIN - 280, FOOT_Y + 4, 19, TILE_H - 6)
        dr.text(img, WIDTH - MARGIN - 256, FOOT_Y + 6, "= lies face down (Rebel knows)", (90, 80, 70))
    return img


__all__ = ["action_label", "action_label_for", "legend", "render_text", "render_rgb"]
