"""The RLlib path: the multi-agent env wrapper, the action-masking RLModule, the
league's seat mapping and snapshot copies, and a few training iterations on a
local Ray instance for two games (a card game with one shared policy; Specter Ops,
or while it is not registered another game, with per-role policies), evaluated
through our tournament tool, checkpointed and resumed.

Runs in its own virtual environment (``bash .ci/rllib_test.sh``): ray[rllib]
pins its own gymnasium, and the main suite never imports ray.
"""

from __future__ import annotations

import functools
import json
import os
import types

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from ray.rllib.core.columns import Columns  # noqa: E402

from spyenvs.agents.policy import role_kind, role_kinds  # noqa: E402
from spyenvs.agents.registry import make_policy  # noqa: E402
from spyenvs.experiments import rllib_selfplay as rs  # noqa: E402
from spyenvs.experiments.evaluate import tournament  # noqa: E402
from spyenvs.experiments.rllib_module import (MaskedPPOModule, MaskedRandomModule, RLModulePolicy,  # noqa: E402
                                      SpyenvsMultiAgentEnv, draw_matchup, map_agent_to_module)
from spyenvs.registry import ENV_IDS, make_game  # noqa: E402

CARD_GAME = "the_agents_v0" if "the_agents_v0" in ENV_IDS else ENV_IDS[0]


def _second_game() -> str:
    """Specter Ops once registered; until then another registered game, one with
    several role kinds if there is one (to exercise per-role policies)."""
    if "specter_ops_v0" in ENV_IDS:
        return "specter_ops_v0"
    others = [e for e in ENV_IDS if e != CARD_GAME] or [CARD_GAME]
    return next((e for e in others if len(role_kinds(make_game(e).roles)) > 1), others[0])


SECOND_GAME = _second_game()


def tiny_cfg(env_id: str, **over) -> dict:
    opts = {
        "iterations": 2, "env_runners": 1, "max_decisions": 400, "checkpoint_every": 1,
        "ppo.train_batch_size_per_learner": 256, "ppo.minibatch_size": 128, "ppo.num_epochs": 1,
        "net.hidden": [32], "league.snapshot_every": 1, "league.max_snapshots": 2,
        "eval.every": 1, "eval.games": 2, "eval.final_games": 4, "eval.opponents": ["random"],
    }
    opts.update(over)
    return rs.load_config(None, env_id, opts)


# ------------------------------------------------------------ no Ray needed
def test_config_rejects_unknown_options_and_values():
    with pytest.raises(ValueError, match="unknown training option"):
        rs.load_config(None, CARD_GAME, {"no_such_option": 1})
    with pytest.raises(ValueError, match="shared or per_role"):
        rs.load_config(None, CARD_GAME, {"policies": "both"})
    cfg = rs.load_config(None, CARD_GAME, {"ppo.lr": 1e-4, "env_runners": 4})
    assert cfg["ppo"]["lr"] == 1e-4 and cfg["env_runners"] == 4


def test_shipped_rllib_configs_load():
    root = os.path.join(os.path.dirname(__file__), "..", "configs")
    names = [f for f in os.listdir(root) if f.startswith("rllib_") and f.endswith(".yaml")]
    assert names
    for name in names:
        cfg = rs.load_config(os.path.join(root, name))
        if cfg["env_id"] in ENV_IDS:
            make_game(cfg["env_id"], **cfg["game"])


@pytest.mark.parametrize("env_id", sorted({CARD_GAME, SECOND_GAME}))
def test_env_wrapper_plays_a_game_with_role_onehot(env_id):
    env = SpyenvsMultiAgentEnv({"env_id": env_id, "game": {}, "max_decisions": 300, "role_onehot": True})
    kinds = role_kinds(env.roles)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=3)
    done, steps = False, 0
    while not done:
        (agent, o), = obs.items()
        space = env.observation_spaces[agent]
        assert space.contains(o), agent
        if len(kinds) > 1:
            tail = o["observation"][-len(kinds):]
            assert tail.sum() == 1 and tail[kinds.index(role_kind(agent))] == 1
        legal = np.flatnonzero(o["action_mask"])
        obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(legal))})
        done = term["__all__"] or trunc["__all__"]
        steps += 1
    assert steps <= 300
    assert set(rew) == set(env.roles)  # every role gets its final reward


def _spaces(n_obs=6, n_act=5):
    import gymnasium as gym

    obs = gym.spaces.Dict({"observation": gym.spaces.Box(-1, 1, (n_obs,), np.float32),
                           "action_mask": gym.spaces.Box(0, 1, (n_act,), np.int8)})
    return obs, gym.spaces.Discrete(n_act)


