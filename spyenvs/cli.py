"""The `spyenvs` command: list, match, bench, replay (and play, train, eval when
their modules are installed). Each subcommand is a small function here that calls
into the module that owns the work."""

from __future__ import annotations

import argparse
import json
import sys

from . import registry
from .core.errors import SpyenvsError


def _parse_config(items):
    """KEY=VALUE pairs into a config dict; values are parsed as JSON when they can be."""
    config = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"--set expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        try:
            config[key] = json.loads(value)
        except json.JSONDecodeError:
            config[key] = value
    return config


def cmd_list(args) -> int:
    for env_id in registry.ENV_IDS:
        cls = registry.game_class(env_id)
        game = cls()
        print(f"{env_id}: roles {', '.join(game.roles)} (default config)")
        for name, p in cls.CONFIG.items():
            print(f"    {name} = {p.default!r}  ({p.allowed()}) {p.doc}")
    return 0


def cmd_match(args) -> int:
    from .core.progress import progress_bar
    from .match import format_summary, play_random_match

    config = _parse_config(args.set)
    if args.players is not None:
        config["num_players"] = args.players
    with progress_bar(args.games, f"{args.env_id} games", enabled=not args.quiet) as bar:
        summary = play_random_match(args.env_id, args.games, args.seed, config, progress=lambda _: bar.update())
    print(format_summary(summary))
    return 0


def cmd_bench(args) -> int:
    from .bench import format_rows, run_bench

    extra = _parse_config(args.set)
    rows = run_bench(args.env or None, args.players or None, args.seconds, args.repeats, extra,
                     progress=None if args.quiet else (lambda m: print(m, file=sys.stderr)))
    print(format_rows(rows))
    return 0


def cmd_replay(args) -> int:
    from .core.records import load_record, replay

    rec = load_record(args.file)
    game = replay(rec, upto=0)
    view = None
    if args.view is not None:
        if args.view not in game.roles:
            raise SystemExit(f"--view must be one of {', '.join(game.roles)}, got {args.view!r}")
        view = game.roles.index(args.view)
    print(game.render_text(view))
    for i, a in enumerate(rec["actions"]):
        who = game.roles[game.current_player]
        label = game.action_label_for(a, view)
        game.step(a)
        print(f"\n#{i + 1} {who}: {label}")
        if args.every_step:
            print(game.render_text(view))
    if not args.every_step:
        print(game.render_text(view))
    if game.is_over:
        print("outcome: " + ", ".join(f"{r}={o:+g}" for r, o in zip(game.roles, game.outcome())))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="spyenvs", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list the envs and their config options")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("match", help="play random-vs-random games and print a summary")
    p.add_argument("env_id", choices=registry.ENV_IDS)
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="game config option")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("bench", help="steps/s of random play vs PettingZoo connect_four_v3")
    p.add_argument("--env", action="append", choices=registry.ENV_IDS, help="env id (repeatable; default all)")
    p.add_argument("--players", action="append", type=int, help="player count (repeatable; default all tested)")
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="game config option")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("replay", help="step through a game record in the terminal")
    p.add_argument("file")
    p.add_argument("--view", default=None, help="role whose view to show (default omniscient)")
    p.add_argument("--every-step", action="store_true", help="show the state after every decision")
    p.set_defaults(func=cmd_replay)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (SpyenvsError, ValueError) as exc:
        print(f"spyenvs: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
