"""spyenvs: PettingZoo AEC environments for four spy-themed tabletop games.

    import spyenvs
    env = spyenvs.make("the_agents_v0", num_players=4)

Importing spyenvs also registers every env with PettingZoo, so
``pettingzoo.make("aec", "spyenvs/the_agents-v0", num_players=4)`` is the same env.
The OpenSpiel games live in :mod:`spyenvs.openspiel` (the ``openspiel`` extra).
"""

from .core.errors import GameStateError, IllegalActionError, RecordError
from .registry import ENV_IDS, PETTINGZOO_IDS, make, make_game, make_raw, register_pettingzoo, replay

register_pettingzoo()

__version__ = "0.1.0"
__all__ = ["ENV_IDS", "PETTINGZOO_IDS", "make", "make_game", "make_raw", "replay", "IllegalActionError", "GameStateError", "RecordError"]
