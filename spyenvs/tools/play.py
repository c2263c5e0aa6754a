"""`spyenvs play`: a human plays one game in the terminal against policies.

The human sees only their own role's view: ``render_text(seat)`` before each of
their decisions, other roles' moves as ``action_label_for(action, seat)`` (which hides
what that role may not see), and the legal moves with their labels. Input is a
move's number, its label (or a unique start or part of it), or ``#ID`` for a raw action id;
anything else re-prompts. ``quit``, Ctrl-C and end of input stop the game cleanly.
The game, finished or not, is saved as a record that ``spyenvs replay`` reads.

The view is printed in full when the human's turn starts and then, within the
turn, only the lines that changed (``full_view`` prints it every time).

Opponents: ``random`` is built in; other specs (``heuristic``, ``ismcts``, a
checkpoint path) come from :mod:`spyenvs.agents`, imported only when asked for, so
playing against random needs numpy, gymnasium and pettingzoo alone.
"""

from __future__ import annotations

import difflib
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TextIO

import numpy as np

from ..core.errors import SpyenvsError
from ..core.game import Game, fresh_seed
from ..core.records import save_record
from ..core.viewer import Viewer
from ..registry import make_game

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "h", "help")
SHOW_WORDS = ("s", "show", "state")
LOG_WORDS = ("log", "moves")

HELP_TEXT = """\
Type the number of a move, its label (or a unique start or part of a label), or
#ID for the raw action id. Other commands: s/show = your view again, log = all moves so far
(as you saw them), ?/help = this text, q/quit (or Ctrl-C, Ctrl-D) = stop and save."""


class PlayError(SpyenvsError, ValueError):
    """A play session that cannot start (unknown seat, opponent spec, ...)."""


