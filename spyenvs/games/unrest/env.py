"""PettingZoo entry points of unrest_v0 (Unrest / "Rebelia kontra Imperium")."""

from spyenvs.core.envfactory import env_functions

from .game import UnrestGame

GAME = UnrestGame
env, raw_env = env_functions(GAME)
