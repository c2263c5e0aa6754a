"""PettingZoo entry points for spy_games_v0."""

from spyenvs.core.envfactory import env_functions

from .game import SpyGamesGame

GAME = SpyGamesGame
env, raw_env = env_functions(GAME)
