"""Rules tests added by the rules audit: the deck (§2.1), the end-of-round order
(§4.5), the edge cases of §9 not covered elsewhere, perfect recall (C13), the
all-hidden shuffle (C12), resampling constraint R5 (§5.4) and the game-length and
token-cycle invariants (§4.7, §5.5 I6/I10)."""

import numpy as np

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest.rules import AREA, ASSIGN, EMPIRE, EMPIRE_2, LIBERATE, OVER, PLAY, REBEL

from .helpers import (
    DECOYS,
    C,
    I,
    R,
    S,
    assign,
    blockade,
    destroy,
    liberate,
    new_game,
    play_action,
    redirect,
    slot_of,
    stage,
)
from .test_final_encounter import final_state


def _round(seed=0, hand=None, area=0, up=None, downs=None, districts=None, missions=(2, 6, 10)):
    """A staged round start on row [0..4], the area chosen and the cards played."""
    hand = hand or [I(2), R(3), C(4), S(5), DECOYS[0]]
    g = stage(new_game(seed), districts or {}, hand=hand, row=[0, 1, 2, 3, 4], missions=missions)
    g.step(area)
    g.step(play_action(g, up if up is not None else hand[0], downs or [hand[1], hand[4]]))
    return g


def test_s2_1_deck_is_four_suits_of_values_2_to_6_and_four_decoys():
    suit_cards = [c for c in range(D.NUM_CARDS) if D.CARD_SUIT[c] >= 0]
    assert len(suit_cards) == 20 and D.NUM_CARDS == 24
    for s in range(4):
        assert sorted(D.CARD_VALUE[c] for c in suit_cards if D.CARD_SUIT[c] == s) == [2, 3, 4, 5, 6]
    assert sum(D.CARD_VALUE) == 80
    assert all(D.CARD_TYPE[c] == D.DECOY_TYPE and D.CARD_VALUE[c] == 0 for c in DECOYS)
    assert D.summarize(list(DECOYS)) == ([0] * 4, [0] * 4, [0] * 7)


def _redirect_completes_espionage():
    """District 4 holds Intel 4 + Riots 3; the Empire redirects the face-up Riots 4
    there, which completes Espionage mid-round."""
    g = _round(
        districts={4: [(I(4), True), (R(3), True)]},
        hand=[R(4), C(2), C(3), DECOYS[0], DECOYS[1]],
        up=R(4),
        downs=[DECOYS[0], DECOYS[1]],
    )
    g.step(redirect(0, 4))
    return g


def test_s4_5_liberation_only_at_end_of_round_not_when_redirect_completes():
    g = _redirect_completes_espionage()
    assert g.pub.phase == EMPIRE_2 and g.pub.lib == [] and g.current_player == EMPIRE


def test_s4_5_order_liberation_check_before_refresh_and_draw():
    g = _redirect_completes_espionage()
    g.step(blockade(0))  # the two Decoys are auto-assigned to position 1
    pub = g.pub
    assert pub.phase == LIBERATE
    # 5a runs first: no refresh (tokens still used, Blockade still down), no draw yet
    assert pub.blockade == 0 and pub.tok_used == [D.REDIRECT, D.BLOCKADE]
    r0 = pub.round
    assert pub.hand_size == 2 and len(g.hid.hand) == 2
    g.step(liberate(4, 1))
    assert pub.phase == AREA and pub.round == r0 + 1 and pub.hand_size == 5 and pub.blockade == -1


def test_s9_5_redirect_completing_a_mission_in_a_blockaded_district_liberates_it():
    g = _round(
        districts={1: [(I(4), True), (R(3), True)]},
        hand=[R(4), C(2), C(3), DECOYS[0], DECOYS[1]],
        up=R(4),
        downs=[DECOYS[0], DECOYS[1]],
        area=0,
    )
    g.step(blockade(1))
    g.step(redirect(0, 1))  # into the blockaded district: completes Espionage
    assert g.pub.phase == LIBERATE and g.legal_actions() == [liberate(1, 1)]
    g.step(liberate(1, 1))
    assert g.pub.lib == [1]


def test_s9_4_redirect_into_a_poison_district_blocks_its_mission():
    # district 2 holds Riots 6 + Riots 2 face up (Street Riots met); an Intel card redirected there poisons it
    g = _round(
        districts={2: [(R(6), True), (R(2), True)]},
        hand=[I(2), C(2), C(3), DECOYS[0], DECOYS[1]],
        up=I(2),
        downs=[C(2), DECOYS[0]],
        missions=(5, 6, 10),
        area=0,
    )
    assert (2, 1) in g.qualifying_pairs()  # staged: Street Riots is met before the redirect
    g.step(redirect(0, 2))
    g.step(blockade(0))
    assert 0 not in [p for p, _ in g.qualifying_pairs()]
    assert g.pub.phase == AREA and g.pub.lib == []


