"""Per-game networks for MaskablePPO, and their export to weights-only checkpoints.

Specter Ops' observation is mostly its 23x32 board as planes (13,984 of 14,195 floats)
and 736 of its 768 actions name a board cell (step to, walk to, drive to, exit to,
target). A flat MLP reading all of it imitates the heuristic's route planning poorly, so
:class:`BoardActorCriticPolicy` gives such games:

* a convolutional trunk over the board planes (3x3, ReLU, padding "same"; dilated
  layers so the receptive field spans the map), with a learned per-cell bias (the map
  is fixed, so the net may learn where things are) and a per-channel bias computed
  from the non-board inputs (what decision is pending, who is acting) added at the
  first layer, so the per-cell scores can depend on the decision;
* an MLP over everything else: the vector blocks and the role-kind one-hot;
* policy logits: one per cell from a 1x1 convolution, placed at the cell actions'
  indices (action ``i`` is cell ``i``, row-major over the board's rows and columns),
  and a linear head over the pooled trunk (mean and max over cells) plus the MLP's
  features for the other actions;
* the value from the same kind of pooled features; the critic has its own trunk
  unless ``share_trunk=True`` (the trunk is most of the compute: sharing halves it,
  but the value loss then pulls on the actor's features: cloning agreed less).

Every policy here is a :class:`LeanMaskablePolicy`: sb3-contrib's maskable
actor-critic whose masked action distribution is normalised with ``log_softmax``.
sb3-contrib uses ``logsumexp``, which torch runs much slower on rows holding the
mask's -1e8: it was most of a PPO minibatch's distribution cost.

**The learner row.** With a prior or a privileged critic (``net.prior``,
``net.privileged_critic``) the trainer's env writes a row of several parts
(:meth:`spyenvs.wrappers.vec_selfplay.VecSelfPlayEnv.row_layout`, described here by a
``row`` dict, :func:`row_parts`): the actor reads only the observation and role
one-hot (what every exported player reads) and adds ``prior_weight`` times the
prior's columns to its logits (one weight, or one per role kind picked by the role
one-hot), its last layer starting at zero (residual policy learning: training starts
at the heuristic's moves); the critic reads the actor's input plus the critic-only
parts (the opponent's class, every other seat's observation) and, with
``value_heads`` > 1, has one value head per role kind, picked by the role one-hot.
Every architecture takes a ``row``: the MLP as :class:`RowMlpPolicy`, the board net
(the critic's trunk then reads every seat's board planes as channels) and the card
table. Without those options nothing changes.

:func:`policy_kwargs_for` says which policy class and kwargs a game trains with;
:mod:`spyenvs.experiments.export` turns a trained actor into the plain arrays that
:mod:`spyenvs.agents.board_net` and :mod:`spyenvs.agents.torch_policy` evaluate in numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from spyenvs.agents.card_table import card_table_features, card_table_width, play_matrices, play_scores
from spyenvs.games.unrest import rules as unrest_rules
from spyenvs.registry import ENV_IDS, game_info

ARCH = "board_cnn"

#: the card-table net (Unrest): who holds which known card, and PLAY scored by its cards
CARD_ARCH = "card_table"


def games_with(net_input: str) -> list[str]:
    """The env ids whose game declares ``net_input`` (``GameInfo.net_input``): a
    ``cell_board`` game's first ``H * W`` actions are the board's cells in the
    board's order; a ``card_table`` game has Unrest's card blocks and PLAY table."""
    return [env_id for env_id in ENV_IDS if game_info(env_id).net_input == net_input]

#: the board net's defaults, where the trainer's ``net`` section leaves them out
DEFAULTS = {"channels": 16, "dilations": (1, 2, 4, 8), "vec_hidden": (128, 128), "head_hidden": 128,
            "share_trunk": False}


def board_spec(game) -> dict[str, Any] | None:
    """Where the board planes are in ``game``'s observation and how many actions are
    cells; None when the game has no such board."""
    if game.info is None or game.info.net_input != "cell_board" or "board" not in game.layout.blocks:
        return None
    b = game.layout.blocks["board"]
    planes, h, w = b.shape
    if game.num_actions < h * w:
        return None
    return {"board_start": int(b.start), "board_shape": (int(planes), int(h), int(w)), "cell_actions": h * w}


def env_columns_for(env_id: str, game, net: dict | None = None) -> np.ndarray | None:
    """The observation entries a training env should hand the learner: the entries
    ``game`` may vary (``Game.varying_inputs``) when the MLP drops constant inputs,
    else None (all of them: the board net reads whole planes, and a game may make no
    claim). Dropping them in the env, not in the network, keeps them out of the
    rollout buffer too (Specter Ops: 5,391 of 14,193 floats per row)."""
    net = dict(net or {})
    if game.env_id != env_id or not net.get("drop_constant_inputs", True):
        return None
    arch = net.get("arch", "auto")
    if arch in (ARCH, CARD_ARCH) or (arch == "auto" and (board_spec(game) or card_table_spec(game)) is not None):
        return None
    varying = game.varying_inputs()
    return None if varying is None else np.asarray(varying, np.int64)


def policy_kwargs_for(env_id: str, game, net: dict | None = None, critic_only_dims: int = 0,
                      env_columns: np.ndarray | None = None, row: dict | None = None) -> tuple[Any, dict]:
    """(policy class, policy_kwargs) for ``MaskablePPO(policy_class, venv, policy_kwargs=...)``.

    ``net`` is the trainer's ``net`` config section: ``arch`` ``auto`` (the board net
    or the card-table net where the game has one, else the MLP), ``board_cnn``,
    ``card_table`` or ``mlp``; ``hidden``, ``activation`` and ``drop_constant_inputs``
    for the MLP; ``channels``, ``dilations``, ``vec_hidden``, ``head_hidden``,
    ``share_trunk`` for the board net; ``hidden`` and ``play_hidden`` for the card
    table (tanh).
    ``critic_only_dims``: that many last input columns (the opponent's class) reach
    the critic and never the actor (MLP only). ``env_columns``: the env already hands
    over only these observation entries (:func:`env_columns_for`); the network then
    reads its input whole and remembers them for the export.
    ``row``: the learner row's parts (module docstring; the env's ``row_layout()``
    plus ``prior_weight`` and ``value_heads``); with a prior or privileged columns in
    it, every architecture reads the row by its parts."""
    net = dict(net or {})
    arch = net.get("arch", "auto")
    if arch not in ("auto", ARCH, CARD_ARCH, "mlp"):
        raise ValueError(f"net.arch must be auto, {ARCH}, {CARD_ARCH} or mlp, got {arch!r}")
    parts = row if row is not None and (row.get("prior") or row.get("privileged")) else None
    if parts is not None:
        critic_only_dims = int(parts.get("opponent", 0))
    cards = card_table_spec(game) if game.env_id == env_id else None
    if arch == CARD_ARCH and cards is None:
        raise ValueError(f"net.arch {CARD_ARCH} is the net of {', '.join(games_with('card_table'))}, not {env_id}")
    if arch == CARD_ARCH or (arch == "auto" and cards is not None):
        if critic_only_dims:
            raise ValueError(f"the opponent's class for the critic needs net.arch mlp, not {CARD_ARCH}")
        kwargs = {"card_spec": cards, "hidden": tuple(int(n) for n in net.get("hidden", (128, 128))),
                  "play_hidden": int(net.get("play_hidden", 64))}
        if parts is not None:
            kwargs["row"] = dict(parts)
        return CardTableActorCriticPolicy, kwargs
    spec = board_spec(game) if game.env_id == env_id else None
    if arch == ARCH and spec is None:
        raise ValueError(f"net.arch {ARCH} needs a game with board planes and cell actions ({', '.join(games_with('cell_board'))})")
    if parts is not None and (arch == "mlp" or spec is None):
        if critic_only_dims and not int(parts.get("opponent", 0)):
            raise ValueError("critic_only_dims and the row's opponent columns disagree")
        return RowMlpPolicy, {"row": dict(parts), "hidden": tuple(int(n) for n in net.get("hidden", (128, 128))),
                              "activation": net.get("activation", "tanh"),
                              "source_columns": None if env_columns is None else [int(i) for i in env_columns],
                              "source_size": int(game.observation_size)}
    if arch == "mlp" or spec is None:
        hidden = list(net.get("hidden", (128, 128)))
        act = {"tanh": nn.Tanh, "relu": nn.ReLU}[net.get("activation", "tanh")]
        kwargs = {"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": act}
        if env_columns is not None:
            kwargs["features_extractor_class"] = KeepColumns
            kwargs["features_extractor_kwargs"] = {"columns": None, "obs_size": int(len(env_columns)),
                                                   "critic_only": int(critic_only_dims),
                                                   "source_columns": [int(i) for i in env_columns],
                                                   "source_size": int(game.observation_size)}
            return (CriticInputPolicy if critic_only_dims else LeanMaskablePolicy), kwargs
        varying = game.varying_inputs() if net.get("drop_constant_inputs", True) else None
        if varying is None and not critic_only_dims:
            return LeanMaskablePolicy, kwargs
        columns = None if varying is None else [int(i) for i in varying]
        kwargs["features_extractor_class"] = KeepColumns
        kwargs["features_extractor_kwargs"] = {"columns": columns, "obs_size": int(game.observation_size),
                                               "critic_only": int(critic_only_dims)}
        if critic_only_dims:
            return CriticInputPolicy, kwargs
        return LeanMaskablePolicy, kwargs
    if critic_only_dims:
        raise ValueError(f"the opponent's class for the critic needs net.arch mlp, not {ARCH}")
    kwargs = dict(spec)
    for k, default in DEFAULTS.items():
        v = net.get(k, default)
        kwargs[k] = tuple(v) if isinstance(default, tuple) else type(default)(v)
    if parts is not None:
        if parts.get("privileged") and kwargs["share_trunk"]:
            raise ValueError(f"net.share_trunk cannot go with net.privileged_critic: the critic's {ARCH} trunk "
                             "reads every seat's board")
        if parts.get("privileged") and int(parts["obs"]) != int(game.observation_size):
            raise ValueError(f"the {ARCH} critic reads whole observations; the row has {parts['obs']} of "
                             f"{game.observation_size} entries")
        kwargs["row"] = dict(parts)
    return BoardActorCriticPolicy, kwargs


def row_parts(row: dict | None, width: int) -> dict[str, Any]:
    """The learner row's parts as column bounds (module docstring): the actor reads
    ``[0, actor)``, the critic ``[0, critic)``, the prior's columns are ``[critic,
    critic + prior)``. ``row`` gives the widths (``obs``, ``kinds``, ``opponent``,
    ``privileged``, ``seats``, ``prior``) and ``prior_weight`` (a float, or a list of
    one per role kind, in the order of the ``kinds`` columns), ``value_heads``; None:
    the whole row is the actor's and the critic's input. The widths must add up to
    ``width``, else ValueError."""
    if row is None:
        return {"obs": width, "kinds": 0, "opponent": 0, "privileged": 0, "seats": 0, "prior": 0,
                "prior_weight": 0.0, "value_heads": 1, "actor": width, "critic": width}
    r = {k: int(row.get(k, 0)) for k in ("obs", "kinds", "opponent", "privileged", "seats", "prior")}
    weight = row.get("prior_weight", 1.0)
    r["prior_weight"] = [float(w) for w in weight] if isinstance(weight, (list, tuple)) else float(weight)
    r["value_heads"] = int(row.get("value_heads", 1))
    r["actor"] = r["obs"] + r["kinds"]
    r["critic"] = r["actor"] + r["opponent"] + r["privileged"]
    if r["critic"] + r["prior"] != width:
        raise ValueError(f"the row's parts ({', '.join(f'{k} {r[k]}' for k in ('obs', 'kinds', 'opponent', 'privileged', 'prior'))})"
                         f" do not add up to the input's {width} columns")
    if r["value_heads"] != 1 and r["value_heads"] != r["kinds"]:
        raise ValueError(f"value_heads must be 1 or one per role kind ({r['kinds']}), got {r['value_heads']}")
    if r["prior"]:
        weights = r["prior_weight"] if isinstance(r["prior_weight"], list) else [r["prior_weight"]]
        if not all(w > 0 for w in weights):
            raise ValueError(f"prior_weight must be positive, got {r['prior_weight']}")
        if isinstance(r["prior_weight"], list) and len(weights) != r["kinds"]:
            raise ValueError(f"a prior_weight per role kind needs a role one-hot of as many kinds: "
                             f"{len(weights)} weights, {r['kinds']} kind columns")
    return r


def zero_residual(*layers: nn.Module) -> None:
    """Start the residual at zero: the last layers' weights and biases are zeros, so
    the logits are the prior's alone until training moves them."""
    for m in layers:
        nn.init.zeros_(m.weight)
        if m.bias is not None:
            nn.init.zeros_(m.bias)


