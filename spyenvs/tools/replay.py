"""`spyenvs replay FILE`: step through a game record in the terminal from one view.

A record is config + seed + actions; :class:`ReplayTimeline` replays it once and
keeps a clone of the game after every action, so stepping back and jumping are
instant. Views: ``None`` is omniscient, otherwise a role index; move labels come
from ``action_label_for(action, view)`` so a role's view never shows another
role's hidden choices.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, TextIO

from ..core.errors import RecordError
from ..core.game import Game
from ..registry import replay as replay_record
from ..core.records import validate_record

REPLAY_HELP = "Enter/n = next, b = back, NUMBER = go to that step, 0 = start, e = end, q = quit"


def status_text(game: Game, view: int | None) -> str:
    """Who decides next, or the outcome. The pending decision's name is shown only
    to the omniscient view and to the deciding role: in some games it depends on
    hidden state (which card a role holds decides what it is asked next)."""
    if game.is_over:
        return "game over: " + ", ".join(f"{r}={o:+g}" for r, o in zip(game.roles, game.outcome()))
    p = game.current_player
    if view is None or view == p:
        return f"to move: {game.roles[p]} ({game.decision_name()})"
    return f"to move: {game.roles[p]}"


class ReplayTimeline:
    """Every state of a recorded game, with each move's actor and labels."""

    def __init__(self, rec: dict[str, Any]):
        self.record = validate_record(rec)
        game = replay_record(rec, upto=0)
        self.roles: tuple[str, ...] = game.roles
        self.env_id: str = game.env_id
        self.states: list[Game] = [game.clone()]
        self.actors: list[int] = []
        self.decisions: list[str] = []
        self._moves: list[tuple[Game, int]] = []  # (state before, action)
        for i, a in enumerate(rec["actions"]):
            if game.is_over:
                raise RecordError(f"record does not replay: action #{i} ({a}) comes after the game ended")
            before = self.states[-1]
            try:
                game.step(a)
            except (ValueError, RuntimeError) as exc:
                raise RecordError(f"record does not replay: action #{i} ({a}) failed: {exc}") from exc
            self.actors.append(before.current_player)
            self.decisions.append(before.decision_name())
            self._moves.append((before, a))
            self.states.append(game.clone())

    def __len__(self) -> int:
        """Number of actions; steps run 0..len."""
        return len(self._moves)

    def view_index(self, view: str | None) -> int | None:
        """A role name (or None / 'omniscient') as a view index."""
        if view is None or view in ("omniscient", "all"):
            return None
        if view not in self.roles:
            raise ValueError(f"view {view!r} is not a role; allowed: omniscient, {', '.join(self.roles)}")
        return self.roles.index(view)

    def move_label(self, i: int, view: int | None) -> str:
        """Label of action ``i`` (0-based) as ``view`` saw it."""
        before, a = self._moves[i]
        return before.action_label_for(a, view)

    def move_line(self, i: int, view: int | None) -> str:
        return f"#{i + 1} {self.roles[self.actors[i]]}: {self.move_label(i, view)}"

    def state_text(self, step: int, view: int | None) -> str:
        return self.states[step].render_text(view)

    def status_line(self, step: int, view: int | None = None) -> str:
        return status_text(self.states[step], view)

    def frame(self, step: int, view: int | None) -> str:
        """What the terminal shows at ``step``: the move that led here, the state, who is next."""
        head = f"---- step {step}/{len(self)}"
        if step > 0:
            head += f" — {self.move_line(step - 1, view)}"
        return "\n".join((head, self.state_text(step, view), self.status_line(step, view)))


def print_replay(tl: ReplayTimeline, view: int | None, every_step: bool, out: TextIO) -> None:
    """Non-interactive: the start, every move, and the state after each (``every_step``)
    or only at the end."""
    out.write(tl.frame(0, view) + "\n")
    for i in range(len(tl)):
        if every_step:
            out.write("\n" + tl.frame(i + 1, view) + "\n")
        else:
            out.write(tl.move_line(i, view) + "\n")
    if not every_step and len(tl):
        out.write("\n" + tl.frame(len(tl), view) + "\n")
    out.flush()


def step_through(tl: ReplayTimeline, view: int | None, input_fn: Callable[[str], str] | None = None,
                 out: TextIO | None = None, start: int = 0) -> int:
    """Interactive stepping; returns the step it stopped at. End of input or Ctrl-C quits."""
    out = out or sys.stdout
    input_fn = input_fn or input
    step = max(0, min(start, len(tl)))
    out.write(REPLAY_HELP + "\n")
    shown = None
    while True:
        if shown != step:
            out.write("\n" + tl.frame(step, view) + "\n")
            out.flush()
            shown = step
        try:
            cmd = input_fn(f"[{step}/{len(tl)}] ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            out.write("\n")
            return step
        if cmd in ("", "n", "next"):
            if step == len(tl):
                out.write("(end of the game; b = back, q = quit)\n")
            step = min(step + 1, len(tl))
        elif cmd in ("b", "back", "p", "prev"):
            if step == 0:
                out.write("(start of the game)\n")
            step = max(step - 1, 0)
        elif cmd in ("e", "end"):
            step = len(tl)
        elif cmd in ("q", "quit", "exit"):
            return step
        elif cmd.isdigit():
            step = min(int(cmd), len(tl))
        else:
            out.write(f"unknown command {cmd!r}; {REPLAY_HELP}\n")