def test_s9_6_destroy_and_redirect_leave_one_card_for_the_rebel_to_assign():
    g = _round(area=1)
    g.step(destroy(1))
    g.step(redirect(2, 4))
    pend = [h for h in g.pub.pending if h >= 0]
    assert len(pend) == 1 and g.pub.phase == ASSIGN and g.current_player == REBEL
    assert g.legal_actions() == [assign(1), assign(2)]


def test_s9_7_blockade_plus_removal_auto_assigns_to_the_other_area_district():
    g = _round(area=1)
    g.step(blockade(2))
    g.step(destroy(0))
    d = g.pub.row[1]
    assert g.pub.phase == AREA and g.pub.round == 2  # no ASSIGN step was presented
    assert sorted(g.pub.dist[d]) == [1, 2]


def test_s9_9_a_district_claims_one_mission_and_the_others_stay_available():
    # Intel 4 + Riots 4 + Supplies 4: Espionage (slot 1) and Barricades (slot 2)
    g = stage(
        new_game(3),
        {0: [(I(4), True), (R(4), True), (S(4), True)]},
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 10),
    )
    hid = g.hid
    hid.deck.extend(hid.hand[2:])
    hid.hand = hid.hand[:2]
    g.pub.hand_size, g.pub.deck_size, g.pub.phase = 2, len(hid.deck), LIBERATE
    g.touch()
    assert g.legal_actions() == [liberate(0, 1), liberate(0, 2)]
    g.step(liberate(0, 2))
    assert g.pub.mission_avail == [True, True, False, True] and g.pub.lib == [0]
    assert g.pub.phase == AREA


def test_s9_15_district_without_suit_cards_never_qualifies():
    g = new_game(4, revolution_threshold=1)
    stage(g, {0: [(DECOYS[0], True), (DECOYS[1], False), (DECOYS[2], False)]}, row=[0, 1, 2, 3, 4])
    assert all(p != 0 for p, _ in g.qualifying_pairs())
    assert not g.satisfies(list(DECOYS), 0)


def test_s9_17_final_encounter_tokens_are_the_pair_unused_in_round_7():
    reached = 0
    for seed in range(6):
        g = new_game(seed)
        rng = np.random.default_rng(seed)
        while not g.is_over and not g.pub.final:
            g.step(int(rng.choice(g.legal_actions())))
        if g.is_over:
            continue
        # round 7 started with all four (each used 3 times); the two it used are now spent
        avail = {t for t in range(4) if g.pub.tok_avail[t]}
        unused7 = {t for t in range(4) if g.pub.tok_uses[t] == 3}
        assert len(avail) == 2 and avail == unused7 and g.pub.round == 8
        reached += 1
    assert reached


def test_s9_18_early_win_skips_refresh_and_draw():
    g = stage(
        new_game(6),
        {
            0: [(I(4), True), (R(4), True)],
            1: [(S(4), True), (R(5), True)],
            2: [(C(4), True), (S(5), True)],
        },
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 9),
    )
    hid, pub = g.hid, g.pub
    hid.deck.extend(hid.hand[2:])
    hid.hand = hid.hand[:2]
    pub.hand_size, pub.deck_size, pub.phase = 2, len(hid.deck), LIBERATE
    pub.tok_avail, pub.tok_used, pub.tok_uses = [False] * 4, [D.DESTROY, D.BLOCKADE], [1, 1, 1, 1]
    pub.blockade = 3
    g.touch()
    r0, deck0 = pub.round, len(hid.deck)
    for _ in range(3):
        g.step(liberate(0, min(m for p, m in g.qualifying_pairs() if p == 0)))
    assert g.is_over and g.outcome() == [1.0, -1.0] and pub.phase == OVER
    assert len(hid.hand) == 2 and len(hid.deck) == deck0 and pub.round == r0
    assert pub.tok_avail == [False] * 4 and pub.blockade == 3  # nothing refreshed


def test_c12_all_face_down_final_play_shuffles_all_three_slots():
    firsts = set()
    for seed in range(20):
        g = final_state(hand=[I(2), R(5), C(6)], final_encounter_one_faceup=False)
        g.rng = np.random.default_rng(seed)
        g.step(34)
        firsts.add(g.hid.hcard[g.pub.pending[0]])
        assert not g.pub.hup[g.pub.pending[0]]
    assert firsts == {I(2), R(5), C(6)}


