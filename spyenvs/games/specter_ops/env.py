"""PettingZoo entry points for specter_ops_v0."""

from spyenvs.core.envfactory import env_functions

from .game import SpecterOps

GAME = SpecterOps
env, raw_env = env_functions(GAME)
