"""Priors for trained policies: residual policy learning over the heuristic's scores.

A policy trained with a prior (``net.prior: heuristic``) plays

    logits = weight * prior(observation, mask) + residual(observation)

where ``prior`` is the heuristic's :meth:`~spyenvs.agents.policy.BasePolicy.action_scores`
for the seat it plays (:mod:`spyenvs.agents.heuristics`) and ``residual`` the trained
network, whose last layer starts at zero: training starts at the heuristic's moves
and PPO learns only how to improve on them (residual policy learning, or
kickstarting). The prior is package code, never weights: a checkpoint's metadata
names it (``"prior": {"kind": "heuristic", "weight": w}``) and
:class:`~spyenvs.agents.torch_policy.TorchPolicy` binds the game's heuristic when it
binds to a seat.

The weight is one positive number for every role kind, or a mapping from each role
kind to its own (``{"agent": 2, "hunter": 10}``): a seat's logits then use its kind's
weight. A kind whose heuristic prefers its move by a small margin (Specter Ops' agent
scores her move 1 above the rest) needs a small weight for the residual to change
her play; :func:`prior_weight_per_kind` reads either form, for the trainer and the
player alike.

The scores reach the network as :func:`prior_columns`: finite float32, the legal
actions shifted so the best is 0 (float32 keeps the heuristic's small tie-breaks
near the top), clipped at :data:`SCORE_FLOOR`, 0 on illegal actions (masked anyway).
The trainer's vectorised env (:class:`~spyenvs.wrappers.vec_selfplay.VecSelfPlayEnv`)
writes them after the learner's input; the exported player computes the same
columns itself.

A heuristic that remembers its game (``per_game_state``: Specter Ops' agent counts
turns without progress, a hunter follows the plan of its turn) must see every
decision of its seat as it would when playing: :meth:`BoundPrior.scores` first
scores (with the memory so far), then, with ``advance``, lets the heuristic play the
same observation (its move is discarded) so its memory moves on as in its own games.

A prior may leave decisions *open* (``net.prior_open``, a checkpoint's ``"open"``:
decision names of the game, :func:`open_decision_indices`): there its columns are 0,
so the residual alone plays them, from uniform. Where the heuristic's preference is
worth keeping everywhere but somewhere it is known to be poor (Specter Ops' agent
never plays equipment), PPO then learns that decision without loosening the weight
on the rest.

A look-ahead prior (``net.prior: lookahead:DECISION[:through=A,B][:dets=N]``,
:mod:`spyenvs.agents.lookahead`) is the heuristic's, except at DECISION for the seats
whose observation fixes the state (the game's ``rebuilds_from``: Unrest's Rebel). There
the game is rebuilt from the observation alone (``Game.from_observation``, what nobody
sees dealt at random), each legal move is played out with the heuristic in every seat,
and its scores are the mean evaluations times :data:`LOOKAHEAD_SCALE`, the heuristic's
own move a hair above its equals: the exported player plays the look-ahead's move
wherever the residual is silent, from what its seat sees.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

#: the prior kinds a config or checkpoint may name ("none": no prior), besides
#: ``lookahead:DECISION[:through=A,B][:dets=N]``
PRIOR_KINDS = ("none", "heuristic")
#: the lowest prior column (a legal action's score below the best, clipped here)
SCORE_FLOOR = -1.0e4
#: a look-ahead prior's score per unit of evaluation (outcomes are +-1), and the
#: heuristic's own move's margin over the moves that evaluate as well
LOOKAHEAD_SCALE = 10.0
LOOKAHEAD_TIE = 1.0e-3


def check_prior_kind(kind: Any, what: str) -> None:
    """A prior kind a config or checkpoint may name (:data:`PRIOR_KINDS` or a
    ``lookahead:`` spec); else a one-line ValueError beginning with ``what``."""
    if isinstance(kind, str) and kind.startswith("lookahead:"):
        from .lookahead import parse_lookahead

        try:
            parse_lookahead(kind)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
        return
    if kind not in PRIOR_KINDS:
        raise ValueError(f"{what} must be {', '.join(PRIOR_KINDS)} or lookahead:DECISION[:through=A,B][:dets=N], "
                         f"got {kind!r}")


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < float("inf")


def check_prior_weight(weight: Any, what: str) -> None:
    """A prior weight's form (module docstring): a positive number, or a non-empty
    mapping from role-kind names to positive numbers; else a one-line ValueError
    beginning with ``what`` (the option or file it came from)."""
    if isinstance(weight, Mapping):
        if not weight:
            raise ValueError(f"{what} must name a weight for each role kind, got an empty mapping")
        for kind, value in weight.items():
            if not isinstance(kind, str) or not _positive(value):
                raise ValueError(f"{what} must map each role kind to a positive number, got {kind!r}: {value!r}")
    elif not _positive(weight):
        raise ValueError(f"{what} must be a positive number or a mapping from role kind to one, got {weight!r}")


def prior_weight_per_kind(weight: Any, kinds: Sequence[str], what: str) -> float | list[float]:
    """The prior's weight for each of ``kinds`` (a game's role kinds, in order): a float
    where one weight serves every kind (a number, or a game of one role kind), else a
    list in ``kinds``' order. A mapping must name exactly ``kinds``; anything else is a
    one-line ValueError beginning with ``what`` (:func:`check_prior_weight`)."""
    check_prior_weight(weight, what)
    if not isinstance(weight, Mapping):
        return float(weight)
    kinds = list(kinds)
    unknown = [k for k in weight if k not in kinds]
    if unknown:
        raise ValueError(f"{what} names role kind {unknown[0]!r}, which the game does not have; "
                         f"its role kinds: {', '.join(kinds)}")
    missing = [k for k in kinds if k not in weight]
    if missing:
        raise ValueError(f"{what} has no weight for role kind {missing[0]!r}; a mapping names each of "
                         f"{', '.join(kinds)}")
    weights = [float(weight[k]) for k in kinds]
    return weights[0] if len(weights) == 1 else weights


def open_decision_indices(game: Any, names: Sequence[str], what: str) -> list[int]:
    """The indices of the decisions ``names`` among ``game``'s ``decisions`` (the
    pending decision's one-hot, the observation's ``decision`` block); a game without
    that block or an unknown name is a one-line ValueError beginning with ``what``."""
    names = list(names)
    if not names:
        return []
    decisions = list(game.decisions)
    if not decisions or "decision" not in game.layout.blocks:
        raise ValueError(f"{what}: {game.env_id} has no pending-decision block in its observation to open "
                         f"decisions by")
    unknown = [n for n in names if n not in decisions]
    if unknown:
        raise ValueError(f"{what}: {game.env_id} has no decision {unknown[0]!r}; its decisions: "
                         f"{', '.join(decisions)}")
    return [decisions.index(n) for n in names]


def prior_columns(scores: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The network's prior input from action scores ``(B, A)`` (``-inf`` on illegal
    actions): float32, legal actions shifted so the best is 0 and clipped at
    :data:`SCORE_FLOOR`, illegal ones 0."""
    s = np.asarray(scores, np.float64)
    legal = np.asarray(masks) > 0
    best = np.where(legal, s, -np.inf).max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        shifted = np.maximum(s - best, SCORE_FLOOR)
    return np.where(legal, shifted, 0.0).astype(np.float32)