# ------------------------------------------------------------- the distribution
class LeanMaskableCategorical(MaskableCategorical):
    """sb3-contrib's masked categorical, normalising the masked logits with
    ``log_softmax`` instead of a second ``Categorical.__init__`` (``logsumexp``): the
    same distribution up to float rounding, at a fraction of the cost (module
    docstring)."""

    def apply_masking(self, masks) -> None:
        logits = self._original_logits  # normalised by Categorical.__init__
        self.__dict__.pop("probs", None)  # cached from other logits
        if masks is None:
            self.masks = None
        else:
            self.masks = th.as_tensor(masks, dtype=th.bool, device=logits.device).reshape(logits.shape)
            masked = th.where(self.masks, logits, th.tensor(-1e8, dtype=logits.dtype, device=logits.device))
            logits = th.log_softmax(masked, dim=-1)
        self.logits = self._param = logits


class LeanMaskableCategoricalDistribution(MaskableCategoricalDistribution):
    def proba_distribution(self, action_logits: th.Tensor):
        self.distribution = LeanMaskableCategorical(logits=action_logits.view(-1, self.action_dim))
        return self


class LeanMaskablePolicy(MaskableActorCriticPolicy):
    """sb3-contrib's ``MlpPolicy`` (``MaskableActorCriticPolicy``) with the lean
    masked distribution; the base of every policy class here."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.action_dist = LeanMaskableCategoricalDistribution(int(self.action_space.n))


# ------------------------------------------------------------------ the MLP's input
class KeepColumns(BaseFeaturesExtractor):
    """The MLP's input: the observation entries the game may vary
    (``Game.varying_inputs``; ``columns=None``: all of them) and every column after
    the observation (the role one-hot, then ``critic_only`` columns of the opponent's
    class). Specter Ops' static map planes and absent players' planes are 62% of its
    2-player observation, and so of the first layers' cost. An extractor whose
    ``hide_critic_only`` is set (the actor's) reads the critic-only columns as zeros.
    ``source_columns``: the env already wrote only these entries of a ``source_size``
    observation (:func:`env_columns_for`).
    :func:`spyenvs.experiments.export.expand_first_layer` maps the first layer back
    onto full observations."""

    def __init__(self, observation_space, columns: list[int] | None, obs_size: int, critic_only: int = 0,
                 source_columns: list[int] | None = None, source_size: int | None = None):
        width = int(observation_space.shape[0])
        obs_columns = np.arange(obs_size) if columns is None else np.asarray(columns, np.int64)
        keep = np.r_[obs_columns, np.arange(obs_size, width)]
        super().__init__(observation_space, features_dim=int(keep.size))
        self.register_buffer("keep", th.as_tensor(keep, dtype=th.long))
        self.critic_only = int(critic_only)
        self.hide_critic_only = False
        self.source_columns = None if source_columns is None else np.asarray(source_columns, np.int64)
        self.source_size = source_size
        self.select = columns is not None  # else the input is read whole

    def forward(self, observations: th.Tensor) -> th.Tensor:
        x = observations.index_select(1, self.keep) if self.select else observations
        if self.hide_critic_only and self.critic_only:
            x = th.cat([x[:, : -self.critic_only], x.new_zeros(x.shape[0], self.critic_only)], dim=1)
        return x


class CriticInputPolicy(LeanMaskablePolicy):
    """SB3's MLP actor-critic with separate input extractors, where only the critic's
    reads the last ``critic_only`` columns (the class of opponent the learner faces:
    its value may depend on who it plays, its policy must not)."""

    def __init__(self, *args, **kwargs):
        kwargs["share_features_extractor"] = False
        super().__init__(*args, **kwargs)
        self.pi_features_extractor.hide_critic_only = True


# ------------------------------------------------------------------ the network
class BoardNet(nn.Module):
    """Trunk + heads over the flat learner input (observation, then the role one-hot).

    ``out`` is the number of outputs of the pooled head: the non-cell logits for an
    actor (with ``cell_head=True``), or 1 for a critic."""

    def __init__(self, in_dim: int, board_start: int, board_shape: tuple[int, int, int], channels: int,
                 dilations: tuple[int, ...], vec_hidden: tuple[int, ...], head_hidden: int, out: int,
                 cell_head: bool):
        super().__init__()
        planes, h, w = board_shape
        self.board_start, self.board_end = board_start, board_start + planes * h * w
        self.board_shape = board_shape
        self.vec_dim = in_dim - planes * h * w
        layers, d = [], self.vec_dim
        for n in vec_hidden:
            layers += [nn.Linear(d, n), nn.ReLU()]
            d = n
        self.vec_mlp = nn.Sequential(*layers)
        self.film = nn.Linear(d, channels)  # per-channel bias of the first conv from the vector part
        self.pos_bias = nn.Parameter(th.zeros(channels, h, w))
        convs, c = [], planes
        for dil in dilations:
            convs.append(nn.Conv2d(c, channels, 3, padding=dil, dilation=dil))
            c = channels
        self.convs = nn.ModuleList(convs)
        self.cell = nn.Conv2d(channels, 1, 1) if cell_head else None
        self.head = nn.Sequential(nn.Linear(2 * channels + d, head_hidden), nn.ReLU(), nn.Linear(head_hidden, out))

    def split(self, x: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        board = x[:, self.board_start:self.board_end].reshape(-1, *self.board_shape)
        vec = th.cat([x[:, :self.board_start], x[:, self.board_end:]], dim=1) if self.board_start else x[:, self.board_end:]
        return board, vec

    def trunk(self, x: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        board, vec = self.split(x)
        v = self.vec_mlp(vec)
        h = board
        for i, conv in enumerate(self.convs):
            h = conv(h)
            if i == 0:
                h = h + self.pos_bias + self.film(v)[:, :, None, None]
            h = th.relu(h)
        return h, v

    def pooled(self, h: th.Tensor, v: th.Tensor) -> th.Tensor:
        flat = h.flatten(2)
        return self.head(th.cat([flat.mean(2), flat.amax(2), v], dim=1))

    def logits(self, x: th.Tensor) -> th.Tensor:
        h, v = self.trunk(x)
        return th.cat([self.cell(h).flatten(1), self.pooled(h, v)], dim=1)


class OwnNetsPolicy(LeanMaskablePolicy):
    """A maskable actor-critic whose actor and critic are networks of their own
    (subclasses build them in ``_build`` and give ``_logits_values`` and
    ``_values``), in place of SB3's features extractor / MLP extractor / action net.
    ``forward``, ``evaluate_actions``, ``get_distribution`` and ``predict_values``
    keep their contracts, so rollouts, PPO updates, masks and behaviour cloning work
    as with the MLP policy."""

    #: the learner row's parts (:func:`row_parts`), set by the subclass before building
    row: dict[str, Any]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        weight = self.row["prior_weight"]
        # a weight per role kind: a buffer, so it follows the policy onto its device
        per_kind = th.tensor(weight, dtype=th.float32) if self.row["prior"] and isinstance(weight, list) else None
        self.register_buffer("prior_kind_weights", per_kind, persistent=False)

    def _input(self, obs) -> th.Tensor:
        return super(MaskableActorCriticPolicy, self).extract_features(obs, self.features_extractor).float()

    def _actor_input(self, x: th.Tensor) -> th.Tensor:
        return x if self.row["actor"] == x.shape[1] else x[:, : self.row["actor"]]

    def _critic_input(self, x: th.Tensor) -> th.Tensor:
        return x if self.row["critic"] == x.shape[1] else x[:, : self.row["critic"]]

    def _add_prior(self, logits: th.Tensor, x: th.Tensor) -> th.Tensor:
        """The actor's logits plus ``prior_weight`` times the prior's columns (with a
        weight per role kind, each row's kind's, picked by its role one-hot)."""
        r = self.row
        if not r["prior"]:
            return logits
        prior = x[:, r["critic"]:r["critic"] + r["prior"]]
        if self.prior_kind_weights is None:
            return logits + r["prior_weight"] * prior
        weight = x[:, r["obs"]:r["obs"] + r["kinds"]] @ self.prior_kind_weights
        return logits + weight[:, None] * prior

    def _pick_value(self, values: th.Tensor, x: th.Tensor) -> th.Tensor:
        """The value of each row's role kind, where the critic has a head per kind."""
        r = self.row
        if r["value_heads"] == 1:
            return values
        return (values * x[:, r["obs"]:r["obs"] + r["kinds"]]).sum(1, keepdim=True)

    def _logits_values(self, obs, need_values: bool = True) -> tuple[th.Tensor, th.Tensor | None]:
        raise NotImplementedError

    def _values(self, x: th.Tensor) -> th.Tensor:
        raise NotImplementedError

    def _distribution(self, logits: th.Tensor, action_masks):
        dist = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            dist.apply_masking(action_masks)
        return dist

    def forward(self, obs, deterministic: bool = False, action_masks=None):
        logits, values = self._logits_values(obs)
        dist = self._distribution(logits, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        log_prob = dist.log_prob(actions)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob

    def evaluate_actions(self, obs, actions, action_masks=None):
        logits, values = self._logits_values(obs)
        dist = self._distribution(logits, action_masks)
        return values, dist.log_prob(actions), dist.entropy()

    def get_distribution(self, obs, action_masks=None):
        return self._distribution(self._logits_values(obs, need_values=False)[0], action_masks)

    def predict_values(self, obs) -> th.Tensor:
        return self._values(self._input(obs))

    def _get_constructor_parameters(self) -> dict[str, Any]:
        # the own networks' arguments (``net_config``) in place of SB3's net_arch, so a
        # saved model rebuilds them
        data = super()._get_constructor_parameters()
        data.pop("net_arch", None)
        data.update(self.net_config)
        return data


def mlp(in_dim: int, hidden: tuple[int, ...], out: int, activation: type[nn.Module]) -> nn.Sequential:
    """Linear layers of ``hidden`` widths with ``activation`` between them, then a
    Linear layer to ``out``."""
    layers, d = [], in_dim
    for n in hidden:
        layers += [nn.Linear(d, n), activation()]
        d = n
    layers.append(nn.Linear(d, out))
    return nn.Sequential(*layers)


class RowMlpPolicy(OwnNetsPolicy):
    """SB3's MLP actor-critic (an actor and a critic MLP of ``hidden`` widths,
    orthogonal init) over a learner row of parts (``row``, module docstring): the
    actor reads the observation and role one-hot and adds the prior's columns to its
    logits (its last layer then starts at zero); the critic also reads the
    critic-only parts, with a value head per role kind where ``value_heads`` says so.
    ``source_columns``: the env wrote only these entries of a ``source_size``
    observation (:func:`env_columns_for`); the export maps the first layer back."""

    def __init__(self, observation_space, action_space, lr_schedule, row: dict | None = None,
                 hidden: tuple[int, ...] = (128, 128), activation: str = "tanh",
                 source_columns: list[int] | None = None, source_size: int | None = None, **kwargs):
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation must be tanh or relu, got {activation!r}")
        self.row = row_parts(row, int(observation_space.shape[0]))
        self.net_config = {"row": row, "hidden": tuple(int(n) for n in hidden), "activation": activation,
                           "source_columns": None if source_columns is None else [int(i) for i in source_columns],
                           "source_size": None if source_size is None else int(source_size)}
        if source_columns is not None and len(source_columns) != self.row["obs"]:
            raise ValueError(f"{len(source_columns)} source columns for a row of {self.row['obs']} observation entries")
        for k in ("net_arch", "activation_fn", "features_extractor_class", "features_extractor_kwargs",
                  "share_features_extractor"):
            kwargs.pop(k, None)
        super().__init__(observation_space, action_space, lr_schedule, net_arch=[], **kwargs)

    def _build(self, lr_schedule) -> None:
        c, r = self.net_config, self.row
        act = {"tanh": nn.Tanh, "relu": nn.ReLU}[c["activation"]]
        self.actor = mlp(r["actor"], c["hidden"], int(self.action_space.n), act)
        self.critic = mlp(r["critic"], c["hidden"], r["value_heads"], act)
        if self.ortho_init:  # SB3's scheme: sqrt(2) in the body, 0.01 for the logits, 1 for the value
            for m in self.modules():
                if isinstance(m, nn.Linear):
                    nn.init.orthogonal_(m.weight, gain=np.sqrt(2))
                    nn.init.zeros_(m.bias)
            nn.init.orthogonal_(self.actor[-1].weight, gain=0.01)
            nn.init.orthogonal_(self.critic[-1].weight, gain=1.0)
        if r["prior"]:
            zero_residual(self.actor[-1])
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _logits_values(self, obs, need_values: bool = True) -> tuple[th.Tensor, th.Tensor | None]:
        x = self._input(obs)
        logits = self._add_prior(self.actor(self._actor_input(x)), x)
        return logits, (self._values(x) if need_values else None)

    def _values(self, x: th.Tensor) -> th.Tensor:
        return self._pick_value(self.critic(self._critic_input(x)), x)


def privileged_board_columns(row: dict[str, Any], board_start: int, board_shape: tuple[int, int, int]) -> np.ndarray:
    """The critic's input columns reordered for a :class:`BoardNet` over every seat's
    board: the learner's board planes, then each other seat's (so they stack as
    channels), then everything else of the critic's part of the row in order."""
    planes, h, w = board_shape
    size, obs = planes * h * w, row["obs"]
    first = row["actor"] + row["opponent"]  # the other seats' observations start here
    boards = [np.arange(board_start, board_start + size)]
    boards += [first + k * obs + np.arange(board_start, board_start + size) for k in range(row["seats"])]
    board_cols = np.concatenate(boards)
    rest = np.setdiff1d(np.arange(row["critic"]), board_cols, assume_unique=True)
    return np.r_[board_cols, rest].astype(np.int64)


class BoardActorCriticPolicy(OwnNetsPolicy):
    """MaskablePPO policy with :class:`BoardNet` actor and critic (module docstring).
    With a ``row`` holding the other seats' observations the critic's trunk reads
    every seat's board planes, stacked as channels (:func:`privileged_board_columns`)."""

    def __init__(self, observation_space, action_space, lr_schedule, board_start: int = 0,
                 board_shape: tuple[int, int, int] = (19, 32, 23), cell_actions: int = 736,
                 channels: int = 16, dilations: tuple[int, ...] = (1, 2, 4, 8),
                 vec_hidden: tuple[int, ...] = (128, 128), head_hidden: int = 128, share_trunk: bool = False,
                 row: dict | None = None, **kwargs):
        self.row = row_parts(row, int(observation_space.shape[0]))
        if self.row["privileged"] and share_trunk:
            raise ValueError("share_trunk cannot go with a privileged critic: its trunk reads every seat's board")
        planes, h, w = board_shape
        if cell_actions != h * w:
            raise ValueError(f"cell_actions must be the board's {h}x{w} = {h * w} cells, got {cell_actions}")
        if action_space.n < cell_actions:
            raise ValueError(f"the action space has {action_space.n} actions, fewer than {cell_actions} cells")
        if self.row["actor"] < board_start + planes * h * w:
            raise ValueError(f"observation of {self.row['actor']} floats has no {board_shape} board at {board_start}")
        self.board_config = {"board_start": int(board_start), "board_shape": tuple(int(s) for s in board_shape),
                             "cell_actions": int(cell_actions), "channels": int(channels),
                             "dilations": tuple(int(d) for d in dilations), "vec_hidden": tuple(int(n) for n in vec_hidden),
                             "head_hidden": int(head_hidden), "share_trunk": bool(share_trunk)}
        self.net_config = dict(self.board_config, **({"row": row} if row is not None else {}))
        kwargs.pop("net_arch", None)
        kwargs.pop("share_features_extractor", None)
        super().__init__(observation_space, action_space, lr_schedule, net_arch=[], **kwargs)

    def _build(self, lr_schedule) -> None:
        c, r = self.board_config, self.row
        common = {"in_dim": r["actor"], "board_start": c["board_start"], "board_shape": c["board_shape"],
                  "channels": c["channels"], "dilations": c["dilations"], "vec_hidden": c["vec_hidden"],
                  "head_hidden": c["head_hidden"]}
        self.actor = BoardNet(out=int(self.action_space.n) - c["cell_actions"], cell_head=True, **common)
        self.register_buffer("critic_columns", None, persistent=False)
        heads = r["value_heads"]
        if c["share_trunk"]:
            self.value_head = nn.Sequential(nn.Linear(2 * c["channels"] + self.actor.film.in_features, c["head_hidden"]),
                                            nn.ReLU(), nn.Linear(c["head_hidden"], heads))
            self.critic = None
        elif r["privileged"]:
            planes, h, w = c["board_shape"]
            cols = privileged_board_columns(r, c["board_start"], c["board_shape"])
            self.critic_columns = th.as_tensor(cols)
            self.critic = BoardNet(**dict(common, in_dim=r["critic"], board_start=0,
                                          board_shape=(planes * (r["seats"] + 1), h, w)), out=heads, cell_head=False)
        else:
            self.critic = BoardNet(**dict(common, in_dim=r["critic"]), out=heads, cell_head=False)
        if self.ortho_init:
            self._init_weights()
        if r["prior"]:
            zero_residual(self.actor.cell, self.actor.head[-1])
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _init_weights(self) -> None:
        # SB3's scheme: orthogonal, gain sqrt(2) in the body, 0.01 for the logits, 1 for the value
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Conv2d)):
                nn.init.orthogonal_(m.weight, gain=np.sqrt(2))
                nn.init.zeros_(m.bias)
        nn.init.orthogonal_(self.actor.cell.weight, gain=0.01)
        nn.init.orthogonal_(self.actor.head[-1].weight, gain=0.01)
        last = self.value_head[-1] if self.critic is None else self.critic.head[-1]
        nn.init.orthogonal_(last.weight, gain=1.0)

    def _logits_values(self, obs, need_values: bool = True) -> tuple[th.Tensor, th.Tensor | None]:
        x = self._input(obs)
        h, v = self.actor.trunk(self._actor_input(x))
        logits = self._add_prior(th.cat([self.actor.cell(h).flatten(1), self.actor.pooled(h, v)], dim=1), x)
        if not need_values:
            return logits, None
        if self.critic is None:
            flat = h.flatten(2)
            values = self._pick_value(self.value_head(th.cat([flat.mean(2), flat.amax(2), v], dim=1)), x)
        else:
            values = self._values(x)
        return logits, values

    def _values(self, x: th.Tensor) -> th.Tensor:
        if self.critic is None:
            return self._logits_values(x)[1]
        xc = self._critic_input(x)
        if self.critic_columns is not None:
            xc = xc.index_select(1, self.critic_columns)
        return self._pick_value(self.critic.pooled(*self.critic.trunk(xc)), x)



