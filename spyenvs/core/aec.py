"""The one generic PettingZoo AEC adapter: turns any :class:`Game` into an
``AECEnv`` with dict observations (``observation`` float32, ``action_mask`` int8),
``Discrete`` actions, terminal rewards, step-limit truncation, render modes and the
illegal-action policy. Games never touch PettingZoo."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv

from .errors import GameStateError, IllegalActionError
from .game import Game
from .viewer import show_human

ILLEGAL_ACTION_POLICIES = ("raise", "penalize")
RENDER_MODES = ("ansi", "human", "rgb_array")
#: keyword arguments that configure the adapter rather than the game
ADAPTER_KWARGS = ("render_mode", "max_steps", "max_cycles", "illegal_action", "render_view")


class SpyAECEnv(AECEnv):
    """PettingZoo AEC view of a spyenvs game.

    ``max_steps`` truncates an episode after that many decisions (all roles
    truncated, zero reward); ``max_cycles``, PettingZoo's name for the step cap, is
    the same option (give one of them); ``illegal_action="penalize"`` ends the game with -1 for
    the offender and 0 for the others instead of raising; ``render_view`` is the role
    whose view ``render()`` shows (None: omniscient).
    """

    metadata = {"render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self,
        game: Game,
        render_mode: str | None = None,
        max_steps: int | None = None,
        illegal_action: str = "raise",
        render_view: str | None = None,
        max_cycles: int | None = None,
    ):
        super().__init__()
        for name, cap in (("max_steps", max_steps), ("max_cycles", max_cycles)):
            if cap is not None and (not isinstance(cap, int) or cap < 1):
                raise ValueError(f"{name} must be a positive int or None, got {cap!r}")
        if max_cycles is not None:
            if max_steps is not None and max_steps != max_cycles:
                raise ValueError(f"max_cycles and max_steps name the same step cap; got {max_cycles!r} and "
                                 f"{max_steps!r}: give one of them")
            max_steps = max_cycles
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r} not supported; allowed: None, {', '.join(RENDER_MODES)}")
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise ValueError(f"illegal_action {illegal_action!r} not supported; allowed: {', '.join(ILLEGAL_ACTION_POLICIES)}")
        if render_view is not None and render_view not in game.roles:
            raise ValueError(f"render_view {render_view!r} is not a role; allowed: None, {', '.join(game.roles)}")
        self.game = game
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.illegal_action = illegal_action
        self.render_view = render_view
        self.metadata = dict(self.metadata, name=game.env_id)
        self.possible_agents = list(game.roles)
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = game.layout.bounds()
        n = game.num_actions
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._zero_mask = np.zeros(n, np.int8)
        self._ready = False
        self._viewer = None

    # PettingZoo wants these as methods returning cached spaces
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.game.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.num_steps = 0
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._ready = True
        self._obs_cache: dict[str, dict] = {}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._ready:
            raise GameStateError("call reset() before observe()")
        cached = self._obs_cache.get(agent)
        if cached is not None:
            return cached
        p = self._index[agent]
        g = self.game
        if agent == self.agent_selection and not g.is_over and not self.terminations[agent] and not self.truncations[agent]:
            mask = g.legal_mask().astype(np.int8, copy=True)
        else:
            mask = self._zero_mask.copy()
        obs = {"observation": g.observe(p), "action_mask": mask}
        self._obs_cache[agent] = obs
        return obs

    def step(self, action: Any) -> None:
        if not self._ready:
            raise GameStateError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            return self._was_dead_step(action)
        if not self.agents:
            raise GameStateError("the episode is over; call reset()")
        self._obs_cache = {}
        self._cumulative_rewards[agent] = 0.0
        g = self.game
        try:
            g.step(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.rewards[agent] = -1.0
            self.infos[agent] = {"illegal_action": True}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            return
        self.num_steps += 1
        # rewards are paid only at the end: until then self.rewards stays all zero and
        # there is nothing to accumulate (the hot path skips both)
        if g.is_over:
            self.rewards = {a: float(r) for a, r in zip(self.possible_agents, g.outcome())}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        else:
            if self.max_steps is not None and self.num_steps >= self.max_steps:
                self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[g.current_player]
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            logger.warn("render() called without a render_mode")
            return None
        if not self._ready:
            raise GameStateError("call reset() before render()")
        view = None if self.render_view is None else self._index[self.render_view]
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(view)
        if self.render_mode == "human":
            self._viewer = show_human(self.game, view, self._viewer, self.metadata["render_fps"])
            return None
        return self.game.render_text(view)

    def close(self) -> None:
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None

    def record(self) -> dict:
        """The game so far as a JSON-ready record (config, seed, actions)."""
        return self.game.to_record()
