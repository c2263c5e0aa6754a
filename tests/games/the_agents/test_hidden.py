"""Rules tests for hidden information: pins (C49), resampling (6.1, C50), the
dead-identity option (C34, C51) and the egocentric observation (6)."""

import numpy as np

from spyenvs.games.the_agents import data as D
from spyenvs.games.the_agents import rules as R

from .helpers import STEP, agent, arrange, board, fslot, gap, hand_types, ori, play, seat

M, AS, AB, EX, HA, TE, DE, AC, ME, IN, JA = D.FACTION_TYPES
GU, RE, ST, MC, TR, UN, IT = D.FREE_TYPES


def pins(g, viewer, other_offset=1):
    return g.layout.view(g.observe(viewer), "pins_agents")[other_offset - 1]


def test_c49_public_entry_pins_and_public_exit_unpins_pinned_copy_first():
    g = arrange(2, hands={1: [RE]}, ret_a=[RE], ip=[0, 5], active=1)
    play(g, STEP["BUY_AGENT_RETIRED"])  # P1 now holds two Recruiters, one pinned for P0
    assert pins(g, 0)[RE] == 1
    play(g, STEP["PLAY_FREE_AGENT"], agent(RE), seat(1), ori(0))  # plays "a Recruiter"
    assert pins(g, 0)[RE] == 0  # the pinned copy is taken to leave first


def test_c49_abductor_removal_is_public():
    g = arrange(2, hands={0: [AB]}, fac={1: [(HA, 1)]}, ip=[5, 5])
    play(g, STEP["PLAY_FACTION_AGENT"], agent(AB), fslot(0), ori(1), gap(0))  # P1 executes
    play(g, board(1, 0))
    assert hand_types(g, 1) == [HA] and pins(g, 0)[HA] == 1


def test_6_1_resample_keeps_view_pins_and_counts_and_redeals_the_rest():
    g = arrange(3, hands={1: [RE, M, HA], 2: [AS, TE]}, ret_a=[GU], ip=[5, 5, 5], active=1)
    play(g, STEP["BUY_AGENT_RETIRED"])  # P1's Gunner is pinned for everyone
    before = g.observe(0)
    rng = np.random.default_rng(0)
    changed = False
    for _ in range(30):
        s2 = g.resample_hidden(0, rng)
        assert np.array_equal(s2.observe(0), before)
        assert s2.cnt_a[1][GU] >= 1 and s2.na == g.na and s2.hand_a[0] == g.hand_a[0]
        s2.check_invariants()
        changed |= s2.hidden_key(0) != g.hidden_key(0)
    assert changed


def test_6_1_resample_keeps_deck_content_known_after_reshuffle():
    # the agent deck was formed from the public retired pile: its content is known
    g = arrange(2, deck_a=[HA], ret_a=[GU, UN], ip=[3, 0], dump=1)
    play(g, STEP["BUY_AGENT_DECK"])
    rng = np.random.default_rng(1)
    for _ in range(20):
        s2 = g.resample_hidden(0, rng)
        assert sorted(c >> 1 for c in s2.deck_a) == [GU, UN]


def test_6_1_resample_for_tracker_user_keeps_deck_content():
    g = arrange(2, hands={0: [TR]}, deck_a=[M, HA, AS], ip=[5, 5], dump=1)
    play(g, STEP["PLAY_FREE_AGENT"], agent(TR), seat(1), ori(0))
    rng = np.random.default_rng(2)
    for _ in range(20):
        s2 = g.resample_hidden(0, rng)
        assert sorted(c >> 1 for c in s2.deck_a) == [M, AS, HA]
        assert s2.legal == g.legal


def test_c50_resample_keeps_the_viewers_own_mask():
    g = arrange(2, hands={0: [MC]}, ip=[5, 0])
    play(g, STEP["PLAY_FREE_AGENT"], agent(MC), seat(1))
    rng = np.random.default_rng(3)
    for _ in range(10):
        assert g.resample_hidden(0, rng).legal == g.legal


def test_c34_c51_hidden_dead_identities_mask_only_the_view():
    shown = arrange(2, fac={0: [(M, -1)]})
    hidden = arrange(2, fac={0: [(M, -1)]}, dead_identities_visible=False)
    b1 = shown.layout.view(shown.observe(1), "board")[0, 0]
    b2 = hidden.layout.view(hidden.observe(1), "board")[0, 0]
    assert b1[1] == 1 and b2[1] == 1 and b1[2 + M] == 1 and b2[2:13].sum() == 0
    assert hidden.fac[0][0][0] >> 1 == M  # the state keeps the identity


def test_6_observation_is_egocentric():
    g = arrange(3, fac={0: [(M, 1)]}, ip=[5, 7, 9])
    for v in range(3):
        obs = g.observe(v)
        ip = g.layout.view(obs, "ip")
        assert ip[0] * 40 == g.ip[v] and ip[1] * 40 == g.ip[(v + 1) % 3]
        assert g.layout.view(obs, "my_seat")[v] == 1
    # viewer 1 sees F0 (shared with P0, the previous seat) as its rotated faction 2
    b = g.layout.view(g.observe(1), "board")
    assert b[2, 0, 0] == 1 and b[0, 0, 0] == 0


def test_8_observation_carries_pending_choices():
    g = arrange(2, hands={0: [M]}, ip=[5, 5])
    play(g, STEP["PLAY_FACTION_AGENT"], agent(M), fslot(1))
    obs = g.observe(1)
    assert g.layout.view(obs, "decision")[R.D_PFA_ORI] == 1
    assert g.layout.view(obs, "chosen_agent")[M] == 1
    assert g.layout.view(obs, "chosen_faction")[1] == 1
    assert g.layout.view(obs, "chosen_step")[R.S_PFA] == 1


def test_c49_strategist_steal_of_a_pinned_type_takes_the_pinned_copy_first():
    # P1 holds two Bloodbaths, one pinned for P0 (it entered publicly). P0's Strategist
    # steals one at random: P0 sees only "a Bloodbath", so its pin goes whichever copy
    # was taken (before, the pin stayed when the unpinned copy was the one drawn)
    for seed in range(6):
        g = arrange(2, hands={0: [ST]}, missions={1: [D.BLOODBATH, D.BLOODBATH]}, ip=[5, 5])
        g.tag_m[0][g.hand_m[1][seed % 2]] = R.KNOWN
        g.mv = next(R.VERSIONS)
        g.rng = np.random.default_rng(seed)
        g.step(STEP["PLAY_FREE_AGENT"])
        g.step(agent(ST))
        g.step(seat(1))
        g.step(ori(0))  # P0 executes, P1 is the target
        g.step(R.A_RANDOM)
        g.check_invariants()
        assert g.layout.view(g.observe(0), "pins_missions")[0][D.BLOODBATH] == 0
