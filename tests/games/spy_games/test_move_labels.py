"""Spy Games move labels and decision text as other players see them (rules/spy_games.md
§7): ``action_label_for`` shows another role's move exactly as far as it is public
(offers, responses, referee and ability choices, picks, declarations) and hides the
rest (an unrevealed allocation, the plan card, a face-down addition's identity);
render_text names the declaration a buyout offer is about."""

from spyenvs.games.spy_games import data as D

from .helpers import (
    A1_I_PLUS, BONUS, CARD, CIRCLE, CODE, DEMAND, DEMO, EXPOSE, INFIL, INTER, LIQ, MISSION, PAY_FROM, PENALTY,
    PICK_AGENT, PROV, RECALL, REF_FREE, REF_OFFER, SAFE, SQUARE, STANDDOWN, STRENGTHEN, TRIANGLE, WIN_I, WITHDRAW,
    K, arrange, do, game, strengthen_turn, win,
)


def others(g):
    return [v for v in range(g.n) if v != g.decider]


def public(g, a, *fragments):
    """Every other player sees move ``a`` exactly as its decider does, naming ``fragments``."""
    label = g.action_label(a)
    for frag in fragments:
        assert frag in label, (label, frag)
    for v in others(g):
        assert g.action_label_for(a, v) == label
    return label


def hidden(g, actions, secrets):
    """Every other player sees the same label for each of ``actions`` and none of ``secrets``,
    while the decider sees each secret in its own labels."""
    own = " ".join(g.action_label(a) for a in actions)
    for s in secrets:
        assert s in own
    for v in others(g):
        seen = {g.action_label_for(a, v) for a in actions}
        assert len(seen) == 1, seen
        assert not any(s in lab for s in secrets for lab in seen)
    return seen.pop()


def test_s7_main_actions_and_recalls_are_public_with_their_targets():
    g = game()
    arrange(g, hands={0: [K(SAFE)]}, spies=[(0, 0, 1, 1, 1, K(SAFE)), (1, 1, 0, 2, 1, K(CODE))])
    public(g, D.A_PASS, "PASS")
    public(g, INFIL(2, 0), "INFILTRATE player_2 zone 1 (circle)")
    public(g, MISSION(0), "MISSION agent 1 in player_1 zone 2 (square)")
    public(g, EXPOSE(1, 1), "EXPOSE player_1's agent 2 in player_0 zone 3 (triangle)")
    public(g, RECALL(0), "RECALL agent 1 from player_1 zone 2")
    arrange(g, hands={0: []})
    public(g, D.A_DRAW_EMPTY, "DRAW_EMPTY")


def test_s4_3_strengthen_actions_are_public():
    g = game()
    arrange(g, spies=[(0, 0, 1, 0, 1, K(SAFE))])
    strengthen_turn(g, 0)
    public(g, STRENGTHEN(0), "STRENGTHEN agent 1 in player_1 zone 1")
    public(g, D.A_TAKE_CARD, "TAKE_CARD")


def test_s5_1_buyout_offer_shows_the_declaration_and_offers_and_replies_are_public():
    g = game(negotiation="structured")
    arrange(g, hands={0: [K(SAFE)], 1: [K(CODE)]})
    do(g, INFIL(1, 0))
    assert g.stage == D.S_BUY_OFFER and g.decider == 1
    decl = "declared: player_0 INFILTRATE player_1 zone 1 (circle)"
    assert all(decl in g.render_text(v) for v in (None, 0, 1, 2, 3))
    public(g, D.A_OFFER_NONE, "OFFER_NONE")
    public(g, STANDDOWN(2, 0), "OFFER_STANDDOWN", "2 cases from zone 1")
    public(g, STANDDOWN(1, 6), "1 random card")
    do(g, STANDDOWN(2, 0))
    offer = "offer: player_1 offers STAND-DOWN for 2 cases from zone 1"
    assert decl in g.render_text(0) and offer in g.render_text(0)
    public(g, D.A_ACCEPT, "ACCEPT")
    public(g, D.A_REJECT, "REJECT")


