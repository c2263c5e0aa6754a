"""Policy checkpoints that load without executing code.

A checkpoint holds the actor network of a trained policy (an MLP over the
learner's input: the observation, then a one-hot of the role kind when the game has
several) and a JSON metadata string. Two containers, same content:

* ``.pt``: ``torch.save`` of a plain dict of tensors and strings, read back with
  ``torch.load(..., weights_only=True)`` (no pickled code is ever run);
* ``.npz``: ``numpy.savez`` read with ``allow_pickle=False`` (no torch needed).

Metadata keys: ``format`` (always ``spyenvs-policy``), ``version``, ``env_id``,
``config``, ``roles``, ``role_kinds``, ``obs_dim``, ``num_actions``,
``activation`` and ``layers`` (the number of Linear layers, weights ``w0..`` and
biases ``b0..``), plus free-form ``info`` (timesteps, wall time ...). Optional
``prior`` (``{"kind": "heuristic", "weight": w}``): the network is a residual over the
game's heuristic's action scores, which the player computes (package code, never
stored; see :mod:`spyenvs.agents.prior`).

``arch`` names the network; absent means the MLP above (the default format, written
by :func:`save_policy`, read by :func:`load_policy`). Other architectures
(``board_cnn``: the board net of :mod:`spyenvs.agents.board_net`; ``card_table``:
Unrest's net of :mod:`spyenvs.agents.card_table`) are written with :func:`save_arrays`
and read with :func:`read_checkpoint` as named arrays; each architecture's actor
checks its own arrays (:func:`checked_actor`). Arrays may be stored as float16 (half
the file) and always load as float32.

This module owns the file format, the MLP's layer layout and the errors a file can
raise; it evaluates no network.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

FORMAT = "spyenvs-policy"
VERSION = 1
ACTIVATIONS = ("tanh", "relu")
DTYPES = ("float32", "float16")


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt, or not a spyenvs policy."""


def save_policy(path: str | os.PathLike, weights: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any],
                half: bool = False) -> None:
    """Write MLP ``weights`` ([(W[out,in], b[out]) per Linear layer]) and ``meta``.
    ``half`` stores float16: half the size of a shipped policy for a rounding error far
    below what changes a chosen action; it loads as float32."""
    meta = dict(meta, layers=len(weights))
    meta.pop("arch", None)
    if meta.get("activation") not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {meta.get('activation')!r}")
    arrays = {}
    for i, (w, b) in enumerate(weights):
        arrays[f"w{i}"] = w
        arrays[f"b{i}"] = b
    save_arrays(path, arrays, meta, dtype="float16" if half else "float32")