class BoundPrior:
    """The prior of one seat: a bound heuristic's scores as :func:`prior_columns`, 0 at
    the open decisions (``decision``: the observation's slice of the pending
    decision's one-hot; ``open_indices``: the open ones' places in it)."""

    def __init__(self, heuristic: Any, decision: slice | None = None, open_indices: Sequence[int] = ()):
        self.heuristic = heuristic
        #: the heuristic remembers its game: bind one per game and episode
        self.per_game_state = bool(getattr(heuristic, "per_game_state", False))
        self.decision = decision
        self.open_indices = np.asarray(list(open_indices), dtype=np.int64)

    def scores(self, observations: np.ndarray, masks: np.ndarray, advance: bool = True) -> np.ndarray:
        """float32 ``(B, A)`` prior columns of the rows (one seat's decisions, in
        order). ``advance``: a heuristic with memory then plays each row (move
        discarded), as it would have at the table; False leaves it as it is (a
        look-ahead, e.g. search asking for logits)."""
        observations = np.asarray(observations)
        masks = np.asarray(masks)
        return self.columns(observations, masks, self.raw_scores(observations, masks, advance))

    def raw_scores(self, observations: np.ndarray, masks: np.ndarray, advance: bool = True) -> np.ndarray:
        """The heuristic's (or look-ahead's) scores of the rows, before :meth:`columns`."""
        if advance and self.per_game_state:
            raw = self.heuristic.action_scores_advance_batch(observations, masks)
        else:
            raw = self.heuristic.action_scores_batch(observations, masks)
        return self.look_ahead(observations, masks, raw)

    def columns(self, observations: np.ndarray, masks: np.ndarray, raw: np.ndarray) -> np.ndarray:
        """:func:`prior_columns` of ``raw``, 0 at the open decisions. It reads nothing
        of the bound seat but :attr:`columns_key`: the rows of every prior with the
        same key may go through one call (the vectorised env's per-game priors)."""
        columns = prior_columns(raw, masks)
        if self.open_indices.size:
            pending = np.argmax(observations[:, self.decision], axis=1)
            columns[np.isin(pending, self.open_indices)] = 0.0
        return columns

    @property
    def columns_key(self) -> tuple:
        d = self.decision
        return (None if d is None else (d.start, d.stop, d.step), tuple(self.open_indices.tolist()))

    def look_ahead(self, observations: np.ndarray, masks: np.ndarray, raw: np.ndarray) -> np.ndarray:
        """The raw scores, with the look-ahead's where it looks ahead (none here)."""
        return raw


