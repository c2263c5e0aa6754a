"""PettingZoo entry points for specter_ops_v0."""

from spyenvs.core.envfactory import env_functions

from .game import SpecterOpsGame

GAME = SpecterOpsGame
env, raw_env = env_functions(GAME)
