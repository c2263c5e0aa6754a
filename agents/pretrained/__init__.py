"""The pretrained opponents: one shipped policy per table (a game at a player count),
each the final policy of a training run (``spyenvs train ENV --players N``), shipped
beside this file with its measured record (numpy arrays and JSON metadata read with
``allow_pickle=False``: loading runs no code and needs no torch).

A table's file is ``<env_id>.npz`` at the game's default player count and
``<env_id>-<N>p.npz`` at another (:func:`table_name`), its record the ``.json`` of the
same name. A table whose config a policy cannot tell from another's
(:meth:`~spyenvs.core.game.Game.policy_config`, e.g. Specter Ops at 3 players, which is
its 2-player game seat for seat) is served by that one's file.

``make_policy("pretrained")`` gives :class:`PretrainedPolicy`, a template that binds to
any seat of a game whose table ships a file trained on its config.
"""

from __future__ import annotations

import functools
import json
import os
import re
from typing import Any

import numpy as np

from spyenvs.registry import ENV_IDS, make_game

from ..checkpoint import CheckpointError
from ..policy import BasePolicy
from ..torch_policy import TorchPolicy

HERE = os.path.dirname(os.path.abspath(__file__))
_TABLE = re.compile(r"(?P<env_id>[a-z_]+_v\d+)(?:-(?P<players>\d+)p)?")


def table_name(env_id: str, config: dict[str, Any] | None = None) -> str:
    """The table a game of ``config`` plays at, as its shipped file is named:
    ``env_id`` at the game's default player count, ``env_id-Np`` at another, after
    :meth:`~spyenvs.core.game.Game.policy_config` (Specter Ops' 3 players are its 2)."""
    game = make_game(env_id, **(config or {}))
    players = game.policy_config().get("num_players")
    default = type(game).CONFIG.get("num_players")
    if players is None or default is None or players == default.default:
        return env_id
    return f"{env_id}-{players}p"


def player_counts(env_id: str) -> list[int]:
    """Every player count the game is played at (its ``num_players`` option's values;
    a game without that option, its one count)."""
    param = make_game(env_id).CONFIG.get("num_players")
    if param is None:
        return [make_game(env_id).num_players]
    return list(param.choices) if param.choices is not None else list(range(int(param.min), int(param.max) + 1))


def every_table() -> list[str]:
    """Every table of every game, by :func:`table_name` (player counts that play alike as one)."""
    names = []
    for env_id in ENV_IDS:
        for n in player_counts(env_id):
            config = {"num_players": n} if "num_players" in make_game(env_id).CONFIG else {}
            name = table_name(env_id, config)
            if name not in names:
                names.append(name)
    return names


def parse_table(name: str) -> tuple[str, dict[str, Any]]:
    """``env_id`` or ``env_id-Np`` as (env id, its config); a ValueError names what is allowed."""
    match = _TABLE.fullmatch(name or "")
    if match is None or match["env_id"] not in ENV_IDS:
        raise ValueError(f"unknown table {name!r}; a table is an env id ({', '.join(ENV_IDS)}), "
                         "or one with a player count, e.g. the_agents_v0-3p")
    config = {"num_players": int(match["players"])} if match["players"] else {}
    make_game(match["env_id"], **config)  # a player count the game does not have fails here
    return match["env_id"], config


def pretrained_path(table: str) -> str:
    """The shipped file of a table (``env_id`` or ``env_id-Np``, :func:`table_name`)."""
    return os.path.join(HERE, f"{table}.npz")


def available() -> list[str]:
    """The tables with a shipped pretrained policy (names as :func:`table_name`)."""
    return sorted(f[: -len(".npz")] for f in os.listdir(HERE) if f.endswith(".npz"))


def trained_config(table: str) -> dict[str, Any]:
    """The game config a shipped file was trained on (its metadata; no weights read)."""
    path = pretrained_path(table)
    return dict(_read_config(path, os.path.getmtime(path)))