def test_masked_module_never_samples_an_illegal_action():
    from ray.rllib.models.torch.torch_distributions import TorchCategorical

    obs_space, act_space = _spaces()
    module = MaskedPPOModule(observation_space=obs_space, action_space=act_space,
                             model_config={"hidden": [16], "activation": "tanh"})
    # large random weights make the raw logits far from uniform
    with torch.no_grad():
        for p in module.actor.parameters():
            p.normal_(0, 5.0)
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(512, 6, generator=gen) * 2 - 1
    mask = (torch.rand(512, 5, generator=gen) < 0.3).to(torch.int8)
    mask[torch.arange(512), torch.randint(0, 5, (512,), generator=gen)] = 1  # never all zero
    batch = {Columns.OBS: {"observation": x, "action_mask": mask}}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        dist = TorchCategorical.from_logits(logits)
        for _ in range(5):
            a = dist.sample()
            assert mask[torch.arange(512), a].all()
        assert mask[torch.arange(512), logits.argmax(-1)].all()
    assert module.compute_values(batch).shape == (512,)
    rand = MaskedRandomModule(observation_space=obs_space, action_space=act_space, model_config={})
    logits = rand.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    a = TorchCategorical.from_logits(logits).sample()
    assert mask[torch.arange(512), a].all()


def test_module_as_policy_in_a_tournament():
    game = make_game(CARD_GAME)
    kinds = role_kinds(game.roles)
    extra = len(kinds) if len(kinds) > 1 else 0
    obs_space, act_space = _spaces(game.observation_size + extra, game.num_actions)
    module = MaskedPPOModule(observation_space=obs_space, action_space=act_space,
                             model_config={"hidden": [16], "activation": "tanh"})
    policy = RLModulePolicy(module, kinds, deterministic=False, seed=1, name="module")
    result = tournament(CARD_GAME, {}, {"module": policy, "random": make_policy("random", seed=2)}, games=2,
                        max_decisions=2000)
    assert {m["candidate"] for m in result["matches"]} == {"module", "random"}


def test_league_mapping_gives_one_learner_seat_per_episode():
    roles = ["agent", "hunter_0", "hunter_1"]
    for per_role in (False, True):
        spec = {"roles": roles, "per_role": per_role, "seed": 0, "opponents": [("random", 1.0), ("0", 1.0), ("1", 1.0)]}
        seen_seats, seen_opps = set(), set()
        for i in range(60):
            ep = types.SimpleNamespace(id_=f"episode-{i}")
            mods = [map_agent_to_module(r, ep, spec=spec) for r in roles]
            assert mods == [map_agent_to_module(r, ep, spec=spec) for r in roles]  # stable per episode
            seat, opp = draw_matchup(ep.id_, spec)
            learners = [m for m in mods if m.startswith("main")]
            assert len(learners) == 1 and mods[seat] == learners[0]
            if per_role:
                assert learners[0] == ("main_agent" if seat == 0 else "main_hunter")
            others = {m.split("_")[0] for j, m in enumerate(mods) if j != seat}
            assert len(others) == 1  # one opponent (per-role: its module per kind) plays every other seat
            if per_role:
                assert all(m == "random" or m.endswith("_" + role_kind(roles[j]))
                           for j, m in enumerate(mods) if j != seat)
            seen_seats.add(seat)
            seen_opps.add(opp)
        assert seen_seats == {0, 1, 2} and seen_opps == {"random", "0", "1"}
    spec = {"roles": roles, "per_role": True, "seed": 0, "opponents": [("self", 1.0)]}
    mods = [map_agent_to_module(r, types.SimpleNamespace(id_="x"), spec=spec) for r in roles]
    assert mods == ["main_agent", "main_hunter", "main_hunter"]


# ---------------------------------------------------------- local Ray runs
def test_snapshot_copies_the_learner_into_a_frozen_slot_everywhere(ray_local):
    cfg = tiny_cfg(CARD_GAME)
    league = rs.League(cfg)
    algo = rs.build_config(cfg, league).build_algo()
    try:
        algo.train()

        def weights(mid):
            st = algo.learner_group.get_state(components=[f"learner/rl_module/{mid}"])["learner"]["rl_module"][mid]
            return {k: np.asarray(v) for k, v in st.items()}

        main = weights("main")
        before = weights("snap1")
        assert any(not np.array_equal(main[k], before[k]) for k in main)
        league.next_slot = 1
        rs.fill_snapshot(algo, league, 1)
        after = weights("snap1")
        assert all(np.array_equal(main[k], after[k]) for k in main)
        remote = algo.env_runner_group.foreach_env_runner(
            lambda er: {k: v.detach().numpy().copy() for k, v in er.module["snap1"].state_dict().items()},
            local_env_runner=False)
        assert remote and all(np.allclose(main[k], r[k]) for r in remote for k in r)
        # the frozen slot is not trained: one more iteration leaves it as it was
        algo.train()
        assert all(np.array_equal(after[k], weights("snap1")[k]) for k in after)
    finally:
        algo.stop()


