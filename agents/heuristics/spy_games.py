"""Rule-based player for Spy Games (``spy_games_v0``), every seat and player count.

It decodes only its own observation (``layout.view`` of the named blocks: stage,
zones, spies, hand, confrontation) and the mask; the action indices are the rules
file's fixed layout (§9.1). The plan, from the scoring rule (own cases 1 VP,
foreign cases 3 VP, minus the penalty of every case that leaves a zone):

* move cases out of a zone only while the penalty track makes it free (a 10-case
  zone loses its first three for nothing), otherwise draw cards;
* expose every enemy spy it can (captured cases are foreign, 3 VP each, and the
  spy would cost cases at the end); run missions with spies holding 2+ cases;
* infiltrate the richest enemy zone with a Scout plan, keeping high-pip cards for
  confrontations, where it adds its best card of a trump suit;
* take every payment offered, refuse to pay, answer abilities against the others,
  play kompromat when behind, and never recall.

Scores (``action_scores``): each decision's handler rates the moves its plan
considers, in tiers one unit apart with the quantity it compares inside a tier
(main: expose 4, a mission 3 + cases/8, a free infiltration 2 + half the target
zone's share of 10 cases, draw 1, pass 0; a plan card -(pips + 3 if not a Scout);
an added trump card its pips against 0 for none; the side a modifier helps 1 (its
second way 0.5), none 0, the other side -1; yes/no answers 1 against 0). A legal
move the handler does not rate scores one unit below the least it rates. Where the
plan has no preference, or its move is illegal, every legal move scores 0 and
``act`` draws uniformly. Otherwise ``act`` plays the handler's best, the lowest
action index among equal bests (as the plan's lists are ordered).
"""

from __future__ import annotations

import numpy as np

from ..policy import BasePolicy, check_mask, masked_scores

# action layout (rules §9.1)
PASS, DRAW_EMPTY = 6, 7
INFIL, MISSION, EXPOSE = 13, 22, 27
STRENGTHEN, TAKE_CARD = 42, 47
PICK_AGENT, PICK_CARD, NO_CARD = 48, 53, 107
OFFER_NONE, REJECT, ACCEPT = 108, 154, 155
REF_ACCEPT_I, REF_ACCEPT_D, REF_FREE = 205, 206, 207
TIE_I, TIE_D = 209, 210
A1_NONE, A1_I_UP, A1_D_DOWN, A1_D_UP, A1_I_DOWN = 211, 212, 215, 214, 213
RESP_IGNORE, RESP_BONUS, RESP_PENALTY = 216, 217, 218
FIXER_TAKE = 220
KOMP_HOLD, KOMP_PLAY = 221, 222
RAID, PURGE, FIRST_PLAYER = 223, 227, 242
# stage ids (§9.2)
(S_ALLOC, S_MAIN, S_BUY_OFFER, S_BUY_REPLY, S_INFIL_AGENT, S_INFIL_PLAN, S_A2, S_FIXER, S_REF_OFFER,
 S_REF_CHOICE, S_ADD_CARD, S_A1, S_KOMP, S_TIE, S_A4, S_RAID, S_PURGE, S_STRENGTHEN, S_A3,
 S_FIRST) = range(20)
TRACK = (-4, -3, -3, -2, -2, -1, -1, 0, 0, 0)  # penalty cells, most negative first (§2.2)


def loss_cost(cases: int) -> int:
    """Penalty of the next case leaving a zone that holds ``cases``."""
    return abs(TRACK[cases - 1]) if cases > 0 else 99


def kind_parts(kind: int) -> tuple[int, int, int]:
    """(type, suit, pips) of a plan-card kind (§2.3)."""
    return kind // 9, (kind % 9) // 3, kind % 3 + 1


