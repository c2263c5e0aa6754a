"""Test-only env module for the toy HighCard game, so the play and replay tools can
be tested without any real game registered (conftest registers it per test)."""

from spyenvs.core.envfactory import env_functions
from tests.core.toy_game import HighCard

GAME = HighCard
env, raw_env = env_functions(GAME)
