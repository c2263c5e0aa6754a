"""Unrest's card-table network (``arch: card_table``): its input features, and the
numpy forward pass of a trained actor.

The flat observation spreads who holds which card over three blocks (each handle's
location, each face-up handle's type, the Rebel's own face-down types); an MLP
would have to learn their product itself. :func:`card_table_features` computes it:
the known card types in each row position's district and in each pending slot, and
the number of cards per position. The actor adds to each PLAY logit a score of the
cards that play shows and hides (:func:`play_scores`), so the same cards score the
same in any hand slot.
The trainer's torch module is :class:`spyenvs.experiments.nets.CardTableNet`; both
call :func:`card_table_features` and :func:`play_scores`, so they cannot drift apart.
:class:`CardTableActor` checks a checkpoint's arrays and computes the logits in numpy;
the policy around it is :class:`~spyenvs.agents.torch_policy.TorchPolicy`, which picks
this actor for ``card_table`` files.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .checkpoint import checked_actor


def card_table_width(spec: dict[str, Any]) -> int:
    """How many features :func:`card_table_features` adds."""
    return (spec["positions"] + spec["pending_slots"]) * spec["types"] + spec["positions"]


def card_table_features(x, spec: dict[str, Any], cat: Callable = np.concatenate):
    """The card table of learner inputs ``x`` (B, D): known card types per row
    position and per pending slot, and cards per position / 6 (module docstring).
    Works on numpy arrays and, with ``cat=torch.cat``, on torch tensors."""
    b, nh, nl, nt = x.shape[0], spec["handles"], spec["locations"], spec["types"]
    ls = spec["location_start"]
    loc = x[:, ls:ls + nh * nl].reshape(b, nh, nl)
    k0, k1 = spec["known_starts"]
    known = x[:, k0:k0 + nh * nt].reshape(b, nh, nt) + x[:, k1:k1 + nh * nt].reshape(b, nh, nt)
    npos, nd = spec["positions"], spec["districts"]
    rs = spec["row_start"]
    row = x[:, rs:rs + npos * nd].reshape(b, npos, nd)  # position x district id
    by_location = loc.swapaxes(1, 2) @ known  # (B, locations, types)
    ps = spec["pending_slots"]  # locations: the pending slots, then the districts by id
    at_position = row @ by_location[:, ps:ps + nd]
    count_at_position = (row @ loc.sum(1)[:, ps:ps + nd, None])[:, :, 0] / 6.0
    return cat([at_position.reshape(b, -1), by_location[:, :ps].reshape(b, -1), count_at_position], 1)


def play_matrices(spec: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(shown, hidden): 0/1 matrices (plays x hand slots) of the slot each play shows
    and the two slots it hides."""
    up, down = np.asarray(spec["play_up"]), np.asarray(spec["play_down"])
    shown = np.zeros((up.size, spec["hand_slots"]), np.float32)
    hidden = np.zeros_like(shown)
    shown[np.arange(up.size), up] = 1.0
    for slots in down:
        hidden[np.arange(up.size), slots] += 1.0
    return shown, hidden


def play_scores(x, context, w_up, w_all, w_out, b_out, spec: dict[str, Any], shown, hidden, tanh):
    """The PLAY head's score of each play for rows ``x`` deciding a PLAY:
    ``w_out . tanh(context + up @ w_up + (up + down_1 + down_2) @ w_all) + b_out``,
    where ``up`` and ``down_k`` are the type one-hots of the hand slots the play shows
    and hides. Each hand slot is projected once, and the :func:`play_matrices`
    ``shown`` and ``hidden`` sum the projections per play (the same sum as projecting
    each play's cards, with 6x fewer products). Works on numpy arrays
    (``tanh=np.tanh``) and torch tensors (``torch.tanh``)."""
    hs, n, nt = spec["hand_start"], spec["hand_slots"], spec["types"]
    hand = x[:, hs:hs + n * nt].reshape(-1, n, nt)
    face_up = hand @ (w_up + w_all)   # (rows, slots, hidden): a slot's card shown
    face_down = hand @ w_all          # ... and hidden
    f = tanh(context[:, None, :] + shown @ face_up + hidden @ face_down)
    return f @ w_out + b_out