# ------------------------------------------------------------------ policies
class RandomPolicy:
    """Uniform over the legal actions; needs nothing but the mask."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(len(legal))])


def make_opponent(spec: str, game: Game, seat: int, seed: int | None = None):
    """The policy named by ``spec``, bound to role ``seat`` of the live ``game``.

    ``random`` is built in. Anything else (heuristic, ismcts, ismcts:SIMS, a
    checkpoint path) is built by ``spyenvs.agents.make_policy(spec, seed=...)`` and bound with ``bind(game, seat)`` (heuristics learn their role
    there; ISMCTS searches on ``resample_hidden(seat)`` of the game)."""
    if spec == "random":
        return RandomPolicy(seed)
    try:
        # late: agents sits above tools in the layers, so it is looked up only when a
        # non-random opponent is asked for
        from spyenvs.agents import make_policy
    except ImportError as exc:
        raise PlayError(f"opponent {spec!r} needs spyenvs.agents ({exc}); use --vs random") from exc
    maker = make_policy
    policy = maker(spec, seed=seed)
    bind = getattr(policy, "bind", None)
    return bind(game, seat) if bind is not None else policy


def policy_action(policy, game: Game, seat: int) -> int:
    """Ask ``policy`` for role ``seat``'s move from that role's observation and mask."""
    action = policy.act(game.observe(seat), np.array(game.legal_mask(), dtype=np.int8, copy=True))
    action = int(action)
    if not (0 <= action < game.num_actions) or not game.legal_mask()[action]:
        raise PlayError(f"policy {getattr(policy, 'name', policy)!r} chose illegal action {action} "
                        f"for {game.roles[seat]} in decision '{game.decision_name()}'")
    return action


# ------------------------------------------------------------------- input
def resolve_seat(game: Game, seat: str | int | None) -> int:
    """A seat given as an index or a role name."""
    if seat is None:
        return 0
    if isinstance(seat, str) and seat.strip().lstrip("-").isdigit():
        seat = int(seat)
    if isinstance(seat, int):
        if 0 <= seat < game.num_players:
            return seat
        raise PlayError(f"--seat {seat} out of range; allowed: 0..{game.num_players - 1} or a role "
                        f"({', '.join(game.roles)})")
    if seat in game.roles:
        return game.roles.index(seat)
    raise PlayError(f"--seat {seat!r} is not a seat; allowed: 0..{game.num_players - 1} or a role "
                    f"({', '.join(game.roles)})")


def parse_choice(text: str, legal: list[int], labels: list[str]) -> tuple[int | None, str]:
    """(action, "") for valid input, else (None, why) — never raises."""
    t = text.strip()
    if not t:
        return None, "type the number of a move (? for help)"
    if t.isdigit():
        k = int(t)
        if 1 <= k <= len(legal):
            return legal[k - 1], ""
        return None, f"no move {k}: choose 1..{len(legal)}"
    if t.startswith("#"):
        try:
            a = int(t[1:])
        except ValueError:
            return None, f"{t!r}: #ID needs a number"
        if a in legal:
            return a, ""
        return None, f"action id {a} is not legal now"
    low = t.lower()
    exact = [a for a, lab in zip(legal, labels) if lab.lower() == low]
    if len(exact) == 1:
        return exact[0], ""
    matches = exact or [a for a, lab in zip(legal, labels) if lab.lower().startswith(low)]
    if not matches:  # e.g. "K12" for "move to K12"
        matches = [a for a, lab in zip(legal, labels) if low in lab.lower()]
    if len(matches) == 1:
        return matches[0], ""
    if matches:
        names = ", ".join(labels[legal.index(a)] for a in matches[:6])
        return None, f"{t!r} matches several moves ({names}{', ...' if len(matches) > 6 else ''}); be more exact"
    return None, f"{t!r} is not a legal move (? for help)"


def format_choices(labels: list[str], width: int | None = None) -> str:
    """Numbered moves, one per line, or in columns when there are many."""
    items = [f"{k:>3}) {lab}" for k, lab in enumerate(labels, 1)]
    if len(items) <= 12:
        return "\n".join(items)
    width = width or shutil.get_terminal_size((100, 24)).columns
    col = max(len(s) for s in items) + 2
    ncols = max(1, width // col)
    nrows = -(-len(items) // ncols)
    rows = []
    for r in range(nrows):
        rows.append("".join(items[c * nrows + r].ljust(col) for c in range(ncols) if c * nrows + r < len(items)).rstrip())
    return "\n".join(rows)


def view_changes(before: str, after: str) -> str | None:
    """What changed between two renderings of a view, compactly: the changed and
    new lines of ``after`` (a map row carries its own row label, a status line its
    own name), or a note that nothing changed; None when most of it changed (then
    the whole view is clearer). Used within one turn instead of reprinting the view."""
    if before == after:
        return "unchanged (s = show it)"
    old, new = before.splitlines(), after.splitlines()
    changed: list[str] = []
    for op, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op in ("replace", "insert"):
            changed.extend(new[j1:j2])
    changed = [line for line in changed if line.strip()]
    if not changed:
        return "lines removed (s = show it)"
    if len(changed) > max(6, len(new) // 2):
        return None
    return "changed lines (s = show all) ====\n" + "\n".join(changed)


# -------------------------------------------------------------------- play
@dataclass
class PlayResult:
    record: dict[str, Any]
    path: Path | None
    finished: bool
    outcome: list[float] | None = None
    log: list[str] = field(default_factory=list)


def default_record_path(env_id: str, seed: int) -> Path:
    return Path(f"spyenvs-play-{env_id}-seed{seed}.json")


def play_game(
    env_id: str,
    config: dict[str, Any] | None = None,
    seat: str | int | None = 0,
    opponents: list[str] | tuple[str, ...] = ("random",),
    seed: int | None = None,
    record_path: str | Path | None = None,
    save: bool = True,
    input_fn: Callable[[str], str] | None = None,
    out: TextIO | None = None,
    window: bool = False,
    auto_forced: bool = True,
    full_view: bool = False,
) -> PlayResult:
    """Play one game: the human at ``seat``, ``opponents`` at the other seats (one
    spec for all, or one per other seat in seat order). Returns the record and where
    it was saved. Input comes from ``input_fn`` (scripted in tests). With
    ``auto_forced`` a decision with a single legal move is made without asking.

    The view is printed in full when the human's turn starts (their first decision
    after another role moved); further decisions of the same turn (a Specter Ops
    move is one decision per space) show only the lines that changed, unless
    ``full_view``. ``s`` prints the whole view at any time."""
    out = out or sys.stdout
    input_fn = input_fn or input

    def say(text: str = "") -> None:
        out.write(text + "\n")
        out.flush()

    game = make_game(env_id, **(config or {}))
    me = resolve_seat(game, seat)
    others = [p for p in range(game.num_players) if p != me]
    specs = list(opponents) or ["random"]
    if len(specs) == 1:
        specs = specs * len(others)
    if len(specs) != len(others):
        raise PlayError(f"--vs: give one opponent for all or one per other seat ({len(others)}), got {len(specs)}")
    seed = fresh_seed() if seed is None else int(seed)
    game.reset(seed)
    policies = {p: make_opponent(s, game, p, seed=seed + 1 + p) for p, s in zip(others, specs)}
    if record_path is None:
        record_path = default_record_path(env_id, seed)
    viewer = None
    if window:
        viewer = Viewer(title=f"{env_id} — {game.roles[me]}")

    role = game.roles[me]
    log: list[str] = []
    say(f"{env_id} ({', '.join(f'{k}={v}' for k, v in game.config.items())}), seed {seed}")
    say("seats: " + ", ".join(f"{r}={'you' if p == me else specs[others.index(p)]}" for p, r in enumerate(game.roles)))
    say(f"You play {role}. Type ? for help.")

    finished = False
    shown: str | None = None  # the view as last printed in full or as a change
    try:
        while not game.is_over:
            p = game.current_player
            if p != me:
                shown = None  # someone else moved: the next own decision starts a turn
                a = policy_action(policies[p], game, p)
                line = f"{game.roles[p]}: {game.action_label_for(a, me)}"
                game.step(a)
                log.append(line)
                say("  " + line)
                continue
            legal = game.legal_actions()
            if len(legal) == 1 and auto_forced:
                line = f"{role} (you): {game.action_label(legal[0])} (the only legal move)"
                game.step(legal[0])
                log.append(line)
                say("  " + line)
                continue
            labels = [game.action_label(a) for a in legal]
            view_text = game.render_text(me)
            say("")
            change = None if shown is None or full_view else view_changes(shown, view_text)
            if change is None:
                say(f"==== your view ({role}), decision #{len(game.actions) + 1} ====")
                say(view_text)
            else:
                say(f"==== your view ({role}), decision #{len(game.actions) + 1}: {change}")
            shown = view_text
            if viewer is not None:
                viewer.show(game.render_rgb(me), view_text)
            say(f"---- {role}: {game.decision_name()} ----")
            say(format_choices(labels))
            while True:
                text = input_fn(f"{role}> ")
                word = text.strip().lower()
                if word in QUIT_WORDS:
                    raise KeyboardInterrupt
                if word in HELP_WORDS:
                    say(HELP_TEXT)
                    continue
                if word in SHOW_WORDS:
                    say(view_text)
                    say(format_choices(labels))
                    continue
                if word in LOG_WORDS:
                    say("\n".join(log) or "(no moves yet)")
                    continue
                action, why = parse_choice(text, legal, labels)
                if action is not None:
                    break
                say(why)
            line = f"{role} (you): {game.action_label(action)}"
            game.step(action)
            log.append(line)
            say("  " + line)
        finished = True
    except (KeyboardInterrupt, EOFError):
        say("\nstopped" + ("; the game so far is saved" if save else ""))
    finally:
        if viewer is not None:
            viewer.close()

    record = game.to_record()
    outcome = None
    if finished:
        outcome = list(game.outcome())
        say("")
        say(f"==== game over: your view ({role}) ====")
        say(game.render_text(me))
        say("==== everything revealed ====")
        say(game.render_text(None))
        mine = outcome[me]
        verdict = "you win" if mine > 0 else ("you lose" if mine < 0 else "draw")
        say("outcome: " + ", ".join(f"{r}={o:+g}" for r, o in zip(game.roles, outcome)) + f" — {verdict}")
    path = None
    if save:
        path = Path(record_path)
        save_record(record, path)
        say(f"record saved to {path} (spyenvs replay {path})")
    return PlayResult(record=record, path=path, finished=finished, outcome=outcome, log=log)