# ------------------------------------------------------------ Unrest's card table
def card_table_spec(game) -> dict[str, Any] | None:
    """Where Unrest's card table is in ``game``'s observation (the blocks
    :class:`CardTableNet` reads, and the PLAY actions' hand slots); None for other
    games."""
    if game.info is None or game.info.net_input != "card_table":
        return None
    blocks = game.layout.blocks
    if any(name not in blocks for name in ("handle_location", "handle_type", "my_facedown_types", "row", "my_hand")):
        return None
    handles, locations = blocks["handle_location"].shape
    types = int(blocks["handle_type"].shape[1])
    positions, districts = blocks["row"].shape
    slots = int(blocks["my_hand"].shape[0])
    table = sorted(unrest_rules.PLAY_TABLES[slots])  # (action, face-up slot, face-down slots)
    first = table[0][0]
    if [a for a, *_ in table] != list(range(first, first + len(table))):
        raise ValueError("Unrest's PLAY actions are not one contiguous range")
    return {"location_start": int(blocks["handle_location"].start), "handles": int(handles),
            "locations": int(locations), "pending_slots": 3,
            "types": types, "known_starts": [int(blocks["handle_type"].start), int(blocks["my_facedown_types"].start)],
            "row_start": int(blocks["row"].start), "positions": int(positions), "districts": int(districts),
            "hand_start": int(blocks["my_hand"].start), "hand_slots": slots, "play_start": int(first),
            "play_phase_column": int(blocks["phase"].start) + unrest_rules.PLAY,
            "play_up": [r for _, r, _, _ in table], "play_down": [[i for _, _, i, _ in table], [j for *_, j in table]]}


