"""Game records: config + seed + action list as JSON, checked when read and written.
Replaying one (:func:`spyenvs.registry.replay`, which knows the games) reproduces the
game exactly: every chance event comes from the seeded RNG."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import RecordError

RECORD_FORMAT = "spyenvs.record"
RECORD_VERSION = 1


def make_record(game) -> dict[str, Any]:
    if game.seed is None:
        raise RecordError("cannot record a game that was never reset")
    rec = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "env_id": game.env_id,
        "config": dict(game.config),
        "seed": game.seed,
        "actions": list(game.actions),
    }
    if game.is_over:
        rec["outcome"] = list(game.outcome())
    return rec


def validate_record(rec: Any) -> dict[str, Any]:
    if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT:
        raise RecordError("not a spyenvs game record (missing format 'spyenvs.record')")
    if rec.get("version") != RECORD_VERSION:
        raise RecordError(f"unsupported record version {rec.get('version')!r}; this spyenvs reads {RECORD_VERSION}")
    for key, kind in (("env_id", str), ("config", dict), ("seed", int), ("actions", list)):
        if not isinstance(rec.get(key), kind):
            raise RecordError(f"record field '{key}' is missing or not a {kind.__name__}")
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in rec["actions"]):
        raise RecordError("record field 'actions' must be a list of ints")
    return rec


def save_record(rec: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(validate_record(rec), indent=1))


def load_record(path: str | Path) -> dict[str, Any]:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise RecordError(f"cannot read record {path}: {exc}") from exc
    try:
        rec = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path} is not a JSON game record: {exc}") from exc
    return validate_record(rec)
