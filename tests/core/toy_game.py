"""A tiny hidden-card game used to test the core alone (and a template for games):
each player gets a secret card from 1..N; in turn each says 'stay' or 'swap' (swap
discards the card face down and takes the top card of the hidden deck, while it
lasts), for ``rounds`` rounds; then the highest card wins."""

from __future__ import annotations

import numpy as np

from spyenvs.core import Game, Layout, Param
from spyenvs.core.info import GameInfo


class HighCard(Game):
    # a real game declares this as INFO in its package's __init__.py
    info = GameInfo(
        env_id="high_card_test",
        title="High Card",
        summary="High Card: a test game of one secret card each; stay or swap, then the highest card wins.",
        rewards="The highest card wins (+1), every other player loses (-1).",
        pettingzoo_id="spyenvs/high_card_test-v0",
    )
    CONFIG = {
        "num_players": Param(2, int, choices=(2, 3)),
        "deck_size": Param(6, int, min=4, max=20),
        "rounds": Param(1, int, min=1, max=5, doc="turns each player takes"),
    }
    TEST_CONFIGS = [{"num_players": 2}, {"num_players": 3}, {"num_players": 2, "rounds": 3}, {"num_players": 3, "rounds": 2}]
    BAD_CONFIGS = [{"num_players": 7}, {"deck_size": 2}, {"rounds": 0}, {"nonsense": 1}]

    def _setup(self):
        n = self.config["num_players"]
        self.roles = tuple(f"player_{i}" for i in range(n))
        self.num_actions = 2
        self.layout = Layout()
        self.layout.add("my_card", self.config["deck_size"])
        self.layout.add("swapped", n, doc="public: how often each player swapped / rounds, egocentric")
        self.layout.add("turn", n)

    def _new_game(self):
        deck = list(range(self.config["deck_size"]))
        self.rng.shuffle(deck)
        n = len(self.roles)
        self.hands = deck[:n]
        self.deck = deck[n:]
        self.swapped = [False] * n
        self.swaps = [0] * n
        self.discard = []  # face down: only the player who discarded a card knows it
        self.discarded_by = []
        self.turn = 0

    @property
    def current_player(self):
        return self.turn % len(self.roles)

    def legal_mask(self):
        return np.array([1, 1 if self.deck else 0], np.int8)

    def decision_name(self):
        return "stay_or_swap"

    def _apply(self, action):
        if action == 1:
            p = self.current_player
            self.discard.append(self.hands[p])
            self.discarded_by.append(p)
            self.hands[p] = self.deck.pop()
            self.swapped[p] = True
            self.swaps[p] += 1
        self.turn += 1

    @property
    def is_over(self):
        return self.turn >= len(self.roles) * self.config["rounds"]

    def outcome(self):
        best = max(self.hands)
        return [1.0 if h == best else -1.0 for h in self.hands]

    def observe(self, p):
        n = len(self.roles)
        obs = np.zeros(self.layout.size, np.float32)
        s = self.layout.slices()
        obs[s["my_card"]][self.hands[p]] = 1
        for k in range(n):
            obs[s["swapped"].start + k] = self.swaps[(p + k) % n] / self.config["rounds"]
            obs[s["turn"].start + k] = (self.turn % n) == (p + k) % n and not self.is_over
        return obs

    def hidden_key(self, viewer):
        others = tuple(c for c, by in zip(self.discard, self.discarded_by) if by != viewer)
        return (tuple(h for i, h in enumerate(self.hands) if i != viewer), tuple(self.deck), others)

    def resample_hidden(self, viewer, rng):
        new = self.clone()
        theirs = [k for k, by in enumerate(self.discarded_by) if by != viewer]
        unknown = [h for i, h in enumerate(self.hands) if i != viewer] + list(self.deck)
        unknown += [self.discard[k] for k in theirs]
        rng.shuffle(unknown)
        for i in range(len(self.roles)):
            if i != viewer:
                new.hands[i] = unknown.pop()
        for k in theirs:
            new.discard[k] = unknown.pop()
        new.deck = unknown
        new.rng = np.random.default_rng(rng.integers(2**63))
        return new

    def clone(self):
        new = self._clone_into(object.__new__(HighCard))
        new.hands = list(self.hands)
        new.deck = list(self.deck)
        new.swapped = list(self.swapped)
        new.swaps = list(self.swaps)
        new.discard = list(self.discard)
        new.discarded_by = list(self.discarded_by)
        new.turn = self.turn
        return new

    def check_invariants(self):
        assert sorted(self.hands + self.deck + self.discard) == list(range(self.config["deck_size"]))

    def action_label(self, a):
        return ("stay", "swap")[a]

    def render_text(self, viewer=None):
        cards = " ".join(
            str(h) if viewer is None or viewer == i else "?" for i, h in enumerate(self.hands)
        )
        return f"hands: {cards}\nswapped: {self.swapped}\nturn: {self.turn}"
