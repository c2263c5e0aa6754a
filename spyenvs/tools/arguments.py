"""Command-line arguments shared by ``spyenvs`` and the scripts it runs: the
KEY=VALUE parser, the ``train``, ``eval`` and ``scorecard`` argument lists, and
:func:`run_reporting_errors`, which ends every user error as one line.

They live here, below both, so that :mod:`spyenvs.cli` is the only top: the CLI
imports the trainers (lazily, they need the ``train`` extra), the trainers'
own ``main()`` import these definitions, and nothing imports :mod:`spyenvs.cli`.
Only argparse and json are needed, so ``spyenvs train --help`` works on a core-only
install.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable

from spyenvs.core.errors import SpyenvsError

#: KEY=VALUE values that are not JSON but that users write (Python's spelling)
_PYTHON_WORDS = {"True": True, "False": False, "None": None}


def parse_key_values(items: list[str] | None, flag: str = "--set") -> dict[str, Any]:
    """KEY=VALUE pairs into a dict; values are parsed as JSON when they can be
    (``3`` is an int, ``true`` a bool, ``[1,2]`` a list), else kept as strings."""
    config: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{flag} expects KEY=VALUE, got {item!r}")
        try:
            config[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            config[key.strip()] = _PYTHON_WORDS.get(value.strip(), value)
    return config


def game_config(args: argparse.Namespace) -> dict[str, Any]:
    """The game config a command names: each ``--set KEY=VALUE``, then ``--players N``
    as ``num_players`` (the same way to name a table in every command)."""
    config = parse_key_values(getattr(args, "set", None))
    if getattr(args, "players", None) is not None:
        config["num_players"] = args.players
    return config


def add_players_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=positive_int, default=None,
                   help="the table's player count (the game's num_players option; default: the game's)")


def train_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """``spyenvs train``'s config overrides: each ``--opt KEY=VALUE``, then ``--players N``
    as ``game.num_players`` (one way to name a table, for every game and backend) and
    ``--seed S`` as ``seed``."""
    overrides = parse_key_values(getattr(args, "opt", None), "--opt")
    if getattr(args, "players", None) is not None:
        overrides["game.num_players"] = args.players
    if getattr(args, "seed", None) is not None:
        overrides["seed"] = args.seed
    return overrides


def run_reporting_errors(call: Callable[[], int], prog: str = "spyenvs") -> int:
    """Run a command; every user error ends as one ``PROG: error:`` line and exit
    status 2 (130 on Ctrl-C), never a traceback. Used by ``spyenvs`` and by each
    module run with ``python -m``."""
    try:
        return call()
    except (SpyenvsError, ValueError) as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `spyenvs replay FILE | head`: the reader has gone; stop quietly, and point
        # stdout at /dev/null so the interpreter's final flush does not fail again
        _silence_stdout()
        return 1
    except OSError as exc:  # a missing or unreadable file named on the command line
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"{prog}: error: {where}{exc.strerror or one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


def one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # stdout is not a real file (tests)
        pass


def positive_int(text: str) -> int:
    """argparse type: an int >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an int >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {value}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite float > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def add_saved_results_arguments(p: argparse.ArgumentParser, folder: str, results_md: str,
                                runs: str | None = None, quiet: bool = True) -> None:
    """The scripts that save results under docs/ and rewrite a generated table from
    them: ``--folder``, ``--runs`` (with ``runs``), ``--results-md``, ``--tables`` and
    (with ``quiet``) ``--quiet``."""
    p.add_argument("--folder", default=folder,
                   help=f"where the results are saved (default {os.path.relpath(folder)})")
    if runs is not None:
        p.add_argument("--runs", default=runs, help=f"the runs' own folders (default {runs})")
    p.add_argument("--results-md", default=results_md, help="the page whose table is rewritten")
    p.add_argument("--tables", action="store_true", help="only rewrite the table from the saved results")
    if quiet:
        p.add_argument("--quiet", action="store_true")


