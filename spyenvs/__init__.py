"""spyenvs: PettingZoo AEC environments for four spy-themed tabletop games.

    import spyenvs
    env = spyenvs.make("the_agents_v0", num_players=4)
"""

from .core.errors import GameStateError, IllegalActionError, RecordError
from .registry import ENV_IDS, make, make_game, make_raw

__version__ = "0.1.0"
__all__ = ["ENV_IDS", "make", "make_game", "make_raw", "IllegalActionError", "GameStateError", "RecordError"]
