"""The numpy actor of the board network (``arch: board_cnn``): :class:`BoardActor`
checks a checkpoint's arrays and computes the logits.

The network is the actor of :class:`spyenvs.experiments.nets.BoardActorCriticPolicy`:
a convolutional trunk over the board planes (3x3, dilated, ReLU; a learned per-cell
bias and a per-channel bias from the vector inputs at the first layer), an MLP over
the vector inputs (everything but the board, then the role-kind one-hot), one logit
per cell from a 1x1 convolution (actions ``0 .. H*W-1``) and a linear head over the
pooled trunk and the MLP for the other actions.

Convolutions run channels-last as nine matrix products per layer, one per 3x3 tap,
each over a contiguous shifted slice of the padded, row-flattened input, so no torch
is needed. The policy around it (masking, sampling, role kinds, batching) is
:class:`~spyenvs.agents.torch_policy.TorchPolicy`, which picks this actor for
``board_cnn`` files.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .checkpoint import checked_actor


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


class BoardActor:
    """The numpy forward pass of a ``board_cnn`` actor (arrays as
    :func:`spyenvs.experiments.export.export_actor` writes them)."""

    arch = "board_cnn"

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]):
        f32 = np.float32
        planes, h, w = (int(s) for s in meta["board_shape"])
        self.planes, self.h, self.w = planes, h, w
        self.start = int(meta["board_start"])
        self.end = self.start + planes * h * w
        self.vec = [(np.ascontiguousarray(arrays[f"vec{i}.w"].T, f32), arrays[f"vec{i}.b"].astype(f32))
                    for i in range(int(meta["vec_layers"]))]
        self.film = (np.ascontiguousarray(arrays["film.w"].T, f32), arrays["film.b"].astype(f32))
        self.pos = np.ascontiguousarray(arrays["pos_bias"].transpose(1, 2, 0), f32)  # (H, W, C)
        self.convs = []
        for i, d in enumerate(meta["dilations"]):
            wt = arrays[f"conv{i}.w"]  # (out, in, 3, 3) -> rows ordered (ky, kx, in)
            self.convs.append((np.ascontiguousarray(wt.transpose(2, 3, 1, 0).reshape(9 * wt.shape[1], wt.shape[0]), f32),
                               arrays[f"conv{i}.b"].astype(f32), int(d)))
        self.cell = (arrays["cell.w"].astype(f32), f32(arrays["cell.b"].reshape(-1)[0]))
        self.heads = [(np.ascontiguousarray(arrays[f"head{i}.w"].T, f32), arrays[f"head{i}.b"].astype(f32))
                      for i in range(int(meta["head_layers"]))]
        self.board_scale = ((arrays["board_low"].astype(f32), arrays["board_inv"].astype(f32))
                            if "board_low" in arrays else None)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any], path: str = "checkpoint") -> BoardActor:
        """The actor of a checkpoint's arrays, checked (a malformed file raises
        :class:`~spyenvs.agents.checkpoint.CheckpointError`)."""
        return checked_actor(cls, arrays, meta, path)

    def check(self, in_dim: int, num_actions: int) -> None:
        """Raise ValueError unless the shapes chain from ``in_dim`` inputs to
        ``num_actions`` logits."""
        d = in_dim - (self.end - self.start)
        for wt, b in self.vec:
            if wt.shape[0] != d or b.shape != (wt.shape[1],):
                raise ValueError(f"vector layer expects {wt.shape[0]} inputs, gets {d}")
            d = wt.shape[1]
        c = self.film[0].shape[1]
        if self.film[0].shape[0] != d or self.film[1].shape != (c,) or self.pos.shape != (self.h, self.w, c):
            raise ValueError("film / pos_bias shapes do not match the vector features and channels")
        cin = self.planes
        for wm, b, dil in self.convs:
            if wm.shape != (9 * cin, c) or b.shape != (c,) or dil < 1:
                raise ValueError(f"conv layer {wm.shape} does not chain ({cin} -> {c} channels)")
            cin = c
        if not self.convs or self.cell[0].shape != (c,):
            raise ValueError("cell head does not match the trunk's channels")
        d = 2 * c + d
        for wt, b in self.heads:
            if wt.shape[0] != d or b.shape != (wt.shape[1],):
                raise ValueError(f"head layer expects {wt.shape[0]} inputs, gets {d}")
            d = wt.shape[1]
        if self.h * self.w + d != num_actions:
            raise ValueError(f"{self.h * self.w} cell + {d} other logits != num_actions {num_actions}")
        if self.board_scale is not None and any(a.shape != (self.end - self.start,) for a in self.board_scale):
            raise ValueError("board_low / board_inv do not match the board")

    @staticmethod
    def conv3x3(x: np.ndarray, wm: np.ndarray, b: np.ndarray, d: int) -> np.ndarray:
        """'same' 3x3 convolution with dilation ``d`` of channels-last ``x`` (B, H, W, C).

        The input is zero-padded and its rows flattened, so each of the nine taps reads
        one contiguous slice (shifted by ``(i * Wp + j) * d``) and costs one matrix
        product; the padding columns of the result are dropped at the end."""
        n, h, w, c = x.shape
        hp, wp = h + 2 * d, w + 2 * d
        xp = np.zeros((n, hp * wp + 2 * d, c), np.float32)  # 2d spare cells: the last tap's slice
        xp[:, :hp * wp].reshape(n, hp, wp, c)[:, d:d + h, d:d + w] = x
        span = h * wp
        taps = wm.reshape(9, c, -1)
        out = np.matmul(xp[:, :span], taps[0])
        tmp = np.empty_like(out)
        for k in range(1, 9):
            i, j = divmod(k, 3)
            o = (i * wp + j) * d
            out += np.matmul(xp[:, o:o + span], taps[k], out=tmp)
        out += b
        return out.reshape(n, h, wp, -1)[:, :, :w]

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Logits for the learner input ``x`` (D,) or (B, D)."""
        single = x.ndim == 1
        x = np.asarray(x, np.float32).reshape(-1, x.shape[-1])
        n = x.shape[0]
        board = x[:, self.start:self.end]
        if self.board_scale is not None:
            board = (board - self.board_scale[0]) * self.board_scale[1]
        h = board.reshape(n, self.planes, self.h, self.w).transpose(0, 2, 3, 1)
        v = np.concatenate([x[:, :self.start], x[:, self.end:]], axis=1) if self.start else x[:, self.end:]
        for wt, b in self.vec:
            v = _relu(v @ wt + b)
        for i, (wm, b, d) in enumerate(self.convs):
            h = self.conv3x3(h, wm, b, d)
            if i == 0:
                h += self.pos
                h += (v @ self.film[0] + self.film[1])[:, None, None, :]
            _relu(h)
        flat = h.reshape(n, self.h * self.w, -1)
        cells = flat @ self.cell[0] + self.cell[1]
        z = np.concatenate([flat.mean(axis=1), flat.max(axis=1), v], axis=1)
        last = len(self.heads) - 1
        for i, (wt, b) in enumerate(self.heads):
            z = z @ wt + b
            if i < last:
                _relu(z)
        out = np.concatenate([cells, z], axis=1)
        return out[0] if single else out