def save_arrays(path: str | os.PathLike, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                dtype: str = "float32") -> None:
    """Write named float arrays and ``meta`` (``.npz`` or else torch ``.pt``);
    ``dtype`` float16 halves the file (and an ``.npz`` is then also compressed)."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    if "__meta__" in arrays:
        raise ValueError("'__meta__' is reserved for the metadata")
    meta = dict(meta, format=FORMAT, version=VERSION)
    arrays = {k: np.ascontiguousarray(v, dtype=dtype) for k, v in arrays.items()}
    path = os.fspath(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    if path.endswith(".npz"):
        with open(tmp, "wb") as f:
            save = np.savez_compressed if dtype == "float16" else np.savez
            save(f, __meta__=np.array(json.dumps(meta)), **arrays)
    else:
        import torch

        torch.save({"__meta__": json.dumps(meta), **{k: torch.from_numpy(v) for k, v in arrays.items()}}, tmp)
    os.replace(tmp, path)


def read_checkpoint(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(named float32 arrays, meta) of a checkpoint of any architecture; raises
    :class:`CheckpointError` with the reason for anything that is not a readable
    spyenvs policy."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        if path.endswith(".npz"):
            with np.load(path, allow_pickle=False) as z:
                raw = {k: z[k] for k in z.files}
            meta_text = str(raw.pop("__meta__")) if "__meta__" in raw else None
        else:
            import torch

            raw = torch.load(path, map_location="cpu", weights_only=True)
            if not isinstance(raw, dict):
                raise CheckpointError(f"{path}: not a spyenvs policy checkpoint (a {type(raw).__name__}, not a dict)")
            raw = dict(raw)
            meta_text = raw.pop("__meta__", None)
            raw = {k: v.numpy() if hasattr(v, "numpy") else v for k, v in raw.items()}
    except CheckpointError:
        raise
    except Exception as exc:  # torch/numpy raise many types for corrupt or unsafe files
        raise CheckpointError(f"{path}: cannot read as a spyenvs policy checkpoint ({type(exc).__name__}: {exc})") from exc
    if not isinstance(meta_text, str):
        raise CheckpointError(f"{path}: not a spyenvs policy checkpoint (no metadata; a foreign file?)")
    try:
        meta = json.loads(meta_text)
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"{path}: corrupt checkpoint metadata ({exc})") from exc
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a spyenvs policy checkpoint (format {meta.get('format') if isinstance(meta, dict) else None!r})")
    if meta.get("version") != VERSION:
        raise CheckpointError(f"{path}: checkpoint version {meta.get('version')!r} not supported (this code reads {VERSION})")
    try:
        raw = {k: np.asarray(v, np.float32) for k, v in raw.items()}
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: checkpoint holds a non-numeric entry ({exc})") from exc
    return raw, meta


def stored_dtype(path: str | os.PathLike) -> str:
    """``float16`` when a checkpoint stores every array in half precision (a shipped
    file), else ``float32``; :func:`read_checkpoint` gives float32 either way."""
    path = os.fspath(path)
    if path.endswith(".npz"):
        with np.load(path, allow_pickle=False) as z:
            kinds = {z[k].dtype for k in z.files if k != "__meta__"}
    else:
        import torch

        kinds = {v.numpy().dtype for k, v in torch.load(path, map_location="cpu", weights_only=True).items()
                 if k != "__meta__"}
    return "float16" if kinds == {np.dtype(np.float16)} else "float32"


def load_policy(path: str | os.PathLike) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, Any]]:
    """(weights, meta) of an MLP checkpoint; raises :class:`CheckpointError` with the
    reason for anything that is not a readable spyenvs MLP policy."""
    raw, meta = read_checkpoint(path)
    return mlp_weights(raw, meta, os.fspath(path)), meta


def input_dim(meta: dict[str, Any]) -> int:
    """The width of the learner input a checkpoint's network reads: the observation,
    then the role-kind one-hot when there are several kinds."""
    kinds = len(meta["role_kinds"])
    return int(meta["obs_dim"]) + (kinds if kinds > 1 else 0)


def mlp_weights(raw: dict[str, np.ndarray], meta: dict[str, Any], path: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The checked [(W, b), ...] of an MLP checkpoint's arrays (the layout
    :func:`save_policy` writes)."""
    arch = meta.get("arch", "mlp")
    if arch != "mlp":
        raise CheckpointError(f"{path}: a {arch!r} checkpoint, not an MLP (load it with TorchPolicy.load)")
    weights = []
    try:
        for i in range(int(meta["layers"])):
            weights.append((np.asarray(raw[f"w{i}"], np.float32), np.asarray(raw[f"b{i}"], np.float32)))
        dim = input_dim(meta)
        for w, b in weights:
            if w.ndim != 2 or w.shape[1] != dim or b.shape != (w.shape[0],):
                raise CheckpointError(f"{path}: layer shapes do not chain (input {dim}, weight {w.shape})")
            dim = w.shape[0]
        if dim != int(meta["num_actions"]):
            raise CheckpointError(f"{path}: output size {dim} != num_actions {meta['num_actions']}")
    except KeyError as exc:
        raise CheckpointError(f"{path}: checkpoint lacks {exc}") from exc
    return weights


def checked_actor(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any], path: str):
    """``cls(arrays, meta)``, an actor of named arrays, after its ``check(in_dim,
    num_actions)``; a missing array or key, or shapes that do not chain, raise a
    one-line :class:`CheckpointError` naming ``path`` and the architecture."""
    arch = meta.get("arch")
    try:
        actor = cls(arrays, meta)
        actor.check(input_dim(meta), int(meta["num_actions"]))
    except KeyError as exc:
        raise CheckpointError(f"{path}: {arch} checkpoint lacks {exc}") from exc
    except (ValueError, TypeError, IndexError) as exc:
        raise CheckpointError(f"{path}: malformed {arch} checkpoint ({exc})") from exc
    return actor
