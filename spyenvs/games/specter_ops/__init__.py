"""Specter Ops: Shadow of Babel (Plaid Hat, 2015) on the real Facility 83X map:
one hidden A.R.K. agent against 2-4 hunters (a secret traitor with 5 players).
``INFO`` is what the game says about itself (:class:`spyenvs.core.info.GameInfo`)."""

from spyenvs.core.info import GameInfo

INFO = GameInfo(
    env_id="specter_ops_v0",
    title="Specter Ops",
    summary="Specter Ops: Shadow of Babel (Plaid Hat, 2015): hidden movement on the Facility 83X map, "
            "one agent against 2-4 hunters (a secret traitor at 5 players).",
    rewards="Team payoff: if the agent escapes, the agent (and the traitor at 5 players) get +1 "
            "and every hunter -1; if the hunters win, the reverse.",
    pettingzoo_id="spyenvs/specter_ops-v0",
    heuristic="spyenvs.agents.heuristics.specter_ops",
    net_input="cell_board",
    train_speed_target=1.0,
    # the plan search (spyenvs.agents.specter_search): the generic search's 10-decision
    # cut-off never sees a round go by in this game, so its values are flat
    expert_search="ismcts:4000:heuristic:macro=specter:value=search:top=8:reply=1:bias=1:time=0.5",
    learning_goals={"agent": ((0.90, None), (0.95, None)), "hunter": ((0.99, None), (0.25, None))},
)
