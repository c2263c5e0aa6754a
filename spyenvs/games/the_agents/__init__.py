"""The Agents (Saar Shai, 2013) as a spyenvs game: ``the_agents_v0``. ``INFO`` is
what the game says about itself (:class:`spyenvs.core.info.GameInfo`)."""

from spyenvs.core.info import GameInfo

INFO = GameInfo(
    env_id="the_agents_v0",
    title="The Agents",
    summary="The Agents (Saar Shai, 2013): a card game of hidden hands, double-edged cards and a race "
            "to 40 Intelligence Points.",
    rewards="The player who reaches 40 IP wins (+1), every other player loses (-1); with "
            "`end_rule=\"equal_turns\"` tied leaders all win. A truncated game (`max_turns`, "
            "`max_decisions_per_turn`) pays 0 to everyone.",
    pettingzoo_id="spyenvs/the_agents-v0",
    heuristic="spyenvs.agents.heuristics.the_agents",
    train_speed_target=5.0,
    learning_goals={"player": ((0.95, None), (0.55, 0.50))},
)
