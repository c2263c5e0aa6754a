"""State evaluations for search: one module per game (``agents/evaluations/<game>.py``,
the game's folder name) with ``state_value(game) -> list[float]``, an estimate of each
seat's terminal payoff (-1 .. +1) in a running game.

Search calls them on *determinizations* (``resample_hidden`` clones), never on a live
game, so they may read the whole state: in a determinization the hidden part is a
sample consistent with the searching seat's information, not the truth. They score
the material the rules make decisive (points, liberations, objectives and health
against the clock) and are deliberately cheap, since a cut-off playout calls one per
simulation.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

_REGISTERED: dict[str, Callable[[Any], list[float]]] = {}


def register_evaluation(env_id: str, fn: Callable[[Any], list[float]]) -> None:
    """Register a state evaluation for an env id (used for test games)."""
    _REGISTERED[env_id] = fn


def state_value_for(game: Any, kind: str = "heuristic") -> Callable[[Any], list[float]]:
    """The state evaluation of ``game``'s env (``kind``: ``heuristic``, the module's
    ``state_value``, or ``search``, its richer ``search_value`` where it has one); a
    one-line ValueError when it has none."""
    if game.env_id in _REGISTERED and kind == "heuristic":
        return _REGISTERED[game.env_id]
    folder = type(game).__module__.split(".")
    name = folder[-2] if len(folder) >= 2 else ""
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError:
        raise ValueError(f"no state evaluation for {game.env_id}; search with value=terminal instead") from None
    if kind == "search":
        if not hasattr(module, "search_value"):
            raise ValueError(f"no search evaluation for {game.env_id}; search with value=heuristic instead")
        return module.search_value
    return module.state_value
