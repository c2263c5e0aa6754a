"""Exceptions shared by every spyenvs game and the adapter."""

from __future__ import annotations


class SpyenvsError(Exception):
    """Base class of every spyenvs error."""


class IllegalActionError(SpyenvsError, ValueError):
    """An action that the current decision does not allow.

    Carries the offending action, the name of the pending decision and the legal
    actions so a caller can log or recover without re-deriving them.
    """

    def __init__(self, action, decision: str, legal: list[int], labels: list[str] | None = None):
        self.action = action
        self.decision = decision
        self.legal = list(legal)
        shown = ", ".join(
            f"{a}={lab}" for a, lab in zip(self.legal, labels or [""] * len(self.legal))
        ) if labels else ", ".join(map(str, self.legal))
        super().__init__(
            f"illegal action {action!r} for decision '{decision}'; legal actions: [{shown}]"
        )


class GameStateError(SpyenvsError, RuntimeError):
    """The game or env is used in a state that does not allow the call
    (stepping before reset or after the game ended)."""


class RecordError(SpyenvsError, ValueError):
    """A game record or checkpoint file that is corrupt, foreign or inconsistent."""