def test_s5_1_withdraw_offer_against_a_mission_is_public():
    g = game(negotiation="structured")
    arrange(g, spies=[(0, 0, 1, 1, 2, K(SAFE))])
    do(g, MISSION(0))
    assert "declared: player_0 MISSION with agent 1 (2 cases) in player_1 zone 2 (square)" in g.render_text(1)
    public(g, WITHDRAW(1, 2), "OFFER_WITHDRAW", "1 case from zone 3")


def test_s5_1_demand_against_an_exposure_and_its_payment_are_public():
    g = game(negotiation="structured")
    arrange(g, spies=[(1, 1, 0, 1, 1, K(SAFE))])
    g.base[1][2] += 2  # player_1 holds two player_2 cases (from player_2's zone 1)
    g.zone[2][0] -= 2
    g._resync()
    do(g, EXPOSE(1, 1))
    assert "declared: player_0 EXPOSE player_1's agent 2 (1 case) in player_0 zone 2 (square)" in g.render_text(1)
    public(g, DEMAND(2), "OFFER_DEMAND: pay me 2")
    public(g, STANDDOWN(2, 3), "2 player_2-coloured cases from base")
    do(g, DEMAND(2))
    assert "offer: player_1 DEMANDS 2 from player_0 to recall agent 2" in g.render_text(0)
    public(g, PAY_FROM(0), "ACCEPT_PAY_FROM", "pay 2 cases from zone 1")


def test_s7_agent_pick_is_public_and_the_plan_card_is_hidden():
    g = game()
    a, b = K(SAFE, CIRCLE, 1), K(DEMO, SQUARE, 3)
    arrange(g, hands={0: [a, b]})
    do(g, INFIL(1, 0))
    public(g, PICK_AGENT(3), "PICK_AGENT 4 (Analyst)")
    do(g, PICK_AGENT(3))
    assert g.stage == D.S_INFIL_PLAN
    hidden(g, [CARD(a), CARD(b)], ["Safecracker", "Demolitionist"])


def test_s9_2_allocation_choice_is_hidden_until_everyone_has_chosen():
    from spyenvs.games.spy_games.game import SpyGamesGame

    g = SpyGamesGame(num_players=3)
    g.reset(0)
    assert g.stage == D.S_ALLOC
    hidden(g, list(range(6)), ["10/8/6", "6/8/10"])


def test_s2_5_gatekeeper_answers_are_public():
    g = game()
    arrange(g, hands={0: [K(SAFE), K(CODE)]}, spies=[(2, 1, 1, 0, 1, K(DEMO))])
    do(g, INFIL(1, 0), PICK_AGENT(0), CARD(K(SAFE)))
    assert g.stage == D.S_A2 and g.decider == 2
    public(g, PENALTY, "OBSTRUCT")
    public(g, BONUS, "WELCOME")


def test_s2_5_liaison_answers_are_public():
    g = game()
    arrange(g, spies=[(0, 0, 1, 0, 1, K(SAFE)), (2, 2, 1, 0, 1, K(CODE))])
    strengthen_turn(g, 0)
    do(g, STRENGTHEN(0))
    assert g.stage == D.S_A3
    public(g, PENALTY, "BLOCK")
    public(g, BONUS, "ASSIST")


def test_s4_5_referee_choice_is_public_and_a_face_down_addition_is_hidden_but_not_whether():
    g = game()
    add = K(CODE, TRIANGLE, 2)
    arrange(g, hands={0: [add, K(LIQ, CIRCLE, 3)]}, spies=[(0, 0, 1, 1, 1, K(SAFE))], deck_top=WIN_I)
    do(g, MISSION(0))
    assert g.stage == D.S_REF_CHOICE and g.decider == 2
    public(g, REF_FREE(0), "REF_FREE circle")
    public(g, REF_FREE(1), "REF_FREE triangle")
    do(g, REF_FREE(0))
    assert g.stage == D.S_ADD_CARD and g.decider == 0
    hidden(g, [CARD(add), CARD(K(LIQ, CIRCLE, 3))], ["Codebreaker", "Liquidator"])
    public(g, D.A_NO_CARD, "NO_CARD")
    do(g, CARD(add))
    assert "I player_0: face-up Provocateur-square3, added a card face down" in g.render_text(1)
    assert "added Codebreaker-triangle2 face down" in g.render_text(0)


