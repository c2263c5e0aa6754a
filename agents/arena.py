"""Playing whole games between policies on the bare game (no PettingZoo layer):
the inner loop of tournaments, evaluations and the heuristic tests."""

from __future__ import annotations

from typing import Any, Sequence

from .policy import BasePolicy


def play_game(game: Any, policies: Sequence[BasePolicy], seed: int, max_decisions: int | None = None) -> list[float]:
    """Reset ``game`` with ``seed``, play it with ``policies[seat]`` (templates, bound
    here) and return the outcome per seat; a game cut at ``max_decisions`` is a
    draw for everyone."""
    game.reset(seed)
    bound = [p.bind(game, seat) for seat, p in enumerate(policies)]
    n = 0
    while not game.is_over:
        if max_decisions is not None and n >= max_decisions:
            return [0.0] * game.num_players
        seat = game.current_player
        game.step(bound[seat].act(game.observe(seat), game.legal_mask()))
        n += 1
    return list(game.outcome())


def score(outcome_value: float) -> float:
    """Win 1, draw 0.5, loss 0 (for win rates; team wins count for every member)."""
    return 1.0 if outcome_value > 0 else (0.5 if outcome_value == 0 else 0.0)
