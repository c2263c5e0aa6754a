"""Rules tests for hidden information (§5): what each role observes, the handle
ordering (C12, C19), the Decoy type, and resample_hidden's constraints R1-R5 (§5.4)."""

import numpy as np

from spyenvs.games.unrest import data as D
from spyenvs.games.unrest.observe import encode_reference
from spyenvs.games.unrest.rules import EMPIRE, LIBERATE, LOC_DESTROYED, REBEL

from .helpers import DECOYS, C, I, R, S, blockade, destroy, new_game, play_action, slot_of, stage, surveil
from .test_final_encounter import final_state


def _round_one(seed=0):
    g = stage(new_game(seed), hand=[I(2), R(3), C(4), S(5), DECOYS[0]], row=[0, 1, 2, 3, 4])
    g.step(0)
    g.step(play_action(g, I(2), [R(3), DECOYS[0]]))
    return g


def test_s5_1_empire_sees_face_down_cards_only_as_handles():
    g = _round_one()
    obs = g.observe(EMPIRE)
    L = g.layout
    assert not L.view(obs, "my_hand").any() and not L.view(obs, "my_facedown_types").any()
    types = L.view(obs, "handle_type")
    assert types[0, I(2)] == 1 and not types[1].any() and not types[2].any()
    assert L.view(obs, "handle_played")[:3].all()
    assert L.view(obs, "hand_size")[2] == 1
    # swapping the identities of the two face-down handles changes nothing for the Empire
    twin = g.clone()
    twin.hid.hcard[1], twin.hid.hcard[2] = twin.hid.hcard[2], twin.hid.hcard[1]
    twin.touch()
    assert np.array_equal(twin.observe(EMPIRE), obs)
    assert not np.array_equal(twin.observe(REBEL), g.observe(REBEL))


def test_s5_3_rebel_sees_its_hand_face_down_types_and_deck_contents():
    g = _round_one()
    obs = g.observe(REBEL)
    L = g.layout
    hand = L.view(obs, "my_hand")
    assert hand[0, C(4)] == 1 and hand[1, S(5)] == 1
    fd = L.view(obs, "my_facedown_types")
    h_r3 = g.hid.hcard.index(R(3))
    h_dec = g.hid.hcard.index(DECOYS[0])
    assert fd[h_r3, R(3)] == 1 and fd[h_dec, D.DECOY_TYPE] == 1
    unseen = L.view(obs, "unseen")
    assert unseen[:20].sum() == sum(1 for c in g.hid.deck if c < 20)
    assert unseen[D.DECOY_TYPE] == 0.75  # 3 Decoys in the deck


def test_s5_3_decoy_ids_are_indistinguishable():
    g = _round_one()
    twin = g.clone()
    swap = {20: 23, 23: 20}
    twin.hid.hcard = [swap.get(c, c) for c in twin.hid.hcard]
    twin.hid.hand = sorted(swap.get(c, c) for c in twin.hid.hand)
    twin.hid.deck = [swap.get(c, c) for c in twin.hid.deck]
    twin.touch()
    for p in (REBEL, EMPIRE):
        assert np.array_equal(twin.observe(p), g.observe(p))
        assert twin.hidden_key(p) == g.hidden_key(p)


def test_s5_3_incremental_observation_matches_reference_encoder():
    g = new_game(9)
    rng = np.random.default_rng(9)
    while not g.is_over:
        for p in (REBEL, EMPIRE):
            assert np.array_equal(g.observe(p), encode_reference(g, p))
        g.step(int(rng.choice(g.legal_actions())))


def test_s5_4_rebel_resample_only_reshuffles_the_deck():
    g = _round_one()
    x = g.resample_hidden(REBEL, np.random.default_rng(1))
    assert (
        sorted(x.hid.deck) == sorted(g.hid.deck) and x.hid.hand == g.hid.hand and x.hid.hcard == g.hid.hcard
    )


def test_s5_4_r1_face_down_destroyed_card_is_never_resampled_as_decoy():
    g = _round_one()
    s = slot_of(g, R(3))
    h = g.pub.pending[s]
    g.step(destroy(s))
    assert g.pub.hloc[h] == LOC_DESTROYED and not g.pub.hup[h]
    rng = np.random.default_rng(2)
    kinds = set()
    for _ in range(200):
        x = g.resample_hidden(EMPIRE, rng)
        assert x.hid.hcard[h] < 20
        kinds.add(x.hid.hcard[h])
        assert np.array_equal(x.observe(EMPIRE), g.observe(EMPIRE))
    assert len(kinds) > 5


def test_s5_4_r2_all_face_down_final_play_is_resampled_as_decoys():
    g = final_state(hand=[DECOYS[0], DECOYS[1], DECOYS[2]])
    g.step(34)
    rng = np.random.default_rng(3)
    for _ in range(50):
        x = g.resample_hidden(EMPIRE, rng)
        assert all(x.hid.hcard[h] >= 20 for h in (21, 22, 23))


def test_s5_4_r3_past_checks_stay_unqualified_in_resamples():
    # a district holding a face-up Riots 4 and a face-down card, with Espionage available:
    # the completed check says the hidden card is not Intel 4/5/6
    g = stage(
        new_game(4),
        {0: [(R(4), True), (S(2), False), (C(2), True)]},
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 10),
    )
    g.pub.check_log = [((tuple(g.pub.dist[0]), (), (), (), ()), tuple(g.pub.missions))]
    g.touch()
    h = 1
    rng = np.random.default_rng(4)
    seen = set()
    for _ in range(300):
        x = g.resample_hidden(EMPIRE, rng)
        c = x.hid.hcard[h]
        seen.add(c)
        assert c not in (I(4), I(5), I(6)), "would have liberated by Espionage"
        assert c not in (S(4), S(5), S(6)), "would have liberated by Barricades"
    assert len(seen) > 8


def test_s5_4_r4_liberate_decision_keeps_a_qualifying_pair():
    g = stage(
        new_game(5),
        {0: [(R(4), True), (I(4), False), (C(2), True)]},
        row=[0, 1, 2, 3, 4],
        missions=(2, 6, 10),
    )
    g.hid.deck.extend(g.hid.hand[2:])
    g.hid.hand = g.hid.hand[:2]
    g.pub.hand_size, g.pub.deck_size = 2, len(g.hid.deck)
    g.pub.phase = LIBERATE
    g.touch()
    rng = np.random.default_rng(5)
    for _ in range(100):
        x = g.resample_hidden(EMPIRE, rng)
        assert x.qualifying_pairs(), "the public LIBERATE decision proves a pair qualifies"
        assert x.hid.hcard[1] in (I(4), I(5), I(6), S(4), S(5), S(6))


def test_s5_4_hidden_key_captures_hand_deck_and_face_down_cards():
    g = _round_one()
    rng = np.random.default_rng(6)
    keys = {g.resample_hidden(EMPIRE, rng).hidden_key(EMPIRE) for _ in range(20)}
    assert len(keys) > 10
    keys = {g.resample_hidden(REBEL, rng).hidden_key(REBEL) for _ in range(20)}
    assert len(keys) > 10


def test_s5_2_turn_order_and_empire_mask_depend_only_on_public_facts():
    g = _round_one()
    rng = np.random.default_rng(7)
    for _ in range(30):
        x = g.resample_hidden(EMPIRE, rng)
        assert x.current_player == EMPIRE and np.array_equal(x.legal_mask(), g.legal_mask())
    g.step(blockade(1))
    g.step(surveil(slot_of(g, R(3))))
    assert g.current_player == REBEL and g.pub.phase == 0  # auto-assigned to position 0; next round
