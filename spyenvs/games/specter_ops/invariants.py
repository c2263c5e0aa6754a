"""The invariants of a Specter Ops state (rules §10.1), checked after every step by
the conformance suite's random play."""

from __future__ import annotations

from . import board as B
from .data import CHARGES, COPIES, PAD, PAD_LEN, X1, X2, usable_by


def check_invariants(game):
    """Assert §10.1 on ``game`` (AssertionError naming the broken one)."""
    self = game  # noqa: PLW0127 (the body reads like the rules engine it checks)
    if self.pad_on and self.winner is None:
        assert self.dec != PAD or (self.pad_left > 0 and self.pad_saved is not None), "padding without a resume"
        assert self.seg_actor < 0 or self.seg_count <= PAD_LEN, "padded segment too long"
    assert 0 <= self.round <= self.config["max_rounds"]
    assert self.winner is not None or self.legal
    for s in range(self.nh):
        if not self.hin[s]:
            assert self.hpos[s] == -1 and not self.riding[s]
            continue
        if self.round == 0:
            continue
        if self.riding[s]:
            assert self.hpos[s] == -1
        else:
            assert (B.OPEN >> self.hpos[s]) & 1, "hunter off the open cells"
    assert (B.ROAD >> self.vpos) & 1, "vehicle off road"
    assert 0 <= self.vused <= 10
    assert len(self.smoke) <= 2 and len(self.flash) <= 2
    for t in range(8):
        assert self._taken[t] <= COPIES[t]
    if self.round == 0:
        return
    assert 0 <= len(self.completed) <= 4
    for a, ag in enumerate(self.ag):
        if not ag.in_play or ag.char < 0:
            continue
        assert (B.OPEN >> ag.pos) & 1
        assert self.winner is not None or 1 <= ag.hp <= ag.maxhp, "HP out of range"
        assert self.pa[a].damage >= ag.maxhp - ag.hp
        assert ag.steps <= ag.max_steps <= 6
        for t, ch in ag.hand:
            assert usable_by(t, ag.char) and 0 < ch <= CHARGES[t]
        if self.bel[a] is None:
            continue
        j = self._h_traitor if (a == 0 and self._h_traitor >= 0 and not self.exposed) else -1
        # before her report (or escape) the belief still holds her turn's start cell
        pre = self.cur == a and self.tr is not None and not self.tr["done"] and self.winner is None
        if a == 1 and self.dec in (X1, X2):
            pre = True
        cell = ag.path[0] if pre else ag.pos
        u = 0
        for L, M, _ in self.bel[a].hyps.get(j, ()):
            u |= L | M
        assert (u >> cell) & 1, f"true cell {B.name(cell)} outside the belief of agent {a}"

