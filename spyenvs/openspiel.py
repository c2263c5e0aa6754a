"""OpenSpiel bridge: every spyenvs env as a pyspiel Python game.

    import pyspiel
    import spyenvs.openspiel  # registers python_spyenvs_<game> for every env id

    game = pyspiel.load_game("python_spyenvs_specter_ops", {"num_players": 2})
    state = game.new_initial_state()

Needs the optional extra ``openspiel`` (``pip install "spyenvs[openspiel]"``).

What OpenSpiel sees:

* **GameType**: sequential, imperfect information, terminal rewards, and
  ``SAMPLED_STOCHASTIC`` chance: our games own their chance (one seeded
  ``numpy`` generator per game), so there are no chance nodes. The utility is
  zero-sum where every outcome sums to 0 for that config (Unrest; The Agents
  with 2 players and ``end_rule="immediate"``; Spy Games with 2 players, or with
  ``reward`` "relative" or "rank"), general-sum otherwise: team games pay every
  member of the team (Specter Ops), and ties can make several winners.
* **Game parameters**: exactly the env's config options (``CONFIG``) under the
  same names and defaults, plus two of the bridge's own: ``seed`` (-1: every
  ``new_initial_state()`` deals from OS entropy; ``>= 0``: the game's sequence of
  deals is reproducible) and ``max_game_length`` (a decision cap OpenSpiel needs
  to be finite; a game that reaches it ends with every return 0, the way a
  truncated episode pays nothing; random play never comes near the default).
  OpenSpiel parameters cannot be None: an optional number is -1 for None and an
  optional string is "" for None. In a ``load_game`` string a comma separates
  parameters, so write a comma-separated value such as Specter Ops'
  ``hunter_characters`` with "+" ("Beast+Gun"), or pass a dict.
* **State** delegates to our :class:`~spyenvs.core.game.Game`: ``legal_actions``
  (the legal mask), ``apply_action`` (``step``), ``clone``, ``returns``
  (``outcome()``), ``is_terminal``, ``current_player``, ``action_to_string``
  (``action_label``), ``resample_from_infostate`` (``resample_hidden``, which
  never hands back the truth), and ``str(state)`` (the omniscient
  ``render_text``).
* **Observations** come from ``observe(p)`` through OpenSpiel's observer
  interface: ``observation_tensor`` is the env's flat float32 vector and the
  observation's ``dict`` has one named, reshaped piece per layout block;
  ``observation_string`` is a compact exact key of that vector (the role, who
  acts, the pending decision when it is ``p``'s, and a digest of the tensor), so
  two states give ``p`` the same string exactly when they give ``p`` the same
  observation.
* **No information states.** Our observations are not perfect-recall (the card
  games keep summaries of the public history), so the games do not claim
  ``information_state_*``; algorithms that key on information states take the
  observation instead. OpenSpiel's IS-MCTS: ``use_observation_string=True``.

:class:`PolicyBot` plays any spyenvs policy (``spyenvs.agents`` heuristics,
trained networks, ...) as a ``pyspiel.Bot`` seat, seeing only its own
observation and legal mask.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - only without the extra
    raise ImportError(
        "spyenvs.openspiel needs OpenSpiel: pip install 'spyenvs[openspiel]' (the open-spiel wheel)"
    ) from exc

from .core.config import Param
from .core.game import fresh_seed
from .registry import ENV_IDS, game_class

#: the OpenSpiel short name of each env id
SHORT_NAMES: dict[str, str] = {env_id: "python_spyenvs_" + env_id.removesuffix("_v0") for env_id in ENV_IDS}

#: the bridge's own game parameters (not game config options)
BRIDGE_DEFAULTS: dict[str, int] = {"seed": -1, "max_game_length": 10_000}

_NONE_INT = -1
_NONE_STR = ""


# ----------------------------------------------------------------- parameters
def _spiel_default(name: str, param: Param):
    """The pyspiel parameter default for one config option (no None in pyspiel)."""
    if param.default is None:
        if param.kind is str:
            return _NONE_STR
        if param.kind in (int, float):
            return param.kind(_NONE_INT)
        raise TypeError(f"config option {name!r}: no OpenSpiel encoding for an optional {param.kind}")
    return param.kind(param.default) if param.kind in (int, float, bool) else str(param.default)


def parameter_specification(env_id: str) -> dict[str, Any]:
    """Every config option of ``env_id`` with its default, plus the bridge's own."""
    spec = {name: _spiel_default(name, p) for name, p in game_class(env_id).CONFIG.items()}
    clash = set(spec) & set(BRIDGE_DEFAULTS)
    if clash:  # pragma: no cover - a game would have to add such an option
        raise RuntimeError(f"{env_id}: config options {sorted(clash)} clash with the bridge's parameters")
    spec.update(BRIDGE_DEFAULTS)
    return spec


