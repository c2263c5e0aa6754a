"""The training configs as typed dataclasses, one per YAML section, shared by the
SB3 trainer (:class:`TrainConfig`, :mod:`spyenvs.experiments.train_selfplay`) and
the RLlib trainer (:class:`RLlibConfig`, :mod:`spyenvs.experiments.rllib_selfplay`).

Loading (:func:`load`): the dataclasses' defaults, then the YAML file, then the
``--opt a.b=VALUE`` overrides (JSON, else a string; a field that takes a mapping also
reads YAML's ``{a: 1, b: 2}``); every value must have its field's type (an int is a
fine float) and every key must be a field, else a one-line ``ValueError``. A
section typed ``dict`` is open: ``game`` takes any game option (the game checks
them), RLlib's ``ppo`` any ``AlgorithmConfig.training()`` argument.

A config reads as attributes (``cfg.ppo.n_steps``) and, for scripts written
against the old nested dicts, as a mapping (``cfg["ppo"]["n_steps"]``, ``dict(cfg)``);
:func:`to_dict` is what a run saves.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import types
import typing
from dataclasses import dataclass, field
from typing import Any, TypeVar

import yaml

import spyenvs.configs
from spyenvs.agents.macros import MACRO_KINDS
from spyenvs.agents.prior import check_prior_kind, check_prior_weight, prior_weight_per_kind

C = TypeVar("C")

#: how net.prior_weight's errors name it
PRIOR_WEIGHT_OPTION = "training option 'net.prior_weight'"

#: how a type is named in an error message
TYPE_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
              list: "a list", dict: "a mapping", type(None): "null"}


class Section:
    """Attribute access for code, mapping access (``cfg["key"]``, ``dict(cfg)``) for
    callers that still hold the config as nested dicts."""

    def keys(self) -> list[str]:
        return [f.name for f in dataclasses.fields(self)]

    def __getitem__(self, key: str) -> Any:
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self):
        return iter(self.keys())

    def __contains__(self, key: object) -> bool:
        return key in self.keys()

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key) if key in self.keys() else default


# ----------------------------------------------------------------- shared sections
@dataclass
class EvalConfig(Section):
    """Evaluation against random and the heuristic, seats rotated."""

    every: int = 40_000
    """between periodic evaluations: learner steps (SB3) or iterations (RLlib; 0: only the final one)"""
    games: int = 40
    """games per opponent in a periodic evaluation (SB3: 0 skips them)"""
    final_games: int = 200
    """games per opponent in the final evaluation (0 skips it)"""
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    """the opponents evaluated against (heuristic only where the game has one)"""
    deterministic: bool = True
    """the learner plays its most likely action when evaluated"""


@dataclass
class RunConfig(Section):
    """The fields every trainer's config starts with."""

    env_id: str | None = None
    """the game, e.g. unrest_v0 (on the command line or in the config)"""
    game: dict[str, Any] = field(default_factory=dict)
    """game config options (checked by the game)"""
    seed: int = 0
    """seed of the run: envs, opponents, networks"""


# ------------------------------------------------------------------- SB3 sections
@dataclass
class PPOConfig(Section):
    """sb3-contrib ``MaskablePPO`` arguments, passed through unchanged."""

    learning_rate: float = 3.0e-4
    """Adam's step size"""
    n_steps: int = 64
    """steps per env and rollout (a rollout is n_envs * n_steps learner steps)"""
    batch_size: int = 512
    """minibatch size of the PPO update"""
    n_epochs: int = 4
    """passes over each rollout"""
    gamma: float = 0.997
    """discount factor"""
    gae_lambda: float = 0.95
    """GAE's lambda"""
    clip_range: float = 0.2
    """PPO's ratio clip"""
    ent_coef: float = 0.01
    """entropy bonus weight"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient norm clip"""


