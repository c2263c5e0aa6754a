"""Fit the Specter Ops search's state evaluation (:func:`spyenvs.agents.evaluations.
specter_ops.search_value`): play games between two policies (the heuristic by default),
record the :func:`~spyenvs.agents.evaluations.specter_ops.features` of the state at the
start of every round (her turn) and of every hunters' phase, and fit a logistic
regression of the agent's side winning on them, per table size and phase. The games with odd seeds are held out: the log loss and accuracy
there are printed beside those of the plain evaluation (``state_value``) and of a
constant, so the fit shows what it adds.

    python -m spyenvs.experiments.specter_value_fit [--games 400] [--players 2 --players 4]
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from spyenvs.agents.evaluations.specter_ops import FEATURES, features, hunters_phase, state_value
from spyenvs.agents.registry import make_policy
from spyenvs.registry import make_game


def collect(players: int, games: int, seed: int, agent: str = "heuristic", hunters: str = "heuristic",
            phase: str = "agents"):
    """(features, agent won, game index, plain value) at the start of every round's
    ``phase`` (``agents``: her turn; ``hunters``: the hunters' phase) over ``games`` games."""
    g = make_game("specter_ops_v0", num_players=players)
    X, y, gid, plain = [], [], [], []
    for i in range(games):
        g.reset(seed + i)
        pols = [make_policy(agent, seed=seed + i)] + [make_policy(hunters, seed=seed + i + 1)] * (g.num_players - 1)
        bound = [p.bind(g, s) for s, p in enumerate(pols)]
        rows, vals = [], []
        last = 0
        while not g.is_over:
            if g.round != last and g.round >= 1 and (phase == "agents" or hunters_phase(g)):
                last = g.round
                rows.append(features(g))
                vals.append(state_value(g)[0])
            s = g.current_player
            g.step(bound[s].act(g.observe(s), g.legal_mask()))
        won = 1.0 if g.outcome()[0] > 0 else 0.0
        X += rows
        plain += vals
        y += [won] * len(rows)
        gid += [i] * len(rows)
    return np.array(X), np.array(y), np.array(gid), np.array(plain)


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 1e-2, iters: int = 50) -> np.ndarray:
    """Newton's method on the L2-penalised log loss; returns (bias, weights...)."""
    A = np.hstack([np.ones((len(X), 1)), X])
    w = np.zeros(A.shape[1])
    reg = l2 * len(X) * np.eye(A.shape[1])
    reg[0, 0] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-A @ w))
        grad = A.T @ (p - y) + reg @ w
        H = (A * (p * (1 - p))[:, None]).T @ A + reg
        step = np.linalg.solve(H, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def report(players: int, games: int, seed: int, agent: str, hunters: str, phase: str = "agents") -> dict:
    X, y, gid, plain = collect(players, games, seed, agent, hunters, phase)
    train, test = gid % 2 == 0, gid % 2 == 1
    w = fit_logistic(X[train], y[train])
    A = np.hstack([np.ones((len(X), 1)), X])
    p = 1.0 / (1.0 + np.exp(-A[test] @ w))
    # the plain evaluation as a probability, calibrated on the training half (slope, bias)
    wp = fit_logistic(plain[train, None], y[train])
    pp = 1.0 / (1.0 + np.exp(-(wp[0] + wp[1] * plain[test])))
    base = np.full(test.sum(), y[train].mean())
    out = {
        "players": players, "phase": phase, "games": games, "rows": int(len(X)), "agent_win_rate": float(y[gid >= 0].mean()),
        "held_out": {"features": {"log_loss": log_loss(p, y[test]), "accuracy": float(((p > .5) == y[test]).mean())},
                     "plain": {"log_loss": log_loss(pp, y[test]), "accuracy": float(((pp > .5) == y[test]).mean())},
                     "constant": {"log_loss": log_loss(base, y[test])}},
        "weights_train_half": [round(float(v), 3) for v in w],
    }
    w_all = fit_logistic(X, y)
    out["weights"] = [round(float(v), 3) for v in w_all]
    out["named"] = dict(zip(("bias",) + FEATURES, out["weights"]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m spyenvs.experiments.specter_value_fit", description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, action="append", choices=(2, 3, 4, 5))
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=5_000_000)
    ap.add_argument("--agent", default="heuristic")
    ap.add_argument("--hunters", default="heuristic")
    ap.add_argument("--phase", action="append", choices=("agents", "hunters"),
                    help="where in the round the states are taken (default both)")
    args = ap.parse_args(argv)
    for n in args.players or [2, 4]:
        for phase in args.phase or ["agents", "hunters"]:
            print(json.dumps(report(n, args.games, args.seed, args.agent, args.hunters, phase), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