class SpyGamesHeuristic(BasePolicy):
    name = "heuristic"

    def __init__(self, layout, config, rng):
        self.L = layout
        self.rng = rng
        self.n = config["num_players"]

    def v(self, obs, name):
        return self.L.view(obs, name)

    def _rated(self, obs, mask, legal) -> np.ndarray | None:
        """The handler's ratings as a vector (-inf where it rates nothing), or None
        when it has no preference or its best move is illegal (a uniform draw)."""
        stage = int(np.argmax(self.v(obs, "stage")))
        handler = _STAGES.get(stage)
        prefs = handler(self, obs, mask, legal) if handler else None
        if not prefs:
            return None
        rated = np.full(len(mask), -np.inf)
        rated[list(prefs)] = list(prefs.values())
        return rated if mask[int(np.argmax(rated))] else None

    def act(self, obs, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        rated = self._rated(obs, mask, legal)
        if rated is None:
            return int(legal[self.rng.integers(legal.size)])
        return int(np.argmax(rated))  # the lowest index among equal bests

    def action_scores(self, obs, mask):
        legal = check_mask(mask)
        rated = self._rated(obs, mask, legal) if legal.size > 1 else None
        if rated is None:
            return masked_scores(mask, legal)
        scores = masked_scores(mask, legal, rated[legal])
        rated_legal = scores[legal]
        unrated = np.isneginf(rated_legal)
        rated_legal[unrated] = rated_legal[~unrated].min() - 1.0  # the plan's best is legal and rated
        scores[legal] = rated_legal
        return scores

    # --------------------------------------------------------------- helpers
    def my_zones(self, obs):
        return [int(round(x * 10)) for x in self.v(obs, "zones")[0]]

    def trumps(self, obs):
        suits = set(np.flatnonzero(self.v(obs, "conf_zone_suit") > 0.5).tolist())
        suits |= set(np.flatnonzero(self.v(obs, "conf_trump2") > 0.5).tolist())
        return suits

    def my_side(self, obs):
        """'I', 'D' or None: my part in the running confrontation."""
        if self.v(obs, "conf_I")[0] > 0.5:
            return "I"
        if self.v(obs, "conf_D")[0] > 0.5:
            return "D"
        return None

    # ---------------------------------------------------------------- stages
    # Each handler rates moves ({action: rating}); the best rated move is the plan's
    # (the lowest index among equals). It rates only legal moves, except for its last
    # resort, which it rates whether legal or not: when that is the best and illegal,
    # the player draws uniformly.
    def main(self, obs, mask, legal):
        prefs = {int(a): 4.0 for a in legal if EXPOSE <= a < EXPOSE + 15}
        cases = self.v(obs, "agent_cases")[0]
        for a in legal:
            if MISSION <= a < MISSION + 5 and cases[a - MISSION] * 4 >= 1.5:
                prefs[int(a)] = 3.0 + 0.5 * float(cases[a - MISSION])
        zones = self.my_zones(obs)
        others = self.v(obs, "zones")
        for a in legal:
            if INFIL <= a < INFIL + 9 and loss_cost(zones[(a - INFIL) % 3]) == 0:
                prefs[int(a)] = 2.0 + 0.5 * float(others[(a - INFIL) // 3 + 1][(a - INFIL) % 3])
        if mask[DRAW_EMPTY]:
            prefs[DRAW_EMPTY] = 1.0
        prefs[PASS] = 0.0
        return prefs

    def strengthen(self, obs, mask, legal):
        zones = self.my_zones(obs)
        where = self.v(obs, "agent_zone")[0]
        cases = self.v(obs, "agent_cases")[0]
        prefs = {}
        for a in legal:
            if STRENGTHEN <= a < STRENGTHEN + 5:
                j = a - STRENGTHEN
                k = int(np.argmax(where[j]))
                if loss_cost(zones[k]) == 0 and cases[j] * 4 < 3.5:
                    prefs[int(a)] = 3.0
        if mask[TAKE_CARD]:
            prefs[TAKE_CARD] = 2.0
        if mask[PASS]:
            prefs[PASS] = 1.0
        return prefs

    def infil_plan(self, obs, mask, legal):
        # a Scout (types 0-2) can run its mission at 1-2 cases; low pips are worth
        # least in confrontations
        prefs = {}
        for a in legal:
            if PICK_CARD <= a < PICK_CARD + 54:
                kind, _, pips = kind_parts(int(a) - PICK_CARD)
                prefs[int(a)] = -float(pips + 3 * (kind > 2))
        return prefs

    def add_card(self, obs, mask, legal):
        trumps = self.trumps(obs)
        prefs = {NO_CARD: 0.0}
        for a in legal:
            if PICK_CARD <= a < PICK_CARD + 54:
                _, suit, pips = kind_parts(int(a) - PICK_CARD)
                if suit in trumps:
                    prefs[int(a)] = float(pips)
        return prefs

    def buy_reply(self, obs, mask, legal):
        prefs = {REJECT: 0.0}
        if mask[ACCEPT]:
            prefs[ACCEPT] = 1.0
        return prefs

    def ref_choice(self, obs, mask, legal):
        return {a: 1.0 for a in (REF_ACCEPT_I, REF_ACCEPT_D) if mask[a]}

    def a1(self, obs, mask, legal):
        side = self.my_side(obs)
        if side is None:
            return {A1_NONE: 0.0}
        # raise my side's total, else lower the other's
        up, down, harm_up, harm_down = ((A1_I_UP, A1_D_DOWN, A1_D_UP, A1_I_DOWN) if side == "I"
                                        else (A1_D_UP, A1_I_DOWN, A1_I_UP, A1_D_DOWN))
        prefs = {down: 0.5, A1_NONE: 0.0, harm_up: -1.0, harm_down: -1.0}
        if mask[up]:
            prefs[up] = 1.0
        return prefs

    def kompromat(self, obs, mask, legal):
        side = self.my_side(obs)
        totals = self.v(obs, "conf_totals")
        if side is None:
            return {KOMP_HOLD: 0.0}
        mine, theirs = (totals[0], totals[1]) if side == "I" else (totals[1], totals[0])
        return {KOMP_PLAY: 1.0, KOMP_HOLD: 0.0} if mine <= theirs else {KOMP_HOLD: 1.0, KOMP_PLAY: 0.0}

    def tie(self, obs, mask, legal):
        side = self.my_side(obs)
        if side == "I":
            return {TIE_I: 1.0, TIE_D: 0.0}
        if side == "D":
            return {TIE_D: 1.0, TIE_I: 0.0}
        return None

    def response(self, obs, mask, legal):
        # an ability answers a move by someone else in my spy's zone: hinder it,
        # except the Analyst on my own spy's exposure reaction, which helps me
        res_spy = self.v(obs, "res_spy")
        if self.v(obs, "res_on")[0] > 0.5 and self.v(obs, "res_kind")[1] > 0.5 and res_spy[0] > 0.5:
            return {RESP_BONUS: 1.0, RESP_IGNORE: 0.0, RESP_PENALTY: -1.0}
        return {RESP_PENALTY: 1.0, RESP_IGNORE: 0.0, RESP_BONUS: -1.0}

    def raid(self, obs, mask, legal):
        return {int(a): 1.0 for a in legal if RAID < a < RAID + 4}


_STAGES = {
    S_MAIN: SpyGamesHeuristic.main,
    S_BUY_OFFER: lambda self, obs, mask, legal: {OFFER_NONE: 0.0},
    S_BUY_REPLY: SpyGamesHeuristic.buy_reply,
    S_INFIL_PLAN: SpyGamesHeuristic.infil_plan,
    S_A2: SpyGamesHeuristic.response,
    S_FIXER: lambda self, obs, mask, legal: {FIXER_TAKE: 1.0, FIXER_TAKE - 1: 0.0},
    S_REF_OFFER: lambda self, obs, mask, legal: {OFFER_NONE: 0.0},
    S_REF_CHOICE: SpyGamesHeuristic.ref_choice,
    S_ADD_CARD: SpyGamesHeuristic.add_card,
    S_A1: SpyGamesHeuristic.a1,
    S_KOMP: SpyGamesHeuristic.kompromat,
    S_TIE: SpyGamesHeuristic.tie,
    S_A4: SpyGamesHeuristic.response,
    S_RAID: SpyGamesHeuristic.raid,
    S_STRENGTHEN: SpyGamesHeuristic.strengthen,
    S_A3: SpyGamesHeuristic.response,
    S_FIRST: lambda self, obs, mask, legal: {FIRST_PLAYER: 0.0},
}


def make(layout, config, role, rng):
    return SpyGamesHeuristic(layout, config, rng)
