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
"""

from __future__ import annotations

import numpy as np

from ..policy import BasePolicy

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

    def act(self, obs, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        stage = int(np.argmax(self.v(obs, "stage")))
        handler = _STAGES.get(stage)
        a = handler(self, obs, mask, legal) if handler else None
        if a is None or not mask[a]:
            a = int(legal[self.rng.integers(legal.size)])
        return int(a)

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
    def main(self, obs, mask, legal):
        expose = [a for a in legal if EXPOSE <= a < EXPOSE + 15]
        if expose:
            return int(expose[0])
        cases = self.v(obs, "agent_cases")[0]
        missions = [a for a in legal if MISSION <= a < MISSION + 5 and cases[a - MISSION] * 4 >= 1.5]
        if missions:
            return int(max(missions, key=lambda a: cases[a - MISSION]))
        zones = self.my_zones(obs)
        others = self.v(obs, "zones")
        infil = [a for a in legal if INFIL <= a < INFIL + 9 and loss_cost(zones[(a - INFIL) % 3]) == 0]
        if infil:
            return int(max(infil, key=lambda a: others[(a - INFIL) // 3 + 1][(a - INFIL) % 3]))
        if mask[DRAW_EMPTY]:
            return DRAW_EMPTY
        return PASS

    def strengthen(self, obs, mask, legal):
        zones = self.my_zones(obs)
        where = self.v(obs, "agent_zone")[0]
        cases = self.v(obs, "agent_cases")[0]
        options = []
        for a in legal:
            if STRENGTHEN <= a < STRENGTHEN + 5:
                j = a - STRENGTHEN
                k = int(np.argmax(where[j]))
                if loss_cost(zones[k]) == 0 and cases[j] * 4 < 3.5:
                    options.append(int(a))
        if options:
            return options[0]
        if mask[TAKE_CARD]:
            return TAKE_CARD
        return PASS if mask[PASS] else None

    def infil_plan(self, obs, mask, legal):
        cards = [int(a) for a in legal if PICK_CARD <= a < PICK_CARD + 54]
        # a Scout (types 0-2) can run its mission at 1-2 cases; low pips are worth
        # least in confrontations
        return min(cards, key=lambda a: (kind_parts(a - PICK_CARD)[0] > 2, kind_parts(a - PICK_CARD)[2]))

    def add_card(self, obs, mask, legal):
        trumps = self.trumps(obs)
        best, best_pips = NO_CARD, 0
        for a in legal:
            if PICK_CARD <= a < PICK_CARD + 54:
                _, suit, pips = kind_parts(int(a) - PICK_CARD)
                if suit in trumps and pips > best_pips:
                    best, best_pips = int(a), pips
        return best

    def buy_reply(self, obs, mask, legal):
        return ACCEPT if mask[ACCEPT] else REJECT

    def ref_choice(self, obs, mask, legal):
        for a in (REF_ACCEPT_I, REF_ACCEPT_D):
            if mask[a]:
                return a
        return None

    def a1(self, obs, mask, legal):
        side = self.my_side(obs)
        if side == "I":
            return A1_I_UP if mask[A1_I_UP] else A1_D_DOWN
        if side == "D":
            return A1_D_UP if mask[A1_D_UP] else A1_I_DOWN
        return A1_NONE

    def kompromat(self, obs, mask, legal):
        side = self.my_side(obs)
        totals = self.v(obs, "conf_totals")
        if side is None:
            return KOMP_HOLD
        mine, theirs = (totals[0], totals[1]) if side == "I" else (totals[1], totals[0])
        return KOMP_PLAY if mine <= theirs else KOMP_HOLD

    def tie(self, obs, mask, legal):
        side = self.my_side(obs)
        if side == "I":
            return TIE_I
        if side == "D":
            return TIE_D
        return None

    def response(self, obs, mask, legal):
        # an ability answers a move by someone else in my spy's zone: hinder it,
        # except the Analyst on my own spy's exposure reaction, which helps me
        res_spy = self.v(obs, "res_spy")
        if self.v(obs, "res_on")[0] > 0.5 and self.v(obs, "res_kind")[1] > 0.5 and res_spy[0] > 0.5:
            return RESP_BONUS
        return RESP_PENALTY

    def raid(self, obs, mask, legal):
        foreign = [int(a) for a in legal if RAID < a < RAID + 4]
        return foreign[0] if foreign else None


_STAGES = {
    S_MAIN: SpyGamesHeuristic.main,
    S_BUY_OFFER: lambda self, obs, mask, legal: OFFER_NONE,
    S_BUY_REPLY: SpyGamesHeuristic.buy_reply,
    S_INFIL_PLAN: SpyGamesHeuristic.infil_plan,
    S_A2: SpyGamesHeuristic.response,
    S_FIXER: lambda self, obs, mask, legal: FIXER_TAKE,
    S_REF_OFFER: lambda self, obs, mask, legal: OFFER_NONE,
    S_REF_CHOICE: SpyGamesHeuristic.ref_choice,
    S_ADD_CARD: SpyGamesHeuristic.add_card,
    S_A1: SpyGamesHeuristic.a1,
    S_KOMP: SpyGamesHeuristic.kompromat,
    S_TIE: SpyGamesHeuristic.tie,
    S_A4: SpyGamesHeuristic.response,
    S_RAID: SpyGamesHeuristic.raid,
    S_STRENGTHEN: SpyGamesHeuristic.strengthen,
    S_A3: SpyGamesHeuristic.response,
    S_FIRST: lambda self, obs, mask, legal: FIRST_PLAYER,
}


def make(layout, config, role, rng):
    return SpyGamesHeuristic(layout, config, rng)
