"""Unrest / "Rebelia kontra Imperium" (Brendan Hansen, 2023) as ``unrest_v0``:
roles ``rebel`` and ``empire``; rules in ``rules/unrest.md``. ``INFO`` is what the
game says about itself (:class:`spyenvs.core.info.GameInfo`)."""

from spyenvs.core.info import GameInfo

INFO = GameInfo(
    env_id="unrest_v0",
    title="Unrest",
    summary='Unrest / "Rebelia kontra Imperium" (Brendan Hansen, 2023): an asymmetric two-player '
            "bluffing card game, the Rebel against the Empire.",
    rewards="Rebel win: rebel +1, empire -1; Empire win: the reverse. Zero-sum.",
    pettingzoo_id="spyenvs/unrest-v0",
    heuristic="spyenvs.agents.heuristics.unrest",
    net_input="card_table",
    train_speed_target=3.0,
    learning_goals={"rebel": ((0.70, None), (0.50, None)), "empire": ((0.93, None), (0.60, None))},
    expert_search="ismcts:400:random:prior=heuristic:temp=2:cut=20:value=heuristic:dets=32:time=1.0:reuse=1",
)
