"""PettingZoo entry points for ``the_agents_v0``."""

from spyenvs.core.envfactory import env_functions

from .game import TheAgentsGame

GAME = TheAgentsGame
env, raw_env = env_functions(GAME)
