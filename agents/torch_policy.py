"""The one policy of a trained network: :class:`TorchPolicy`, and the MLP actor.

A checkpoint (:mod:`spyenvs.agents.checkpoint`: torch's ``weights_only`` loader or
numpy, never pickled code) names its network in ``arch``; :data:`ACTORS` maps each
name to the actor class that checks the file's arrays and computes the logits in
numpy: :class:`MLPActor` (``mlp``, the default), :class:`~.board_net.BoardActor`
(``board_cnn``) and :class:`~.card_table.CardTableActor` (``card_table``).
:class:`TorchPolicy` does the rest for every architecture: the role-kind input,
masking, the deterministic or sampled choice, batching and binding to a seat.

The forward pass runs in numpy, so loading and playing need no torch, a single
observation (how opponents and tournaments call it) pays no torch per-call
overhead, and the policy stays picklable for subprocess workers.

A checkpoint whose metadata names a ``prior`` (``{"kind": "heuristic", "weight": w}``,
:mod:`spyenvs.agents.prior`) was trained as a residual over the heuristic's scores:
``bind(game, seat)`` binds the game's heuristic to the seat, and the logits are
``weight * prior_columns(scores) + the network's``, ``weight`` the seat's role kind's
where ``w`` is a mapping from role kind to weight. The heuristic is package code; the
file holds only the network.

A checkpoint of ``arch`` ``per_kind`` (:class:`PerKindActor`, written by
:func:`compose_per_kind`) holds one network per role kind, each trained in a run of its
own: a table can ship the agent of one run and the hunters of another, where each
measured better. They share the game, the observation, the prior (each kind with its
own weight) and the macro.

A checkpoint whose metadata names a ``macro`` (``"specter_destination"``,
:mod:`spyenvs.agents.macros`) was trained choosing the macro's decisions (the Specter
Ops agent's destination per turn): ``bind(game, seat)`` then gives each seat the macro
binds to its own copy per game, which remembers the plan across the steps of a turn,
plays its moves without the network and asks the network only for the macro's
choices (on the macro's mask). A macro and a prior do not combine.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .board_net import BoardActor
from .card_table import CardTableActor
from .checkpoint import CheckpointError, mlp_weights, read_checkpoint, save_arrays, stored_dtype
from .macros import MACRO_KINDS, make_macro
from .policy import BasePolicy, check_mask, role_kind
from .prior import check_prior_kind, make_prior, prior_weight_per_kind


def policy_input(obs: np.ndarray, kind_index: int, n_kinds: int) -> np.ndarray:
    """The learner's network input: the observation, then a one-hot of the role
    kind when the game has more than one kind (the same as the self-play wrapper's
    ``role_onehot=True`` observation)."""
    if n_kinds <= 1:
        return obs
    extra = np.zeros(obs.shape[:-1] + (n_kinds,), np.float32)
    extra[..., kind_index] = 1.0
    return np.concatenate([obs, extra], axis=-1)


class MLPActor:
    """A plain numpy MLP: Linear layers with the checkpoint's activation between them."""

    arch = "mlp"

    def __init__(self, weights: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]):
        self.weights = [(np.ascontiguousarray(w.T), b) for w, b in weights]  # x @ W.T
        self.activation = np.tanh if meta["activation"] == "tanh" else (lambda x: np.maximum(x, 0.0))

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any], path: str = "checkpoint") -> MLPActor:
        """The actor of a checkpoint's arrays ``w0, b0, ...``, checked by
        :func:`~spyenvs.agents.checkpoint.mlp_weights` (the layout
        :func:`~spyenvs.agents.checkpoint.save_policy` writes)."""
        return cls(mlp_weights(arrays, meta, path), meta)

    def logits(self, x: np.ndarray) -> np.ndarray:
        last = len(self.weights) - 1
        for i, (wt, b) in enumerate(self.weights):
            x = x @ wt + b
            if i < last:
                x = self.activation(x)
        return x


