"""A second algorithm family beside PPO self-play: Deep Monte-Carlo (DMC, DouZero's
learner; :mod:`spyenvs.experiments.dmc`) or NFSP (OpenSpiel's PyTorch implementation
through the bridge; :mod:`spyenvs.experiments.nfsp`), on one game for one budget, every
result a score card (docs/algorithms.md).

    python -m spyenvs.experiments.algorithms unrest_v0 --algo dmc --minutes 9.5 --out runs/algo/unrest_v0-dmc

Writes into ``--out`` (default ``runs/algorithms/<env_id>-<algo>``):

* ``final.npz``: the trained policy as an ordinary checkpoint (one MLP; DMC's greedy
  Q-policy, NFSP's average policy), which ``spyenvs scorecard``, ``spyenvs eval`` and
  ``spyenvs play --vs`` load (``final.npz:sample`` samples from it, as NFSP's average
  policy is meant to be played);
* ``history.json`` and ``curve.png``: win rates against random and the heuristic at
  ``--points`` evenly spaced shares of the budget;
* ``scorecard.json`` and ``scorecard.md``: the score card of ``final.npz`` (as DMC
  plays it greedily, as NFSP samples it unless ``--opt play=greedy``), ``--scorecard-games``
  games per role against each ladder bot;
* ``results.json``: algorithm, env, config, options, budget, steps, training seconds,
  the load average at start and end, the run's statistics and the Elo.

The budget is ``--minutes`` of training (acting and learning; evaluation excluded, as
the PPO recipe's ``train_seconds``) and/or ``--steps`` decisions taken by the networks
(every seat's); training stops at whichever comes first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from spyenvs.experiments import config as config_mod
from spyenvs.experiments.algo_common import (Budget, Curve, pin_torch_threads, save_kind_policy, write_history,
                                             write_scorecard)
from spyenvs.experiments.evaluate import load_average
from spyenvs.registry import env_module
from spyenvs.tools.arguments import (non_negative_int, parse_key_values, positive_float, positive_int,
                                     run_reporting_errors)

ALGORITHMS = ("dmc", "nfsp")


def config_class(algo: str) -> type:
    """The typed options of ``algo`` (DMCConfig or NFSPConfig)."""
    if algo == "dmc":
        from spyenvs.experiments.dmc import DMCConfig

        return DMCConfig
    if algo == "nfsp":
        from spyenvs.experiments.nfsp import NFSPConfig

        return NFSPConfig
    raise ValueError(f"unknown algorithm {algo!r}; allowed: {', '.join(ALGORITHMS)}")


def make_config(algo: str, env_id: str, seed: int = 0, game_config: dict | None = None,
                overrides: dict | None = None):
    """``algo``'s defaults, then the game options and ``overrides`` (dotted ``--opt``
    keys, each checked against its field's type: a one-line error otherwise)."""
    return config_mod.load(config_class(algo), None, env_id,
                           {"seed": int(seed), "game": dict(game_config or {}), **(overrides or {})})


def make_trainer(algo: str, cfg, game: Any = None, log=None):
    if algo == "dmc":
        from spyenvs.experiments.dmc import DMC

        return DMC(cfg, game, log)
    from spyenvs.experiments.nfsp import NFSPRun

    return NFSPRun(cfg, game, log)


