"""A single-agent Gymnasium view of a spyenvs game for one learner, with every other
seat played by a policy drawn from an opponent pool (for SB3 / sb3-contrib
``MaskablePPO``).

Decisions made here:

* **One shared learner for all roles.** Roles of the same *kind* ('player_0',
  'player_1' -> 'player'; 'hunter_0', 'hunter_1' -> 'hunter') play the same part;
  asymmetric games have several kinds (rebel/empire, agent/hunter). Instead of one
  network per kind, one network learns them all and its input is the observation
  followed by a one-hot of the role kind (only when the game has more than one
  kind). Every role's game shares the same action indices and observation layout
  (a config fixes both), the layouts already say whose turn/which role, and a
  shared network sees every episode. ``learner_kinds`` restricts the learner to
  some kinds (e.g. ``["rebel"]``) to train a specialist instead.
* **Seat rotation.** The learner's seat cycles through every seat whose kind it
  learns, one seat per episode, so it never learns a seat bias.
* **Opponents.** The pool is a list of (policy, weight); each episode draws one
  policy by weight and binds it to every other seat (``mix_opponents=True`` draws
  per seat instead). Policies follow :mod:`spyenvs.agents.policy`'s protocol (``bind``,
  ``act``): this module never imports them, so ``spyenvs`` stays free of torch; the
  training script passes random, heuristic and frozen snapshots in.
* **Rewards** are the terminal payoff of the learner's seat (+1/-1/0); an episode
  cut at ``max_decisions`` (all seats' decisions) is truncated with reward 0.

The env works on the bare game (no AEC layer) because it runs millions of steps.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..core.game import role_kind, role_kinds
from ..registry import make_game


def learner_seats(roles, learner_kinds=None) -> tuple[list[str], list[str], list[int]]:
    """(the role kinds in seat order, the kinds the learner plays, the seats it rotates
    over); an unknown kind is a ValueError naming the allowed ones."""
    kinds = role_kinds(roles)
    wanted = list(learner_kinds) if learner_kinds else list(kinds)
    unknown = [k for k in wanted if k not in kinds]
    if unknown:
        raise ValueError(f"learner_kinds {unknown} not in this game's role kinds; allowed: {', '.join(kinds)}")
    return kinds, wanted, [i for i, r in enumerate(roles) if role_kind(r) in wanted]


def opponent_class_bits(names, classes: Sequence[str]) -> np.ndarray:
    """Which classes of opponent an episode faces, as a multi-hot over ``classes`` plus
    one last entry for any other name (frozen snapshots): a name is in a class when it
    equals it. The trainer gives this to the critic only (the actor must not depend on
    who it plays), so the value of a state may differ by opponent."""
    bits = np.zeros(len(classes) + 1, np.float32)
    for nm in names:
        bits[classes.index(nm) if nm in classes else len(classes)] = 1.0
    return bits


def observation_scale(layout) -> tuple[np.ndarray, np.ndarray]:
    """(low, inv) per observation index with ``(obs - low) * inv`` in [0, 1]: ``inv`` is
    1 / (high - low), and 1 where the bounds are equal (the value is then always 0)."""
    low, high = layout.bounds()
    span = (high - low).astype(np.float64)
    inv = np.where(span > 0, 1.0 / np.where(span > 0, span, 1.0), 1.0)
    return low.astype(np.float32), inv.astype(np.float32)


class SelfPlayEnv(gym.Env):
    """One learner against a pool of opponents; see the module docstring.

    ``game`` is an env id (built with ``spyenvs.make_game(game, **config)``) or a
    :class:`~spyenvs.core.Game` subclass. ``opponents`` is a list of policies or of
    ``(policy, weight)`` pairs.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: Any,
        config: dict | None = None,
        opponents: Sequence[Any] = (),
        learner_kinds: Sequence[str] | None = None,
        max_decisions: int | None = 2000,
        mix_opponents: bool = False,
        seed: int | None = None,
        render_mode: str | None = None,
    ):
        super().__init__()
        config = dict(config or {})
        if isinstance(game, str):
            self.game = make_game(game, **config)
        else:
            self.game = game(**config)
        g = self.game
        self.env_id = g.env_id
        self.config = g.config
        self.kinds, self.learner_kinds, self.learner_seats = learner_seats(g.roles, learner_kinds)
        self.max_decisions = max_decisions
        self.mix_opponents = mix_opponents
        self.render_mode = render_mode
        self._pool: list[tuple[Any, float, str]] = []
        for item in opponents:
            if isinstance(item, tuple):
                self.add_opponent(*item)
            else:
                self.add_opponent(item)
        low, high = g.layout.bounds()
        self.role_dims = len(self.kinds) if len(self.kinds) > 1 else 0
        if self.role_dims:
            low = np.concatenate([low, np.zeros(self.role_dims, np.float32)])
            high = np.concatenate([high, np.ones(self.role_dims, np.float32)])
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.action_space = spaces.Discrete(g.num_actions)
        self._rng = np.random.default_rng(seed)
        self._next_seat = 0
        self.seat = self.learner_seats[0]
        self._opponents: list[Any] = []
        self._decisions = 0
        self._done = True

    # ----------------------------------------------------------------- pool
    def add_opponent(self, policy: Any, weight: float = 1.0, name: str | None = None) -> None:
        """Add ``policy`` to the pool with sampling ``weight``."""
        if weight <= 0:
            raise ValueError(f"opponent weight must be positive, got {weight}")
        self._pool.append((policy, float(weight), name or getattr(policy, "name", type(policy).__name__)))

    def set_opponents(self, entries: Sequence[tuple[Any, float, str]]) -> None:
        """Replace the pool with (policy, weight, name) entries."""
        self._pool = []
        for policy, weight, name in entries:
            self.add_opponent(policy, weight, name)

    def pool_names(self) -> list[str]:
        return [name for _, _, name in self._pool]

    def _draw(self) -> tuple[Any, str]:
        if not self._pool:
            raise ValueError("the opponent pool is empty: pass opponents= or call add_opponent()")
        w = np.array([e[1] for e in self._pool])
        i = int(self._rng.choice(len(self._pool), p=w / w.sum()))
        return self._pool[i][0], self._pool[i][2]

    # ------------------------------------------------------------------ env
    def _obs(self) -> np.ndarray:
        obs = self.game.observe(self.seat)
        if self.role_dims:
            extra = np.zeros(self.role_dims, np.float32)
            extra[self.kinds.index(role_kind(self.game.roles[self.seat]))] = 1.0
            obs = np.concatenate([obs, extra])
        return obs

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool), as MaskablePPO asks for them."""
        if self._done:
            return np.ones(self.game.num_actions, bool)
        return self.game.legal_mask().astype(bool)

    def _advance(self) -> bool:
        """Let opponents play until the learner is to move; True when the game ended
        or was cut."""
        g = self.game
        while not g.is_over:
            if self.max_decisions is not None and self._decisions >= self.max_decisions:
                return True
            p = g.current_player
            if p == self.seat:
                return False
            g.step(self._opponents[p].act(g.observe(p), g.legal_mask()))
            self._decisions += 1
        return True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            # a seeded reset replays exactly: seat rotation and opponents' own
            # randomness restart too
            self._rng = np.random.default_rng(seed)
            self._next_seat = 0
            for k, (policy, _, _) in enumerate(self._pool):
                if hasattr(policy, "reseed"):
                    policy.reseed(seed * 1000 + k)
        g = self.game
        while True:
            self.seat = self.learner_seats[self._next_seat % len(self.learner_seats)]
            self._next_seat += 1
            g.reset(int(self._rng.integers(2**62)))
            self._decisions = 0
            if self.mix_opponents:
                drawn = [self._draw() for _ in g.roles]
            else:
                drawn = [self._draw()] * len(g.roles)
            self._opponents = [None if s == self.seat else pol.bind(g, s) for s, (pol, _) in enumerate(drawn)]
            self._opponent_names = sorted({name for s, (_, name) in enumerate(drawn) if s != self.seat})
            if not self._advance():
                break
            # the game ended before the learner's first decision: nothing to learn
        self._done = False
        return self._obs(), self._info()

    def _info(self) -> dict:
        return {"role": self.game.roles[self.seat], "kind": role_kind(self.game.roles[self.seat]),
                "seat": self.seat, "opponent": "+".join(self._opponent_names)}

    def step(self, action):
        if self._done:
            raise RuntimeError("step() after the episode ended; call reset()")
        g = self.game
        g.step(int(action))
        self._decisions += 1
        ended = self._advance()
        reward, terminated, truncated = 0.0, False, False
        info = self._info()
        if ended:
            self._done = True
            if g.is_over:
                terminated = True
                reward = float(g.outcome()[self.seat])
            else:
                truncated = True
            info["outcome"] = reward
            info["decisions"] = self._decisions
        return self._obs(), reward, terminated, truncated, info

    def render(self):
        return self.game.render_text(self.seat)