class PerKindActor:
    """One network per role kind (``meta["kind_nets"]``: each kind's own metadata, its
    ``arch`` among them; its arrays named ``<kind>.<name>``): a row of input plays
    through the network of the kind its role one-hot names."""

    arch = "per_kind"

    def __init__(self, nets: list[Any]):
        self.nets = nets  # in the order of meta["role_kinds"], as the one-hot is

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                    path: str = "checkpoint") -> PerKindActor:
        kind_arrays, kind_metas = _split_per_kind(arrays, meta, path)
        return cls([actor_class(m, path).from_arrays(kind_arrays[kind], m, path) for kind, m in kind_metas.items()])

    def logits(self, x: np.ndarray) -> np.ndarray:
        kinds = np.argmax(x[..., -len(self.nets):], axis=-1)
        if np.ndim(kinds) == 0:
            return self.nets[int(kinds)].logits(x)
        first = int(kinds[0])
        if np.all(kinds == first):  # a bound policy's batch: one kind
            return self.nets[first].logits(x)
        out = None
        for k in np.unique(kinds):
            rows = kinds == k
            z = self.nets[int(k)].logits(x[rows])
            if out is None:
                out = np.empty((x.shape[0], z.shape[-1]), z.dtype)
            out[rows] = z
        return out


#: what every network of a per-kind checkpoint shares: the game, what it reads and plays,
#: and what the player adds to the networks' logits
SHARED_META = ("env_id", "config", "roles", "role_kinds", "obs_dim", "num_actions", "prior", "macro")


def per_kind_metas(meta: dict[str, Any], path: str = "checkpoint") -> dict[str, dict[str, Any]]:
    """Each role kind's network metadata of a checkpoint, in ``role_kinds`` order: a
    per-kind checkpoint's own per kind, any other's one network for every kind."""
    kinds = list(meta["role_kinds"])
    if meta.get("arch", "mlp") != PerKindActor.arch:
        return {kind: meta for kind in kinds}
    nets = meta.get("kind_nets")
    if not isinstance(nets, dict) or sorted(nets) != sorted(kinds):
        raise CheckpointError(f"{path}: a per-kind checkpoint needs one network for each role kind "
                              f"{kinds}, has {sorted(nets) if isinstance(nets, dict) else nets!r}")
    shared = {k: meta[k] for k in SHARED_META if k in meta}
    out = {}
    for kind in kinds:
        if nets[kind].get("arch", "mlp") == PerKindActor.arch:
            raise CheckpointError(f"{path}: the {kind} network is itself per kind")
        out[kind] = {**nets[kind], **shared}
    return out


def compose_per_kind(base: str | os.PathLike, replace: dict[str, str | os.PathLike],
                     out: str | os.PathLike) -> dict[str, Any]:
    """Write ``out``: the checkpoint ``base`` with the network of each role kind in
    ``replace`` taken from that kind's checkpoint. The files must agree on everything
    in :data:`SHARED_META` (one-line :class:`CheckpointError` naming what differs),
    but for the prior's weight: each kind keeps its own file's (a weight per role kind).
    Stored in half precision when every source file is (the round trip is exact).
    Returns the written metadata."""
    raw, meta = read_checkpoint(base)
    kind_arrays, kind_metas = _split_per_kind(raw, meta, os.fspath(base))
    source_metas = {kind: meta for kind in meta["role_kinds"]}  # the file each kind's network comes from
    for kind, path in replace.items():
        if kind not in kind_metas:
            raise CheckpointError(f"{os.fspath(base)} has no role kind {kind!r}; its kinds: "
                                  f"{', '.join(meta['role_kinds'])}")
        other_raw, other = read_checkpoint(path)
        differs = [k for k in SHARED_META if k != "prior" and other.get(k) != meta.get(k)]
        if _prior_without_weight(other) != _prior_without_weight(meta):
            differs.append("prior")
        if differs:
            raise CheckpointError(f"{os.fspath(path)} and {os.fspath(base)} differ in {', '.join(differs)}: "
                                  "the networks of one file must share them")
        arrays, metas = _split_per_kind(other_raw, other, os.fspath(path))
        kind_arrays[kind], kind_metas[kind], source_metas[kind] = arrays[kind], metas[kind], other
    shared = {k: meta[k] for k in SHARED_META if k in meta}
    if meta.get("prior") is not None:  # each kind keeps its own run's weight on the prior
        weights = {kind: _kind_prior_weight(m, kind) for kind, m in source_metas.items()}
        one = len(set(weights.values())) == 1
        shared["prior"] = dict(meta["prior"], weight=next(iter(weights.values())) if one else weights)
    composed = dict(shared, arch=PerKindActor.arch, name=os.path.splitext(os.path.basename(os.fspath(out)))[0],
                    kind_nets={kind: {k: v for k, v in m.items() if k not in SHARED_META + ("format", "version")}
                               for kind, m in kind_metas.items()})
    arrays = {f"{kind}.{name}": a for kind, named in kind_arrays.items() for name, a in named.items()}
    half = all(stored_dtype(p) == "float16" for p in [base, *replace.values()])
    save_arrays(out, arrays, composed, dtype="float16" if half else "float32")
    TorchPolicy.load(out)  # what make_policy will read back
    return composed


