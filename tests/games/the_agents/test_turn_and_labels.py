"""Rules tests for how a turn ends and how moves read: free mission operations are
capped per window (4.2, C48), so even a player who always takes the first option ends
its turn, and the text view tells a human how many actions are left (4.1); every move
is shown to the other seats as far as it is public (6), and only the Tracker's and the
Interrogator's picks are hidden."""

import numpy as np

from spyenvs.games.the_agents import data as D
from spyenvs.games.the_agents import rules as R
from spyenvs.games.the_agents.game import TheAgentsGame

from .helpers import STEP, agent, arrange, fslot, mission, mslot, play, seat

M, AS, AB, EX, HA, TE, DE, AC, ME, IN, JA = D.FACTION_TYPES
GU, RE, ST, MC, TR, UN, IT = D.FREE_TYPES
MISSION_OPS = {STEP["ATTACH"], STEP["RECALL"], STEP["MOVE"]}


def first_option(g):
    return int(np.flatnonzero(g.legal_mask())[0])


def test_c48_always_the_first_option_ends_the_turn():
    # ATTACH and RECALL are the lowest action indices, so "option 1" loops them
    g = arrange(2, fac={0: [(M, 0)], 1: [(HA, 1)]}, hands={0: [AS, TE, EX]},
                missions={0: [D.BLOODBATH, D.MAN_DOWN]}, ip=[5, 5])
    ops_in_window, decisions = 0, 0
    windows = []
    while g.active == 0 and not g.over:
        fr0 = g.stack[0]
        a = first_option(g)
        if g.decision in (R.D_STEP, R.D_END) and a in MISSION_OPS:
            ops_in_window += 1
        elif g.decision in (R.D_STEP, R.D_END):
            windows.append(ops_in_window)  # an action or FINISH closes the window
            ops_in_window = 0
        assert (fr0[4] if fr0[0] == R.CTX else fr0[2]) <= R.MAX_FREE_OPS
        play(g, a)
        decisions += 1
        assert decisions < 200
    # both action windows stop at the cap; in the END WINDOW FINISH is option 1
    assert windows == [R.MAX_FREE_OPS, R.MAX_FREE_OPS, 0]
    assert g.active == 1


def test_c48_end_window_offers_only_finish_after_eight_operations():
    g = arrange(2, fac={0: [(M, 0)]}, missions={0: [D.BLOODBATH]}, ip=[5, 5], phase="end")
    for _ in range(4):
        play(g, STEP["ATTACH"], mission(D.BLOODBATH), fslot(0), STEP["RECALL"], mslot(0, 0, 0))
    assert g.decision == R.D_END and g.legal == [R.A_DONE]


def test_4_1_text_view_shows_actions_left_and_free_operations():
    g = arrange(2, fac={0: [(M, 0)]}, hands={0: [AS]}, missions={0: [D.BLOODBATH]}, ip=[5, 5])
    for v in (None, 0, 1):  # public: every seat reads it
        assert "actions left 2 (the turn ends when they run out)" in g.render_text(v)
        assert "free mission operations 0/8" in g.render_text(v)
    play(g, STEP["ATTACH"], mission(D.BLOODBATH), fslot(0))
    assert "free mission operations 1/8" in g.render_text(1)
    play(g, STEP["BUY_AGENT_DECK"])
    assert "actions left 1" in g.render_text(1) and "free mission operations 0/8" in g.render_text(1)
    play(g, STEP["BUY_AGENT_DECK"])
    assert "end window: free mission operations 0/8, then FINISH ends the turn" in g.render_text(0)


def test_4_8_text_view_shows_a_mercenary_bonus_action():
    g = arrange(2, hands={0: [MC]}, ip=[5, 5])
    play(g, STEP["PLAY_FREE_AGENT"], agent(MC), seat(1), R.A_ORI + 1)  # P1 takes the bonus
    assert "Mercenary bonus: P1 has 1 action(s)" in g.render_text(0)


# ------------------------------------------------------------------ labels
def random_states(n, seeds):
    for seed in seeds:
        g = TheAgentsGame(num_players=n)
        g.reset(seed)
        rng = np.random.default_rng(seed)
        while not g.is_over:
            yield g
            legal = g.legal_actions()
            g.step(int(legal[rng.integers(len(legal))]))


def test_6_public_moves_are_shown_to_every_other_seat():
    kinds = set()
    for g in random_states(3, range(12)):
        d = g.decision
        kinds.add(d)
        for v in range(g.N):
            if v == g.decider:
                continue
            for a in g.legal_actions():
                shown = g.action_label_for(a, v)
                if d == R.D_TRACK or (d == R.D_INT_CARD and v != g.stack[-1][7]):
                    assert "hidden" in shown and shown == g.action_label_for(g.legal[0], v)
                else:
                    assert shown == g.action_label(a) and not shown.startswith("(")
    assert len(kinds) >= 24  # the walk reaches nearly every decision kind


def test_6_public_move_labels_name_cards_and_players():
    g = arrange(2, fac={1: [(HA, 1), (TE, 0)]}, hands={0: [M]}, ip=[5, 5])
    play(g, STEP["PLAY_FACTION_AGENT"], agent(M), fslot(0))
    assert g.action_label_for(R.A_ORI, 1) == "command toward P0"
    assert g.action_label_for(R.A_ORI + 1, 1) == "command toward P1"
    play(g, R.A_ORI)
    assert g.action_label_for(R.A_GAP, 1) == "into empty F0"
    play(g, R.A_GAP)  # P0 executes the Marksman: kill in F1
    assert g.action_label_for(R.A_BOARD + 7, 1) == "Hacker at F1[0]"


def test_6_tracker_pick_is_hidden_from_the_other_seats():
    g = arrange(3, hands={0: [TR]}, deck_a=[M, HA, AS], dump=1, ip=[5, 5, 5])
    play(g, STEP["PLAY_FREE_AGENT"], agent(TR), seat(1), R.A_ORI)
    assert g.decision == R.D_TRACK
    for v in (1, 2):
        shown = {g.action_label_for(a, v) for a in g.legal_actions()}
        assert shown == {"P0 takes a card from the agent deck (Tracker; hidden)"}
    assert {g.action_label_for(a, 0) for a in g.legal_actions()} == {"Marksman", "Hacker", "Assassin"}


def test_6_interrogator_pick_is_seen_by_its_executor_and_target_only():
    g = arrange(3, hands={0: [IT], 1: [M, HA]}, ip=[5, 5, 5])
    play(g, STEP["PLAY_FREE_AGENT"], agent(IT), seat(1), R.A_ORI)
    assert g.action_label_for(R.A_SEAT, 2) == "P1"  # whom P0 interrogates is public
    play(g, R.A_SEAT)
    assert g.decision == R.D_INT_CARD
    picks = g.legal_actions()
    assert {g.action_label_for(a, 1) for a in picks} == {"Marksman", "Hacker"}
    assert {g.action_label_for(a, 2) for a in picks} == {
        "P0 takes an agent card from P1's hand (Interrogator; hidden)"}
