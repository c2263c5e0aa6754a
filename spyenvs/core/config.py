"""Declarative config parameters: each game lists its options once, and every
wrong value raises a ValueError that says what is allowed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Param:
    """One config option. ``choices`` (a tuple) or ``min``/``max`` (ints or floats)
    restrict it; ``kind`` is bool, int, float or str."""

    default: Any
    kind: type = int
    choices: tuple | None = None
    min: float | None = None
    max: float | None = None
    optional: bool = False  # None is allowed
    doc: str = ""

    def allowed(self) -> str:
        if self.choices is not None:
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.kind is bool:
            text = "True or False"
        elif self.kind is str:
            text = "a string"
        else:
            lo = "-inf" if self.min is None else self.min
            hi = "inf" if self.max is None else self.max
            text = f"{self.kind.__name__} in [{lo}, {hi}]"
        return text + (" or None" if self.optional else "")

    def check(self, name: str, value: Any, env_id: str) -> Any:
        if value is None and self.optional:
            return None
        ok = True
        if self.kind is bool:
            ok = isinstance(value, bool)
        elif self.kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
            if not ok and hasattr(value, "__index__") and not isinstance(value, bool):
                value, ok = int(value), True  # numpy ints from sweeps
        elif self.kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            value = float(value) if ok else value
        elif self.kind is str:
            ok = isinstance(value, str)
        if ok and self.choices is not None:
            ok = value in self.choices
        if ok and self.min is not None and value < self.min:
            ok = False
        if ok and self.max is not None and value > self.max:
            ok = False
        if not ok:
            raise ValueError(
                f"{env_id}: invalid value {value!r} for config '{name}'; allowed: {self.allowed()}"
            )
        return value


def parse_config(spec: dict[str, Param], given: dict[str, Any], env_id: str) -> dict[str, Any]:
    """Merge ``given`` over the defaults in ``spec``, checking every value."""
    unknown = sorted(set(given) - set(spec))
    if unknown:
        raise ValueError(
            f"{env_id}: unknown config option(s) {', '.join(unknown)}; "
            f"allowed options: {', '.join(sorted(spec))}"
        )
    return {name: p.check(name, given.get(name, p.default), env_id) for name, p in spec.items()}