class CardTableActor:
    """The numpy forward pass of a ``card_table`` actor (arrays as
    :func:`spyenvs.experiments.export.export_card_actor` writes them)."""

    arch = "card_table"

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]):
        f32 = np.float32
        self.spec = meta["card_spec"]
        self.body = [(np.ascontiguousarray(arrays[f"body{i}.w"].T, f32), arrays[f"body{i}.b"].astype(f32))
                     for i in range(int(meta["body_layers"]))]
        self.out = (np.ascontiguousarray(arrays["out.w"].T, f32), arrays["out.b"].astype(f32))
        self.play_context = (np.ascontiguousarray(arrays["play_context.w"].T, f32),
                             arrays["play_context.b"].astype(f32))
        self.play_cards = np.ascontiguousarray(arrays["play_cards.w"].T, f32)
        self.play_out = (arrays["play_out.w"].reshape(-1).astype(f32), f32(arrays["play_out.b"].reshape(-1)[0]))
        self.scale = ((arrays["in_low"].astype(f32), arrays["in_inv"].astype(f32))
                      if "in_low" in arrays else None)
        self.play_up = np.asarray(self.spec["play_up"], np.int64)
        self.play_down = np.asarray(self.spec["play_down"], np.int64)
        self.shown, self.hidden = play_matrices(self.spec)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                    path: str = "checkpoint") -> CardTableActor:
        """The actor of a checkpoint's arrays, checked (a malformed file raises
        :class:`~spyenvs.agents.checkpoint.CheckpointError`)."""
        return checked_actor(cls, arrays, meta, path)

    def check(self, in_dim: int, num_actions: int) -> None:
        """Raise ValueError unless the shapes chain from ``in_dim`` inputs to
        ``num_actions`` logits."""
        d = in_dim + card_table_width(self.spec)
        for wt, b in self.body:
            if wt.shape[0] != d or b.shape != (wt.shape[1],):
                raise ValueError(f"body layer expects {wt.shape[0]} inputs, gets {d}")
            d = wt.shape[1]
        if self.out[0].shape != (d, num_actions) or self.out[1].shape != (num_actions,):
            raise ValueError(f"output layer {self.out[0].shape} is not {d} -> {num_actions} logits")
        k = self.play_cards.shape[1]
        if (self.play_context[0].shape != (d, k) or self.play_cards.shape[0] != 2 * self.spec["types"]
                or self.play_out[0].shape != (k,)):
            raise ValueError("the PLAY head's shapes do not chain")
        if self.play_up.shape != self.play_down[0].shape or self.spec["play_start"] + self.play_up.size > num_actions:
            raise ValueError("the PLAY actions do not fit the action space")
        if self.scale is not None and any(a.ndim != 1 or a.size > in_dim for a in self.scale):
            raise ValueError("in_low / in_inv do not match the input")

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Logits for the learner input ``x`` (D,) or (B, D): the raw observation,
        then the role-kind one-hot. The MLP reads the scaled input and its card
        table; the PLAY head then adds to the PLAY logits of the rows deciding a PLAY."""
        single = x.ndim == 1
        x = np.array(x, np.float32).reshape(-1, x.shape[-1])
        if self.scale is not None:
            n = self.scale[0].size
            x[:, :n] = (x[:, :n] - self.scale[0]) * self.scale[1]
        spec = self.spec
        h = np.concatenate([x, card_table_features(x, spec)], 1)
        for wt, b in self.body:
            h = np.tanh(h @ wt + b)
        y = h @ self.out[0] + self.out[1]
        rows = np.flatnonzero(x[:, spec["play_phase_column"]] > 0.5)
        if len(rows):
            nt, a0 = spec["types"], spec["play_start"]
            scores = play_scores(x[rows], h[rows] @ self.play_context[0] + self.play_context[1],
                                 self.play_cards[:nt], self.play_cards[nt:], self.play_out[0], self.play_out[1],
                                 spec, self.shown, self.hidden, np.tanh)
            y[rows, a0:a0 + scores.shape[1]] += scores
        return y[0] if single else y