def config_from_params(env_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """Our config (None restored, "+" lists turned into comma lists) from pyspiel params."""
    config = {}
    for name, p in game_class(env_id).CONFIG.items():
        if name not in params:
            continue
        value = params[name]
        if p.optional and p.kind is str and value == _NONE_STR:
            value = None
        elif p.optional and p.kind in (int, float) and value == _NONE_INT:
            value = None
        elif isinstance(value, str) and p.kind is str and "+" in value:
            value = value.replace("+", ",")
        config[name] = value
    return config


# -------------------------------------------------------------------- payoffs
def payoff_kind(game) -> tuple[Any, float, float]:
    """(OpenSpiel utility kind, min utility, max utility) of one configured game, from
    the game's own :meth:`~spyenvs.core.game.Game.payoff`."""
    payoff = game.payoff()
    utility = pyspiel.GameType.Utility.ZERO_SUM if payoff.zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
    return utility, float(payoff.low), float(payoff.high)


def _player_range(env_id: str) -> tuple[int, int]:
    """(fewest, most) seats over every player count the env allows."""
    cls = game_class(env_id)
    p = cls.CONFIG.get("num_players")
    if p is None:
        n = len(cls().roles)
        return n, n
    counts = p.choices if p.choices is not None else range(int(p.min), int(p.max) + 1)
    seats = [len(cls(num_players=c).roles) for c in counts]
    return min(seats), max(seats)


def game_type(env_id: str, utility=None, short_name: str | None = None) -> pyspiel.GameType:
    lo, hi = _player_range(env_id)
    if utility is None:
        utility = payoff_kind(game_class(env_id)())[0]
    return pyspiel.GameType(
        short_name=short_name or SHORT_NAMES[env_id],
        long_name=f"spyenvs {env_id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(env_id),
    )


# ----------------------------------------------------------------------- game
class SpyenvsGame(pyspiel.Game):
    """One configured spyenvs game, as OpenSpiel sees it (subclassed per env id)."""

    env_id: str = ""

    def __init__(self, params: dict[str, Any] | None = None):
        params = dict(params or {})
        spec = parameter_specification(self.env_id)
        unknown = sorted(set(params) - set(spec))
        if unknown:
            raise ValueError(
                f"{SHORT_NAMES[self.env_id]}: unknown parameter(s) {', '.join(unknown)}; "
                f"allowed: {', '.join(sorted(spec))}"
            )
        merged = {**spec, **params}
        seed, cap = merged["seed"], merged["max_game_length"]
        if not isinstance(seed, int) or seed < -1:
            raise ValueError(f"seed must be -1 (OS entropy) or a non-negative int, got {seed!r}")
        if not isinstance(cap, int) or cap < 1:
            raise ValueError(f"max_game_length must be a positive int, got {cap!r}")
        self.config = config_from_params(self.env_id, merged)
        # checks the config; a started template so that new states are cheap clones
        self.template = game_class(self.env_id)(**self.config)
        self.template.reset(0)
        utility, lo, hi = payoff_kind(self.template)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.template.num_actions,
            max_chance_outcomes=0,
            num_players=self.template.num_players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0 if utility == pyspiel.GameType.Utility.ZERO_SUM else None,
            max_game_length=cap,
        )
        super().__init__(game_type(self.env_id, utility), info, merged)
        self.max_length = cap
        self._seeds = np.random.default_rng(seed) if seed >= 0 else None

    def new_initial_state(self) -> SpyenvsState:
        # OpenSpiel's Clone of a Python state calls new_initial_state and then
        # overwrites the new state's attributes, so the deal waits until it is used
        return SpyenvsState(self, None)

    def _deal(self):
        seed = fresh_seed() if self._seeds is None else int(self._seeds.integers(2**62))
        spy = self.template.clone()
        spy.reset(seed)
        return spy

    def make_py_observer(self, iig_obs_type=None, params=None) -> SpyenvsObserver:
        return SpyenvsObserver(self, iig_obs_type, params)