class BoundLookaheadPrior(BoundPrior):
    """The look-ahead prior of one seat whose observation fixes the state (module
    docstring): ``game`` gives the config to rebuild in; its state is never read."""

    def __init__(self, heuristic: Any, game: Any, seat: int, spec: Any, decision: slice | None = None,
                 open_indices: Sequence[int] = ()):
        from .evaluations import state_value_for
        from .heuristics import HeuristicPolicy

        super().__init__(heuristic, decision, open_indices)
        self.template, self.seat, self.spec = game, seat, spec
        self.model = HeuristicPolicy(None if spec.seed is None else spec.seed + 1)
        self.value = state_value_for(game)

    def look_ahead(self, observations: np.ndarray, masks: np.ndarray, raw: np.ndarray) -> np.ndarray:
        from .lookahead import play_out_value

        spec, rng = self.spec, self.spec.rng
        raw = np.array(raw, np.float64)
        for i, (o, m) in enumerate(zip(observations, masks)):
            legal = np.flatnonzero(m)
            if legal.size <= 1:
                continue
            game = self.template.from_observation(self.seat, o, rng)
            if game.decision_name() not in spec.decisions:
                continue
            own = legal[np.argmax(raw[i, legal])]
            values = [play_out_value(game, self.seat, int(a), spec, self.model, self.value, rng) for a in legal]
            raw[i] = -np.inf
            raw[i, legal] = LOOKAHEAD_SCALE * np.asarray(values)
            raw[i, own] += LOOKAHEAD_TIE
        return raw


class HeuristicPrior:
    """The unbound heuristic prior: ``bind(game, seat)`` binds the game's heuristic to
    the seat (see the module docstring)."""

    kind = "heuristic"

    def __init__(self, seed: int | None = None, open_decisions: Sequence[str] = ()):
        from .heuristics import HeuristicPolicy

        self.template = HeuristicPolicy(seed)
        self.open_decisions = list(open_decisions)

    def bind(self, game: Any, seat: int) -> BoundPrior:
        heuristic = self.template.bind(game, seat)
        if not self.open_decisions:
            return BoundPrior(heuristic)
        indices = open_decision_indices(game, self.open_decisions, "the prior's open decisions")
        return BoundPrior(heuristic, game.layout.blocks["decision"].slice, indices)

    def reseed(self, seed: int) -> None:
        self.template.reseed(seed)


class LookaheadPrior(HeuristicPrior):
    """The unbound look-ahead prior ``lookahead:DECISION[:through=A,B][:dets=N]``
    (module docstring): ``bind`` gives the seats the game can rebuild from their
    observation the look-ahead, the others the heuristic's scores."""

    def __init__(self, spec: str, seed: int | None = None, open_decisions: Sequence[str] = ()):
        from .lookahead import parse_lookahead

        super().__init__(seed, open_decisions)
        self.kind = spec
        # unseeded, the deals start from 0: a file measured twice plays the same games
        self.lookahead = parse_lookahead(spec, 0 if seed is None else seed)

    def bind(self, game: Any, seat: int) -> BoundPrior:
        from spyenvs.core.game import role_kind

        if not game.rebuilds_from:
            raise ValueError(f"the {self.kind} prior needs a game that rebuilds its state from an observation; "
                             f"{game.env_id} cannot")
        plain = super().bind(game, seat)
        if role_kind(game.roles[seat]) not in game.rebuilds_from:
            return plain
        return BoundLookaheadPrior(plain.heuristic, game, seat, self.lookahead, plain.decision,
                                   plain.open_indices.tolist())

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self.lookahead.seed = seed
        self.lookahead.rng = np.random.default_rng(seed)


def make_prior(kind: str | None, seed: int | None = None,
               open_decisions: Sequence[str] = ()) -> HeuristicPrior | None:
    """The prior named ``kind`` (:data:`PRIOR_KINDS` or a ``lookahead:`` spec; ``none``
    or None: no prior), saying nothing at ``open_decisions`` (decision names; module
    docstring)."""
    if kind in (None, "none"):
        return None
    check_prior_kind(kind, "the prior")
    if kind == "heuristic":
        return HeuristicPrior(seed, open_decisions)
    return LookaheadPrior(kind, seed, open_decisions)
