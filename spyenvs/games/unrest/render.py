"""Text rendering and action labels of unrest_v0. A viewer sees only what its
observation carries; ``viewer=None`` is the omniscient debugging view."""

from __future__ import annotations

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


def action_label(game, a: int) -> str:
    pub = game.pub
    if game.current_player == EMPIRE and not game.is_over:
        tok, h, p = game.decode_empire(a)
        name = D.TOKENS[tok]
        tgt = f" handle {h}" if h >= 0 else ""
        dst = ""
        if p >= 0 and p < len(pub.row):
            dst = f" -> {D.DISTRICTS[pub.row[p]]} (position {p})"
        return f"{name}{tgt}{dst}"
    if a < A_PLAY:
        return f"area: gap {a} (positions {a} and {a + 1})"
    if a < A_PLAY_ALL_HIDDEN:
        r, k = divmod(a - A_PLAY, 6)
        return f"play: hand slot {r} face up, face-down pair {k}"
    if a == A_PLAY_ALL_HIDDEN:
        return "play all face down"
    if a < A_LIBERATE:
        return f"assign pending card to position {a - A_ASSIGN}"
    p, m = divmod(a - A_LIBERATE, 4)
    return f"liberate position {p} with mission slot {m} ({D.MISSION_NAMES[pub.missions[m]]})"


def _handle(game, h: int, viewer) -> str:
    pub = game.pub
    if pub.hup[h]:
        return f"h{h}:{D.card_name(pub.htype[h])}"
    if viewer is None or viewer == REBEL:
        return f"h{h}:[{D.card_name(game.hid.hcard[h])}]"
    return f"h{h}:?"


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
    lines.append(f"tokens: {toks}; used this round: {[D.TOKENS[t] for t in pub.tok_used]}")
    lines.append(
        f"area gap: {pub.area if pub.area >= 0 else '-'}; blockade: {D.DISTRICTS[pub.blockade] if pub.blockade >= 0 else '-'}"
    )
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
    if viewer is None or viewer == REBEL:
        lines.append("hand: " + (", ".join(D.card_name(c) for c in game.hid.hand) or "-"))
    else:
        lines.append(f"hand: {pub.hand_size} cards")
    if viewer is None:
        lines.append("deck (top last): " + ", ".join(D.card_name(c) for c in game.hid.deck))
    else:
        lines.append(f"deck: {pub.deck_size} cards")
    return "\n".join(lines)


__all__ = ["action_label", "render_text", "LOC_DESTROYED", "LOC_DISTRICT"]
