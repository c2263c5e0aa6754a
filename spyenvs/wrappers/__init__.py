"""Views of spyenvs games for single-agent learners: :class:`SelfPlayEnv` (one game,
Gymnasium; numpy and gymnasium only) and :class:`VecSelfPlayEnv` (N games in one
process behind SB3's ``VecEnv``; needs the train extra, so it loads on first use)."""

from .selfplay import SelfPlayEnv, role_kind

__all__ = ["SelfPlayEnv", "VecSelfPlayEnv", "role_kind"]


def __getattr__(name):
    if name == "VecSelfPlayEnv":
        from .vec_selfplay import VecSelfPlayEnv

        return VecSelfPlayEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