def _prior_without_weight(meta: dict[str, Any]) -> dict[str, Any] | None:
    """A checkpoint's prior but for its weight, which may differ per role kind."""
    prior = meta.get("prior")
    return None if prior is None else {k: v for k, v in prior.items() if k != "weight"}


def _kind_prior_weight(meta: dict[str, Any], kind: str) -> float:
    """The prior's weight a checkpoint gives one role kind."""
    weights = prior_of(meta)[1]
    return weights if isinstance(weights, float) else weights[list(meta["role_kinds"]).index(kind)]


def _split_per_kind(raw: dict[str, np.ndarray], meta: dict[str, Any], path: str):
    """(arrays per kind, network metadata per kind) of any checkpoint."""
    metas = per_kind_metas(meta, path)
    if meta.get("arch", "mlp") != PerKindActor.arch:
        return {kind: raw for kind in metas}, metas
    return {kind: {name[len(kind) + 1:]: a for name, a in raw.items() if name.startswith(f"{kind}.")}
            for kind in metas}, metas


def prior_of(meta: dict[str, Any], path: str = "checkpoint") -> tuple[str, float | list[float], list[str]]:
    """(kind, weight, open decisions) of a checkpoint's ``prior`` (absent: ``("none",
    0.0, [])``), the weight a float, or one per ``role_kinds`` in their order
    (:func:`~spyenvs.agents.prior.prior_weight_per_kind`); an unknown kind, a malformed
    weight or open list raises :class:`~spyenvs.agents.checkpoint.CheckpointError`."""
    prior = meta.get("prior")
    if prior is None:
        return "none", 0.0, []
    kind = prior.get("kind") if isinstance(prior, dict) else None
    weight = prior.get("weight") if isinstance(prior, dict) else None
    try:
        if kind == "none":
            raise ValueError("a prior of kind 'none' is no prior")
        check_prior_kind(kind, "its kind")
    except ValueError as exc:
        raise CheckpointError(f"{path}: unknown prior {prior!r}; {exc}") from None
    open_decisions = prior.get("open", [])
    if not isinstance(open_decisions, list) or not all(isinstance(n, str) for n in open_decisions):
        raise CheckpointError(f"{path}: the prior's open decisions must be a list of decision names, "
                              f"got {open_decisions!r}")
    try:
        return kind, prior_weight_per_kind(weight, meta.get("role_kinds", []), "the prior's weight"), open_decisions
    except ValueError as exc:
        raise CheckpointError(f"{path}: {exc}") from exc


def macro_of(meta: dict[str, Any], path: str = "checkpoint") -> str:
    """The checkpoint's ``macro`` (absent: ``"none"``); an unknown one, one for another
    game, or one beside a prior raises :class:`~spyenvs.agents.checkpoint.CheckpointError`."""
    macro = meta.get("macro", "none")
    if macro not in MACRO_KINDS:
        raise CheckpointError(f"{path}: unknown macro {macro!r}; this code reads {', '.join(MACRO_KINDS)}")
    if macro != "none":
        if meta.get("prior") is not None:
            raise CheckpointError(f"{path}: names both a prior and the macro {macro}, which do not combine")
        try:
            make_macro(macro).check_env(meta.get("env_id"))
        except ValueError as exc:
            raise CheckpointError(f"{path}: {exc}") from exc
    return macro


