"""Spy Games invariants (rules/spy_games.md §9.6), asserted every step by fuzz tests."""

from __future__ import annotations

from array import array
from operator import add

from . import data as D
from .observe import _segment_fresh
from .data import KIND_COPIES, KIND_SCOUT, PENALTY, S_OVER


def check_invariants(g) -> None:
    n = g.n
    h = g.h
    # 1. cases per colour
    if g.alloc_done:
        in_bases = [sum(col) for col in zip(*g.base)]
        for x in range(n):
            total = sum(g.zone[x]) + sum(g.spy_c[x]) + in_bases[x] + g.removed[x]
            assert total == D.CASES_PER_COLOUR, f"colour {x} has {total} cases"
    # 2. zones and penalties
    for p in range(n):
        if g.alloc_done:
            assert sorted(g.init[p]) == [6, 8, 10], g.init[p]
            z, i0 = g.zone[p], g.init[p]
            assert 0 <= z[0] <= i0[0] and 0 <= z[1] <= i0[1] and 0 <= z[2] <= i0[2]
            assert 0 <= PENALTY[i0[0]][z[0]] + PENALTY[i0[1]][z[1]] + PENALTY[i0[2]][z[2]] <= 48
        for c in range(n):
            assert g.base[p][c] >= 0
    # 3. plan cards
    cmax = 3 if g.phase == 2 else 4  # c <= 3 while spy actions run (C11)
    extra = h.deck + h.disc_down + [k for k in g.cf_up + g.cf_addrev + h.add if k >= 0]
    for p in range(n):
        hand = h.hands[p]
        assert sum(hand) == g.hsize[p] >= 0, "hand size out of sync"
        # byte equality of float32 arrays: same values (no -0.0 or NaN in counts)
        assert h.hf[p].tobytes() == array("f", hand).tobytes(), "hand mirror out of sync"
        assert min(hand) >= 0
        # 5. agents (in the same pass over the spies)
        locs, cs, plans = g.spy_loc[p], g.spy_c[p], h.plans[p]
        for j in range(D.AGENTS):
            loc = locs[j]
            if loc >= 0:
                extra.append(plans[j])
                assert loc // 3 != p, "spy in its owner's zone"
                assert 0 <= loc // 3 < n
                assert 1 <= cs[j] <= cmax
                if g.spy_ks[p][j]:
                    assert KIND_SCOUT[plans[j]], "known-Scout spy holds a Saboteur"
            else:
                assert plans[j] == -1
                assert cs[j] == 0 and not g.spy_str[p][j] and not g.spy_ks[p][j]
    counts = g.disc_up
    for hand in h.hands:
        counts = list(map(add, counts, hand))
    for k in extra:
        counts[k] += 1
    assert counts == KIND_COPIES, "plan cards not conserved"
    # 4. kompromat
    assert g.komp_supply + sum(g.komp) == D.KOMPROMAT_CARDS
    # 6. flags
    if g.phase != 2:
        assert not any(g.immune)
    if g.cf_pledge >= 0:
        assert g.structured and g.cf_on and g.cf_ref >= 0
    # 7. counters
    if g.phase == 2:
        assert 0 <= g.t < n * D.SLOTS_PER_ROUND[g.round]
    if g.phase == 3:
        assert 0 <= g.s_used < D.STRENGTHEN_ACTIONS
    # pins fit the real hands (plus an unrevealed addition)
    parts = (g.cf_I, g.cf_D) if g.cf_on else (-1, -1)
    for p in range(n):
        rows = [h.pins[v][p] for v in range(n) if v != p and h.pins[v][p]]
        if rows:
            have = list(h.hands[p])
            for x in range(2):
                if parts[x] == p and h.add[x] >= 0:
                    have[h.add[x]] += 1
            for row in rows:
                assert all(0 < c <= have[k] for k, c in row.items()), "pins do not fit the hand"
    # the incrementally kept public segment equals a fresh computation
    fresh = _segment_fresh(g)
    if fresh.tobytes() != g.pub.tobytes() and fresh != g.pub:
        bad = [i for i, (x, y) in enumerate(zip(fresh, g.pub)) if x != y]
        raise AssertionError(f"stale public observation entries at segment offsets {bad[:8]}")
    # 8. control
    if g.stage != S_OVER:
        mask = g.legal_mask().tobytes()
        assert mask.count(0) < len(mask), "empty mask"
        fresh_mask = bytearray(len(mask))
        for a in g._legal_list():
            fresh_mask[a] = 1
        assert mask == bytes(fresh_mask), "cached mask differs from the legal actions of the state"
        assert 0 <= g.decider < n
        assert g.decider == _expected_decider(g), f"wrong decider for stage {D.STAGE_NAMES[g.stage]}"
    else:
        # 9. end state
        for p in range(n):
            assert all(loc < 0 for loc in g.spy_loc[p])
        assert g.vp_final == [g.vp(p) for p in range(n)]


def _expected_decider(g) -> int:
    """The decider §9.2 names for the pending stage (ability stages: an eligible owner)."""
    st = g.stage
    if st in (D.S_MAIN, D.S_BUY_REPLY, D.S_INFIL_AGENT, D.S_INFIL_PLAN, D.S_STRENGTHEN):
        return g.active
    if st == D.S_BUY_OFFER:
        return g.decl_target
    if st in (D.S_REF_OFFER, D.S_ADD_CARD):
        return g.cf_D if g.cf_turn else g.cf_I
    if st == D.S_REF_CHOICE:
        return g.cf_D if g.cf_fix == 2 else g.cf_ref
    if st == D.S_TIE:
        return g.cf_ref
    if st == D.S_KOMP:
        assert g.komp[g.decider] and g.decider in (g.cf_I, g.cf_D), "kompromat decision by a non-holder"
        return g.decider
    if st in (D.S_RAID, D.S_PURGE):
        return g.res_A
    if st == D.S_FIRST:
        return g.upkeep_F
    if st == D.S_ALLOC:
        return g.alloc_chosen.index(False)
    # ability and Fixer stages: an owner, other than the acting player, of that agent in the zone concerned
    if st == D.S_A2:
        loc, agent, actor = g.spy_loc[g.active][g.decl_j], D.GATEKEEPER, g.active
    elif st == D.S_A3:
        loc, agent, actor = g.spy_loc[g.active][g.s_j], D.LIAISON, g.active
    elif st in (D.S_FIXER, D.S_A1):
        loc, agent, actor = g.cf_zo * 3 + g.cf_k, (D.FIXER if st == D.S_FIXER else D.INFORMANT), g.cf_I
    else:  # S_A4
        loc, agent = g.res_B * 3 + g.res_k, D.ANALYST
        actor = g.res_A if g.res_kind == D.D_MISSION else g.res_B
    assert g.decider != actor and g.spy_loc[g.decider][agent] == loc, "ability asked of an ineligible owner"
    return g.decider
