"""Warm start for self-play: behaviour cloning from a teacher's games, and the cloning
term that keeps PPO fine-tuning from forgetting it.

The trainer starts from a cloned policy: :func:`collect_demonstrations` plays teacher
games (the teacher in every seat, and the teacher in the learner's seat against random
players so the states a random opponent leads to are covered too; or, with
``warm_start.opponent``, the teacher in one learner seat against that policy) and records
the teacher's decisions in the learner's role kinds (with ``warm_start.targets: visits``
also a search teacher's visit shares: expert iteration); :func:`behaviour_clone` fits
the actor to them (masked cross-entropy) and the critic to the discounted outcomes.
During PPO, :class:`CloneRegulariser` takes a few cloning steps after every update,
with a weight that decays to zero over ``decay_steps``, so the policy leaves the
teacher only as fast as the reward pulls it away.

Observations are recorded as the training env sees them (scaled, with the role-kind
one-hot, and the opponent's class, the other seats' observations and the prior's
columns where the run has them), through the same :func:`encode` the vectorised env uses.
A policy over a prior (``net.prior``) already plays the teacher: the trainer then
clones the critic alone (``behaviour_clone(..., actor=False)``). With a macro
(``macro``, :mod:`spyenvs.agents.macros`) the recorded seats play as the learner will:
the macro's plan moves are played and not recorded, and at the macro's decisions the
label is the teacher's choice in the macro's terms (for the Specter Ops destination,
where the teacher's own walk would end the turn), recorded with the macro's mask.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np
import torch

from spyenvs.agents.policy import RandomPolicy, role_kind
from spyenvs.agents.torch_policy import policy_input
from spyenvs.experiments.lean_sb3 import LeanAdam
from spyenvs.wrappers.selfplay import opponent_class_bits


def encode(obs: np.ndarray, kind_index: int, n_kinds: int, scale: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """The learner's input for one raw observation: scaled to [0, 1] by the layout's
    bounds (when ``scale`` is given) and followed by the role-kind one-hot."""
    x = (obs - scale[0]) * scale[1] if scale is not None else obs
    return policy_input(x.astype(np.float32, copy=False), kind_index, n_kinds)


def collect_demonstrations(make_game: Callable[[], Any], teacher, games: int, seed: int, learner_kinds: list[str],
                           kinds: list[str], scale, gamma: float = 0.997, max_decisions: int = 3000,
                           progress: Callable[[int], None] | None = None,
                           opponent_classes: tuple[str, ...] = (),
                           columns: np.ndarray | None = None, student=None, privileged: bool = False,
                           prior=None, macro=None, first: int = 0, opponent=None,
                           visits: bool = False) -> dict[str, np.ndarray]:
    """Teacher decisions with more than one legal action in ``learner_kinds`` seats.

    Even games put the teacher in every seat; odd games put it in one learner seat
    (rotating) against random players. With ``opponent`` (a policy template) every
    game puts the teacher in one learner seat (rotating) against it. ``visits``: also
    return ``targets``, the search teacher's share of root visits per move
    (``last_visits``), for expert iteration's cloning. With ``student`` (DAgger) the
    student plays the recorded seats instead, and the teacher, bound to the same seat,
    only labels what it would have played there. Returns arrays ``obs``, ``masks``
    (bool), ``actions`` and ``returns`` (the seat's outcome discounted by its remaining
    decisions). With ``opponent_classes`` each row ends with the opponents' classes,
    as the vectorised env writes them (the teacher's name, or ``random``). ``columns``:
    only these observation entries, scaled by their part of ``scale``, as the env
    writes them. ``privileged`` and ``prior`` add the other seats' observations and
    the prior's columns, as the env does (its ``row_layout``): the prior is bound to
    each recorded seat per game and scores its decisions with a choice. ``macro``: the
    recorded seats decide through it (module docstring); a DAgger student then
    chooses on the macro's masks (pass the bare network, not a player of the macro).
    ``first``: the games are numbers ``first`` to ``first + games - 1`` of a larger
    collection split into parts (their number picks the even/odd kind and the seat)."""
    if columns is not None and scale is not None:
        scale = (scale[0][columns], scale[1][columns])
    g = make_game()
    rng = np.random.default_rng(seed)
    random_player = RandomPolicy(seed + 1)
    learner_seats = [s for s, r in enumerate(g.roles) if role_kind(r) in learner_kinds]
    n_seats = g.num_players

    def part(o: np.ndarray) -> np.ndarray:  # another seat's observation, as the env writes it
        o = o if columns is None else o[columns]
        return o if scale is None else (o - scale[0]) * scale[1]

    obs_rows, mask_rows, actions, owners, targets = [], [], [], [], []
    returns: list[float] = []
    for i in range(first, first + games):
        g.reset(int(rng.integers(2**62)))
        if opponent is None and i % 2 == 0:
            players = [teacher.bind(g, s) for s in range(g.num_players)]
            recorded = set(learner_seats)
            against = opponent_class_bits([getattr(teacher, "name", "teacher")], opponent_classes)
        else:
            seat = learner_seats[(i if opponent is not None else i // 2) % len(learner_seats)]
            other = random_player if opponent is None else opponent
            players = [teacher.bind(g, s) if s == seat else other.bind(g, s) for s in range(g.num_players)]
            recorded = {seat}
            against = opponent_class_bits([getattr(other, "name", "random")], opponent_classes)
        students = {p: student.bind(g, p) for p in recorded} if student is not None else {}
        priors = {p: prior.bind(g, p) for p in recorded} if prior is not None else {}
        macros = {p: macro.bind(g, p) for p in recorded} if macro is not None else {}
        start = len(actions)
        n = 0
        while not g.is_over and n < max_decisions:
            p = g.current_player
            mask = g.legal_mask()
            obs = g.observe(p)
            player = macros.get(p)
            if player is not None:
                auto = player.auto_action(obs, mask)
                if auto is not None:  # a move of the macro's plan: the learner never decides it
                    g.step(int(auto))
                    n += 1
                    continue
                env_mask, mask = mask, player.decision_mask(obs, mask)
                a = int(player.teacher_choice(players[p], obs, env_mask))  # the label, in the macro's terms
            else:
                a = int(players[p].act(obs, mask))  # the teacher's choice: the label
            if p in recorded and np.count_nonzero(mask) > 1:
                kind = kinds.index(role_kind(g.roles[p]))
                row = encode(obs if columns is None else obs[columns], kind, len(kinds), scale)
                parts = [row, against] if opponent_classes else [row]
                if privileged:
                    parts += [part(g.observe((p + k) % n_seats)) for k in range(1, n_seats)]
                if prior is not None:
                    parts.append(priors[p].scores(obs[None], mask[None])[0])
                obs_rows.append(np.concatenate(parts).astype(np.float32, copy=False) if len(parts) > 1 else row)
                mask_rows.append(mask.astype(bool))
                actions.append(a)
                owners.append(p)
                if visits:
                    share = getattr(players[p], "last_visits", None)
                    if share is None:
                        raise ValueError(f"warm_start.targets visits needs a search teacher; "
                                         f"{getattr(teacher, 'name', 'the teacher')} records no visits")
                    targets.append(share)
            played = int(students[p].act(obs, mask)) if p in students else a
            g.step(player.env_action(played) if player is not None else played)
            n += 1
        outcome = g.outcome() if g.is_over else [0.0] * g.num_players
        # discounted by how many of its own decisions the seat still had to make
        remaining = {p: 0 for p in recorded}
        tail = []
        for p in reversed(owners[start:]):
            tail.append(float(outcome[p]) * gamma ** remaining[p])
            remaining[p] += 1
        returns.extend(reversed(tail))
        if progress:
            progress(1)
    if not actions:
        raise ValueError("the teacher's games produced no decision with a choice to learn from")
    demos = {"obs": np.stack(obs_rows), "masks": np.stack(mask_rows), "actions": np.array(actions, np.int64),
             "returns": np.array(returns, np.float32)}
    if visits:
        demos["targets"] = np.stack(targets).astype(np.float32, copy=False)
    return demos


def join_demonstrations(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One demonstration set of several (DAgger's aggregate)."""
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def save_demonstrations(path: str, demos: dict[str, np.ndarray], teacher: str) -> None:
    """Keep ``demos`` (``teacher``'s games) beside a run: a resumed run's cloning term,
    or another run (``warm_start.demos``), reads them back instead of playing a slow
    teacher's games again."""
    np.savez_compressed(path, teacher=np.array(teacher), **demos)


def load_demonstrations(path: str) -> tuple[dict[str, np.ndarray], str]:
    """The demonstrations :func:`save_demonstrations` kept, and their teacher's name;
    a missing or unreadable file is a one-line ValueError."""
    try:
        with np.load(path) as saved:
            demos = {k: saved[k] for k in saved.files}
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read demonstrations from {path}: {err}") from None
    missing = [k for k in ("obs", "masks", "actions", "returns", "teacher") if k not in demos]
    if missing:
        raise ValueError(f"{path} is not a run's demonstrations file (no {missing[0]!r})")
    return demos, str(demos.pop("teacher"))


def _clone_steps(policy, demos: dict[str, np.ndarray], optimizer, steps: int, batch_size: int, rng,
                 weight: float = 1.0, value_coef: float = 0.5, actor: bool = True) -> float:
    n = len(demos["actions"])
    total = 0.0
    for _ in range(steps):
        idx = rng.integers(n, size=min(batch_size, n))
        obs = torch.as_tensor(demos["obs"][idx])
        returns = torch.as_tensor(demos["returns"][idx])
        if not actor:  # the critic alone: the teacher's returns
            loss = value_coef * torch.nn.functional.mse_loss(policy.predict_values(obs).flatten(), returns)
        elif "targets" in demos:  # expert iteration: the cross-entropy with the search's visit shares
            dist = policy.get_distribution(obs, action_masks=demos["masks"][idx])
            # masked moves have no visits, so their huge negative log-probabilities weigh 0
            loss = -(torch.as_tensor(demos["targets"][idx]) * dist.distribution.logits).sum(1).mean()
            if value_coef:
                values = policy.predict_values(obs)
                loss = loss + value_coef * torch.nn.functional.mse_loss(values.flatten(), returns)
        else:
            acts = torch.as_tensor(demos["actions"][idx])
            values, log_prob, _ = policy.evaluate_actions(obs, acts, action_masks=demos["masks"][idx])
            loss = -log_prob.mean()
            if value_coef:
                loss = loss + value_coef * torch.nn.functional.mse_loss(values.flatten(), returns)
        optimizer.zero_grad()
        (weight * loss).backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
        optimizer.step()
        total += loss.item()
    return total / max(steps, 1)


def behaviour_clone(policy, demos: dict[str, np.ndarray], epochs: int, batch_size: int, lr: float, seed: int = 0,
                    progress: Callable[[int], None] | None = None, fused: bool = True,
                    actor: bool = True) -> dict[str, float]:
    """Fit ``policy`` (an SB3 maskable actor-critic) to ``demos``; returns the final
    loss and the actor's agreement with the teacher on the demonstrations. ``fused``:
    torch's fused Adam kernel through ``LeanAdam`` (the trainer passes its
    ``fused_adam`` option). ``actor=False`` fits the critic alone to the teacher's
    returns (a policy over a prior already plays the teacher)."""
    rng = np.random.default_rng(seed)
    if fused:
        optimizer = LeanAdam(policy.parameters(), lr=lr)
    else:
        optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    n = len(demos["actions"])
    steps_per_epoch = max(1, n // batch_size)
    policy.set_training_mode(True)
    t0 = time.monotonic()
    loss = 0.0
    for _ in range(int(epochs)):
        loss = _clone_steps(policy, demos, optimizer, steps_per_epoch, batch_size, rng, actor=actor)
        if progress:
            progress(1)
    policy.set_training_mode(False)
    with torch.no_grad():
        take = slice(0, min(n, 20_000))
        dist = policy.get_distribution(torch.as_tensor(demos["obs"][take]), action_masks=demos["masks"][take])
        agree = float((dist.get_actions(deterministic=True).numpy() == demos["actions"][take]).mean())
    return {"loss": round(loss, 4), "agreement": round(agree, 4), "samples": int(n),
            "seconds": round(time.monotonic() - t0, 1)}


class CloneRegulariser:
    """A few cloning steps after each PPO update, weighted ``coef * (1 - t / decay_steps)``
    (clamped at 0): PPO moves away from the teacher only where the reward pays for it."""

    def __init__(self, demos: dict[str, np.ndarray], coef: float, decay_steps: int, steps: int, batch_size: int,
                 seed: int = 0):
        self.demos = demos
        self.coef = float(coef)
        self.decay_steps = max(1, int(decay_steps))
        self.steps = int(steps)
        self.batch_size = int(batch_size)
        self.rng = np.random.default_rng(seed)

    def weight(self, timesteps: int) -> float:
        return self.coef * max(0.0, 1.0 - timesteps / self.decay_steps)

    def apply(self, model) -> float | None:
        w = self.weight(int(model.num_timesteps))
        if w <= 0 or self.steps <= 0:
            return None
        model.policy.set_training_mode(True)
        loss = _clone_steps(model.policy, self.demos, model.policy.optimizer, self.steps, self.batch_size, self.rng,
                            weight=w)
        model.policy.set_training_mode(False)
        return loss
