"""Explicit-state helpers for the Specter Ops rules tests."""

from __future__ import annotations

import numpy as np

from spyenvs.games.specter_ops import board as B
from spyenvs.games.specter_ops.data import CARD0, NO, PAD, S3, S4, SEAT0
from spyenvs.games.specter_ops.game import SpecterOpsGame

C = B.cell


class ScriptedDice:
    """An rng whose integers() returns scripted die faces (then falls back to a real one)."""

    def __init__(self, faces, seed=0):
        self.faces = list(faces)
        self.real = np.random.default_rng(seed)
        self.bit_generator = self.real.bit_generator

    def integers(self, lo, hi=None, *a, **k):
        if self.faces and hi == 7:
            return self.faces.pop(0)
        return self.real.integers(lo, hi, *a, **k)

    def __getattr__(self, name):
        return getattr(self.real, name)


def make(n=2, agent="Spider", hunters="Beast,Gun", cards=(), traitor=None, **cfg):
    """A game at the start of round 1 (the agent's first decision), cards picked in order.
    The rules tests drive each sub-step by hand, so they run unpadded unless they ask
    for ``pad_agent_turn=True`` (the env default)."""
    cfg.setdefault("pad_agent_turn", False)
    g = SpecterOpsGame(num_players=n, agent_character=agent, hunter_characters=hunters, **cfg)
    g.reset(0)
    picks = list(cards)
    while g.dec == S3:
        t = picks.pop(0) if picks else None
        legal = list(np.flatnonzero(g.legal_mask()))
        g.step(CARD0 + t if t is not None else int(legal[0]))
    if g.dec == S4:
        g.step(SEAT0 + (traitor if traitor is not None else 0))
    return g


def place(g, agent=None, hunters=None, vehicle=None, riding=(), cards_window=False):
    """Put figures on explicit cells and restart the agent's turn with that state."""
    if vehicle is not None:
        g.vpos = C(vehicle)
    if hunters is not None:
        for s, cellname in enumerate(hunters):
            if cellname is None or s in riding:
                g.riding[s] = True
                g.hpos[s] = -1
            else:
                g.riding[s] = False
                g.hpos[s] = C(cellname)
    if agent is not None:
        g.ag[0].pos = C(agent)
        g.ag[0].history[-1] = C(agent)
        g.bel[0].hyps = {j: (((1 << C(agent)), 0, False),) for j in g.bel[0].hyps}
    g._start_agent_turn(0)
    if g.pad_on:  # as if the turn had started through step(): open its padded segment
        g.seg_actor = -1
        g.pad_saved = None
        g._pad_check()
    skip_pads(g)
    from spyenvs.games.specter_ops.data import A2

    if g.dec == A2 and not cards_window:
        g.step(NO)
        skip_pads(g)
    return g


def skip_pads(g):
    """Step through forced passes (pad_agent_turn)."""
    while g.dec == PAD:
        g.step(NO)
    return g


def walk(g, *cells):
    """Agent steps along cells, then STOP (skips an equipment window with NO)."""
    from spyenvs.games.specter_ops.data import A2, A3, A4

    skip_pads(g)
    if g.dec == A2:
        g.step(NO)
        skip_pads(g)
    for c in cells:
        assert g.dec == A3, g.decision_name()
        g.step(C(c))
    if g.dec == A3:
        g.step(NO)
    skip_pads(g)
    if g.dec == A4:
        g.step(NO)
    skip_pads(g)


def believed(g, a=0, keys=None):
    return set(B.name(c) for c in B.cells_of(g.bel[a].union(keys)))