def test_s5_2_referee_offers_and_acceptances_are_public():
    g = game(negotiation="structured")
    arrange(g, spies=[(0, 0, 1, 1, 1, K(SAFE))], deck_top=WIN_I)
    do(g, MISSION(0), D.A_OFFER_NONE)
    assert g.stage == D.S_REF_OFFER and g.decider == 0
    public(g, REF_OFFER(1, 1, 0), "REF_OFFER triangle", "1 case from zone 1")
    do(g, REF_OFFER(1, 1, 0), D.A_OFFER_NONE)
    assert g.stage == D.S_REF_CHOICE
    assert "referee offer triangle for 1 case from zone 1" in g.render_text(3)
    public(g, D.A_REF_ACCEPT_I, "REF_ACCEPT_I (player_0's offer: triangle for 1 case from zone 1)")


def test_s4_5_informant_kompromat_and_tie_choices_are_public():
    g = game()
    arrange(g, spies=[(0, 0, 1, 1, 1, K(SAFE)), (3, 0, 1, 1, 1, K(DEMO))],
            deck_top=[K(SAFE, SQUARE, 2), K(CODE, CIRCLE, 2)])
    g.komp[1] = True
    g.komp_supply = 1
    g._resync()
    do(g, MISSION(0), REF_FREE(0), D.A_NO_CARD, D.A_NO_CARD)
    assert g.stage == D.S_A1 and g.decider == 3
    public(g, A1_I_PLUS, "A1 I+1 (player_0)")
    do(g, D.A_A1)
    assert g.stage == D.S_KOMP and g.decider == 1
    public(g, D.A_KOMP + 1, "KOMPROMAT play")
    do(g, D.A_KOMP)
    assert g.stage == D.S_TIE and g.decider == 2
    public(g, D.A_TIE_D, "TIE_TO D (player_1)")


def test_s2_5_fixer_and_analyst_answers_are_public():
    g = game()
    arrange(g, spies=[(0, 0, 1, 1, 1, K(SAFE)), (3, 4, 1, 1, 1, K(DEMO)), (2, 3, 1, 1, 1, K(PROV))],
            deck_top=WIN_I)
    do(g, MISSION(0))
    assert g.stage == D.S_FIXER and g.decider == 3
    public(g, D.A_FIXER + 1, "FIXER take over")
    do(g, D.A_FIXER)
    win(g)
    assert g.stage == D.S_A4 and g.decider == 2
    public(g, BONUS, "AMPLIFY")
    public(g, PENALTY, "DAMPEN")


def test_s4_6_raid_and_purge_picks_are_public():
    g = game()
    arrange(g, spies=[(0, 0, 1, 1, 2, K(INTER))], deck_top=WIN_I)
    g.zone[2][0] -= 1
    g.base[1][2] += 1
    g._resync()
    do(g, MISSION(0))
    win(g)
    assert g.stage == D.S_RAID and g.decider == 0
    public(g, D.A_RAID + 2, "RAID_PICK a player_2-coloured case")
    g = game()
    arrange(g, spies=[(0, 0, 1, 1, 3, K(LIQ)), (2, 1, 1, 1, 2, K(CODE))], deck_top=WIN_I)
    do(g, MISSION(0))
    win(g)
    assert g.stage == D.S_PURGE
    public(g, D.A_PURGE + 5 * 1 + 1, "PURGE_PICK player_2's agent 2")


def test_s4_4_first_player_choice_is_public():
    g = game()
    arrange(g)
    strengthen_turn(g, 3, used=3)
    do(g, D.A_TAKE_CARD)
    assert g.stage == D.S_FIRST and g.decider == 3
    public(g, D.A_FIRST + 2, "FIRST_PLAYER player_1")
