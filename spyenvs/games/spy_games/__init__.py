"""Spy Games ("Игры шпионов", 2017 prototype): hidden spies, confrontations with a
referee and structured negotiation, for 2-4 players (rules/spy_games.md). ``INFO``
is what the game says about itself (:class:`spyenvs.core.info.GameInfo`)."""

from spyenvs.core.info import GameInfo

INFO = GameInfo(
    env_id="spy_games_v0",
    title="Spy Games",
    summary='Spy Games / "Игры шпионов" (2017 prototype): negotiation, hidden spies and confrontations '
            "with a referee.",
    rewards="Set by `reward`: `win_loss` (the winner +1, the others -1, a shared win 0), "
            "`relative` (VP minus the others' mean VP, zero-sum), `rank` (+1 down to -1 by "
            "final rank, ties share) or `raw` (VP).",
    pettingzoo_id="spyenvs/spy_games-v0",
    heuristic="spyenvs.agents.heuristics.spy_games",
    train_speed_target=3.0,
    learning_goals={"player": ((0.90, None), (0.375, None))},
    expert_search="ismcts:200:random:prior=pretrained:cut=10:value=heuristic:dets=32:time=1.0:reuse=1",
)
