"""Views of spyenvs games for single-agent learners: :class:`SelfPlayEnv` (one game,
Gymnasium; numpy and gymnasium only) and :class:`VecSelfPlayEnv` (N games in one
process behind SB3's ``VecEnv``; needs the train extra, so it loads on first use)."""

from ..core.game import role_kind
from .selfplay import SelfPlayEnv

__all__ = ["SelfPlayEnv", "VecSelfPlayEnv", "role_kind"]


def __getattr__(name):
    if name == "VecSelfPlayEnv":
        # late: it needs stable-baselines3 (the train extra); spyenvs.wrappers must import without it
        from .vec_selfplay import VecSelfPlayEnv

        return VecSelfPlayEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
