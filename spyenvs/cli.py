"""The `spyenvs` command: list, match, bench, replay, play (and train, eval when
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
    from .tools.match import format_summary, play_random_match

    config = _parse_config(args.set)
    if args.players is not None:
        config["num_players"] = args.players
    with progress_bar(args.games, f"{args.env_id} games", enabled=not args.quiet) as bar:
        summary = play_random_match(args.env_id, args.games, args.seed, config, progress=lambda _: bar.update())
    print(format_summary(summary))
    return 0


def cmd_bench(args) -> int:
    if args.train:
        argv = [f"--env={e}" for e in args.env or []] + (["--steps", str(args.steps)] if args.steps else [])
        return _experiments("train_bench").main(argv)
    from .tools.bench import format_rows, run_bench

    extra = _parse_config(args.set)
    rows = run_bench(args.env or None, args.players or None, args.seconds, args.repeats, extra,
                     progress=None if args.quiet else (lambda m: print(m, file=sys.stderr)))
    print(format_rows(rows))
    return 0


def cmd_replay(args) -> int:
    from .core.records import load_record
    from .tools.replay import ReplayTimeline, print_replay, step_through

    rec = load_record(args.file)
    if args.html:
        from .tools.html_replay import write_html_replay

        if args.view is not None and args.view != "omniscient" and args.view not in _record_roles(rec):
            raise SystemExit(f"--view must be omniscient or one of {', '.join(_record_roles(rec))}, got {args.view!r}")
        from .core.progress import progress_bar

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

    config = _parse_config(args.set)
    if args.players is not None:
        config["num_players"] = args.players
    registry.env_module(args.env_id)  # unknown ids fail here with the list of ids
    play_game(args.env_id, config, seat=args.seat, opponents=args.vs or ["random"], seed=args.seed,
              record_path=args.record, save=not args.no_record, window=args.window)
    return 0


def _experiments(module: str):
    """spyenvs.experiments.<module>, which needs the ``train`` extra (torch, sb3-contrib ...)."""
    import importlib

    try:
        return importlib.import_module(f"spyenvs.experiments.{module}")
    except ImportError as exc:
        raise SystemExit(
            f"spyenvs: error: this command needs the training extra ({exc}); install it with\n"
            "  pip install torch==2.13.0 && pip install -e '.[train]'"
        ) from exc


def cmd_train(args) -> int:
    if args.backend == "rllib":
        try:
            import ray.rllib  # noqa: F401
        except ImportError as exc:
            raise SystemExit(
                f"spyenvs: error: --backend rllib needs the rllib extra ({exc}); in its own venv:\n"
                "  pip install torch==2.13.0 && pip install -e '.[rllib]'"
            ) from exc
        return _experiments("rllib_selfplay").run(args)
    return _experiments("train_selfplay").run(args)


def cmd_eval(args) -> int:
    return _experiments("evaluate").run(args)


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
    p.add_argument("--train", action="store_true",
                   help="training speed instead: each game's default config vs PettingZoo's SB3 tutorial (train extra)")
    p.add_argument("--steps", type=int, default=None, help="--train: learner steps per process (default 20480)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("replay", help="step through a game record, or write it as an HTML page")
    p.add_argument("file")
    p.add_argument("--view", default=None, help="role whose view to show (default omniscient)")
    p.add_argument("--every-step", action="store_true", help="print the state after every decision (non-interactive)")
    p.add_argument("--interactive", action=argparse.BooleanOptionalAction, default=None,
                   help="step with Enter/b/q (default: when the input is a terminal)")
    p.add_argument("--step", type=int, default=0, help="interactive: start at this step")
    p.add_argument("--html", metavar="OUT.html", help="write one self-contained HTML replay page instead")
    p.add_argument("--images", choices=("auto", "all", "none"), default="auto",
                   help="HTML: board pictures per step (auto: when the game draws its own)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("play", help="play a game in the terminal against policies")
    p.add_argument("env_id", help="env id (spyenvs list)")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--seat", default="0", help="your seat: index or role name (default 0)")
    p.add_argument("--vs", action="append", metavar="POLICY",
                   help="random, heuristic, ismcts or a checkpoint path; once for all opponents or "
                        "once per other seat in order (default random)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="game config option")
    p.add_argument("--record", default=None, help="where to save the game record (default ./spyenvs-play-ENV-seedN.json)")
    p.add_argument("--no-record", action="store_true", help="do not save the game")
    p.add_argument("--window", action="store_true", help="also show your view's picture in a window (pygame)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("train", help="MaskablePPO self-play with a snapshot league (needs the train extra)")
    _add_train_arguments(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("eval", help="tournament between policies: win rates per role, Elo")
    _add_eval_arguments(p)
    p.set_defaults(func=cmd_eval)
    return parser


def _add_train_arguments(p) -> None:
    # the same arguments as experiments/train_selfplay.py, declared here so that
    # `spyenvs --help` works without the train extra
    p.add_argument("env_id", help="env id, e.g. unrest_v0")
    p.add_argument("--config", default=None,
                   help="YAML training config (default: configs/<game>.yaml; configs/rllib_<game>.yaml with --backend rllib)")
    p.add_argument("--out", default=None, help="output folder (default runs/<env_id>, runs/rllib_<env_id> with --backend rllib)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its state.pt")
    p.add_argument("--timesteps", type=int, default=None, help="override total_timesteps")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="override a config option, dotted (ppo.n_steps=256, game.num_players=3)")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                   help="sb3: MaskablePPO on this machine; rllib: Ray RLlib, local or a cluster (docs/rllib.md)")
    p.add_argument("--iterations", type=int, default=None, help="rllib: training iterations")
    p.add_argument("--address", default=None, help="rllib: Ray cluster to join (auto, HOST:6379, ray://HOST:10001)")
    p.add_argument("--num-cpus", type=int, default=None, help="rllib: CPUs of the local Ray instance")


def _add_eval_arguments(p) -> None:
    p.add_argument("env_id")
    p.add_argument("policies", nargs="+", help="random, heuristic, ismcts[:SIMS], or a checkpoint path")
    p.add_argument("--games", type=int, default=100, help="games per ordered pair (seats rotate)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="game config option")
    p.add_argument("--out", default=None, help="folder for tournament.json and tournament.md")
    p.add_argument("--max-decisions", type=int, default=5000)
    p.add_argument("--curve", metavar="HISTORY.json", default=None,
                   help="also plot a training run's history.json as learning_curve.png (in --out, else beside it)")
    p.add_argument("--quiet", action="store_true")


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
