"""Invariant checks of unrest_v0 (§5.5, I1-I11), called every step by fuzz tests."""

from __future__ import annotations

import numpy as np

from . import data as D
from .observe import encode, encode_reference
from .rules import (
    AREA,
    ASSIGN,
    EMPIRE,
    EMPIRE_1,
    EMPIRE_2,
    LIBERATE,
    LOC_DESTROYED,
    LOC_DISTRICT,
    OVER,
    PLAY,
    REBEL,
)


def check_invariants(game) -> None:
    pub, hid = game.pub, game.hid
    # the incremental observation equals one built from scratch
    for p in (REBEL, EMPIRE):
        assert np.array_equal(encode(game, p), encode_reference(game, p)), (
            f"stale observation buffers for {p}"
        )
    ph = pub.phase
    n_played = pub.n_played
    # I1 cards: every id in exactly one place
    placed = list(hid.hand) + list(hid.deck) + [hid.hcard[h] for h in range(n_played)]
    assert sorted(placed) == list(range(D.NUM_CARDS)), "I1: cards not conserved"
    assert all(hid.hcard[h] == -1 for h in range(n_played, D.NUM_CARDS)), "I1: card on an unplayed handle"
    assert hid.hand == sorted(hid.hand), "hand must stay in canonical order"
    # I2 counts
    assert pub.hand_size == len(hid.hand) and pub.deck_size == len(hid.deck)
    assert n_played == D.NUM_CARDS - len(hid.hand) - len(hid.deck), "I2: played count"
    assert 1 <= pub.round <= 8, "round out of range"
    pend = [h for h in pub.pending if h >= 0]
    in_dist = sum(len(x) for x in pub.dist)
    assert n_played == len(pend) + in_dist + len(pub.destroyed), "I2: handle places"
    seen = sorted(pend + [h for x in pub.dist for h in x] + pub.destroyed)
    assert seen == list(range(n_played)), "I2: handles 0..played-1 exist exactly once"
    r = pub.round
    if not pub.final:
        if ph in (AREA, PLAY):
            assert len(hid.hand) == 5 and len(hid.deck) == 22 - 3 * r and n_played == 3 * (r - 1), (
                "I2: round start"
            )
        elif ph != OVER:
            assert len(hid.hand) == 2, "I2: hand after PLAY"
    else:
        assert len(hid.deck) == 0, "I2: Final Encounter deck"
        if ph == PLAY:
            assert len(hid.hand) == 3
        else:
            assert len(hid.hand) == 0
    # locations agree with the lists
    for s, h in enumerate(pub.pending):
        if h >= 0:
            assert pub.hloc[h] == s
    for d in range(D.NUM_DISTRICTS):
        for h in pub.dist[d]:
            assert pub.hloc[h] == LOC_DISTRICT + d
    for h in pub.destroyed:
        assert pub.hloc[h] == LOC_DESTROYED
    # I3 pending
    if ph in (EMPIRE_1, EMPIRE_2):
        assert 1 <= len(pend) <= 3, "I3: pending during Empire actions"
    elif ph == ASSIGN:
        assert 1 <= len(pend) <= 3
    else:
        assert not pend, "I3: pending outside PLAY..ASSIGN"
    # I4 faces: public face state/type agree with the hidden identities
    for h in range(n_played):
        if pub.hup[h]:
            assert pub.htype[h] == D.CARD_TYPE[hid.hcard[h]], "I4: face-up type"
        else:
            assert pub.htype[h] == -1
    for rr in range(1, r + (0 if ph in (AREA, PLAY) else 1)):
        h0 = 3 * (rr - 1)
        if rr < 8 and not (pub.final and rr == r):
            # every normal round showed exactly one suit card face up in slot 0
            assert pub.hup[h0] and hid.hcard[h0] < D.DECOY_FIRST, "I4: normal round face-up card"
    if pub.final and ph != PLAY and game.config["final_encounter_one_faceup"]:
        h0 = 3 * (r - 1)
        if pub.final_all_hidden:
            assert all(hid.hcard[h] >= D.DECOY_FIRST for h in (h0, h0 + 1, h0 + 2)), "I4: all-hidden play"
        else:
            assert pub.hup[h0] and hid.hcard[h0] < D.DECOY_FIRST
    # I5 destroyed pile
    for h in pub.destroyed:
        assert pub.hup[h] or hid.hcard[h] < D.DECOY_FIRST, "I5: face-down Decoy destroyed"
    assert len(pub.destroyed) <= pub.tok_uses[D.DESTROY], "I5: destroyed count"
    if not game.variant_c6:
        assert len(pub.destroyed) == pub.tok_uses[D.DESTROY]
    # I6 tokens
    assert len(pub.tok_used) == len(set(pub.tok_used)) <= 2, "I6: tokens differ"
    if ph in (AREA, PLAY) and pub.tok_used == []:
        avail = sum(pub.tok_avail)
        if r % 2 == 1:
            assert avail == 4, "I6: odd round starts with 4 tokens"
        else:
            assert avail == 2, "I6: even round starts with the other 2 tokens"
    if r % 2 == 1 and ph in (AREA, PLAY) and pub.tok_used == []:
        assert pub.tok_uses == [(r - 1) // 2] * 4, "I6: each token used (r-1)/2 times before odd round r"
    assert sum(pub.tok_uses) == 2 * (r - 1) + len(pub.tok_used), "I6: two tokens per round"
    for t in range(4):
        assert pub.tok_uses[t] <= 4
    if pub.blockade >= 0:
        assert pub.blockade in pub.row or pub.blockade in pub.lib
        if not pub.final and pub.blockade in pub.row and pub.area >= 0:
            assert pub.row.index(pub.blockade) in game.area_positions(), "I6: blockade in area"
    # I7 districts
    assert sorted(pub.row + pub.lib) == list(range(D.NUM_DISTRICTS)), "I7: districts partition"
    assert len(pub.lib) <= 3 and (ph == OVER or len(pub.row) >= 3), "I7: row size"
    if ph != OVER:
        assert len(pub.row) >= 3
    assert pub.area <= len(pub.row) - 2 or ph in (LIBERATE, OVER), "I7: area gap"
    if pub.final:
        assert pub.area == -1
    # I8 missions
    assert pub.missions[0] == D.REVOLUTION and len(set(pub.missions[1:])) == 3
    assert list(pub.missions[1:]) == sorted(pub.missions[1:])
    assert all(m in game.pool for m in pub.missions[1:])
    for d in pub.lib:
        m = pub.lib_mission[d]
        assert game.satisfies(game.district_cards(d), pub.missions[m]), "I8: claimed mission not satisfied"
        if game.config["reveal_all_on_liberation"]:
            assert all(pub.hup[h] for h in pub.dist[d]), "C9: liberated cards revealed"
    if not game.config["revolution_reusable"]:
        claimed = [pub.lib_mission[d] for d in pub.lib]
        assert len(claimed) == len(set(claimed)), "I8: mission claimed twice"
        assert sum(not a for a in pub.mission_avail) == len(pub.lib), "I8: discarded = liberated"
    # I9 checks: at a round start nothing qualifies
    if ph == AREA or (ph == PLAY and pub.tok_used == []):
        assert not game.qualifying_pairs(), "I9: unresolved qualifying pair"
    # I10 end
    if ph == OVER:
        w = pub.winner
        assert (w == REBEL) == (len(pub.lib) >= 3), "I10: winner"
        if w == EMPIRE:
            assert pub.final
    assert len(game.actions) <= (58 if game.variant_c6 else 50), "I10: at most 50 decisions (58 with C6)"
    # I11 masks
    if ph != OVER:
        m = game.legal_mask()
        assert m.any(), "I11: empty mask"
        if ph == EMPIRE_1 or ph == EMPIRE_2:
            assert m.nonzero()[0].max() < game.empire_actions
        if ph == LIBERATE:
            assert game.qualifying_pairs()
