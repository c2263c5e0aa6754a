"""The score card's fixed Elo scale: per game and config, the frozen ratings of a
ladder of bots (random pinned at 1000, then heuristic, pretrained, ...), shipped as
``<env_id>.json`` beside this file for the game's default config.

A ladder file is written only by ``python -m spyenvs.experiments.leaderboard
--ladder`` from a round-robin among its bots, and records where its numbers came
from: the matches, games per ordered pair, date, seconds and load average. The bots
a score card plays are the file's ``bots``, so adding one to the ladder is a data
change. Here the files are found and checked; :mod:`spyenvs.experiments.scorecard`
plays against them and never changes them.
"""

from __future__ import annotations

import json
import os
from typing import Any

from spyenvs.registry import make_game

HERE = os.path.dirname(os.path.abspath(__file__))
#: the layout of a ladder file; bumped when a key changes meaning
FORMAT = 1
KEYS = ("format", "ladder_version", "env_id", "config", "bots", "ratings", "anchor", "games_per_pair",
        "matches", "date", "seconds", "load", "source")


class LadderError(ValueError):
    """No ladder for a game and config, or a ladder file that is not one."""


def is_search(spec: str) -> bool:
    """Whether a bot is a search bot (``expert``, ``ismcts[:SIMS]``): seconds a game where
    the others take milliseconds, so a ladder or score card may give it fewer games."""
    return spec == "expert" or spec.split(":", 1)[0] == "ismcts"


def ladder_path(env_id: str, tag: str | None = None) -> str:
    """``<env_id>.json`` (the default config) or ``<env_id>-<tag>.json`` (another)."""
    return os.path.join(HERE, f"{env_id}-{tag}.json" if tag else f"{env_id}.json")


def pretrained_digest(env_id: str, config: dict[str, Any] | None = None) -> str | None:
    """SHA-256 of the shipped pretrained file that plays a game of ``config`` (default:
    the default config; None: none shipped). A ladder records the digest of the file its
    ``pretrained`` played, so a file shipped after the ladder was made is found out: its
    anchor rating is then another policy's."""
    import hashlib

    from spyenvs.agents.pretrained import find_table, pretrained_path

    table = find_table(env_id, config)
    if table is None:
        return None
    path = pretrained_path(table)
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def stale_pretrained(ladder: dict[str, Any]) -> str | None:
    """Why the ladder's ``pretrained`` anchor is not the shipped file, or None."""
    recorded = ladder.get("pretrained_sha256")
    if "pretrained" not in ladder["bots"] or recorded is None:
        return None
    if recorded != pretrained_digest(ladder["env_id"], ladder["config"]):
        return (f"the {ladder['env_id']} ladder rated another pretrained file than the one shipped now: "
                "its pretrained rating is stale (python -m spyenvs.experiments.leaderboard ENV --ladder remakes it)")
    return None


def available() -> list[str]:
    """Env ids with at least one shipped ladder."""
    return sorted({f[: -len(".json")].split("-", 1)[0] for f in os.listdir(HERE) if f.endswith(".json")})


def tables() -> list[str]:
    """Every shipped ladder by its table: ``<env_id>`` (the default config) or
    ``<env_id>-<N>p``."""
    return sorted(f[: -len(".json")] for f in os.listdir(HERE) if f.endswith(".json"))


def read_ladder(path: str) -> dict[str, Any]:
    """One ladder file, checked for the keys a score card relies on."""
    with open(path) as f:
        try:
            ladder = json.load(f)
        except json.JSONDecodeError as exc:
            raise LadderError(f"{path}: not a ladder file ({exc})") from None
    missing = [k for k in KEYS if k not in ladder] if isinstance(ladder, dict) else list(KEYS)
    if missing:
        raise LadderError(f"{path}: not a ladder file (missing {', '.join(missing)})")
    if ladder["format"] != FORMAT:
        raise LadderError(f"{path}: ladder format {ladder['format']}, this spyenvs reads {FORMAT}")
    if set(ladder["bots"]) != set(ladder["ratings"]):
        raise LadderError(f"{path}: its bots {ladder['bots']} and ratings {sorted(ladder['ratings'])} differ")
    return ladder


def full_config(env_id: str, config: dict[str, Any] | None) -> dict[str, Any]:
    """Every option of ``env_id``'s config, defaults filled in, as JSON would hold it
    (so a ladder written before an option with a neutral default was added still matches)."""
    return json.loads(json.dumps(make_game(env_id, **(config or {})).config))


def find_ladder(env_id: str, config: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The shipped ladder of ``env_id`` whose config is ``config`` (default: the
    game's default config), with its file name under ``"file"``; None when
    ``env_id`` has ladders but none for this config."""
    wanted = full_config(env_id, config)
    names = sorted(f for f in os.listdir(HERE)
                   if f.endswith(".json") and (f == f"{env_id}.json" or f.startswith(f"{env_id}-")))
    if not names:
        raise LadderError(f"no score-card ladder for {env_id}; shipped for: {', '.join(available()) or 'none'}")
    for name in names:
        ladder = read_ladder(os.path.join(HERE, name))
        if full_config(env_id, ladder["config"]) == wanted:
            return {**ladder, "file": name}
    return None


def config_difference(env_id: str, config: dict[str, Any] | None, ladder: dict[str, Any]) -> str:
    """``key=value (ladder: other)`` for each option where ``config`` and ``ladder``'s differ."""
    wanted, have = full_config(env_id, config), full_config(env_id, ladder["config"])
    return ", ".join(f"{k}={wanted.get(k)!r} (ladder: {v!r})" for k, v in have.items() if wanted.get(k) != v)


def load_ladder(env_id: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """:func:`find_ladder`, or an error naming how ``config`` differs from the default ladder."""
    ladder = find_ladder(env_id, config)
    if ladder is None:
        default = find_ladder(env_id)
        differs = config_difference(env_id, config, default) if default else "its options"
        raise LadderError(f"no score-card ladder for {env_id} with this config (it differs from the "
                          f"default config's ladder in {differs})")
    return ladder