def add_train_arguments(p: argparse.ArgumentParser) -> None:
    """``spyenvs train`` (SB3 and RLlib trainers)."""
    p.add_argument("env_id", help="env id, e.g. unrest_v0")
    p.add_argument("--config", default=None,
                   help="YAML training config (default: configs/<game>.yaml; configs/rllib_<game>.yaml with --backend rllib)")
    p.add_argument("--out", default=None, help="output folder (default runs/<env_id>, runs/rllib_<env_id> with --backend rllib)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its state.pt")
    p.add_argument("--timesteps", type=positive_int, default=None, help="override total_timesteps")
    add_players_argument(p)
    p.add_argument("--seed", type=non_negative_int, default=None,
                   help="the run's seed (default: the config's; docs/results/policies.md runs seeds 0, 1, 2)")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="override a config option, dotted (ppo.n_steps=256, game.num_players=3)")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                   help="sb3: MaskablePPO on this machine; rllib: Ray RLlib, local or a cluster (docs/rllib.md)")
    p.add_argument("--iterations", type=positive_int, default=None, help="rllib: training iterations")
    p.add_argument("--address", default=None, help="rllib: Ray cluster to join (auto, HOST:6379, ray://HOST:10001)")
    p.add_argument("--num-cpus", type=positive_int, default=None, help="rllib: CPUs of the local Ray instance")


def add_eval_arguments(p: argparse.ArgumentParser) -> None:
    """``spyenvs eval``."""
    p.add_argument("env_id")
    add_players_argument(p)
    p.add_argument("policies", nargs="+", help="random, heuristic, ismcts[:SIMS...] (docs/search.md), expert, pretrained, or a checkpoint path")
    p.add_argument("--games", type=positive_int, default=100, help="games per ordered pair (seats rotate)")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="game config option")
    p.add_argument("--out", default=None, help="folder for tournament.json and tournament.md")
    p.add_argument("--max-decisions", type=positive_int, default=5000)
    p.add_argument("--curve", metavar="HISTORY.json", default=None,
                   help="also plot a training run's history.json as learning_curve.png (in --out, else beside it)")
    p.add_argument("--quiet", action="store_true")


def add_scorecard_arguments(p: argparse.ArgumentParser) -> None:
    """``spyenvs scorecard``."""
    p.add_argument("env_id", help="env id (spyenvs list)")
    add_players_argument(p)
    p.add_argument("policy", help="random, heuristic, pretrained, ismcts[:SIMS], a checkpoint path, "
                                  "or package.module:callable returning a policy")
    p.add_argument("--games", type=positive_int, default=100, help="games per role against each ladder bot")
    p.add_argument("--search-games", type=positive_int, default=None,
                   help="games per role against a search bot (expert; seconds a game), default --games")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="game config option (a config without a ladder gets win rates and no rating)")
    p.add_argument("--out", default="scorecards", help="folder for ENV-POLICY.json and .md (default scorecards/)")
    p.add_argument("--max-decisions", type=positive_int, default=5000, help="a longer game counts as a draw")
    p.add_argument("--quiet", action="store_true")


def add_exploit_arguments(p: argparse.ArgumentParser) -> None:
    """``spyenvs exploit`` (:mod:`spyenvs.experiments.exploit`)."""
    p.add_argument("env_id", help="env id, e.g. unrest_v0")
    add_players_argument(p)
    p.add_argument("policy", help="the frozen policy: random, heuristic, pretrained, a checkpoint path, or any "
                                  "other make_policy spec")
    p.add_argument("--minutes", type=positive_float, required=True,
                   help="wall-clock training budget per role kind (fractions allowed), warm start included")
    p.add_argument("--games", type=positive_int, default=200, help="final evaluation games per role (default 200)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="game config option")
    p.add_argument("--kind", action="append", default=None,
                   help="role kind to probe (repeatable; default every kind of the config)")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--warm-start", action=argparse.BooleanOptionalAction, default=True,
                   help="clone the heuristic before PPO, as the recipe does (default on; docs/exploitability.md)")
    p.add_argument("--points", type=positive_int, default=5,
                   help="evaluations on the curve, the first before PPO (default 5)")
    p.add_argument("--curve-games", type=positive_int, default=50, help="games per role of each curve point")
    p.add_argument("--max-timesteps", type=positive_int, default=None,
                   help="also stop after this many learner decisions")
    p.add_argument("--no-references", action="store_true",
                   help="skip random's and the heuristic's scores against POLICY")
    p.add_argument("--config", default=None, help="training recipe (default configs/<game>.yaml)")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="override a recipe option, dotted (n_envs=16, ppo.learning_rate=3e-4)")
    p.add_argument("--out", default=None, help="output folder (default runs/exploit/<env_id>-<policy>)")
    p.add_argument("--quiet", action="store_true")