class CardTableNet(nn.Module):
    """Unrest's actor or critic: an MLP (tanh) over the learner input and
    :func:`card_table_features`; an actor (``play_hidden > 0``) adds to each PLAY
    logit a score of the cards that play shows and hides (one tanh layer over the
    MLP's features and the face-up card's and all three cards' types), so the same
    cards score the same in any hand slot."""

    def __init__(self, in_dim: int, spec: dict[str, Any], hidden: tuple[int, ...], out: int, play_hidden: int = 0):
        super().__init__()
        self.spec = spec
        # the first layer in two parts, over the input and over the table, so the two are
        # never concatenated (a copy of the whole batch, and of its gradient)
        self.first_input = nn.Linear(in_dim, hidden[0])
        self.first_table = nn.Linear(card_table_width(spec), hidden[0], bias=False)
        layers, d = [nn.Tanh()], hidden[0]
        for n in hidden[1:]:
            layers += [nn.Linear(d, n), nn.Tanh()]
            d = n
        self.body = nn.Sequential(*layers)
        self.out = nn.Linear(d, out)
        self.play_hidden = int(play_hidden)
        if self.play_hidden:
            nt = spec["types"]
            self.play_context = nn.Linear(d, self.play_hidden)
            self.play_cards = nn.Linear(2 * nt, self.play_hidden, bias=False)
            self.play_out = nn.Linear(self.play_hidden, 1)
            shown, hidden = play_matrices(spec)
            self.register_buffer("play_shown", th.as_tensor(shown), persistent=False)
            self.register_buffer("play_hidden_slots", th.as_tensor(hidden), persistent=False)

    def forward(self, x: th.Tensor, table: th.Tensor | None = None) -> th.Tensor:
        """``table``: ``card_table_features(x)`` when the caller has it already."""
        if table is None:
            table = card_table_features(x, self.spec, th.cat)
        h = self.body(self.first_input(x) + self.first_table(table))
        y = self.out(h)
        if not self.play_hidden:
            return y
        # only rows deciding a PLAY get the head (a tenth of the rows; in the others the
        # PLAY actions are masked anyway); see card_table.play_scores
        rows = th.nonzero(x[:, self.spec["play_phase_column"]] > 0.5).squeeze(1)
        if rows.numel() == 0:
            return y
        w_up, w_all = self.play_cards.weight.T.split(self.spec["types"])
        scores = play_scores(x.index_select(0, rows), self.play_context(h.index_select(0, rows)),
                             w_up, w_all, self.play_out.weight.reshape(-1), self.play_out.bias,
                             self.spec, self.play_shown, self.play_hidden_slots, th.tanh)
        a0 = self.spec["play_start"]
        return y.index_add(0, rows, nn.functional.pad(scores, (a0, y.shape[1] - a0 - scores.shape[1])))


