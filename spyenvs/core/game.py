"""The game contract every spyenvs game implements, and the bookkeeping that is the
same for all of them (config parsing, seeding, illegal-action checks, the action log
that records and replays are made of).

A game subclass writes rules, not plumbing. It defines:

* ``info`` (its :class:`~spyenvs.core.info.GameInfo`, which also sets ``env_id``)
  and ``CONFIG`` (a dict of :class:`~spyenvs.core.config.Param`);
* ``_setup()``: derive ``roles``, ``num_actions`` and ``layout`` (a
  :class:`~spyenvs.core.layout.Layout`) and static tables from ``self.config``;
* ``_new_game()``: deal a new game using only ``self.rng``;
* ``_apply(action)``: apply one legal decision;
* ``current_player``, ``legal_mask()``, ``is_over``, ``outcome()``, ``observe(p)``;
* ``clone()`` (copy mutable state explicitly; use :meth:`_clone_into`),
  ``resample_hidden(viewer, rng)``, ``hidden_key(viewer)``;
* ``decision_name()``, ``action_label(a)``, ``render_text(viewer)``;
* optionally ``sides()`` where a seat can change sides during a game (see
  :meth:`Game.sides`), ``check_invariants()`` (fuzz tests call it every step),
  ``render_rgb(viewer)`` (defaults to a picture of ``render_text``) and ``payoff()``
  (defaults to a general-sum game paying between -1 and +1).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from .config import Param, parse_config
from .errors import GameStateError, IllegalActionError
from .info import GameInfo, Payoff
from .layout import Layout
from .records import make_record
from .textimage import text_to_rgb


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in exactly the same state as ``rng``."""
    bit = type(rng.bit_generator)()
    bit.state = rng.bit_generator.state
    return np.random.Generator(bit)


def role_kind(role: str) -> str:
    """The kind of a role: 'player_2' -> 'player', 'hunter_1' -> 'hunter', 'rebel' ->
    'rebel'. Seats of one kind play the same part, so they share statistics (and a
    learner); asymmetric games have several kinds."""
    head, sep, tail = role.rpartition("_")
    return head if sep and tail.isdigit() else role


def role_kinds(roles) -> list[str]:
    """The distinct kinds of ``roles`` in first-seen order."""
    out: list[str] = []
    for r in roles:
        k = role_kind(r)
        if k not in out:
            out.append(k)
    return out


def starting_sides(roles, team_kinds=()) -> tuple[int, ...]:
    """Each seat's side at the deal: every seat of a team kind on one side, any other
    seat alone, sides numbered in order of their first seat."""
    sides: list[int] = []
    team_side: dict[str, int] = {}
    count = 0
    for r in roles:
        k = role_kind(r)
        if k in team_kinds and k in team_side:
            sides.append(team_side[k])
            continue
        if k in team_kinds:
            team_side[k] = count
        sides.append(count)
        count += 1
    return tuple(sides)


def seats_by_side(sides) -> list[list[int]]:
    """The seats of each side, one list per side in side order, from each seat's side
    numbered as :func:`starting_sides` numbers them."""
    groups: list[list[int]] = []
    for seat, side in enumerate(sides):
        if side == len(groups):
            groups.append([])
        groups[side].append(seat)
    return groups