@dataclass
class NetConfig(Section):
    """The network (:func:`spyenvs.experiments.nets.policy_kwargs_for`)."""

    arch: str = "mlp"
    """mlp, board_cnn (a dilated conv trunk with per-cell logits, for games with board
    planes), card_table (Unrest's card table) or auto (the game's own net where it has one)"""
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layer widths of the MLP and of the card table"""
    activation: str = "tanh"
    """the MLP's activation: tanh or relu"""
    drop_constant_inputs: bool = True
    """leave the entries the game declares constant out of the MLP's input"""
    channels: int = 16
    """board_cnn: channels of the conv trunk"""
    dilations: list[int] = field(default_factory=lambda: [1, 2, 4, 8])
    """board_cnn: dilation of each conv layer"""
    vec_hidden: list[int] = field(default_factory=lambda: [128, 128])
    """board_cnn: hidden widths of the MLP over the non-board inputs"""
    head_hidden: int = 128
    """board_cnn: hidden width of the pooled heads"""
    share_trunk: bool = False
    """board_cnn: actor and critic share one conv trunk"""
    play_hidden: int = 64
    """card_table: units of the PLAY head that scores each play by its cards"""
    prior: str = "none"
    """none, heuristic, or ``lookahead:DECISION[:through=A,B][:dets=N]`` (the heuristic's
    scores but at DECISION for the seats whose observation fixes the state, Unrest's
    Rebel, where each move scores its play-out on a game rebuilt from the observation:
    agents/prior.py): residual policy learning over the heuristic's action scores.
    The actor's logits are prior_weight * the scores of the game's heuristic for the
    learner's seat + the network's, whose last layer starts at zero, so training
    starts at the heuristic's moves (every arch). The env writes the scores as extra
    input columns; exported files stay weights-only and name the prior in their
    metadata, the player computing the scores itself. With the heuristic as the warm
    start's teacher, the warm start fits only the critic (the actor already plays it)
    and clone_reg.coef must be 0; with another teacher (a search: expert iteration) the
    residual learns the teacher's moves over the prior"""
    prior_weight: float | dict[str, float] = 1.0
    """the prior's scores' weight in the logits (net.prior heuristic): a positive number
    for every role kind, or a positive number per role kind, naming exactly the game's
    kinds (YAML {agent: 2, hunter: 10}; on the command line
    --opt 'net.prior_weight={agent: 2, hunter: 10}'), so a kind whose heuristic prefers
    its move by a small margin can get a weight its residual can outweigh"""
    prior_open: list[str] = field(default_factory=list)
    """decisions (the game's names, e.g. A2_equipment_before) at which the prior says
    nothing: its scores are 0 there and the residual alone plays them, from uniform
    (net.prior heuristic; games whose observation has a pending-decision block)"""
    privileged_critic: bool = False
    """during training the critic also reads every other seat's observation (the
    true state as far as any role knows it), the actor and every exported file never
    do; where the game has several role kinds, the critic has one value head per
    kind, picked by the role one-hot (mlp, card_table, and board_cnn without share_trunk)"""

    def __post_init__(self) -> None:
        check_prior_kind(self.prior, "training option 'net.prior'")
        check_prior_weight(self.prior_weight, PRIOR_WEIGHT_OPTION)  # the kinds are checked with the game
        if not isinstance(self.prior_open, list) or not all(isinstance(n, str) for n in self.prior_open):
            raise ValueError(f"training option 'net.prior_open' must be a list of decision names, got {self.prior_open!r}")
        if self.prior_open and self.prior == "none":
            raise ValueError("training option 'net.prior_open' needs net.prior heuristic: without a prior no "
                             "decision is held by one")

    def prior_weight_per_kind(self, kinds: list[str]) -> float | list[float]:
        """``prior_weight`` for a game of role kinds ``kinds``: a float (one weight), or a
        list in ``kinds``' order; a mapping naming other kinds is a one-line ValueError."""
        return prior_weight_per_kind(self.prior_weight, kinds, PRIOR_WEIGHT_OPTION)


#: what a warm start's clone fits (``warm_start.targets``)
CLONE_TARGETS = ("moves", "visits")


