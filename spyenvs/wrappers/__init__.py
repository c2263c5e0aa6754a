"""Views of spyenvs games for single-agent learners: :class:`SelfPlayEnv` (one game,
Gymnasium; numpy and gymnasium only), :class:`VecSelfPlayEnv` (N games in one process
behind SB3's ``VecEnv``) and :class:`ProcessVecSelfPlayEnv` (the same games split over
forked processes); the two vec envs need the train extra, so they load on first use."""

from ..core.game import role_kind
from .selfplay import SelfPlayEnv

__all__ = ["SelfPlayEnv", "VecSelfPlayEnv", "ProcessVecSelfPlayEnv", "role_kind"]


def __getattr__(name):
    # late: these need stable-baselines3 (the train extra); spyenvs.wrappers must import without it
    if name == "VecSelfPlayEnv":
        from .vec_selfplay import VecSelfPlayEnv

        return VecSelfPlayEnv
    if name == "ProcessVecSelfPlayEnv":
        from .vec_processes import ProcessVecSelfPlayEnv

        return ProcessVecSelfPlayEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