class _GameBox:
    """Holds our Game, dealt on first use; deep-copying it clones the game
    (OpenSpiel copies a Python state's attributes with copy.deepcopy, and
    ``Game.clone`` is the cheap explicit copy)."""

    __slots__ = ("_game", "_deal")

    def __init__(self, game=None, deal=None):
        self._game = game
        self._deal = deal

    @property
    def game(self):
        if self._game is None:
            self._game, self._deal = self._deal(), None
        return self._game

    @game.setter
    def game(self, value):
        self._game, self._deal = value, None

    def __deepcopy__(self, memo):
        return _GameBox(self.game.clone())


class SpyenvsState(pyspiel.State):
    """A spyenvs game in progress; every method delegates to our Game."""

    def __init__(self, game: SpyenvsGame, spy=None):
        super().__init__(game)
        self._box = _GameBox(spy, None if spy is not None else game._deal)
        self._cap = game.max_length
        self._capped = False

    @property
    def spy_game(self):
        """Our Game behind this state (for tools; reading it can leak hidden state)."""
        return self._box.game

    # ------------------------------------------------------------- play
    def current_player(self) -> int:
        if self._capped or self._box.game.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self._box.game.current_player

    def _legal_actions(self, player: int) -> list[int]:
        g = self._box.game
        if self._capped or g.is_over or player != g.current_player:
            return []
        return g.legal_actions()

    def _apply_action(self, action: int) -> None:
        g = self._box.game
        g.step(int(action))
        if not g.is_over and len(g.actions) >= self._cap:
            self._capped = True

    def _action_to_string(self, player: int, action: int) -> str:
        g = self._box.game
        if self._capped or g.is_over:
            return f"action {action}"
        return g.action_label(int(action))

    def is_terminal(self) -> bool:
        return self._capped or self._box.game.is_over

    def returns(self) -> list[float]:
        g = self._box.game
        if self._capped or not g.is_over:
            return [0.0] * g.num_players
        return [float(r) for r in g.outcome()]

    # ------------------------------------------------------ information
    def resample_from_infostate(self, player_id: int, probability_sampler) -> SpyenvsState:
        """A state that ``player_id`` cannot tell from this one: everything hidden
        from them re-dealt by ``resample_hidden``, its future chance seeded from
        ``probability_sampler`` (a callable giving uniform numbers in [0, 1))."""
        words = [int(probability_sampler() * 2**32) for _ in range(4)]
        new = self.clone()
        new._box.game = self._box.game.resample_hidden(int(player_id), np.random.default_rng(words))
        return new

    def __str__(self) -> str:
        """A short exact summary: seed, length, the pending decision and a digest of
        every seat's observation and the action list (``render_text`` is too slow
        for OpenSpiel's per-step ToString checks; ``spy_game.render_text()`` is
        the picture in words)."""
        g = self._box.game
        h = hashlib.blake2b(np.asarray(g.actions, np.int64).tobytes(), digest_size=12)
        for p in range(g.num_players):
            h.update(np.ascontiguousarray(g.observe(p), np.float32).tobytes())
        if self._capped:
            pending = "stopped at the bridge's max_game_length"
        elif g.is_over:
            pending = f"over, returns {self.returns()}"
        else:
            pending = f"{g.roles[g.current_player]} to {g.decision_name()}"
        return f"{g.env_id} seed {g.seed}, {len(g.actions)} decisions, {pending}; state {h.hexdigest()}"


