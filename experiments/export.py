"""Export of trained SB3 policies to weights-only checkpoints and numpy players.

:func:`actor_weights` reads the actor MLP of an SB3 actor-critic policy as plain
``(W, b)`` layers (:func:`expand_first_layer` maps a :class:`~spyenvs.experiments.nets.KeepColumns`
first layer back onto full observations); :func:`export_actor` and
:func:`export_card_actor` do the same for the board net and the card-table net of
:mod:`spyenvs.experiments.nets`, :func:`row_mlp_weights` for the MLP of a learner row
of parts (:class:`~spyenvs.experiments.nets.RowMlpPolicy`). :func:`save_trained` and
:func:`inference_policy` are what a trainer calls for any architecture. Only the
actor is exported, over what every player reads (the observation, then the role
one-hot): never the critic, its critic-only inputs or a prior's columns (a prior is
named in the metadata the trainer passes, and computed by the player).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from torch import nn

from spyenvs.agents.checkpoint import save_arrays, save_policy
from spyenvs.agents.torch_policy import TorchPolicy
from spyenvs.experiments.nets import (
    ARCH,
    CARD_ARCH,
    BoardActorCriticPolicy,
    CardTableActorCriticPolicy,
    KeepColumns,
    RowMlpPolicy,
)


def actor_weights(policy, scale: tuple[np.ndarray, np.ndarray] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor MLP of an SB3 actor-critic policy as [(W, b), ...]. With ``scale``
    (low, inv) the network was trained on ``(obs - low) * inv``: that is folded into the
    first layer, so the exported actor reads raw observations like every other policy."""
    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)] + [policy.action_net]
    out = [(m.weight.detach().cpu().numpy().astype(np.float64), m.bias.detach().cpu().numpy().astype(np.float64))
           for m in layers]
    out[0] = (expand_first_layer(policy, out[0][0]), out[0][1])
    return _fold_scale(out, scale)


def _fold_scale(out: list[tuple[np.ndarray, np.ndarray]], scale) -> list[tuple[np.ndarray, np.ndarray]]:
    """float32 layers, the input scaling (low, inv) folded into the first one."""
    if scale is not None:
        low, inv = scale
        w, b = out[0]
        d = low.size
        b = b - w[:, :d] @ (low.astype(np.float64) * inv)
        w = w.copy()
        w[:, :d] *= inv.astype(np.float64)
        out[0] = (w, b)
    return [(w.astype(np.float32), b.astype(np.float32)) for w, b in out]