@dataclass
class WarmStartConfig(Section):
    """Behaviour cloning before PPO (:mod:`spyenvs.experiments.warm_start`)."""

    games: int = 0
    """teacher games to clone (0: no warm start)"""
    teacher: str = "heuristic"
    """the policy cloned (a :func:`spyenvs.agents.registry.make_policy` name)"""
    epochs: int = 10
    """cloning epochs over the teacher's games"""
    batch_size: int = 256
    """cloning minibatch size"""
    learning_rate: float = 1.0e-3
    """cloning step size"""
    dagger_rounds: int = 0
    """DAgger rounds: dagger_games with the clone in the learner's seats and the teacher
    labelling, each followed by dagger_epochs of cloning on every label"""
    dagger_games: int = 500
    """games per DAgger round"""
    dagger_epochs: int = 4
    """cloning epochs after each DAgger round"""
    demos: str = ""
    """a demos.npz an earlier run kept (the teacher's games with the same game, options
    and net inputs): cloned instead of playing warm_start.games again; it must be the
    games of warm_start.teacher"""
    opponent: str = ""
    """empty: half the teacher's games put it in every seat, half in one learner seat
    against random players; a policy name (e.g. ``heuristic``): every game puts the
    teacher in one learner seat (rotating) against that policy, the states a policy
    meets when it is evaluated against it"""
    targets: str = "moves"
    """what the clone fits: ``moves`` (the teacher's chosen moves) or ``visits`` (a
    search teacher's share of root visits per move: expert iteration's targets)"""
    workers: int = 1
    """processes playing the teacher's games and DAgger's (a search teacher is slow);
    above 1 the games are played in parts of 8, each seeded by its number, so the
    demonstrations are the same for any number of workers above 1 (and differ from one
    worker's)"""

    def __post_init__(self) -> None:
        if not (isinstance(self.workers, int) and not isinstance(self.workers, bool) and self.workers >= 1):
            raise ValueError(f"training option 'warm_start.workers' must be at least 1, got {self.workers!r}")
        if self.targets not in CLONE_TARGETS:
            raise ValueError(f"training option 'warm_start.targets' must be one of {', '.join(CLONE_TARGETS)}, "
                             f"got {self.targets!r}")


@dataclass
class CloneRegConfig(Section):
    """Cloning steps after each PPO update, their weight decaying to 0."""

    coef: float = 0.0
    """the cloning term's initial weight (0: off)"""
    decay_steps: int = 200_000
    """learner steps over which the weight decays to 0"""
    steps: int = 4
    """cloning steps after each PPO update"""
    batch_size: int = 256
    """cloning minibatch size"""


@dataclass
class LeagueConfig(Section):
    """The opponents drawn per episode: random, the heuristic and frozen snapshots."""

    random_weight: float = 1.0
    """sampling weight of the random policy"""
    heuristic_weight: float = 1.0
    """sampling weight of the heuristic (0: left out)"""
    snapshot_weight: float = 2.0
    """total sampling weight of the snapshots"""
    snapshot_every: int = 20_000
    """learner steps between snapshots"""
    max_snapshots: int = 5
    """snapshots kept (the last ones)"""
    retire_random_at: float = 0.95
    """drop random once the training win rate against it reaches this (every kind)"""
    prioritise: bool = True
    """snapshots the learner loses to are drawn more often"""
    fixed: list[str] = field(default_factory=list)
    """policy files (checkpoints of this game and table) that stay in the pool for the whole
    run, such as a per-kind file with the exploitability probe's best response in one role:
    the learner then trains against the hole it found"""
    fixed_weight: float = 2.0
    """total sampling weight of the fixed policies, shared equally"""

    def __post_init__(self) -> None:
        if not (isinstance(self.fixed, list) and all(isinstance(p, str) and p for p in self.fixed)):
            raise ValueError(f"training option 'league.fixed' must be a list of policy files, got {self.fixed!r}")
        missing = [p for p in self.fixed if not os.path.isfile(p)]
        if missing:
            raise ValueError(f"training option 'league.fixed' names {missing[0]!r}, which is not a file")
        if not (isinstance(self.fixed_weight, (int, float)) and not isinstance(self.fixed_weight, bool)
                and self.fixed_weight >= 0):
            raise ValueError(f"training option 'league.fixed_weight' must be a number >= 0, got {self.fixed_weight!r}")


