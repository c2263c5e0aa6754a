"""Helpers shared by the replay tests: a finished toy-game record on disk."""

from __future__ import annotations

from spyenvs.core.records import save_record
from spyenvs.registry import make_game


def toy_record(env_id, actions=(0, 1, 1), num_players=3, seed=5):
    game = make_game(env_id, num_players=num_players)
    game.reset(seed)
    for a in actions:
        game.step(a)
    return game.to_record()


def toy_record_file(env_id, path, **kw):
    rec = toy_record(env_id, **kw)
    save_record(rec, path)
    return rec
