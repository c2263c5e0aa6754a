"""Unrest / "Rebelia kontra Imperium" (Brendan Hansen, 2023) as ``unrest_v0``:
roles ``rebel`` and ``empire``; rules in ``rules/unrest.md``."""

from .game import UnrestGame

__all__ = ["UnrestGame"]