@dataclass
class SelectionConfig(Section):
    """Which of the run's last policies ships: each plays the heuristic on games of its
    own seeds (:data:`spyenvs.experiments.seed_ranges.SELECTION`, disjoint from the
    final evaluation's), the best mean win rate over role kinds ships (ties: the later)."""

    snapshots: int = 3
    """candidates: the final weights and the league's snapshots before them, newest
    first, this many at most (the league keeps league.max_snapshots); 1 ships the final
    weights without selection games"""
    games: int = 100
    """games per role kind for each candidate against the heuristic (0: no selection)"""

    def __post_init__(self) -> None:
        if not (isinstance(self.snapshots, int) and self.snapshots >= 1):
            raise ValueError(f"training option 'selection.snapshots' must be at least 1, got {self.snapshots!r}")
        if not (isinstance(self.games, int) and self.games >= 0):
            raise ValueError(f"training option 'selection.games' must be 0 or more, got {self.games!r}")

    @property
    def enabled(self) -> bool:
        return self.snapshots > 1 and self.games > 0


@dataclass
class TrainConfig(RunConfig):
    """A MaskablePPO self-play run (``spyenvs train GAME``, configs/<game>.yaml)."""

    total_timesteps: int = 200_000
    """learner decisions to train for"""
    n_envs: int = 64
    """games stepped together, opponents batched"""
    env_processes: int = 1
    """processes the n_envs games are split over (1: all in the trainer's process; at
    most n_envs are used); the others are forked workers stepping their share at the
    same time, so the opponents' and the prior's moves use another core, and torch
    collects on one thread (:class:`~spyenvs.wrappers.vec_processes.ProcessVecSelfPlayEnv`)"""
    auto_play_forced: bool = True
    """play single-option learner decisions without the network"""
    max_decisions: int = 3000
    """all seats' decisions per episode before truncation"""
    learner_kinds: list[str] | None = None
    """the role kinds the learner plays (None: every role kind, one network)"""
    learner_teams: bool = False
    """a team role kind (Specter Ops' hunters) trains with the learner in every seat
    of its team in the same episode, as evaluation seats a candidate; off: one seat,
    the opponent policy in its teammates'"""
    macro: str = "none"
    """none, or specter_destination (Specter Ops only): the agent's movement is one
    decision per turn, the cell to end it on (the cell actions, masked to the cells her
    steps reach), and a route planner walks her there (the cheapest path within her
    steps, around the hunters' sight); equipment and her other decisions stay the
    learner's. The env is unchanged: the learner's env plays the route, the exported
    file names the macro so its player (and the league's snapshots) walk the same way,
    and the warm start clones the teacher's end cell of each turn. Not with net.prior"""
    device: str = "cpu"
    """torch device of the learner"""
    torch_threads: int = 1
    """torch intra-op threads per process"""
    blas_threads: int = 1
    """numpy BLAS threads per process"""
    flush_denormals: bool = False
    """float32 values below 1.2e-38 become zero for the whole run
    (``torch.set_flush_denormal``; the env workers and torch's threads start with it).
    A prior's wide logit gaps give near-zero probabilities whose gradients are such
    subnormal floats, and the CPU computes with those many times slower, in the PPO
    update above all"""
    fused_adam: bool = True
    """torch's fused Adam kernel, called without torch.optim
    (:class:`~spyenvs.experiments.lean_sb3.LeanAdam`): one kernel per parameter instead
    of one per operation, and no torch._dynamo import"""
    critic_sees_opponent: bool = False
    """the critic (never the actor) also reads which class of opponent the episode
    plays: random, heuristic or a snapshot"""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """MaskablePPO's arguments"""
    net: NetConfig = field(default_factory=NetConfig)
    """the network"""
    scale_observations: bool = True
    """inputs scaled to [0, 1] by the layout's bounds"""
    warm_start: WarmStartConfig = field(default_factory=WarmStartConfig)
    """behaviour cloning before PPO"""
    clone_reg: CloneRegConfig = field(default_factory=CloneRegConfig)
    """the cloning term during PPO"""
    league: LeagueConfig = field(default_factory=LeagueConfig)
    """the opponent league"""
    eval: EvalConfig = field(default_factory=EvalConfig)
    """periodic and final evaluation"""
    selection: SelectionConfig = field(default_factory=SelectionConfig)
    """which of the run's last snapshots ships"""

    def __post_init__(self) -> None:
        procs = self.env_processes
        if not (isinstance(procs, int) and not isinstance(procs, bool) and procs >= 1):
            raise ValueError(f"training option 'env_processes' must be at least 1, got {procs!r}")
        if self.macro not in MACRO_KINDS:
            raise ValueError(f"training option 'macro' must be {' or '.join(MACRO_KINDS)}, got {self.macro!r}")
        if self.macro != "none" and self.net.prior != "none":
            raise ValueError(f"training option 'macro' {self.macro} does not combine with net.prior {self.net.prior}: "
                             "the prior scores the env's decisions, the learner takes the macro's")
        if self.prior_plays_teacher and self.clone_reg.coef > 0:
            raise ValueError(f"training option 'clone_reg.coef' must be 0 with net.prior {self.net.prior} and "
                             f"warm_start.teacher {self.warm_start.teacher}: the prior already holds the teacher "
                             "in the logits")
        if self.warm_start.targets == "visits" and self.macro != "none":
            raise ValueError(f"training option 'warm_start.targets' visits does not combine with macro {self.macro}: "
                             "the search's visits are over the env's moves, the learner takes the macro's")

    @property
    def prior_plays_teacher(self) -> bool:
        """The prior is the warm start's teacher (the heuristic): the actor already plays
        it, so cloning fits the critic alone."""
        return self.net.prior != "none" and self.warm_start.teacher == self.net.prior