def row_mlp_weights(policy: RowMlpPolicy, scale: tuple[np.ndarray, np.ndarray] | None = None
                    ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor of a :class:`~spyenvs.experiments.nets.RowMlpPolicy` as [(W, b), ...]
    over the full observation and the role one-hot (the entries the env left out come
    back as zero columns; ``scale`` folded in as in :func:`actor_weights`)."""
    layers = [m for m in policy.actor if isinstance(m, nn.Linear)]
    out = [(m.weight.detach().cpu().numpy().astype(np.float64), m.bias.detach().cpu().numpy().astype(np.float64))
           for m in layers]
    c = policy.net_config
    if c["source_columns"] is not None:
        w0 = out[0][0]
        cols = np.asarray(c["source_columns"], np.int64)
        size = int(c["source_size"])
        full = np.zeros((w0.shape[0], size + w0.shape[1] - cols.size))
        full[:, cols] = w0[:, :cols.size]
        full[:, size:] = w0[:, cols.size:]
        out[0] = (full, out[0][1])
    return _fold_scale(out, scale)


def mlp_actor_weights(policy, scale=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The MLP actor of either MLP policy (SB3's, or a learner row's)."""
    if isinstance(policy, RowMlpPolicy):
        return row_mlp_weights(policy, scale)
    return actor_weights(policy, scale)


def expand_first_layer(policy, weight: np.ndarray) -> np.ndarray:
    """The first layer's weights over what an exported actor reads (the observation,
    then the role one-hot): columns a :class:`KeepColumns` extractor dropped come back
    as zeros, and critic-only columns (zero for the actor) are left out."""
    extractor = getattr(policy, "pi_features_extractor", None) or policy.features_extractor
    if not isinstance(extractor, KeepColumns):
        return weight
    width = int(policy.observation_space.shape[0]) - extractor.critic_only
    kept = extractor.keep.cpu().numpy()[: weight.shape[1] - extractor.critic_only]
    if extractor.source_columns is not None:  # the env wrote only these observation entries
        n = extractor.source_columns.size
        to_full = np.r_[extractor.source_columns, extractor.source_size + np.arange(width - n)]
        kept, width = to_full[kept], extractor.source_size + (width - n)
    full = np.zeros((weight.shape[0], width), weight.dtype)
    full[:, kept] = weight[:, : kept.size]
    return full



# ------------------------------------------------------------------ own networks
def export_actor(policy: BoardActorCriticPolicy, scale: tuple[np.ndarray, np.ndarray] | None = None
                 ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The actor of ``policy`` as (arrays, metadata) for
    :func:`spyenvs.agents.checkpoint.save_arrays`, read by
    :class:`spyenvs.agents.board_net.BoardActor`.

    With ``scale`` (low, inv) the net was trained on ``(obs - low) * inv``: the vector
    part of that is folded into the first vector layer; the board part, when it is
    not the identity (Specter Ops' planes are already in [0, 1]), ships as
    ``board_low``/``board_inv``. The exported actor reads raw observations."""
    net = policy.actor
    c = policy.board_config
    arrays: dict[str, np.ndarray] = {}

    def put(name: str, t) -> None:
        arrays[name] = t.detach().cpu().numpy().astype(np.float32)

    lins = [m for m in net.vec_mlp if isinstance(m, nn.Linear)]
    for i, m in enumerate(lins):
        put(f"vec{i}.w", m.weight)
        put(f"vec{i}.b", m.bias)
    put("film.w", net.film.weight)
    put("film.b", net.film.bias)
    put("pos_bias", net.pos_bias)
    for i, conv in enumerate(net.convs):
        put(f"conv{i}.w", conv.weight)
        put(f"conv{i}.b", conv.bias)
    put("cell.w", net.cell.weight.reshape(-1))
    put("cell.b", net.cell.bias)
    heads = [m for m in net.head if isinstance(m, nn.Linear)]
    for i, m in enumerate(heads):
        put(f"head{i}.w", m.weight)
        put(f"head{i}.b", m.bias)
    planes, h, w = c["board_shape"]
    start, end = c["board_start"], c["board_start"] + planes * h * w
    if scale is not None:
        low, inv = (np.asarray(a, np.float64) for a in scale)
        obs_dim = low.size
        vec_obs = np.r_[np.arange(start), np.arange(end, obs_dim)]  # vector inputs that come from the obs
        w0 = arrays["vec0.w"].astype(np.float64)
        cols = np.arange(vec_obs.size)  # their columns in vec0 (the role one-hot follows them)
        b0 = arrays["vec0.b"].astype(np.float64) - w0[:, cols] @ (low[vec_obs] * inv[vec_obs])
        w0[:, cols] *= inv[vec_obs]
        arrays["vec0.w"], arrays["vec0.b"] = w0.astype(np.float32), b0.astype(np.float32)
        if not (np.all(low[start:end] == 0) and np.all(inv[start:end] == 1)):
            arrays["board_low"] = low[start:end].astype(np.float32)
            arrays["board_inv"] = inv[start:end].astype(np.float32)
    meta = {"arch": ARCH, "activation": "relu", "board_start": start, "board_shape": [planes, h, w],
            "cell_actions": c["cell_actions"], "dilations": list(c["dilations"]), "vec_layers": len(lins),
            "head_layers": len(heads)}
    return arrays, meta


def export_card_actor(policy: CardTableActorCriticPolicy, scale: tuple[np.ndarray, np.ndarray] | None = None
                      ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The actor of a card-table policy as (arrays, metadata), read by
    :class:`spyenvs.agents.card_table.CardTableActor`. The net reads its card blocks
    from the scaled input, so ``scale`` ships as ``in_low``/``in_inv`` (the
    observation's part) rather than folded into the first layer."""
    net = policy.actor
    arrays: dict[str, np.ndarray] = {}

    def put(name: str, t) -> None:
        arrays[name] = t.detach().cpu().numpy().astype(np.float32)

    # the numpy actor reads one first layer over (input, table)
    lins = [(th.cat([net.first_input.weight, net.first_table.weight], 1), net.first_input.bias)]
    lins += [(m.weight, m.bias) for m in net.body if isinstance(m, nn.Linear)]
    for i, (w, b) in enumerate(lins):
        put(f"body{i}.w", w)
        put(f"body{i}.b", b)
    put("out.w", net.out.weight)
    put("out.b", net.out.bias)
    put("play_context.w", net.play_context.weight)
    put("play_context.b", net.play_context.bias)
    put("play_cards.w", net.play_cards.weight)
    put("play_out.w", net.play_out.weight)
    put("play_out.b", net.play_out.bias)
    if scale is not None:
        arrays["in_low"] = np.asarray(scale[0], np.float32)
        arrays["in_inv"] = np.asarray(scale[1], np.float32)
    meta = {"arch": CARD_ARCH, "activation": "tanh", "card_spec": net.spec, "body_layers": len(lins)}
    return arrays, meta


def _export(policy, scale) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    """(arrays, metadata) of an own-network policy's actor; None for the MLP."""
    if isinstance(policy, BoardActorCriticPolicy):
        return export_actor(policy, scale)
    if isinstance(policy, CardTableActorCriticPolicy):
        return export_card_actor(policy, scale)
    return None


def save_trained(path: str, policy, scale, meta: dict, dtype: str = "float32") -> None:
    """Write the actor of a trained SB3 policy of either architecture as a checkpoint
    (``meta``: the trainer's metadata: env_id, roles, role_kinds, obs_dim ...)."""
    exported = _export(policy, scale)
    if exported is not None:
        arrays, extra = exported
        save_arrays(path, arrays, dict(meta, **extra), dtype=dtype)
    else:
        save_policy(path, mlp_actor_weights(policy, scale), meta, half=dtype == "float16")


def inference_policy(policy, scale, meta: dict, deterministic: bool = True, name: str | None = None):
    """The numpy player (:class:`~spyenvs.agents.torch_policy.TorchPolicy`, of any
    architecture) of a trained SB3 policy's actor."""
    exported = _export(policy, scale)
    if exported is not None:
        arrays, extra = exported
        return TorchPolicy(arrays, dict(meta, **extra), deterministic=deterministic, name=name)
    return TorchPolicy(mlp_actor_weights(policy, scale), meta, deterministic=deterministic, name=name)
