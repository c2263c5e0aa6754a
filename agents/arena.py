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


def play_sides(game: Any, side_policies: Sequence[BasePolicy], seed: int, max_decisions: int | None = None) -> list[float]:
    """:func:`play_game` with one policy per side (``side_policies[k]`` for side
    ``k``, numbered as ``game.starting_sides()``): each seat acts for the side
    ``game.sides()`` gives it at that decision, so a policy plays every seat of its
    side, a 5-player Specter Ops traitor included once the agent deals him his card.
    The arena is the referee and may read who serves which side; the policies only
    see their observations. At the deal every seat binds its starting side's policy,
    in seat order (so a game whose sides never change plays exactly as
    :func:`play_game`); a seat that changes sides binds its new side's on its first
    decision there. Each seat is bound apart: a policy whose bound seats shared memory
    could tell which seat stopped asking it (the traitor's), so none of ours do."""
    start = game.starting_sides()
    policies = [side_policies[k] for k in start]
    if not game.sides_change:
        return play_game(game, policies, seed, max_decisions)
    game.reset(seed)
    bound = {(start[seat], seat): p.bind(game, seat) for seat, p in enumerate(policies)}
    n = 0
    while not game.is_over:
        if max_decisions is not None and n >= max_decisions:
            return [0.0] * game.num_players
        seat = game.current_player
        side = game.sides()[seat]
        player = bound.get((side, seat))
        if player is None:
            player = bound[side, seat] = side_policies[side].bind(game, seat)
        game.step(player.act(game.observe(seat), game.legal_mask()))
        n += 1
    return list(game.outcome())


def score(outcome_value: float) -> float:
    """Win 1, draw 0.5, loss 0 (for win rates; team wins count for every member)."""
    return 1.0 if outcome_value > 0 else (0.5 if outcome_value == 0 else 0.0)