def fresh_seed() -> int:
    """A seed from OS entropy, for ``reset()`` without a seed."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1)


class Game(ABC):
    """Base class of every game: a state machine of small decisions."""

    #: what the game says about itself; a subclass that sets it gets its ``env_id``
    info: ClassVar[GameInfo | None] = None
    env_id: ClassVar[str] = "game"
    CONFIG: ClassVar[dict[str, Param]] = {}
    #: configs the conformance suite runs (every player count, notable variants)
    TEST_CONFIGS: ClassVar[list[dict[str, Any]]] = [{}]
    #: role kinds whose seats win or lose together (evaluation seats one candidate in
    #: all of them); kinds not listed play for themselves
    team_kinds: ClassVar[tuple[str, ...]] = ()
    #: the pending decision kinds, in the order of the observation's ``decision``
    #: one-hot block, where the game has one (empty: no such block)
    decisions: ClassVar[tuple[str, ...]] = ()
    #: opt-in options that leak through who acts when ({option: leaking value}); the
    #: conformance suite's sequence-leak test skips configs that set them
    SEQUENCE_LEAKING_OPTIONS: ClassVar[dict[str, Any]] = {}
    #: option values that change nothing any role observes, may do, or sees done (the
    #: roles, observations, masks and acting sequence are identical), as ``{option: {value:
    #: the value it plays as}}``: a policy trained on the one serves the other
    #: (:meth:`policy_config`); a test per game checks each equivalence move by move
    POLICY_EQUIVALENT_VALUES: ClassVar[dict[str, dict[Any, Any]]] = {}
    #: wrong configs the conformance suite checks raise ValueError
    BAD_CONFIGS: ClassVar[list[dict[str, Any]]] = []
    #: role kinds whose observation fixes the state up to what nobody sees, so that
    #: :meth:`from_observation` can rebuild a game from it (empty: none)
    rebuilds_from: ClassVar[tuple[str, ...]] = ()

    roles: tuple[str, ...]
    num_actions: int
    layout: Layout

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        if "info" in cls.__dict__ and cls.info is not None:
            cls.env_id = cls.info.env_id

    def __init__(self, **config: Any):
        self.config: dict[str, Any] = parse_config(self.CONFIG, config, self.env_id)
        self._setup()
        self.seed: int | None = None
        self.actions: list[int] = []
        self.rng: np.random.Generator | None = None
        self._started = False

    # ----------------------------------------------------------------- set-up
    @abstractmethod
    def _setup(self) -> None:
        """Derive roles, num_actions, layout and static tables from self.config."""

    @property
    def num_players(self) -> int:
        return len(self.roles)

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def policy_config(self) -> dict[str, Any]:
        """The config as a policy sees it: each :attr:`POLICY_EQUIVALENT_VALUES` value
        replaced by the one it plays as, so two configs a policy cannot tell apart compare equal."""
        return {key: self.POLICY_EQUIVALENT_VALUES.get(key, {}).get(value, value)
                for key, value in self.config.items()}

    #: whether a seat can change sides during a game (then the referee reads
    #: :meth:`sides` at every decision); a game whose sides can change sets it per config
    sides_change: bool = False

    def starting_sides(self) -> tuple[int, ...]:
        """Each seat's side at the deal (:func:`starting_sides` of the roles and
        :attr:`team_kinds`): the seat groups evaluation and self-play seat a player in."""
        return starting_sides(self.roles, self.team_kinds)

    def sides(self) -> tuple[int, ...]:
        """Each seat's side now, numbered as :meth:`starting_sides`: the seats of one
        side win or lose together. The referee's truth, which may be hidden (Specter
        Ops' 5-player traitor serves the agent's side from the moment she deals him
        his card): the arena and the self-play trainers read it to seat a player in
        every seat of its side; a policy never does. Default: the starting sides,
        fixed for the game."""
        return self.starting_sides()

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; every chance event comes from ``self.rng``."""
        if seed is None:
            seed = fresh_seed()
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)
        self.actions = []
        self._started = True
        self._new_game()

    @abstractmethod
    def _new_game(self) -> None: ...

    # ------------------------------------------------------------- decisions
    @property
    @abstractmethod
    def current_player(self) -> int: ...

    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """int8[num_actions] for the pending decision (a fresh array or a cached one
        the caller must not modify)."""

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_mask()).tolist()

    @abstractmethod
    def decision_name(self) -> str:
        """Short name of the pending decision, e.g. 'choose_card'."""

    def step(self, action: int) -> None:
        """Apply one decision; an illegal one raises and leaves the state untouched."""
        if not self._started:
            raise GameStateError(f"{self.env_id}: call reset() before step()")
        if self.is_over:
            raise GameStateError(f"{self.env_id}: the game is over; call reset() to play again")
        mask = self.legal_mask()
        try:
            a = int(action)
            ok = a == action and 0 <= a < self.num_actions and mask[a]
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            legal = np.flatnonzero(mask).tolist()
            raise IllegalActionError(
                action, self.decision_name(), legal, [self.action_label(x) for x in legal]
            )
        self._apply(a)
        self.actions.append(a)

    @abstractmethod
    def _apply(self, action: int) -> None: ...

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def outcome(self) -> list[float]:
        """Terminal payoff per role: win +1, loss -1, draw 0."""

    def payoff(self) -> Payoff:
        """Whether every outcome of this configured game sums to 0, and the bounds of
        any role's payoff (the 0 of a truncated game included). The default claims
        no zero sum, within the contract's -1..+1."""
        return Payoff(False, -1.0, 1.0)

    # ----------------------------------------------------------- information
    @abstractmethod
    def observe(self, player: int) -> np.ndarray:
        """float32[observation_size], built only from what ``player`` may know."""

    def varying_inputs(self) -> np.ndarray | None:
        """Indices of the observation entries that can differ between states of this
        config, or None when any may. Every other entry holds the same value in every
        observation (static map planes, slots of absent players), so a learner may leave
        it out of its input; the conformance suite checks the claim in random play."""
        return None

    @abstractmethod
    def hidden_key(self, viewer: int) -> Any:
        """A comparable value of everything hidden from ``viewer`` (the leak test
        uses it to check that a resample really changes hidden state)."""

    @abstractmethod
    def resample_hidden(self, viewer: int, rng: np.random.Generator) -> Game:
        """A clone where all that ``viewer`` cannot see is re-dealt consistently with
        what ``viewer`` knows; the clone's future chance comes from ``rng`` too."""

    def from_observation(self, viewer: int, observation: np.ndarray, rng: np.random.Generator) -> Game:
        """A game of this config in the state ``viewer``'s ``observation`` shows, what
        nobody sees dealt from ``rng`` as :meth:`resample_hidden` deals it, for players
        that look ahead from what they see alone. Only seats of the kinds in
        :attr:`rebuilds_from`; else, or for an observation the seat cannot see, a
        one-line ValueError."""
        raise ValueError(f"{self.env_id} cannot rebuild its state from an observation")

    @abstractmethod
    def clone(self) -> Game: ...

    def _clone_into(self, new: Game) -> Game:
        """Copy the base bookkeeping into ``new`` (made with ``object.__new__``)."""
        new.config = self.config
        new.roles = self.roles
        new.num_actions = self.num_actions
        new.layout = self.layout
        new.seed = self.seed
        new.actions = list(self.actions)
        new.rng = copy_rng(self.rng) if self.rng is not None else None
        new._started = self._started
        return new

    def check_invariants(self) -> None:
        """Raise AssertionError if a game invariant is broken (fuzz tests)."""

    # ------------------------------------------------------------- display
    @abstractmethod
    def action_label(self, action: int) -> str: ...

    def action_label_for(self, action: int, viewer: int | None) -> str:
        """The label of the pending decision's ``action`` as ``viewer`` may see it
        (None: omniscient). By default another role's choice shows only as the
        decision's name; games override this to show moves that are public."""
        if viewer is None or viewer == self.current_player:
            return self.action_label(action)
        return f"({self.decision_name()})"

    @abstractmethod
    def render_text(self, viewer: int | None = None) -> str:
        """The state in words; ``viewer=None`` is omniscient."""

    def render_rgb(self, viewer: int | None = None) -> np.ndarray:
        return text_to_rgb(self.render_text(viewer))

    # --------------------------------------------------------------- records
    def to_record(self) -> dict[str, Any]:
        return make_record(self)

    def __repr__(self) -> str:
        cfg = ", ".join(f"{k}={v!r}" for k, v in self.config.items())
        return f"<{type(self).__name__} {self.env_id}({cfg}) seed={self.seed} steps={len(self.actions)}>"
