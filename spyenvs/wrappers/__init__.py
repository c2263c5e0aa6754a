"""Views of spyenvs games for single-agent learners (numpy and gymnasium only)."""

from .selfplay import SelfPlayEnv, role_kind

__all__ = ["SelfPlayEnv", "role_kind"]
