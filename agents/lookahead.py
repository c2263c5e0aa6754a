"""The reply look-ahead (``lookahead:DECISION[:through=NAME,...][:dets=N]``): the game's
heuristic, except at one kind of decision, where each legal move is played out on ``dets``
determinizations of what the seat knows (``resample_hidden``, never the true hidden
state) until the seat decides again outside ``through``: every other seat, and the seat
itself at the ``through`` decisions, play the heuristic. The move with the best mean
state evaluation (:mod:`spyenvs.agents.evaluations`, or the outcome at a game's end) is
played, the heuristic's own where it ties.

It reads the live game, so it is a teacher (``warm_start.teacher``) or a tournament
player, never a shipped file; the same look-ahead from a seat's observation alone (a
game rebuilt from it) is the prior ``net.prior: lookahead:...`` (:mod:`spyenvs.agents.prior`),
which a shipped file may name. DECISION may name several decisions, comma-separated.
For the Unrest Rebel, ``lookahead:play_cards:through=assign_card`` foresees the
heuristic Empire's reply to her play (docs/design_notes.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .heuristics import HeuristicPolicy
from .policy import BasePolicy


class Lookahead(BasePolicy):
    """The unbound look-ahead: ``bind(game, seat)`` (see the module docstring)."""

    name = "lookahead"
    #: plays out the live game's moves, so it is bound per game, never shared
    needs_live_game = True

    def __init__(self, decision: str, through: tuple[str, ...] = (), dets: int = 4, seed: int | None = None):
        if not decision:
            raise ValueError("lookahead needs the decision it looks ahead at: lookahead:DECISION")
        if not (isinstance(dets, int) and dets >= 1):
            raise ValueError(f"lookahead dets must be a positive int, got {dets!r}")
        #: the decisions looked ahead at (DECISION may name several: A,B)
        self.decisions = tuple(d for d in decision.split(",") if d)
        self.decision, self.through, self.dets = decision, tuple(through), dets
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def bind(self, game: Any, seat: int) -> BoundLookahead:
        return BoundLookahead(self, game, seat)

    def act_game(self, game: Any, seat: int) -> int:
        """One move for ``seat`` of ``game`` (looks ahead on resamples, never on
        ``game``'s hidden state)."""
        return self.bind(game, seat).act(game.observe(seat), game.legal_mask())

    def act(self, observation, mask):  # pragma: no cover - a template cannot play
        raise TypeError("lookahead needs the game: call bind(game, seat)")


class BoundLookahead(BasePolicy):
    """The look-ahead playing ``seat`` of the live ``game``."""

    def __init__(self, spec: Lookahead, game: Any, seat: int):
        from .evaluations import state_value_for

        names = list(getattr(game, "decisions", ()) or ())
        unknown = [n for n in (*spec.decisions, *spec.through) if names and n not in names]
        if unknown:
            raise ValueError(f"lookahead: {game.env_id} has no decision {unknown[0]!r}; its decisions: "
                             f"{', '.join(names)}")
        self.spec, self.game, self.seat, self.name = spec, game, seat, spec.name
        self.rng = spec.rng
        self.heuristic = HeuristicPolicy(spec.seed).bind(game, seat)
        self.model = HeuristicPolicy(None if spec.seed is None else spec.seed + 1)  # every seat of a play-out
        self.value = state_value_for(game)
        #: decisions looked ahead at, and how many of them left the heuristic's move
        self.looked = self.deviations = 0

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        game = self.game
        move = int(self.heuristic.act(observation, mask))
        legal = np.flatnonzero(mask)
        if legal.size <= 1 or game.decision_name() not in self.spec.decisions:
            return move
        values = np.array([self.play_out(int(a)) for a in legal])
        best = legal[values >= values.max() - 1e-9]
        self.looked += 1
        if move in best:
            return move
        self.deviations += 1
        return int(best[0])

    def play_out(self, action: int) -> float:
        """The seat's mean evaluation after ``action`` (:func:`play_out_value`)."""
        return play_out_value(self.game, self.seat, action, self.spec, self.model, self.value, self.rng)


def play_out_value(game: Any, seat: int, action: int, spec: Lookahead, model: HeuristicPolicy, value: Any,
                   rng: np.random.Generator) -> float:
    """``seat``'s mean evaluation (``value``, or the outcome at the end) after ``action``
    in ``game`` and ``model``'s moves in every seat until ``seat`` decides again outside
    ``spec.through``, over ``spec.dets`` determinizations of what ``seat`` knows."""
    total = 0.0
    for _ in range(spec.dets):
        d = game.resample_hidden(seat, rng)
        d.step(action)
        bound: dict[int, Any] = {}
        while not d.is_over and (d.current_player != seat or d.decision_name() in spec.through):
            p = d.current_player
            if p not in bound:
                bound[p] = model.bind(d, p)
            d.step(int(bound[p].act(d.observe(p), d.legal_mask())))
        total += d.outcome()[seat] if d.is_over else value(d)[seat]
    return total / spec.dets


def parse_lookahead(spec: str, seed: int | None = None) -> Lookahead:
    """``lookahead:DECISION[:through=A,B][:dets=N]`` as a :class:`Lookahead`; a bad spec
    is a one-line ValueError."""
    parts = spec.split(":")
    if parts[0] != "lookahead" or len(parts) < 2 or not parts[1] or "=" in parts[1]:
        raise ValueError(f"bad lookahead spec {spec!r}; expected lookahead:DECISION[:through=A,B][:dets=N]")
    options: dict[str, Any] = {}
    for part in parts[2:]:
        key, eq, value = part.partition("=")
        if not eq or key not in ("through", "dets"):
            raise ValueError(f"bad lookahead option {part!r} in {spec!r}; allowed: through=A,B and dets=N")
        if key == "through":
            options["through"] = tuple(v for v in value.split(",") if v)
        else:
            try:
                options["dets"] = int(value)
            except ValueError:
                raise ValueError(f"lookahead dets must be a positive int, got {value!r}") from None
    return Lookahead(parts[1], seed=seed, **options)
