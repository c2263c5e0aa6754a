"""Macro decisions for trained policies: one learner decision that stands for several
of the env's decisions, a planner filling in the rest.

The env, its decisions and its masks stay as they are (every PettingZoo user gets the
same AEC env); a macro lives in the policy and training layer. A config names it
(``macro: specter_destination``), a checkpoint's metadata too (``"macro":
"specter_destination"``), and :class:`~spyenvs.agents.torch_policy.TorchPolicy`, the
trainer's vectorised env (:class:`~spyenvs.wrappers.vec_selfplay.VecSelfPlayEnv`,
which gets the object and knows no game) and the warm start play through it alike.

A macro template ``bind(game, seat)`` gives the seat's player for one game (it
remembers its plan, so one per game), or None where the macro has nothing to decide
for that seat. The player reads only the seat's own observation and mask:

* ``auto_action(observation, mask) -> int | None``: the env action its plan plays now,
  or None when the policy decides;
* ``decision_mask(observation, mask) -> mask``: what the policy chooses from now (the
  env's mask where the macro does not change the decision);
* ``env_action(choice) -> int``: the env action of the policy's choice on the last
  ``decision_mask`` (the plan starts there);
* ``teacher_choice(teacher, observation, mask) -> int``: a teacher's choice on that
  decision (a cloning label), ``teacher`` being a policy that plays the env's decisions;
* ``first_step_logits(observation, mask, logits) -> logits``: a choice's logits
  carried onto the env's actions (search priors), leaving the plan alone.

Kinds (:data:`MACRO_KINDS`): ``specter_destination``
(:mod:`spyenvs.agents.macros.specter_ops`): the Specter Ops agent chooses where to end
her turn; a route planner walks her there.
"""

from __future__ import annotations

from typing import Any

#: the macro kinds a config or checkpoint may name ("none": every decision is the env's)
MACRO_KINDS = ("none", "specter_destination")


def make_macro(kind: str | None) -> Any:
    """The macro template named ``kind`` (:data:`MACRO_KINDS`; ``none`` or None: None)."""
    if kind in (None, "none"):
        return None
    if kind == "specter_destination":
        from .specter_ops import SpecterDestination

        return SpecterDestination()
    raise ValueError(f"unknown macro {kind!r}; allowed: {', '.join(MACRO_KINDS)}")