class CardTableActorCriticPolicy(OwnNetsPolicy):
    """MaskablePPO policy with :class:`CardTableNet` actor and critic (separate
    networks)."""

    def __init__(self, observation_space, action_space, lr_schedule, card_spec: dict[str, Any] | None = None,
                 hidden: tuple[int, ...] = (128, 128), play_hidden: int = 64, row: dict | None = None, **kwargs):
        if card_spec is None:
            raise ValueError("CardTableActorCriticPolicy needs the game's card_spec (nets.card_table_spec)")
        self.row = row_parts(row, int(observation_space.shape[0]))
        self.card_config = {"card_spec": card_spec, "hidden": tuple(int(n) for n in hidden),
                            "play_hidden": int(play_hidden)}
        self.net_config = dict(self.card_config, **({"row": row} if row is not None else {}))
        kwargs.pop("net_arch", None)
        kwargs.pop("activation_fn", None)
        super().__init__(observation_space, action_space, lr_schedule, net_arch=[], **kwargs)

    def _build(self, lr_schedule) -> None:
        c, r = self.card_config, self.row
        self.actor = CardTableNet(r["actor"], c["card_spec"], c["hidden"], int(self.action_space.n), c["play_hidden"])
        self.critic = CardTableNet(r["critic"], c["card_spec"], c["hidden"], r["value_heads"])
        if self.ortho_init:
            for m in self.modules():
                if isinstance(m, nn.Linear):
                    nn.init.orthogonal_(m.weight, gain=np.sqrt(2))
                    if m.bias is not None:
                        nn.init.zeros_(m.bias)
            for last in (self.actor.out, self.actor.play_out):
                nn.init.orthogonal_(last.weight, gain=0.01)
            nn.init.orthogonal_(self.critic.out.weight, gain=1.0)
        if r["prior"]:
            zero_residual(self.actor.out, self.actor.play_out)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _logits_values(self, obs, need_values: bool = True) -> tuple[th.Tensor, th.Tensor | None]:
        x = self._input(obs)
        table = card_table_features(x, self.card_config["card_spec"], th.cat)  # no weights: shared by both nets
        logits = self._add_prior(self.actor(self._actor_input(x), table), x)
        if not need_values:
            return logits, None
        return logits, self._pick_value(self.critic(self._critic_input(x), table), x)

    def _values(self, x: th.Tensor) -> th.Tensor:
        return self._pick_value(self.critic(self._critic_input(x)), x)
