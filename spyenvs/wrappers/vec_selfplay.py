"""Vectorised self-play for training: N games stepped in one process behind
Stable-Baselines3's ``VecEnv`` interface, so sb3-contrib ``MaskablePPO`` drives it
unchanged (it asks for ``action_masks`` through ``env_method``; here that is a row view
of one preallocated mask array, no extra round trip).

It plays the same episodes as :class:`~spyenvs.wrappers.SelfPlayEnv` (one learner,
every other seat an opponent drawn per episode from a pool; seat rotation over the
learner's role kinds; the terminal payoff as the only reward; truncation after
``max_decisions``), with three differences that make it fast on 2 cores:

* **Batched opponents.** On every sweep the pending opponent decisions of all games are
  grouped by bound policy object and each group is answered by one
  ``act_batch(observations, masks)`` call (one forward pass for a neural policy).
  Policies that play several seats alike (random, a snapshot's role kind) bind to one
  object, so their groups span games.
* **Forced decisions.** A learner decision with exactly one legal action carries no
  policy gradient; with ``auto_play_forced`` (the default) it is played here and
  counted in :attr:`stats` instead of costing a network step.
* **One buffer.** Observations are written into preallocated ``(N, obs)`` arrays
  (two, alternating, since SB3 keeps the previous step's array while it stores it).

The learner's row is, in this order (:meth:`VecSelfPlayEnv.row_layout`):

* the observation (with ``obs_columns``, only those entries) and the role-kind
  one-hot (several kinds only): what the actor, and every exported player, reads;
* with ``opponent_classes``, which classes of opponent the episode plays
  (:func:`~spyenvs.wrappers.selfplay.opponent_class_bits`);
* with ``privileged``, every other seat's observation (same entries and scaling as
  the learner's), egocentric from the learner's seat: seat+1, seat+2, ... (the true
  state as far as any role knows it: Specter Ops' agent position, Unrest's Rebel hand);
* with ``prior``, one column per action: the prior's scores for the learner's seat
  (finite; see :mod:`spyenvs.agents.prior`), which the network adds to its logits.

The trainer gives the two middle parts to the critic only. ``prior`` is an object
passed in (this package never imports :mod:`spyenvs.agents`): ``prior.bind(game,
seat)`` returns a scorer with ``scores(observations, masks) -> float32[B, A]``,
bound once per seat (once per game and episode where it says ``per_game_state``),
asked in one batch per scorer for every game waiting on the learner; forced learner
decisions, played here, are not scored. A scorer may split ``scores`` into
``raw_scores`` and ``columns`` with a ``columns_key``: the ``columns`` of all scorers
with the same key then run once over their rows (per-game scorers have one row each).
The terminal observation's prior columns are zeros (only the critic reads a terminal
row).

``macro`` (an object passed in, e.g. :mod:`spyenvs.agents.macros`; this package knows
no game) lets one learner decision stand for several of the env's: ``macro.bind(game,
seat)`` gives a player per learner seat and episode (None: that seat's decisions stay
the env's). Before each of that seat's decisions its ``auto_action(observation, mask)``
may play a move of its plan here (counted in ``stats["macro_decisions"]``; the reward
reaches the next learner transition, as for opponent moves); otherwise the learner
chooses from ``decision_mask(observation, mask)`` (its ``action_masks``) and the game
receives ``env_action(choice)``. A single-option macro decision is auto-played like any
forced one.

Every game has its own random stream (seat rotation, game seeds, opponent draws):
SB3's ``seed(s)`` gives game ``i`` the seed ``s + i`` at the next reset, exactly as a
``SelfPlayEnv`` reset with that seed, so both produce the same episodes against the
same deterministic opponent. With ``learner_teams`` the learner takes every seat of a
team kind (``game.team_kinds``, e.g. Specter Ops' hunters) in the same episode, as
evaluation seats a candidate (:func:`spyenvs.experiments.evaluate.seat_groups`): its
decisions in those seats, each from that seat's own observation, form one trajectory
that ends with the team's payoff. Where a seat can change sides during a game
(``game.sides_change``: Specter Ops' 5-player traitor joins the agent's side when she
deals him his card), the learner plays every seat of its side as ``game.sides()`` gives
it at each decision (the trainer is the referee; its policy reads only observations),
and a seat that leaves its side gets an opponent of the episode's draw. Auto-reset follows SB3: a finished episode's ``done`` is
True, its last observation is in ``infos[i]["terminal_observation"]``, truncation sets
``infos[i]["TimeLimit.truncated"]``, and the returned observation is the next
episode's first.

Needs stable-baselines3 (the ``train`` extra); :mod:`spyenvs` itself never imports it.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as exc:  # pragma: no cover - the core install has no SB3
    raise ImportError(f"spyenvs.wrappers.vec_selfplay needs the train extra (stable-baselines3): {exc}") from exc

from ..core.game import role_kind, seats_by_side
from ..registry import make_game
from .selfplay import learner_seats, observation_scale, opponent_class_bits


class _Slot:
    """One game of the vector and its episode bookkeeping."""

    __slots__ = ("game", "rng", "next_seat", "seat", "group", "side", "side_kind", "drawn", "bound", "names",
                 "decisions", "learner_steps", "kind_index", "started", "opponent_bits", "prior", "macro", "choosing")

    def __init__(self, game):
        self.game = game
        self.rng = np.random.default_rng()
        self.next_seat = 0
        self.seat = 0  # the learner's seat (in a team episode, the one deciding now)
        self.group: tuple[int, ...] = (0,)  # every seat the learner plays now
        self.side = 0  # the learner's side (Game.sides) this episode
        self.side_kind = 0  # the role kind of its side's first seat: the episode's kind in stats
        self.drawn: list[Any] = []  # each seat's opponent (a policy of the pool it was drawn from)
        self.bound: list[Any] = []
        self.names = ""
        self.decisions = 0
        self.learner_steps = 0
        self.kind_index = 0
        self.opponent_bits: np.ndarray | None = None
        self.prior: dict[int, Any] = {}  # the learner's seats -> their bound prior scorers
        self.macro: dict[int, Any] = {}  # the learner's seats -> their macro players (where bound)
        self.choosing: Any = None  # the macro player whose decision the learner takes now
        self.started = 0.0


class _VecEnvMethods:
    """SB3's ``VecEnv`` bookkeeping for envs whose games share one set of attributes
    and one mask array ``_masks`` (a method's or attribute's answer is every game's)."""

    num_envs: int
    _masks: np.ndarray

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, ``bool[num_envs, num_actions]``."""
        return self._masks

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":
            return [self._masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self):
        return [None for _ in range(self.num_envs)]


class VecSelfPlayEnv(_VecEnvMethods, VecEnv):
    """``num_envs`` self-play games in one process; see the module docstring.

    ``game`` is an env id or a Game class, ``config`` its options; ``opponents`` a list
    of policies or ``(policy, weight)`` / ``(policy, weight, name)`` entries following
    :mod:`spyenvs.agents.policy`'s protocol (``bind``, ``act_batch``). ``privileged``
    and ``prior`` add the critic's and the prior's columns, ``macro`` lets one learner
    decision stand for several (module docstring).
    """

    def __init__(
        self,
        game: Any,
        config: dict | None = None,
        opponents: Sequence[Any] = (),
        num_envs: int = 32,
        learner_kinds: Sequence[str] | None = None,
        max_decisions: int | None = 2000,
        mix_opponents: bool = False,
        auto_play_forced: bool = True,
        scale_observations: bool = False,
        seed: int | None = None,
        opponent_classes: Sequence[str] = (),
        obs_columns: Sequence[int] | None = None,
        learner_teams: bool = False,
        privileged: bool = False,
        prior: Any = None,
        macro: Any = None,
    ):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if prior is not None and macro is not None:
            raise ValueError("prior and macro do not combine: the prior scores the env's decisions, "
                             "the learner takes the macro's")
        config = dict(config or {})
        if isinstance(game, str):
            games = [make_game(game, **config) for _ in range(int(num_envs))]
        else:
            games = [game(**config) for _ in range(int(num_envs))]
        g = games[0]
        self.env_id = g.env_id
        self.config = g.config
        self.roles = tuple(g.roles)
        self.kinds, self.learner_kinds, self.learner_seats = learner_seats(g.roles, learner_kinds)
        self.seat_kind = [self.kinds.index(role_kind(r)) for r in g.roles]
        self.sides_change = bool(g.sides_change) and learner_teams
        # the seat groups the learner rotates over: one seat each, or with learner_teams
        # every learner seat of a starting side together (a team kind's seats), so each
        # group is one side of Game.starting_sides, as evaluation seats a candidate
        if learner_teams:
            mine = set(self.learner_seats)
            groups = (tuple(s for s in seats if s in mine) for seats in seats_by_side(g.starting_sides()))
            self.learner_groups: list[tuple[int, ...]] = [grp for grp in groups if grp]
        else:
            self.learner_groups = [(s,) for s in self.learner_seats]
        self.max_decisions = max_decisions
        self.mix_opponents = mix_opponents
        self.auto_play_forced = auto_play_forced
        self.role_dims = len(self.kinds) if len(self.kinds) > 1 else 0
        low, high = g.layout.bounds()
        # scaled: (obs - low) / (high - low), so raw counts up to 36 do not saturate a
        # tanh layer; exported actors fold this into their first layer
        self.scale = None
        if scale_observations:
            self.scale = observation_scale(g.layout)
            low, high = np.zeros_like(low), np.where(high > low, 1.0, 0.0).astype(np.float32)
        # only these entries of the observation reach the learner (the trainer passes
        # Game.varying_inputs(): constant entries then never fill the rollout buffer)
        self.obs_columns = None
        if obs_columns is not None:
            cols = np.asarray(obs_columns, np.int64)
            if cols.ndim != 1 or cols.size == 0 or cols.min() < 0 or cols.max() >= g.observation_size:
                raise ValueError(f"obs_columns must be a non-empty list of indices below {g.observation_size}")
            self.obs_columns = cols
            low, high = low[cols], high[cols]
            if self.scale is not None:
                self.scale = (self.scale[0][cols], self.scale[1][cols])
        self.obs_size = g.observation_size if self.obs_columns is None else int(self.obs_columns.size)
        # after the role one-hot: which classes of opponent this episode plays (only when
        # opponent_classes is given; meant for the critic alone, see opponent_class_bits)
        self.opponent_classes = tuple(opponent_classes)
        self.opponent_dims = len(self.opponent_classes) + 1 if self.opponent_classes else 0
        extra = self.role_dims + self.opponent_dims
        obs_low, obs_high = low, high
        if extra:
            low = np.concatenate([low, np.zeros(extra, np.float32)])
            high = np.concatenate([high, np.ones(extra, np.float32)])
        # then, for the critic, the other seats' observations; then the prior's scores
        self.privileged_seats = g.num_players - 1 if privileged else 0
        self.privileged_dims = self.privileged_seats * self.obs_size
        self.prior = prior
        self.prior_dims = g.num_actions if prior is not None else 0
        self.macro = macro
        if self.privileged_dims:
            low = np.concatenate([low, np.tile(obs_low, self.privileged_seats)])
            high = np.concatenate([high, np.tile(obs_high, self.privileged_seats)])
        if self.prior_dims:
            low = np.concatenate([low, np.full(self.prior_dims, -np.inf, np.float32)])
            high = np.concatenate([high, np.full(self.prior_dims, np.inf, np.float32)])
        extra += self.privileged_dims + self.prior_dims
        self.render_mode = None
        super().__init__(len(games), spaces.Box(low, high, dtype=np.float32), spaces.Discrete(g.num_actions))
        self.slots = [_Slot(game_) for game_ in games]
        if seed is not None:
            self.seed(seed)
        self._pool: list[tuple[Any, float, str]] = []
        self._shared_prior: dict[int, Any] = {}
        self.set_opponents(list(opponents))
        width = self.obs_size + extra
        self._obs_bufs = [np.zeros((self.num_envs, width), np.float32) for _ in range(2)]
        self._flip = 0
        self._masks = np.ones((self.num_envs, g.num_actions), bool)
        self._terminal_row = np.zeros((1, width), np.float32)
        self._actions: np.ndarray | None = None
        self.stats = {"learner_decisions": 0, "forced_decisions": 0, "opponent_decisions": 0,
                      "opponent_calls": 0, "episodes": 0, "truncated": 0, "macro_decisions": 0}

    def share_buffers(self, obs_bufs: Sequence[np.ndarray], masks: np.ndarray) -> None:
        """Write the learner rows and masks into these arrays from now on (views of
        memory shared with another process: :mod:`spyenvs.wrappers.vec_processes`): two
        float32 ``(num_envs, width)`` observation buffers, used alternately, and one bool
        ``(num_envs, num_actions)`` mask array."""
        want = [b.shape for b in self._obs_bufs] + [self._masks.shape]
        got = [np.shape(b) for b in obs_bufs] + [np.shape(masks)]
        if got != want or any(b.dtype != np.float32 for b in obs_bufs) or masks.dtype != np.bool_:
            raise ValueError(f"share_buffers wants float32 arrays {want[:2]} and a bool {want[2]}, got {got}")
        self._obs_bufs = list(obs_bufs)
        self._masks = masks

    # ----------------------------------------------------------------- pool
    def set_opponents(self, entries: Sequence[Any]) -> None:
        """Replace the pool: policies, or (policy, weight[, name]) entries. Games keep
        the opponents of their running episode; new episodes draw from this pool."""
        pool = []
        for item in entries:
            policy, weight, name = (tuple(item) + (None, None))[:3] if isinstance(item, tuple) else (item, 1.0, None)
            weight = 1.0 if weight is None else float(weight)
            if weight <= 0:
                raise ValueError(f"opponent weight must be positive, got {weight}")
            pool.append((policy, weight, name or getattr(policy, "name", type(policy).__name__)))
        self._pool = pool
        weights = np.array([w for _, w, _ in pool], np.float64)
        self._pool_p = weights / weights.sum() if pool else weights
        # a bound policy is shared by every game per (template, seat) unless it holds the
        # live game or per-game memory, so one act_batch call answers all those games
        self._shared_bound: dict[tuple[int, int], Any] = {}

    def pool_names(self) -> list[str]:
        return [name for _, _, name in self._pool]

    def row_layout(self) -> dict[str, int]:
        """The widths of the learner row's parts, in their order (module docstring):
        ``obs``, ``kinds`` (the role one-hot), ``opponent``, ``privileged`` (``seats``
        observations of ``obs`` entries) and ``prior`` (one per action, or 0)."""
        return {"obs": int(self.obs_size), "kinds": int(self.role_dims), "opponent": int(self.opponent_dims),
                "privileged": int(self.privileged_dims), "seats": int(self.privileged_seats),
                "prior": int(self.prior_dims)}

    def _bind_prior(self, slot: _Slot, seat: int):
        """The prior's scorer for ``seat``: shared by every game unless it remembers
        its game (then a fresh one per game and episode)."""
        bound = self._shared_prior.get(seat)
        if bound is None:
            bound = self.prior.bind(slot.game, seat)
            if getattr(bound, "per_game_state", False):
                return bound
            self._shared_prior[seat] = bound
        return bound

    def _bind(self, policy: Any, slot: _Slot, seat: int):
        if getattr(policy, "needs_live_game", False) or getattr(policy, "per_game_state", False):
            return policy.bind(slot.game, seat)
        # keyed by the policy itself: a seat that changes sides mid-episode binds its
        # episode's draw, which a pool replaced since may have moved or dropped
        key = (id(policy), seat)
        bound = self._shared_bound.get(key)
        if bound is None:
            bound = policy.bind(slot.game, seat)
            if getattr(bound, "per_game_state", False):
                # the template binds to a player that remembers its game (a heuristic
                # with memory): a fresh one per game and episode, never shared
                return bound
            self._shared_bound[key] = bound
        return bound

    def _draw(self, slot: _Slot) -> int:
        if not self._pool:
            raise ValueError("the opponent pool is empty: pass opponents= or call set_opponents()")
        return int(slot.rng.choice(len(self._pool), p=self._pool_p))

    # ------------------------------------------------------------ episodes
    def _start_episode(self, slot: _Slot) -> None:
        """Deal a new game in ``slot`` with a new learner seat and opponents (the same
        random draws, in the same order, as ``SelfPlayEnv.reset``)."""
        g = slot.game
        slot.group = self.learner_groups[slot.next_seat % len(self.learner_groups)]
        slot.seat = slot.group[0]
        slot.next_seat += 1
        g.reset(int(slot.rng.integers(2**62)))
        slot.side = g.starting_sides()[slot.seat]
        slot.decisions = 0
        slot.learner_steps = 0
        slot.kind_index = slot.side_kind = self.seat_kind[slot.seat]
        if self.mix_opponents:
            drawn = [self._draw(slot) for _ in g.roles]
        else:
            drawn = [self._draw(slot)] * len(g.roles)
        slot.drawn = [self._pool[k][0] for k in drawn]
        slot.bound = [None if s in slot.group else self._bind(pol, slot, s) for s, pol in enumerate(slot.drawn)]
        opponents = sorted({self._pool[k][2] for s, k in enumerate(drawn) if s not in slot.group})
        slot.names = "+".join(opponents)
        if self.opponent_dims:
            slot.opponent_bits = opponent_class_bits(opponents, self.opponent_classes)
        if self.prior is not None:
            slot.prior = {s: self._bind_prior(slot, s) for s in slot.group}
        if self.macro is not None:
            players = {s: self.macro.bind(g, s) for s in slot.group}
            slot.macro = {s: m for s, m in players.items() if m is not None}
        slot.choosing = None
        slot.started = time.monotonic()

    def _put_obs(self, out: np.ndarray, obs: np.ndarray) -> None:
        """One observation's entries, scaled, into ``out`` (obs_size floats)."""
        if self.obs_columns is not None:
            obs = obs[self.obs_columns]
        if self.scale is None:
            out[:] = obs
        else:
            np.multiply(obs - self.scale[0], self.scale[1], out=out)

    def _write_obs(self, buf: np.ndarray, i: int, slot: _Slot, raw: np.ndarray | None = None) -> np.ndarray:
        """The learner's row (all but the prior's columns) into ``buf[i]``; returns the
        raw observation (``raw``: the seat's observation, when already made)."""
        row = buf[i]
        if raw is None:
            raw = slot.game.observe(slot.seat)
        self._put_obs(row[: self.obs_size], raw)
        at = self.obs_size
        if self.role_dims:
            row[at:at + self.role_dims] = 0.0
            row[at + slot.kind_index] = 1.0
            at += self.role_dims
        if self.opponent_dims:
            row[at:at + self.opponent_dims] = slot.opponent_bits
            at += self.opponent_dims
        n = len(self.roles)
        for k in range(1, self.privileged_seats + 1):
            self._put_obs(row[at:at + self.obs_size], slot.game.observe((slot.seat + k) % n))
            at += self.obs_size
        return raw

    def _write_prior(self, buf: np.ndarray, pending: list[tuple[int, np.ndarray]]) -> None:
        """The prior's columns of the games in ``pending`` ((game, raw observation)
        waiting on the learner), one ``scores`` call per bound scorer."""
        groups: dict[int, tuple[Any, list[int], list[np.ndarray]]] = {}
        for i, raw in pending:
            scorer = self.slots[i].prior[self.slots[i].seat]
            entry = groups.setdefault(id(scorer), (scorer, [], []))
            entry[1].append(i)
            entry[2].append(raw)
        start = buf.shape[1] - self.prior_dims
        # a seat's prior bound per game (a heuristic with memory) scores its one row; the
        # columns of every such row then come in one call
        finish: dict[tuple, tuple[Any, list[int], list[np.ndarray], list[np.ndarray]]] = {}
        for scorer, games, raws in groups.values():
            observations = np.stack(raws)
            key = getattr(scorer, "columns_key", None)
            if key is None:
                buf[games, start:] = scorer.scores(observations, self._masks[games])
                continue
            entry = finish.setdefault(key, (scorer, [], [], []))
            entry[1].extend(games)
            entry[2].append(observations)
            entry[3].append(scorer.raw_scores(observations, self._masks[games]))
        for scorer, games, observations, raw in finish.values():
            buf[games, start:] = scorer.columns(np.concatenate(observations), self._masks[games],
                                                np.concatenate(raw))

    def _run_until_learner(self, todo: list[int], buf: np.ndarray, infos: list[dict] | None,
                           rewards: np.ndarray | None, dones: np.ndarray | None) -> None:
        """Play opponents (batched) and forced learner moves in the games ``todo`` until
        each waits for a learner decision. A game that ends is reported in
        ``infos``/``rewards``/``dones`` (when given) and restarted."""
        slots = self.slots
        stats = self.stats
        pending: list[tuple[int, np.ndarray]] = []  # learner decisions to score by the prior
        while todo:
            groups: dict[int, tuple[Any, list[int], list[int]]] = {}
            for i in todo:
                slot = slots[i]
                g = slot.game
                while True:
                    if g.is_over or (self.max_decisions is not None and slot.decisions >= self.max_decisions):
                        if dones is not None and slot.learner_steps > 0:
                            self._finish(i, slot, buf, infos, rewards, dones)
                        self._start_episode(slot)
                        continue
                    p = g.current_player
                    if self.sides_change:
                        self._follow_sides(slot, p)
                    if p == slot.seat or p in slot.group:
                        slot.seat = p
                        slot.kind_index = self.seat_kind[p]
                        mask = g.legal_mask()
                        raw = None
                        player = slot.macro.get(p) if slot.macro else None
                        if player is not None:
                            raw = g.observe(p)
                            a = player.auto_action(raw, mask)
                            if a is not None:  # a move of the macro's plan
                                g.step(int(a))
                                slot.decisions += 1
                                stats["macro_decisions"] += 1
                                continue
                            mask = player.decision_mask(raw, mask)
                        if self.auto_play_forced and np.count_nonzero(mask) == 1:
                            a = int(mask.argmax())
                            g.step(player.env_action(a) if player is not None else a)
                            slot.decisions += 1
                            stats["forced_decisions"] += 1
                            continue
                        slot.choosing = player
                        self._masks[i] = mask
                        raw = self._write_obs(buf, i, slot, raw)
                        if self.prior is not None:
                            pending.append((i, raw))
                        break
                    bound = slot.bound[p]
                    entry = groups.get(id(bound))
                    if entry is None:
                        groups[id(bound)] = (bound, [i], [p])
                    else:
                        entry[1].append(i)
                        entry[2].append(p)
                    break
            todo = []
            for bound, games, seats in groups.values():
                reads = getattr(bound, "reads_observation", True)
                if len(games) == 1:  # an opponent bound per game (it remembers its game): a view, no stack
                    g = slots[games[0]].game
                    obs = g.observe(seats[0])[None] if reads else np.empty((1, 0), np.float32)
                    masks = g.legal_mask()[None]
                else:
                    if reads:
                        obs = np.stack([slots[i].game.observe(p) for i, p in zip(games, seats)])
                    else:  # a mask-only policy (random): no observation to encode
                        obs = np.empty((len(games), 0), np.float32)
                    masks = np.stack([slots[i].game.legal_mask() for i in games])
                actions = bound.act_batch(obs, masks)
                stats["opponent_calls"] += 1
                stats["opponent_decisions"] += len(games)
                for i, a in zip(games, actions):
                    slot = slots[i]
                    slot.game.step(int(a))
                    slot.decisions += 1
                todo.extend(games)
        if pending:
            self._write_prior(buf, pending)

    def _follow_sides(self, slot: _Slot, seat: int) -> None:
        """Before ``seat`` decides: it joins the learner's seats if it now serves the
        learner's side, or leaves them (to the episode's opponent, bound here) if it
        no longer does."""
        mine = slot.game.sides()[seat] == slot.side
        if mine == (seat in slot.group):
            return
        if mine:
            slot.group = slot.group + (seat,)
            if self.prior is not None:
                slot.prior[seat] = self._bind_prior(slot, seat)
            if self.macro is not None:
                player = self.macro.bind(slot.game, seat)
                if player is not None:
                    slot.macro[seat] = player
            return
        slot.group = tuple(s for s in slot.group if s != seat)
        if not slot.group:
            raise RuntimeError(f"{self.env_id}: seat {seat} left the learner's side, and no seat is left on it")
        if slot.seat == seat:
            slot.seat = slot.group[0]
        if slot.bound[seat] is None:
            slot.bound[seat] = self._bind(slot.drawn[seat], slot, seat)

    def _finish(self, i: int, slot: _Slot, buf, infos, rewards, dones) -> None:
        g = slot.game
        if self.sides_change:  # a seat of the learner's side now (its last mover may have left it)
            slot.seat = g.sides().index(slot.side)
            slot.kind_index = self.seat_kind[slot.seat]
        self._write_obs(self._terminal_row, 0, slot)
        terminal = self._terminal_row[0].copy()
        info = infos[i]
        if g.is_over:
            reward = float(g.outcome()[slot.seat])
        else:
            reward = 0.0
            info["TimeLimit.truncated"] = True
            self.stats["truncated"] += 1
        rewards[i] = reward
        dones[i] = True
        self.stats["episodes"] += 1
        info.update({"terminal_observation": terminal, "outcome": reward, "decisions": slot.decisions,
                     "role": g.roles[slot.seat], "kind": self.kinds[slot.side_kind], "seat": slot.seat,
                     "opponent": slot.names,
                     "episode": {"r": reward, "l": slot.learner_steps, "t": round(time.monotonic() - slot.started, 6)}})

    # --------------------------------------------------------------- VecEnv
    def reset(self):
        seeds = list(self._seeds) if self._seeds else [None] * self.num_envs
        base = next((s for s in seeds if s is not None), None)
        if base is not None:
            for k, (policy, _, _) in enumerate(self._pool):
                if hasattr(policy, "reseed"):
                    policy.reseed(base * 1000 + k)
            self._shared_bound.clear()
            if hasattr(self.prior, "reseed"):
                self.prior.reseed(base * 1000 + 999)
            self._shared_prior.clear()
        for slot, s in zip(self.slots, seeds):
            if s is not None:
                slot.rng = np.random.default_rng(s)
                slot.next_seat = 0
            self._start_episode(slot)
        self._reset_seeds()
        buf = self._next_buf()
        self._run_until_learner(list(range(self.num_envs)), buf, None, None, None)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return buf

    def _next_buf(self) -> np.ndarray:
        self._flip ^= 1
        return self._obs_bufs[self._flip]

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        actions = self._actions
        if actions is None:
            raise RuntimeError("step_wait() without step_async()")
        self._actions = None
        buf = self._next_buf()
        rewards = np.zeros(self.num_envs, np.float32)
        dones = np.zeros(self.num_envs, bool)
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for slot, a in zip(self.slots, actions):
            a = int(a)
            if slot.choosing is not None:  # the learner chose on the macro's mask
                a = slot.choosing.env_action(a)
            slot.game.step(a)
            slot.decisions += 1
            slot.learner_steps += 1
        self.stats["learner_decisions"] += self.num_envs
        self._run_until_learner(list(range(self.num_envs)), buf, infos, rewards, dones)
        return buf, rewards, dones, infos

    def close(self) -> None:
        pass