#: the numpy actor of each network a checkpoint's ``arch`` names (absent: ``mlp``)
ACTORS = {"mlp": MLPActor, "board_cnn": BoardActor, "card_table": CardTableActor, "per_kind": PerKindActor}


def actor_class(meta: dict[str, Any], path: str = "checkpoint") -> type:
    """The actor class of a checkpoint's ``arch``; an unknown one raises
    :class:`~spyenvs.agents.checkpoint.CheckpointError`."""
    arch = meta.get("arch", "mlp")
    if arch not in ACTORS:
        raise CheckpointError(f"{path}: unknown network arch {arch!r}; this code reads {', '.join(ACTORS)}")
    return ACTORS[arch]


class TorchPolicy(BasePolicy):
    """A trained policy from a checkpoint file (or from weights and metadata), of any
    architecture in :data:`ACTORS`.

    ``deterministic=True`` plays the most likely legal action; otherwise it samples
    from the masked softmax (seeded). ``bind(game, seat)`` checks the game matches the
    checkpoint and sets the role-kind input for that seat. ``net`` is the actor.
    A checkpoint with a ``macro`` plays only once bound (module docstring).
    """

    def __init__(self, weights, meta: dict[str, Any], deterministic: bool = True, seed: int | None = None,
                 name: str | None = None):
        """``weights``: an actor, or what the actor of ``meta``'s ``arch`` is built from
        (the MLP's [(W, b), ...]; the named arrays of the others), unchecked; use
        :meth:`from_arrays` for a file's arrays."""
        self.meta = meta
        self.net = weights if isinstance(weights, tuple(ACTORS.values())) else actor_class(meta)(weights, meta)
        self.kinds = list(meta["role_kinds"])
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.kind_index = 0
        self.name = name or meta.get("name", "trained")
        kind, self.prior_weights, open_decisions = prior_of(meta)
        self._prior = make_prior(kind, None if seed is None else seed + 1, open_decisions)
        self.prior_scorer = None  # the bound prior of the seat (set by bind)
        self._macro = make_macro(macro_of(meta))
        self.macro_player = None  # the macro's player of the seat and game (set by bind)
        self._seat_bound = False

    @property
    def prior_weight(self) -> float:
        """The prior's weight in the logits of the seat's role kind (``kind_index``)."""
        w = self.prior_weights
        return w if isinstance(w, float) else w[self.kind_index]

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any], path: str = "checkpoint",
                    **kwargs) -> TorchPolicy:
        """The policy of a checkpoint's named arrays, checked by its actor; a malformed
        file raises :class:`~spyenvs.agents.checkpoint.CheckpointError`."""
        return cls(actor_class(meta, path).from_arrays(arrays, meta, path), meta, **kwargs)

    @classmethod
    def load(cls, path: str | os.PathLike, deterministic: bool = True, seed: int | None = None) -> TorchPolicy:
        """The policy of a checkpoint file, of whichever architecture its ``arch``
        names (the MLP when absent)."""
        raw, meta = read_checkpoint(path)
        prior_of(meta, os.fspath(path))
        macro_of(meta, os.fspath(path))
        name = os.path.splitext(os.path.basename(os.fspath(path)))[0]
        return cls.from_arrays(raw, meta, os.fspath(path), deterministic=deterministic, seed=seed, name=name)

    def bind(self, game: Any, seat: int) -> TorchPolicy:
        if game.env_id != self.meta["env_id"]:
            raise CheckpointError(f"checkpoint {self.name!r} is for {self.meta['env_id']}, not {game.env_id}")
        if game.observation_size != self.meta["obs_dim"] or game.num_actions != self.meta["num_actions"]:
            raise CheckpointError(
                f"checkpoint {self.name!r} expects obs {self.meta['obs_dim']} / actions {self.meta['num_actions']}, "
                f"the game has {game.observation_size} / {game.num_actions} (another config?)")
        kind = role_kind(game.roles[seat])
        if kind not in self.kinds:
            raise CheckpointError(f"checkpoint {self.name!r} was not trained for role kind {kind!r}")
        if self._macro is not None:
            player = self._macro.bind(game, seat)
            if player is not None:  # it remembers its plan: a copy per game, never shared
                bound = object.__new__(type(self))
                bound.__dict__.update(self.__dict__)
                bound.kind_index = self.kinds.index(kind)
                bound.macro_player = player
                bound.per_game_state = True
                bound._seat_bound = True
                return bound
        # one bound copy per role kind, so every seat of a kind (in every game of a
        # vectorised env) lands in one batched forward pass; with a prior one per seat
        # (the heuristic plays a seat), and one per game where the heuristic remembers
        # its game (per_game_state: the vectorised env then binds it per game)
        key = kind if self._prior is None else ("seat", seat)
        cache = self.__dict__.setdefault("_bound_by_kind", {})
        bound = cache.get(key)
        if bound is None:
            bound = object.__new__(type(self))
            bound.__dict__.update(self.__dict__)
            bound.kind_index = self.kinds.index(kind)
            bound._seat_bound = True
            if self._prior is not None:
                try:
                    bound.prior_scorer = self._prior.bind(game, seat)
                except ValueError as exc:  # the file opens decisions this game does not have
                    raise CheckpointError(f"checkpoint {self.name!r}: {exc}") from exc
                if bound.prior_scorer.per_game_state:
                    bound.per_game_state = True
                    return bound
            cache[key] = bound
        return bound

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        if self._prior is not None:
            self._prior.reseed(seed + 1)
        self.__dict__.pop("_bound_by_kind", None)  # bound copies hold the old stream

    def _check_macro_bound(self) -> None:
        if self._macro is not None and not self._seat_bound:
            raise TypeError(f"policy {self.name!r} plays through the {self._macro.kind} macro: "
                            "call bind(game, seat) first")

    def _masked_logits(self, obs: np.ndarray, masks: np.ndarray, advance: bool = True) -> np.ndarray:
        x = policy_input(np.asarray(obs, np.float32), self.kind_index, len(self.kinds))
        logits = self.net.logits(x)
        if self._prior is not None:
            if self.prior_scorer is None:
                raise TypeError(f"policy {self.name!r} adds the {self._prior.kind} prior's scores to its logits: "
                                "call bind(game, seat) first")
            single = np.ndim(masks) == 1
            prior = self.prior_scorer.scores(np.atleast_2d(obs), np.atleast_2d(masks), advance=advance)
            logits = logits + self.prior_weight * (prior[0] if single else prior)
        return np.where(np.asarray(masks) > 0, logits, -np.inf)

    def action_logits(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The actor's logits for one observation, -inf on illegal actions (search
        uses their softmax as a prior). A heuristic prior with memory is asked
        without moving its memory on (a look-ahead is not a decision played)."""
        check_mask(mask)
        self._check_macro_bound()
        if self.macro_player is not None:  # the macro's choice carried onto the env's actions
            return self.macro_player.first_step_logits(
                observation, mask, lambda m: self._masked_logits(observation, m, advance=False))
        return self._masked_logits(observation, mask, advance=False)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        check_mask(mask)
        player = self.macro_player
        if player is None:
            self._check_macro_bound()
            return self._choose(observation, mask)
        a = player.auto_action(observation, mask)
        if a is not None:  # a move of the plan: no network
            return int(a)
        return int(player.env_action(self._choose(observation, player.decision_mask(observation, mask))))

    def _choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The network's choice among ``mask``'s actions."""
        z = self._masked_logits(observation, mask)
        if self.deterministic:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(self.rng.choice(p.size, p=p))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.macro_player is not None:  # one game's rows: the plan moves on row by row
            return np.array([self.act(o, m) for o, m in zip(observations, masks)], dtype=np.int64)
        self._check_macro_bound()
        z = self._masked_logits(observations, masks)
        if self.deterministic:
            return z.argmax(axis=1).astype(np.int64)
        g = -np.log(-np.log(self.rng.random(z.shape)))  # Gumbel-max sampling
        return (z + g).argmax(axis=1).astype(np.int64)