def test_c13_empire_observation_keeps_the_handle_history():
    g = _round(area=1)
    s = slot_of(g, R(3))
    h_r3 = g.pub.pending[s]
    h_dec = g.pub.pending[slot_of(g, DECOYS[0])]
    g.step(redirect(s, 4))  # face-down Riots 3 goes outside the area
    g.step(destroy(slot_of(g, DECOYS[0])))  # shown as a Decoy in the destroyed pile
    assert g.pub.phase == ASSIGN
    g.step(assign(2))
    # next round: the round's token record is cleared, the Empire still sees where each handle went
    assert g.pub.phase == AREA and g.pub.tok_used == []
    obs = g.observe(EMPIRE)
    L = g.layout
    loc = L.view(obs, "handle_location")
    types = L.view(obs, "handle_type")
    assert loc[h_r3, 3 + 4] == 1 and not types[h_r3].any()  # in district id 4, still unknown
    assert loc[h_dec, 8] == 1 and types[h_dec, D.DECOY_TYPE] == 1
    assert loc[0, 3 + 2] == 1 and types[0, I(2)] == 1  # the face-up Intel 2 in district id 2


def test_s5_4_r5_unrevealed_liberated_district_keeps_its_mission_in_resamples():
    g = new_game(4, reveal_all_on_liberation=False)
    stage(g, {0: [(I(4), True), (R(4), False), (DECOYS[1], False)]}, row=[0, 1, 2, 3, 4], missions=(2, 6, 10))
    hid = g.hid
    hid.deck.extend(hid.hand[2:])
    hid.hand = hid.hand[:2]
    g.pub.hand_size, g.pub.deck_size, g.pub.phase = 2, len(hid.deck), LIBERATE
    g.touch()
    g.step(liberate(0, 1))  # Espionage: the hidden cards must hold Riots >= 4
    assert g.pub.lib == [0] and not g.pub.hup[1] and not g.pub.hup[2]
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(60):
        x = g.resample_hidden(EMPIRE, rng)
        cards = x.district_cards(0)
        assert x.satisfies(cards, D.MISSION_NAMES.index("Espionage")), "R5"
        assert np.array_equal(x.observe(EMPIRE), g.observe(EMPIRE))
        seen.add(tuple(sorted(D.CARD_TYPE[c] for c in cards)))
    assert len(seen) > 3


def test_s5_5_i6_i10_token_cycle_and_at_most_50_decisions():
    for cfg, cap in (({}, 50), ({"empire_can_target_area_district_cards": True}, 58)):
        for seed in range(12):
            g = new_game(seed, **cfg)
            rng = np.random.default_rng(seed)
            steps = 0
            while not g.is_over:
                pub = g.pub
                if pub.phase in (AREA, PLAY) and not pub.tok_used:
                    r = pub.round
                    # before odd round r each token was used (r-1)/2 times; before even round r
                    # the two used in round r-1 are the unavailable ones
                    if r % 2 == 1:
                        assert pub.tok_uses == [(r - 1) // 2] * 4 and all(pub.tok_avail)
                    else:
                        assert sum(pub.tok_avail) == 2
                g.step(int(rng.choice(g.legal_actions())))
                steps += 1
            assert steps <= cap and g.pub.round <= 8
            assert sum(g.outcome()) == 0


def test_c19_district_ids_follow_the_seed_listing_and_stay_stable_when_the_row_closes():
    assert D.DISTRICTS == ("Ministry of Plenty", "Ministry of Peace", "Capitol", "Police HQ", "Ministry of Truth")
    g = stage(new_game(3), {1: [(I(4), True), (R(4), True)]}, row=[4, 1, 0, 3, 2], missions=(2, 6, 10))
    hid = g.hid
    hid.deck.extend(hid.hand[2:])
    hid.hand = hid.hand[:2]
    g.pub.hand_size, g.pub.deck_size, g.pub.phase = 2, len(hid.deck), LIBERATE
    g.touch()
    g.step(liberate(1, 1))  # district id 1 sits at position 1
    row = g.layout.view(g.observe(EMPIRE), "row")
    assert [int(row[p].argmax()) for p in range(4)] == [4, 0, 3, 2] and not row[4].any()
    assert g.layout.view(g.observe(REBEL), "liberated")[1] == 1
    assert g.pub.dist[1] == [0, 1]  # handles keep their district id after liberation