# ------------------------------------------------------------------- observer
class SpyenvsObserver:
    """OpenSpiel's PyObserver interface over ``observe(p)``: the tensor is the env's
    observation and ``dict`` its layout blocks, reshaped (views into the tensor)."""

    def __init__(self, game: SpyenvsGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            # OpenSpiel asks for an information-state observer up front; answer with
            # one that says why it cannot work rather than failing to load the game
            self._refusal = (
                f"{game.get_type().short_name} provides observations, not perfect-recall "
                "information states; use the observation (for IS-MCTS: use_observation_string=True)"
            )
            self.tensor = None
            self.dict = {}
            return
        self._refusal = None
        self._roles = game.template.roles
        layout = game.template.layout
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {name: self.tensor[b.slice].reshape(b.shape) for name, b in layout.blocks.items()}

    def set_from(self, state: SpyenvsState, player: int) -> None:
        if self._refusal:
            raise RuntimeError(self._refusal)
        self.tensor[:] = state._box.game.observe(int(player))

    def string_from(self, state: SpyenvsState, player: int) -> str:
        if self._refusal:
            raise RuntimeError(self._refusal)
        g = state._box.game
        obs = np.ascontiguousarray(g.observe(int(player)), np.float32)
        digest = hashlib.blake2b(obs.tobytes(), digest_size=16).hexdigest()
        # who acts is public (AEC's agent_selection); the decision's name only for its owner
        if state.is_terminal():
            pending = "game over"
        elif g.current_player == player:
            pending = f"to {g.decision_name()}"
        else:
            pending = f"{g.roles[g.current_player]} to act"
        return f"{self._roles[player]} sees: {pending}; observation {digest}"


# ------------------------------------------------------------------------ bots
class PolicyBot(pyspiel.Bot):
    """A spyenvs policy as a pyspiel Bot for one seat.

    ``policy`` follows :class:`spyenvs.agents.policy.Policy` (``act`` and ``bind``);
    it is bound to the seat on every ``restart_at`` and sees only that seat's
    observation and legal mask."""

    def __init__(self, game: SpyenvsGame, player_id: int, policy):
        pyspiel.Bot.__init__(self)
        self._player_id = int(player_id)
        self._template = policy
        self._bound = policy.bind(game.template, self._player_id)

    def player_id(self) -> int:
        return self._player_id

    def restart_at(self, state: SpyenvsState) -> None:
        self._bound = self._template.bind(state._box.game, self._player_id)

    def inform_action(self, state, player_id, action) -> None:
        pass

    def step(self, state: SpyenvsState) -> int:
        g = state._box.game
        if g.current_player != self._player_id:
            raise ValueError(f"PolicyBot for seat {self._player_id} asked to act for seat {g.current_player}")
        if getattr(self._bound, "game", g) is not g:
            # a search bound to another state's game (OpenSpiel clones states): search this one
            self._bound = self._template.bind(g, self._player_id)
        return int(self._bound.act(g.observe(self._player_id), g.legal_mask()))


# ------------------------------------------------------------------ register
GAME_CLASSES: dict[str, type[SpyenvsGame]] = {}


def _register_all() -> None:
    registered = set(pyspiel.registered_names())
    for env_id, short in SHORT_NAMES.items():
        cls = type(
            "".join(w.capitalize() for w in env_id.removesuffix("_v0").split("_")) + "SpielGame",
            (SpyenvsGame,),
            {"env_id": env_id, "__doc__": f"OpenSpiel game {short} ({env_id})."},
        )
        GAME_CLASSES[env_id] = cls
        if short not in registered:
            pyspiel.register_game(game_type(env_id), cls)


_register_all()


def load_game(env_id: str, **config) -> SpyenvsGame:
    """``pyspiel.load_game`` by env id, with config options as keyword arguments."""
    if env_id not in SHORT_NAMES:
        raise ValueError(f"unknown env id {env_id!r}; available: {', '.join(ENV_IDS)}")
    return pyspiel.load_game(SHORT_NAMES[env_id], config)