# ----------------------------------------------------------------- RLlib sections
def _rllib_ppo() -> dict[str, Any]:
    return {"lr": 3.0e-4, "train_batch_size_per_learner": 4000, "minibatch_size": 256, "num_epochs": 4,
            "gamma": 0.997, "lambda_": 0.95, "clip_param": 0.2, "vf_clip_param": 10.0, "entropy_coeff": 0.01,
            "vf_loss_coeff": 0.5, "grad_clip": 0.5, "use_kl_loss": False}


@dataclass
class RLlibNetConfig(Section):
    """The RLlib module's MLP (:class:`~spyenvs.experiments.rllib_module.MaskedPPOModule`)."""

    hidden: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layer widths"""
    activation: str = "tanh"
    """tanh or relu"""


@dataclass
class RLlibLeagueConfig(Section):
    """The opponents of the RLlib league: the learner itself, random and snapshot slots."""

    self_weight: float = 0.0
    """sampling weight of the learner itself as the opponent"""
    random_weight: float = 1.0
    """sampling weight of the random module"""
    snapshot_weight: float = 2.0
    """total sampling weight of the snapshot slots"""
    snapshot_every: int = 5
    """iterations between snapshots"""
    max_snapshots: int = 3
    """frozen snapshot slots, refilled round-robin"""


@dataclass
class RLlibConfig(RunConfig):
    """An RLlib self-play run (``spyenvs train GAME --backend rllib``, configs/rllib_<game>.yaml)."""

    iterations: int = 100
    """PPO training iterations"""
    policies: str = "shared"
    """shared (one module for every role) or per_role (one per role kind)"""
    max_decisions: int = 3000
    """all roles' decisions per episode before truncation"""
    env_runners: int = 2
    """remote sampling actors (0: sample in the driver)"""
    envs_per_runner: int = 4
    """vectorised sub-envs per env runner (one batched forward pass)"""
    cpus_per_env_runner: float = 1
    """CPUs Ray reserves per env runner"""
    rollout_fragment_length: int | str = "auto"
    """steps per sampling fragment, or auto"""
    torch_threads: int = 1
    """torch intra-op threads of the driver"""
    ppo: dict[str, Any] = field(default_factory=_rllib_ppo)
    """RLlib's ``AlgorithmConfig.training(**ppo)`` arguments, passed through unchanged (open)"""
    net: RLlibNetConfig = field(default_factory=RLlibNetConfig)
    """the module's MLP"""
    league: RLlibLeagueConfig = field(default_factory=RLlibLeagueConfig)
    """the opponent league"""
    eval: EvalConfig = field(default_factory=lambda: EvalConfig(every=10))
    """periodic and final evaluation (every: iterations)"""
    checkpoint_every: int = 10
    """iterations between algorithm checkpoints (and always at the end)"""