def test_train_evaluate_checkpoint_and_resume_card_game(ray_local, tmp_path):
    out = str(tmp_path / "run")
    res = rs.train(tiny_cfg(CARD_GAME), out, quiet=True)
    assert res["iterations"] == 2 and res["env_steps"] >= 512
    assert res["throughput"]["env_steps_per_second"] > 0
    for f in ("results.json", "results.md", "history.json", "league.json", "throughput.json"):
        assert os.path.isfile(os.path.join(out, f)), f
    assert os.path.isdir(os.path.join(out, "checkpoint"))
    assert len(json.load(open(os.path.join(out, "history.json")))) == 1  # eval at iteration 1 of 2
    league = json.load(open(os.path.join(out, "league.json")))["league"]
    assert league["snapshots_taken"] == [1, 2]
    # the exported actor is an ordinary policy checkpoint: the tournament tool plays it
    (ckpt,) = res["checkpoints"]
    pol = make_policy(ckpt, seed=0)
    result = tournament(CARD_GAME, {}, {"rllib": pol, "random": make_policy("random", seed=1)}, games=2)
    assert result["elo"].keys() == {"rllib", "random"}
    # resume: the iteration count, the league and the steps continue
    res2 = rs.train(tiny_cfg(CARD_GAME, iterations=3), out, resume=True, quiet=True)
    assert res2["iterations"] == 3 and res2["env_steps"] > res["env_steps"]
    assert json.load(open(os.path.join(out, "league.json")))["league"]["snapshots_taken"] == [1, 2, 3]


def test_train_second_game_with_per_role_policies(ray_local, tmp_path):
    out = str(tmp_path / "run2")
    cfg = tiny_cfg(SECOND_GAME, policies="per_role", **{"eval.every": 0, "eval.final_games": 0})
    res = rs.train(cfg, out, quiet=True)
    kinds = role_kinds(make_game(SECOND_GAME).roles)
    assert res["iterations"] == 2
    assert [os.path.basename(p) for p in res["checkpoints"]] == sorted(f"main_{k}_final.pt" for k in kinds)
    by_kind = {k: make_policy(os.path.join(out, "policies", f"main_{k}_final.pt"), seed=0) for k in kinds}
    from spyenvs.experiments.rllib_module import RoleDispatchPolicy

    population = {"rllib": RoleDispatchPolicy(by_kind), "random": make_policy("random", seed=1)}
    game = make_game(SECOND_GAME)
    result = tournament(SECOND_GAME, {}, population, games=game.num_players, max_decisions=400)
    assert set(result["matches"][0]["kinds"]) == set(kinds)


def test_mapping_fn_pickles_by_reference():
    import cloudpickle

    fn = functools.partial(map_agent_to_module, spec={"roles": ["player_0"], "per_role": False, "seed": 0,
                                                      "opponents": [("random", 1.0)]})
    assert cloudpickle.loads(cloudpickle.dumps(fn))("player_0", types.SimpleNamespace(id_="e")) == "main"


def test_cli_arguments_reach_the_trainer(monkeypatch):
    """`spyenvs train ENV --backend rllib` passes the SB3 path's arguments; the
    RLlib run reads configs/rllib_<game>.yaml, --opt, --timesteps (rounded up to
    whole iterations) and the Ray options."""
    import argparse

    seen = {}
    monkeypatch.setattr(rs, "train", lambda cfg, out, **kw: seen.update(cfg=cfg, out=out, **kw))
    parser = argparse.ArgumentParser()
    rs.add_arguments(parser)
    args = parser.parse_args(["the_agents_v0", "--opt", "env_runners=3", "--address", "auto", "--out", "x"])
    args.timesteps = 10_001
    assert rs.run(args) == 0
    batch = seen["cfg"]["ppo"]["train_batch_size_per_learner"]
    assert seen["cfg"]["iterations"] == -(-10_001 // batch)
    assert seen["cfg"]["env_runners"] == 3 and seen["address"] == "auto" and seen["out"] == "x"
    assert seen["cfg"]["envs_per_runner"] == 8  # from configs/rllib_the_agents.yaml


def test_spyenvs_train_backend_rllib_runs_the_rllib_trainer(monkeypatch):
    """`spyenvs train ENV --backend rllib` (the main CLI) dispatches to this trainer."""
    from spyenvs import cli

    seen = {}
    monkeypatch.setattr(rs, "train", lambda cfg, out, **kw: seen.update(cfg=cfg, out=out, **kw))
    args = cli.build_parser().parse_args(
        ["train", "the_agents_v0", "--backend", "rllib", "--iterations", "2", "--num-cpus", "2", "--out", "y"])
    assert args.func(args) == 0
    assert seen["cfg"]["iterations"] == 2 and seen["num_cpus"] == 2 and seen["out"] == "y"
