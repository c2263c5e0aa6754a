"""What a game says about itself: one :class:`GameInfo` per game, declared as ``INFO``
in the game's package (``spyenvs/games/<game>/__init__.py``) and set as ``info`` on
its Game class, the way OpenSpiel games declare ``_GAME_TYPE`` and ``_GAME_INFO``.

The registry, the env docs, the OpenSpiel bridge, the heuristics, the networks and
the benchmarks read these facts instead of keeping tables of their own, so a new game
is its folder plus one line in :mod:`spyenvs.registry`. Facts that depend on the
config (the payoff's kind and bounds) are a method of the Game: :meth:`Game.payoff`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

#: what the per-game networks can read in a game's observation
NET_INPUTS = ("cell_board", "card_table")


class Payoff(NamedTuple):
    """The kind and range of a configured game's terminal payoffs."""

    zero_sum: bool
    """True only where every outcome sums to 0."""
    low: float
    """The smallest payoff any role can get (0, paid on truncation, included)."""
    high: float
    """The largest payoff any role can get."""


#: (rate, low end of the Wilson interval): minima a trained policy should reach;
#: either may be None
Goal = tuple[float | None, float | None]


@dataclass(frozen=True)
class GameInfo:
    """The facts about one game that code outside its folder needs."""

    env_id: str
    """The spyenvs env id, e.g. ``"the_agents_v0"``."""
    title: str
    """The game's name, e.g. ``"The Agents"``."""
    summary: str
    """One line on the game itself (designer, year, what it is), for the docs."""
    rewards: str
    """How the game pays, in words (markdown), for the docs."""
    pettingzoo_id: str
    """The id in PettingZoo's registry, in its style: ``spyenvs/<name>-v<N>`` for env id
    ``<name>_v<N>`` (``pettingzoo.make("aec", id, **config)``)."""
    heuristic: str | None = None
    """Module of the rule-based player: ``make(layout, config, role, rng) -> policy``."""
    net_input: str | None = None
    """What the per-game networks read: ``"cell_board"`` (board planes, and the first
    rows x columns actions are the cells), ``"card_table"`` (which known card lies
    where, and PLAY actions over hand slots), or None (the MLP only)."""
    train_speed_target: float | None = None
    """``spyenvs bench --train``'s goal: learner steps/s as a multiple of PettingZoo's
    SB3 tutorial on connect_four_v3."""
    learning_goals: dict[str, tuple[Goal, Goal]] = field(default_factory=dict)
    """Per role kind, the (vs random, vs heuristic) goals of the shipped policy."""
    expert_search: str | None = None
    """The search ``expert`` plays in this game, as a spec of :mod:`spyenvs.agents.ismcts`'s
    grammar (``ismcts:SIMS:PLAYOUT:KEY=VALUE ...``), chosen by measurement
    (docs/results/search.md); None: the package's default expert."""

    def __post_init__(self):
        versioned = re.fullmatch(r"(.+)_v(\d+)", self.env_id)
        if versioned and self.pettingzoo_id != f"spyenvs/{versioned[1]}-v{versioned[2]}":
            raise ValueError(f"{self.env_id}: pettingzoo_id must be 'spyenvs/{versioned[1]}-v{versioned[2]}' "
                             f"(PettingZoo's namespace/name-version), got {self.pettingzoo_id!r}")
        if self.net_input is not None and self.net_input not in NET_INPUTS:
            raise ValueError(f"{self.env_id}: net_input must be one of {', '.join(NET_INPUTS)} or None, "
                             f"got {self.net_input!r}")