def run_algorithm(algo: str, cfg, out: str, minutes: float | None = None, steps: int | None = None,
                  points: int = 6, curve_games: int = 40, scorecard_games: int = 100, game: Any = None,
                  quiet: bool = False, scorecard_search_games: int | None = None) -> dict[str, Any]:
    """Train ``algo`` with ``cfg`` for the budget, then write the run's files into
    ``out`` (module docstring); returns ``results.json``'s content. ``game`` (an env
    id or, for DMC, a game class) defaults to ``cfg.env_id``."""
    budget = Budget(minutes, steps)  # a bad budget fails before any work
    if points < 1:
        raise ValueError(f"points must be >= 1, got {points}")
    log = None if quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    pin_torch_threads(int(cfg.torch_threads))
    load_start = load_average()
    trainer = make_trainer(algo, cfg, game, log)
    game = trainer.game
    curve = Curve(trainer.make if hasattr(trainer, "make") else (lambda: trainer.probe), game, dict(cfg.game),
                  points, curve_games, cfg.max_decisions, log=log)
    if log:
        log(f"{algo} on {trainer.probe.env_id}: budget {budget.as_dict()}, kinds {trainer.kinds}, "
            f"input {trainer.transform.width} of {trainer.transform.obs_dim} entries")
    trainer.train(budget, curve)
    os.makedirs(out, exist_ok=True)
    final = os.path.join(out, "final.npz")
    meta = trainer.meta(f"{trainer.probe.env_id}_{algo}")
    meta["info"].update(train_seconds=round(budget.spent, 1), budget=budget.as_dict(), seed=int(cfg.seed))
    save_kind_policy(final, trainer.kind_weights(), trainer.transform, meta)
    from spyenvs.agents.torch_policy import TorchPolicy

    deterministic = bool(getattr(trainer, "deterministic", True))
    if curve.games:  # the last point: the saved file itself
        curve.evaluate(TorchPolicy.load(final, deterministic=deterministic, seed=int(cfg.seed) + 7),
                       trainer.steps, budget.spent)
    write_history(out, curve.history, f"{trainer.probe.env_id}: {algo}")
    spec = final if deterministic else final + ":sample"
    card = None
    if scorecard_games > 0:
        from spyenvs.agents.registry import make_policy

        card = write_scorecard(game, dict(cfg.game), spec, make_policy(spec, seed=int(cfg.seed)), scorecard_games,
                               int(cfg.seed), out, cfg.max_decisions, quiet=quiet,
                               search_games=scorecard_search_games)
    results = {"algorithm": algo, "env_id": trainer.probe.env_id, "config": trainer.probe.config,
               "options": config_mod.to_dict(cfg), "budget": budget.as_dict(), "timesteps": int(trainer.steps),
               "train_seconds": round(budget.spent, 1),
               "steps_per_second": round(trainer.steps / budget.spent, 1) if budget.spent > 0 else None,
               "eval_seconds": round(sum(r["eval_seconds"] for r in curve.history), 1),
               "stats": trainer.stats, "checkpoint": final, "policy": spec,
               "load": {"start": load_start, "end": load_average()},
               "elo": card["rating"] if card else None,
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
        f.write("\n")
    return results


def summary(res: dict[str, Any]) -> str:
    """A few lines on a finished run."""
    lines = [f"{res['algorithm']} on {res['env_id']}: {res['timesteps']} steps in {res['train_seconds']} s "
             f"({res['steps_per_second']} steps/s), load {res['load']['start']} -> {res['load']['end']}"]
    if res["elo"]:
        r = res["elo"]
        lines.append(f"Elo on the ladder: {r['elo']:.0f} ± {r['plus_minus']:.0f}")
    lines.append(f"wrote {os.path.dirname(res['checkpoint'])}/: final.npz, history.json, curve.png, results.json"
                 + (", scorecard.json, scorecard.md" if res["elo"] is not None else ""))
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("env_id", help="env id, e.g. unrest_v0")
    p.add_argument("--algo", required=True, choices=ALGORITHMS, help="dmc (Deep Monte-Carlo) or nfsp (OpenSpiel's)")
    p.add_argument("--minutes", type=positive_float, default=None, help="training budget, wall clock (evaluation excluded)")
    p.add_argument("--steps", type=positive_int, default=None, help="... and/or decisions taken by the networks")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--out", default=None, help="run folder (default runs/algorithms/<env_id>-<algo>)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="game config option")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="algorithm option (DMCConfig / NFSPConfig fields, docs/algorithms.md)")
    p.add_argument("--points", type=positive_int, default=6, help="evaluations on the curve, first and last included")
    p.add_argument("--curve-games", type=non_negative_int, default=40, help="games per role of each curve point (0: none)")
    p.add_argument("--scorecard-games", type=non_negative_int, default=100,
                   help="score-card games per role and ladder bot (0: no score card)")
    p.add_argument("--scorecard-search-games", type=positive_int, default=None,
                   help="score-card games per role against a search bot (expert), default --scorecard-games")
    p.add_argument("--quiet", action="store_true")


def run(args) -> int:
    env_module(args.env_id)  # an unknown id fails here with the list of ids
    if args.minutes is None and args.steps is None:
        raise ValueError("give a budget: --minutes M and/or --steps N")
    cfg = make_config(args.algo, args.env_id, args.seed, parse_key_values(args.set),
                      parse_key_values(args.opt, "--opt"))
    out = args.out or os.path.join("runs", "algorithms", f"{args.env_id}-{args.algo}")
    res = run_algorithm(args.algo, cfg, out, args.minutes, args.steps, args.points, args.curve_games,
                        args.scorecard_games, quiet=args.quiet, scorecard_search_games=args.scorecard_search_games)
    print(summary(res))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spyenvs.experiments.algorithms", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "algorithms"))
