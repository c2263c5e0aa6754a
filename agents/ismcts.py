"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling, Powley
and Whitehouse 2012) on the bare game's ``clone()`` and ``resample_hidden()``.

The agent is bound to a live game object and its seat. It never reads hidden state
directly: every iteration starts from ``game.resample_hidden(seat, rng)``, a
determinization in which everything the seat cannot see has been re-dealt
consistently with what it knows (the conformance leak test checks that contract for
every env). So the search only ever uses the seat's information set; the
observation passed to ``act`` is ignored.

The tree is keyed by action sequences from the root; each node keeps visit,
reward and availability counts (a child is *available* in an iteration when its
action is legal in that determinization), and selection uses UCB1 with the
availability count in place of the parent's visits. Rewards are the game's terminal
payoffs from the point of view of the role that chose the action. Rollouts are
uniformly random and cut at ``rollout_limit`` decisions (scored as a draw).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .policy import BasePolicy


class _Node:
    __slots__ = ("children", "visits", "reward", "avail")

    def __init__(self):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1


class ISMCTS(BasePolicy):
    """An unbound ISMCTS template; ``bind(game, seat)`` returns the playing agent.

    ``simulations`` caps iterations per move, ``time_limit`` (seconds, optional)
    caps wall time per move, ``c`` is the UCB exploration constant.
    """

    name = "ismcts"
    #: searches the live game it is bound to, so it is bound per game, never shared
    needs_live_game = True

    def __init__(self, simulations: int = 200, c: float = 0.7, rollout_limit: int = 400,
                 time_limit: float | None = None, seed: int | None = None):
        self.simulations = simulations
        self.c = c
        self.rollout_limit = rollout_limit
        self.time_limit = time_limit
        self.rng = np.random.default_rng(seed)

    def bind(self, game: Any, seat: int) -> BoundISMCTS:
        return BoundISMCTS(self, game, seat)

    def act_game(self, game: Any, seat: int) -> int:
        """One move for ``seat`` of ``game`` (searches on resamples, never on ``game``'s
        hidden state)."""
        return self.bind(game, seat).act(None, game.legal_mask())

    def act(self, observation, mask):  # pragma: no cover - a template cannot play
        raise TypeError("ISMCTS needs the game: call bind(game, seat) or act_game(game, seat)")


class BoundISMCTS(BasePolicy):
    """ISMCTS playing ``seat`` of the live ``game``."""

    name = "ismcts"

    def __init__(self, spec: ISMCTS, game: Any, seat: int):
        self.spec = spec
        self.game = game
        self.seat = seat
        self.rng = spec.rng

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        game = self.game
        if game.is_over or game.current_player != self.seat:
            raise ValueError(f"ISMCTS bound to seat {self.seat} asked to act out of turn")
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        return self.search(game)

    def search(self, game: Any) -> int:
        spec, rng, seat = self.spec, self.rng, self.seat
        root = _Node()
        deadline = None if spec.time_limit is None else time.monotonic() + spec.time_limit
        for it in range(spec.simulations):
            if deadline is not None and it > 0 and time.monotonic() > deadline:
                break
            self._iterate(root, game.resample_hidden(seat, rng))
        best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].reward))
        return int(best[0])

    def _iterate(self, root: _Node, d: Any) -> None:
        rng, c = self.rng, self.spec.c
        node = root
        path: list[tuple[_Node, int]] = []  # (child, role that chose it)
        # selection and expansion
        while not d.is_over:
            legal = np.flatnonzero(d.legal_mask()).tolist()
            mover = d.current_player
            children = node.children
            untried = [a for a in legal if a not in children]
            for a in legal:
                ch = children.get(a)
                if ch is not None:
                    ch.avail += 1
            if untried:
                a = untried[int(rng.integers(len(untried)))]
                child = _Node()
                children[a] = child
                d.step(a)
                path.append((child, mover))
                break
            best_a, best_v = legal[0], -math.inf
            for a in legal:
                ch = children[a]
                v = ch.reward / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if v > best_v:
                    best_a, best_v = a, v
            node = children[best_a]
            d.step(best_a)
            path.append((node, mover))
        # rollout
        steps = 0
        while not d.is_over and steps < self.spec.rollout_limit:
            legal = np.flatnonzero(d.legal_mask())
            d.step(int(legal[rng.integers(legal.size)]))
            steps += 1
        outcome = d.outcome() if d.is_over else [0.0] * len(d.roles)
        for node, mover in path:
            node.visits += 1
            node.reward += outcome[mover]
