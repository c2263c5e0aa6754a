"""The `spyenvs` command: list, play, replay, match and bench the envs, score a policy; train and eval need the train extra.

Each subcommand is a small function here that calls into the module that owns the
work. This module is the top: nothing imports it. The argument lists that the
trainers share with it live in :mod:`spyenvs.tools.arguments`. Each subcommand imports
its tool (and the trainers their extra) inside its function, so ``spyenvs`` loads only
what the command it runs needs."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys

from . import registry
from .core.progress import progress_bar
from .core.records import load_record
from .tools.arguments import (
    add_eval_arguments,
    add_scorecard_arguments,
    add_exploit_arguments,
    add_train_arguments,
    game_config,
    non_negative_int,
    parse_key_values,
    positive_float,
    positive_int,
    run_reporting_errors,
)

#: where the rules specifications live in the repository (cited by option notes and tests)
RULES_DIR = "docs/rules"

#: import names the ``train`` extra brings (checked before a trainer is imported)
TRAIN_EXTRA_MODULES = ("yaml", "torch", "stable_baselines3", "sb3_contrib")
TRAIN_EXTRA_HINT = "pip install torch==2.13.0 && pip install -e '.[train]'"


def rules_file(env_id: str) -> str:
    """The rules specification of ``env_id`` in the repository, e.g. docs/rules/unrest.md."""
    return f"{RULES_DIR}/{env_id.rsplit('_v', 1)[0]}.md"


def cmd_list(args) -> int:
    for env_id in registry.ENV_IDS:
        cls = registry.game_class(env_id)
        game = cls()
        print(f"{env_id}: roles {', '.join(game.roles)} (default config); rules: {rules_file(env_id)}")
        for name, p in cls.CONFIG.items():
            print(f"    {name} = {p.default!r}  ({p.allowed()}) {p.doc}")
    return 0


def cmd_match(args) -> int:
    from .tools.match import format_summary, play_random_match

    config = game_config(args)
    with progress_bar(args.games, f"{args.env_id} games", enabled=not args.quiet) as bar:
        summary = play_random_match(args.env_id, args.games, args.seed, config, progress=lambda _: bar.update())
    print(format_summary(summary))
    return 0


def cmd_bench(args) -> int:
    if args.train:
        argv = [f"--env={e}" for e in args.env or []] + (["--steps", str(args.steps)] if args.steps else [])
        argv += ["--repeats", str(args.repeats)]
        return _experiments("train_bench").main(argv)
    if args.search:
        argv = [f"--env={e}" for e in args.env or []] + [f"--spec={s}" for s in args.spec or []]
        argv += ["--repeats", str(args.repeats)] + (["--quiet"] if args.quiet else [])
        argv += ["--save", args.save] if args.save else []
        return _experiments("search_bench").main(argv)
    if args.spec or args.save:
        raise ValueError("--spec and --save need --search")
    from .tools.bench import format_rows, run_bench

    extra = parse_key_values(args.set)
    rows = run_bench(args.env or None, args.players or None, args.seconds, args.repeats, extra,
                     progress=None if args.quiet else (lambda m: print(m, file=sys.stderr)))
    print(format_rows(rows))
    return 0


def cmd_replay(args) -> int:
    from .tools.replay import ReplayTimeline, print_replay, step_through

    rec = load_record(args.file)
    if args.html:
        # late: the HTML writer loads only for --html
        from .tools.html_replay import write_html_replay

        if args.view is not None and args.view != "omniscient" and args.view not in _record_roles(rec):
            raise SystemExit(f"--view must be omniscient or one of {', '.join(_record_roles(rec))}, got {args.view!r}")
        steps = len(rec["actions"]) + 1
        with progress_bar(steps, "rendering steps", enabled=steps > 100 and sys.stderr.isatty()) as bar:
            path = write_html_replay(rec, args.html, images=args.images, initial_view=args.view,
                                     progress=lambda step, n: bar.update())
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB); open it in a browser")
        return 0
    tl = ReplayTimeline(rec)
    try:
        view = tl.view_index(args.view)
    except ValueError as exc:
        raise SystemExit(f"--view: {exc}") from exc
    interactive = args.interactive if args.interactive is not None else (sys.stdin.isatty() and not args.every_step)
    if interactive:
        step_through(tl, view, start=args.step)
    else:
        print_replay(tl, view, args.every_step, sys.stdout)
    return 0


def _record_roles(rec) -> tuple[str, ...]:
    return registry.make_game(rec["env_id"], **rec["config"]).roles


def cmd_play(args) -> int:
    from .tools.play import play_game

    config = game_config(args)
    registry.env_module(args.env_id)  # unknown ids fail here with the list of ids
    play_game(args.env_id, config, seat=args.seat, opponents=args.vs or ["random"], seed=args.seed,
              record_path=args.record, save=not args.no_record, window=args.window,
              full_view=args.full_map)
    return 0


def _missing_modules(names) -> list[str]:
    """The import names among ``names`` that are not installed."""
    missing = []
    for name in names:
        try:
            if importlib.util.find_spec(name) is None:
                missing.append(name)
        except (ImportError, ValueError):
            missing.append(name)
    return missing


def _experiments(module: str, needs=()):
    """spyenvs.experiments.<module>, which needs the ``train`` extra (torch, sb3-contrib ...)."""
    missing = _missing_modules(needs)
    if missing:
        raise SystemExit(f"spyenvs: error: this command needs the train extra (missing: {', '.join(missing)}); "
                         f"install it with: {TRAIN_EXTRA_HINT}")
    try:
        return importlib.import_module(f"spyenvs.experiments.{module}")
    except ImportError as exc:
        raise SystemExit(f"spyenvs: error: this command needs the train extra ({exc}); "
                         f"install it with: {TRAIN_EXTRA_HINT}") from exc


def cmd_train(args) -> int:
    registry.env_module(args.env_id)  # unknown ids fail before anything is written
    if args.backend == "rllib":
        missing = _missing_modules(("ray", "yaml"))
        if missing:
            raise SystemExit(
                f"spyenvs: error: --backend rllib needs the rllib extra (missing: {', '.join(missing)}); "
                "in its own venv: pip install torch==2.13.0 && pip install -e '.[rllib]'")
        return _experiments("rllib_selfplay").run(args)
    return _experiments("train_selfplay", needs=TRAIN_EXTRA_MODULES).run(args)


def cmd_eval(args) -> int:
    registry.env_module(args.env_id)
    if len(args.policies) < 2:
        raise ValueError(f"a tournament needs at least two policies, got {len(args.policies)}")
    return _experiments("evaluate").run(args)


def cmd_scorecard(args) -> int:
    registry.env_module(args.env_id)
    return _experiments("scorecard").run(args)


def cmd_exploit(args) -> int:
    registry.env_module(args.env_id)  # unknown ids fail before anything is trained
    return _experiments("exploit", needs=TRAIN_EXTRA_MODULES).run(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="spyenvs", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list the envs and their config options")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("match", help="play random-vs-random games and print a summary")
    p.add_argument("env_id", choices=registry.ENV_IDS)
    p.add_argument("--players", type=positive_int, default=None)
    p.add_argument("--games", type=positive_int, default=200)
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="game config option")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("bench", help="steps/s of random play vs PettingZoo connect_four_v3")
    p.add_argument("--env", action="append", choices=registry.ENV_IDS, help="env id (repeatable; default all)")
    p.add_argument("--players", action="append", type=positive_int, help="player count (repeatable; default all tested)")
    p.add_argument("--seconds", type=positive_float, default=1.0, help="seconds per measurement")
    p.add_argument("--repeats", type=positive_int, default=3,
                   help="measurements per row, the median reported (--train: rounds of whole processes)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="game config option")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--train", action="store_true",
                   help="training speed instead: each game's default config vs PettingZoo's SB3 tutorial (train extra)")
    p.add_argument("--steps", type=int, default=None, help="--train: learner steps per process (default 20480)")
    p.add_argument("--search", action="store_true",
                   help="search speed instead: ISMCTS simulations/s per game and search configuration, one core")
    p.add_argument("--spec", action="append", metavar="SPEC",
                   help="--search: a search spec to time (repeatable; default: the documented set)")
    p.add_argument("--save", metavar="JSON", default=None,
                   help="--search: also write the figures there (docs/search/bench.json feeds docs/results/search.md)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("replay", help="step through a game record, or write it as an HTML page")
    p.add_argument("file")
    p.add_argument("--view", default=None, help="role whose view to show (default omniscient)")
    p.add_argument("--every-step", action="store_true", help="print the state after every decision (non-interactive)")
    p.add_argument("--interactive", action=argparse.BooleanOptionalAction, default=None,
                   help="step with Enter/b/q (default: when the input is a terminal)")
    p.add_argument("--step", type=non_negative_int, default=0, help="interactive: start at this step")
    p.add_argument("--html", metavar="OUT.html", help="write one self-contained HTML replay page instead")
    p.add_argument("--images", choices=("auto", "all", "none"), default="auto",
                   help="HTML: board pictures per step (auto: when the game draws its own)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("play", help="play a game in the terminal against policies")
    p.add_argument("env_id", help="env id (spyenvs list)")
    p.add_argument("--players", type=positive_int, default=None)
    p.add_argument("--seat", default="0", help="your seat: index or role name (default 0)")
    p.add_argument("--vs", action="append", metavar="POLICY",
                   help="random, heuristic, ismcts[:SIMS...], expert, pretrained or a checkpoint path; once for all opponents or "
                        "once per other seat in order (default random)")
    p.add_argument("--seed", type=non_negative_int, default=None)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="game config option")
    p.add_argument("--record", default=None, help="where to save the game record (default ./spyenvs-play-ENV-seedN.json)")
    p.add_argument("--no-record", action="store_true", help="do not save the game")
    p.add_argument("--window", action="store_true", help="also show your view's picture in a window (pygame)")
    p.add_argument("--full-map", "--full-view", dest="full_map", action="store_true",
                   help="print your whole view before every decision (default: in full when your turn "
                        "starts, then only the lines that changed)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("train", help="MaskablePPO self-play with a snapshot league (needs the train extra)")
    add_train_arguments(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("eval", help="tournament between policies: win rates per role, Elo")
    add_eval_arguments(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("scorecard", help="a policy against the game's fixed ladder of bots: win rates per role, "
                                         "Elo on the ladder's frozen scale")
    add_scorecard_arguments(p)
    p.set_defaults(func=cmd_scorecard)

    p = sub.add_parser("exploit", help="approximate exploitability: train a best response to a frozen policy "
                                       "(needs the train extra)")
    add_exploit_arguments(p)
    p.set_defaults(func=cmd_exploit)
    return parser


def main(argv=None) -> int:
    """Run one subcommand; every user error ends as one ``spyenvs: error:`` line and a
    non-zero exit status (2; 130 on Ctrl-C)."""
    args = build_parser().parse_args(argv)
    return run_reporting_errors(lambda: args.func(args))


if __name__ == "__main__":
    sys.exit(main())