@functools.lru_cache(maxsize=64)
def _read_config(path: str, mtime: float) -> dict[str, Any]:  # mtime: a file shipped anew is read anew
    with np.load(path, allow_pickle=False) as z:
        return json.loads(str(z["__meta__"])).get("config", {})


def _tables_of(env_id: str) -> list[str]:
    return [t for t in available() if t == env_id or t.startswith(f"{env_id}-")]


def served_counts(table: str) -> list[int]:
    """The other player counts a table's file is shipped for (its record's ``serves``:
    each measured there before it was listed, ``leaderboard --serve``)."""
    path = os.path.join(HERE, f"{table}.json")
    if not os.path.isfile(path):
        return []
    return sorted(int(n) for n in _read_record(path, os.path.getmtime(path)).get("serves", {}))


@functools.lru_cache(maxsize=64)
def _read_record(path: str, mtime: float) -> dict[str, Any]:
    with open(path) as f:
        return json.load(f)


def find_table(env_id: str, config: dict[str, Any] | None = None) -> str | None:
    """The shipped table whose file plays a game of ``config``: the file trained on a
    config the policy cannot tell from it (:meth:`~spyenvs.core.game.Game.policy_config`),
    else one whose record serves the game's player count with its other options the
    same (:func:`served_counts`); None when no file does."""
    wanted = make_game(env_id, **(config or {})).policy_config()
    tables = _tables_of(env_id)
    for table in tables:
        if make_game(env_id, **trained_config(table)).policy_config() == wanted:
            return table
    for table in tables:
        players = wanted.get("num_players")
        if players in served_counts(table):
            trained = make_game(env_id, **{**trained_config(table), "num_players": players}).policy_config()
            if trained == wanted:
                return table
    return None


def no_table_message(env_id: str, config: dict[str, Any] | None) -> str:
    """Why no shipped file serves a game of ``config``: how it differs from the file of
    its player count, or which player counts ship one."""
    game = make_game(env_id, **(config or {}))
    table = table_name(env_id, game.config)
    if table in available():
        trained_on = trained_config(table)
        differs = ", ".join(f"{k}={game.config.get(k)!r}" for k, v in trained_on.items() if game.config.get(k) != v)
        return f"the pretrained {table} policy was trained on {trained_on}; this game differs in {differs}"
    counts = ", ".join(str(trained_config(t).get("num_players", "?")) for t in _tables_of(env_id)) or "none"
    return (f"no pretrained {env_id} policy at num_players={game.config.get('num_players')}; "
            f"shipped at num_players {counts} (tables: {', '.join(_tables_of(env_id)) or 'none'})")


class PretrainedPolicy(BasePolicy):
    """Plays the shipped policy of whatever table it is bound to (its most likely
    legal action; ``sample=True`` samples instead)."""

    name = "pretrained"

    def __init__(self, seed: int | None = None, sample: bool = False):
        self.seed = seed
        self.sample = sample
        self._loaded: dict[str, Any] = {}
        self._tables: dict[tuple[str, str], str | None] = {}

    def bind(self, game: Any, seat: int) -> BasePolicy:
        # a tournament binds every game's seats afresh: find each config's table once
        key = (game.env_id, json.dumps(game.config, sort_keys=True))
        if key not in self._tables:
            self._tables[key] = find_table(game.env_id, game.config)
        table = self._tables[key]
        if table is None:
            raise CheckpointError(no_table_message(game.env_id, game.config))
        policy = self._loaded.get(table)
        if policy is None:
            policy = self._loaded[table] = TorchPolicy.load(pretrained_path(table), deterministic=not self.sample,
                                                            seed=self.seed)
            policy.name = "pretrained"
        return policy.bind(game, seat)

    def act(self, observation, mask):  # pragma: no cover - a template cannot play
        raise TypeError("PretrainedPolicy needs its game and seat: call bind(game, seat) first")

    def reseed(self, seed: int) -> None:
        self.seed = seed
        for policy in self._loaded.values():
            policy.reseed(seed)