# ------------------------------------------------------------------------ loading
def to_dict(cfg: Section) -> dict[str, Any]:
    """The config as nested plain dicts (what a run saves)."""
    return dataclasses.asdict(cfg)


def _hints(cls) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _section_class(kind) -> type | None:
    return kind if isinstance(kind, type) and dataclasses.is_dataclass(kind) else None


def _is_open(kind) -> bool:
    return typing.get_origin(kind) is dict or kind is dict


def _plain(value: Any) -> Any:
    """Sections (and mappings holding them) as plain dicts; other values as they are."""
    if isinstance(value, Section):
        return {k: _plain(getattr(value, k)) for k in value.keys()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return copy.deepcopy(value)


def _merge(cls, node: dict, data: dict) -> None:
    """``data`` (a YAML mapping) into ``node`` (``cls``'s values as a dict): a section
    is merged key by key, an open section's keys are added, anything else replaced."""
    hints = _hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    for k, v in data.items():
        if k not in hints:
            raise ValueError(f"unknown training option {k!r}; allowed: {', '.join(names)}")
        sub = _section_class(hints[k])
        if isinstance(v, dict) and isinstance(node.get(k), dict) and (sub is not None or _is_open(hints[k])):
            if sub is not None:
                _merge(sub, node[k], v)
            else:
                node[k] = {**node[k], **copy.deepcopy(v)}
        else:
            node[k] = copy.deepcopy(v)


def _override(cls, node: dict, key: str, value: Any) -> None:
    """One dotted ``--opt`` override into ``node``; a key that names no field (outside
    an open section) is an error."""
    *head, last = key.split(".")
    kind: Any = cls
    for h in head:
        sub = _section_class(kind)
        hints = _hints(sub) if sub is not None else None
        if hints is not None and h not in hints:
            raise ValueError(f"unknown training option {key!r}")
        child = node.get(h)
        if not isinstance(child, dict):
            raise ValueError(f"unknown training option {key!r}")
        node, kind = child, (hints[h] if hints is not None else Any)
    sub = _section_class(kind)
    if sub is not None and last not in _hints(sub):
        raise ValueError(f"unknown training option {key!r}")
    node[last] = _flow_collection(key, _hints(sub)[last], value) if sub is not None else value


def _flow_collection(key: str, kind: Any, value: Any) -> Any:
    """A string in braces or brackets given to a field that takes a mapping or a list,
    read as YAML's flow mapping or sequence (``--opt 'net.prior_weight={agent: 2,
    hunter: 10}'``, ``--opt 'net.prior_open=[A2_equipment_before, A4_equipment_after]'``:
    not JSON, so the command line's parser kept it a string); any other value as it is."""
    text = value.strip() if isinstance(value, str) else ""
    allowed = _allowed(kind)
    if text.startswith("{") and dict in allowed:
        shape, example = dict, "a mapping such as {a: 1, b: 2}"
    elif text.startswith("[") and list in allowed:
        shape, example = list, "a list such as [a, b]"
    else:
        return value
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ValueError(f"training option {key!r} must be {example}, got {value!r} ({problem})") from exc
    if not isinstance(parsed, shape):
        raise ValueError(f"training option {key!r} must be {example}, got {value!r}")
    if shape is dict and any(v is None and ":" in str(k) for k, v in parsed.items()):  # YAML read {a:1} as the key "a:1"
        raise ValueError(f"training option {key!r} needs a space after each colon ({{a: 1, b: 2}}), got {value!r}")
    return parsed


def _type_ok(value: Any, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _allowed(kind) -> list[type]:
    """The plain types a value of annotation ``kind`` may have."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        return [t for a in typing.get_args(kind) for t in _allowed(a)]
    origin = typing.get_origin(kind)
    return [origin if origin is not None else kind]


def _build(cls: type[C], raw: dict, prefix: str = "") -> C:
    """An instance of ``cls`` from ``raw``, each value checked against its field's
    type (sections recursively, in field order); missing keys take the defaults."""
    hints = _hints(cls)
    defaults = cls()
    values = {}
    for f in dataclasses.fields(cls):
        name = prefix + f.name
        kind = hints[f.name]
        if f.name not in raw:
            values[f.name] = copy.deepcopy(getattr(defaults, f.name))
            continue
        value = raw[f.name]
        sub = _section_class(kind)
        if sub is not None:
            if isinstance(value, sub):
                value = _plain(value)
            if not isinstance(value, dict):
                raise ValueError(f"training option {name!r} must be {TYPE_NAMES[dict]}, "
                                 f"got {value!r} ({type(value).__name__})")
            values[f.name] = _build(sub, value, name + ".")
            continue
        allowed = _allowed(kind)
        if not any(_type_ok(value, t) for t in allowed):
            what = " or ".join(TYPE_NAMES.get(t, t.__name__) for t in allowed)
            raise ValueError(f"training option {name!r} must be {what}, got {value!r} ({type(value).__name__})")
        values[f.name] = copy.deepcopy(value)
    return cls(**values)


def read_yaml(path: str) -> dict:
    """A training config file as a mapping; a missing or malformed file is a one-line error."""
    try:
        with open(path) as f:
            data = yaml.safe_load(f) or {}
    except OSError as exc:
        raise ValueError(f"cannot read the training config {path}: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ValueError(f"{path}: not valid YAML{where}: {problem}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a training config must be a YAML mapping")
    return data


def load(cls: type[C], path: str | None = None, env_id: str | None = None, overrides: dict | None = None) -> C:
    """``cls``'s defaults, then the YAML file at ``path``, then ``overrides`` (dotted
    keys); an unknown key or a value of the wrong type is a one-line ValueError."""
    raw = to_dict(cls())
    if path:
        _merge(cls, raw, read_yaml(path))
    for key, value in (overrides or {}).items():
        _override(cls, raw, key, value)
    if env_id:
        if raw.get("env_id") and raw["env_id"] != env_id:
            raise ValueError(f"config is for {raw['env_id']}, not {env_id}")
        raw["env_id"] = env_id
    if not raw.get("env_id"):
        raise ValueError("no env_id: give it on the command line or in the config")
    return _build(cls, raw)


def coerce(cls: type[C], cfg: Any) -> C:
    """``cfg`` as a ``cls``: as it is when it already is one, else (a mapping, e.g. a
    saved run's config) built and type-checked like a loaded config."""
    if isinstance(cfg, cls):
        return cfg
    raw = _plain(dict(cfg))
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = [k for k in raw if k not in names]
    if unknown:
        raise ValueError(f"unknown training option {unknown[0]!r}; allowed: {', '.join(names)}")
    return _build(cls, raw)


def default_config_path(env_id: str, prefix: str = "") -> str | None:
    """``configs/<prefix><game>.yaml``: the working directory's copy if there is one (a
    user's edited checkout), else the one shipped in :mod:`spyenvs.configs`."""
    name = f"{prefix}{env_id.rsplit('_v', 1)[0]}.yaml"
    shipped = os.path.join(os.path.dirname(spyenvs.configs.__file__), name)
    for p in (os.path.join("configs", name), shipped):
        if os.path.isfile(p):
            return p
    return None
