"""Spy Games auto-forced decisions and the public acting sequence (rules/spy_games.md §9.2
Amendment): a single-option decision is skipped only when every other player can tell
it is forced; the leaky skip of hidden-forced decisions is the opt-in auto_forced_hidden."""

import numpy as np
import pytest

from spyenvs.games.spy_games import data as D
from spyenvs.games.spy_games.game import SpyGamesGame

from .helpers import CARD, CIRCLE, CODE, DEMO, INFIL, K, SAFE, SQUARE, arrange, do, game

SAFE_C1 = K(SAFE, CIRCLE, 1)  # a 1-pip kind: two copies in the deck


def infiltrator(hand, **cfg):
    """Seat 0 with ``hand`` and four spies out (only agent 5 in reserve), at its main
    decision; the agent pick is then forced publicly."""
    g = game(auto_forced=True, **cfg)
    plans = [K(CODE, 0, 3), K(CODE, 0, 2), K(DEMO, 1, 3), K(DEMO)]
    arrange(g, hands={0: hand}, spies=[(0, j, 2, 0, 1, plans[j]) for j in range(4)])
    g._settle()
    return g


def acting_sequence(g, actions):
    """Deciders seen after each of ``actions`` (the public AEC agent_selection)."""
    seq = []
    for a in actions:
        g.step(a)
        seq.append((g.decider, g.decision_name()))
    return seq


def test_s9_2_amendment_plan_pick_is_asked_when_the_hand_is_one_kind_of_several_cards():
    g = infiltrator([SAFE_C1, SAFE_C1])
    do(g, INFIL(1, 0))
    # the agent pick was skipped (one agent in reserve is public); the plan pick is not
    assert g.stage == D.S_INFIL_PLAN and g.decider == 0 and g.legal_actions() == [CARD(SAFE_C1)]
    do(g, CARD(SAFE_C1))
    assert g.h.plans[0][4] == SAFE_C1 and g.active == 1


def test_s9_2_amendment_plan_pick_is_skipped_when_one_card_in_hand_makes_it_publicly_forced():
    g = infiltrator([SAFE_C1])
    do(g, INFIL(1, 0))
    assert g.spy_loc[0][4] == 3 and g.h.plans[0][4] == SAFE_C1
    assert g.stage == D.S_MAIN and g.active == 1


def test_s9_2_amendment_acting_sequence_does_not_tell_a_one_kind_hand_from_a_mixed_one():
    one_kind = acting_sequence(infiltrator([SAFE_C1, SAFE_C1]), [INFIL(1, 0)])
    mixed = acting_sequence(infiltrator([SAFE_C1, K(SAFE, SQUARE, 2)]), [INFIL(1, 0)])
    assert one_kind == mixed == [(0, "infil_plan")]


def test_s9_2_amendment_auto_forced_hidden_opt_in_skips_the_hidden_forced_plan_pick():
    g = infiltrator([SAFE_C1, SAFE_C1], auto_forced_hidden=True)
    do(g, INFIL(1, 0))
    assert g.h.plans[0][4] == SAFE_C1 and g.stage == D.S_MAIN and g.active == 1
    # ...which is exactly the leak: a mixed hand is asked, so the sequence differs
    mixed = infiltrator([SAFE_C1, K(SAFE, SQUARE, 2)], auto_forced_hidden=True)
    do(mixed, INFIL(1, 0))
    assert mixed.stage == D.S_INFIL_PLAN


def test_s9_2_auto_forced_hidden_needs_auto_forced():
    with pytest.raises(ValueError, match="auto_forced_hidden"):
        SpyGamesGame(auto_forced=False, auto_forced_hidden=True)


def test_s9_2_amendment_add_card_with_an_empty_hand_is_skipped_publicly():
    """ADD_CARD's single option NO_CARD follows from the public hand size 0."""
    g = game(auto_forced=True)
    arrange(g, hands={0: [], 1: []}, spies=[(0, 0, 1, 0, 1, K(SAFE))], deck_top=[K(DEMO), K(DEMO, 1)])
    g._settle()
    do(g, D.A_MISSION)
    # 4 players: referee seat 2 picks the suit, then both empty-handed additions are skipped
    assert g.stage == D.S_REF_CHOICE
    do(g, D.A_REF_FREE)  # square: both face-up cards score 1
    assert g.stage == D.S_TIE and g.decider == 2 and not any(g.cf_added)


def _single_option_skip_is_public(g, rng) -> tuple[int, int]:
    """At g's pending decision (auto_forced off, so every decision is emitted), check
    that whether the default would skip it is the same in every re-deal of what another
    player cannot see. Returns (publicly forced decisions, viewers checked)."""
    P = g.decider
    skip = len(g.legal_actions()) == 1 and g._forced_publicly()
    checked = 0
    for v in range(g.n):
        if v == P:
            continue
        r = g.resample_hidden(v, rng)
        assert (len(r.legal_actions()) == 1 and r._forced_publicly()) == skip, (
            f"skipping {g.decision_name()} by player_{P} depends on what player_{v} cannot see")
        checked += 1
    return int(skip), checked


def test_s9_2_amendment_public_skip_check_catches_the_old_default(monkeypatch):
    """The check used below fails on the old default (skip every single-option
    decision) at a one-kind hand, and passes on the new one."""
    g = game(auto_forced=False)
    arrange(g, hands={0: [SAFE_C1, SAFE_C1]})
    do(g, INFIL(1, 0), D.A_PICK_AGENT)
    assert g.stage == D.S_INFIL_PLAN
    assert _single_option_skip_is_public(g, np.random.default_rng(0)) == (0, 3)
    monkeypatch.setattr(SpyGamesGame, "_forced_publicly", lambda self: True)
    with pytest.raises(AssertionError, match="infil_plan by player_0 depends on what player_1 cannot see"):
        _single_option_skip_is_public(g, np.random.default_rng(0))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_s9_2_amendment_every_default_skip_depends_only_on_public_state(n):
    """Every stage kind, in random play: the default's skip decision is invariant under
    resample_hidden of each non-deciding viewer (the acting sequence is public)."""
    rng = np.random.default_rng(n)
    skipped = checked = 0
    stages = set()
    for seed in range(2):
        g = SpyGamesGame(num_players=n, auto_forced=False)
        g.reset(seed)
        while not g.is_over:
            stages.add(g.stage)
            s, c = _single_option_skip_is_public(g, rng)
            skipped += s
            checked += c
            g.step(int(rng.choice(g.legal_actions())))
    assert skipped > 0 and checked > 100  # the check saw forced decisions, it did not pass vacuously
    assert {D.S_MAIN, D.S_INFIL_PLAN, D.S_ADD_CARD, D.S_STRENGTHEN} <= stages
