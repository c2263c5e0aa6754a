"""The second algorithm family (issue 24.3, :mod:`spyenvs.experiments.algorithms`):
Deep Monte-Carlo and OpenSpiel's NFSP, each run end to end at a tiny step budget into
an ordinary checkpoint that plays legally; DMC's regression target is the episode's
Monte-Carlo return; one MLP computes every kind's own network; NFSP's seats of a kind
share networks and buffers; the table script; one-line errors.

Budgets here are decisions (``steps``), never wall-clock time, so the runs do not
depend on the machine's speed."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from tests.core.toy_game import HighCard

torch = pytest.importorskip("torch")
pytest.importorskip("matplotlib")

from spyenvs.agents.arena import play_game  # noqa: E402
from spyenvs.agents.policy import RandomPolicy  # noqa: E402
from spyenvs.agents.torch_policy import TorchPolicy  # noqa: E402
from spyenvs.experiments.algo_common import (Budget, InputTransform, kind_mlp, kind_policy,  # noqa: E402
                                             linear_layers, merge_kind_mlps)
from spyenvs.experiments.algorithms import main, run_algorithm  # noqa: E402
from spyenvs.experiments.dmc import DMC, DMCConfig  # noqa: E402
from spyenvs.registry import make_game  # noqa: E402
from spyenvs.tools.arguments import run_reporting_errors  # noqa: E402


def plays_legally(policy, game, seeds=range(3)):
    """``policy`` in every seat of ``game`` against random: play_game raises on an
    illegal action, so finishing is the check."""
    for seed in seeds:
        for seat in range(game.num_players):
            seats = [RandomPolicy(seed)] * game.num_players
            seats[seat] = policy
            play_game(game, seats, seed, max_decisions=3000)


def tiny_dmc(**kw) -> DMCConfig:
    return DMCConfig(**{"num_games": 4, "hidden": [16], "batch_size": 8, **kw})


# ------------------------------------------------------------------ the export
def test_one_mlp_computes_each_kinds_own_network_and_reads_raw_observations():
    """Unrest has two kinds: the merged checkpoint network, given the kind's one-hot
    and the raw observation, gives that kind's network's output on the transformed
    input (inputs scaled, constant entries dropped in Specter Ops; here scaled)."""
    game = make_game("unrest_v0")
    transform = InputTransform.for_game(game)
    torch.manual_seed(0)
    nets = {k: kind_mlp(transform.width, [7, 5], game.num_actions) for k in ("rebel", "empire")}
    meta = {"env_id": game.env_id, "config": game.config, "roles": list(game.roles),
            "role_kinds": ["rebel", "empire"], "obs_dim": game.observation_size,
            "num_actions": game.num_actions, "activation": "relu"}
    policy = kind_policy({k: linear_layers(n) for k, n in nets.items()}, transform, meta)
    rng = np.random.default_rng(1)
    game.reset(3)
    for _ in range(30):
        seat = game.current_player
        obs, mask = game.observe(seat), game.legal_mask()
        want = nets[game.roles[seat]](torch.from_numpy(transform(obs)[None]))[0].detach().numpy()
        got = policy.bind(game, seat).action_logits(obs, mask)
        legal = mask > 0
        np.testing.assert_allclose(got[legal], want[legal], rtol=1e-4, atol=1e-4)
        game.step(int(rng.choice(np.flatnonzero(mask))))


def test_a_single_kind_exports_its_network_with_the_scaling_folded_in():
    game = HighCard()
    game.reset(0)
    transform = InputTransform.for_game(game)
    net = kind_mlp(transform.width, [6], game.num_actions)
    (w0, b0), (w1, b1) = merge_kind_mlps({"player": linear_layers(net)}, ["player"], transform)
    obs = game.observe(0)
    raw = np.maximum(obs @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(raw, net(torch.from_numpy(transform(obs)[None]))[0].detach().numpy(), atol=1e-5)


def test_kinds_of_different_depth_cannot_merge():
    transform = InputTransform.for_game(make_game("unrest_v0"))
    a = linear_layers(kind_mlp(transform.width, [4], 60))
    b = linear_layers(kind_mlp(transform.width, [4, 4], 60))
    with pytest.raises(ValueError, match="same depth"):
        merge_kind_mlps({"rebel": a, "empire": b}, ["rebel", "empire"], transform)


# -------------------------------------------------------------------- DMC
def test_dmc_samples_carry_the_terminal_payoff_of_the_seat_that_acted():
    """High Card, 2 players, 1 round: an episode is 2 decisions, one per seat. Both
    samples reach the replay with that episode's payoff for the seat that made the
    decision (its Monte-Carlo return), their inputs being that seat's observations."""
    dmc = DMC(tiny_dmc(num_games=1), game=HighCard)
    dmc.act(epsilon=1.0)
    assert dmc.stats["episodes"] == 0 and dmc.replays["player"].size == 0  # nothing until the episode ends
    dmc.act(epsilon=1.0)
    assert dmc.stats["episodes"] == 1
    episode = dmc.recent[-1]
    replay = dmc.replays["player"]
    assert replay.size == 2 and episode["samples"] == 2
    # replay the episode from its seed and actions
    game = HighCard()
    game.reset(episode["seed"])
    for i, action in enumerate(episode["actions"]):
        seat = game.current_player
        np.testing.assert_allclose(replay.x[i].astype(np.float32), dmc.transform(game.observe(seat)), atol=1e-3)
        assert replay.a[i] == action
        game.step(action)
        assert replay.g[i] == episode["outcome"][seat]
    assert game.is_over and list(game.outcome()) == episode["outcome"]
    assert sorted(episode["outcome"]) == [-1.0, 1.0]


def test_dmc_regresses_q_of_the_action_taken_on_the_return():
    dmc = DMC(tiny_dmc(num_games=1, learning_rate=0.01), game=HighCard)
    for _ in range(2):
        dmc.act(epsilon=1.0)
    replay = dmc.replays["player"]
    x, a, g = replay.x[:2].astype(np.float32), replay.a[:2].copy(), replay.g[:2].copy()
    for _ in range(300):
        dmc.update("player", x, a, g)
    q = dmc.nets["player"](torch.from_numpy(x)).detach().numpy()[np.arange(2), a]
    np.testing.assert_allclose(q, g, atol=0.05)


def test_a_game_cut_at_max_decisions_pays_zero():
    dmc = DMC(tiny_dmc(num_games=1, max_decisions=1), game=HighCard)
    dmc.act(epsilon=1.0)
    assert dmc.stats["truncated"] == 1 and dmc.replays["player"].g[:1].tolist() == [0.0]


def test_dmc_runs_end_to_end_on_the_toy_game_into_a_checkpoint_that_plays(tmp_path):
    cfg = tiny_dmc(num_games=8, hidden=[16, 16], seed=3)
    res = run_algorithm("dmc", cfg, str(tmp_path), steps=400, points=2, curve_games=4, scorecard_games=2,
                        game=HighCard, quiet=True)
    assert res["timesteps"] >= 400 and sum(res["stats"]["updates"].values()) > 0
    policy = TorchPolicy.load(tmp_path / "final.npz")
    assert policy.meta["info"]["algorithm"] == "dmc" and policy.meta["activation"] == "relu"
    plays_legally(policy, HighCard())
    history = json.loads((tmp_path / "history.json").read_text())
    assert [row["timesteps"] for row in history] == [0, res["timesteps"]]
    assert (tmp_path / "curve.png").stat().st_size > 0
    card = json.loads((tmp_path / "scorecard.json").read_text())
    assert [o["opponent"] for o in card["opponents"]] == ["random", "heuristic"] and card["rating"] is None


def test_the_command_runs_dmc_on_unrest_into_a_rated_score_card(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["unrest_v0", "--algo", "dmc", "--steps", "300", "--points", "2", "--curve-games", "1",
                 "--scorecard-games", "1", "--out", str(out), "--opt", "num_games=8", "--opt", "hidden=[32]",
                 "--quiet"]) == 0
    assert "dmc on unrest_v0" in capsys.readouterr().out
    res = json.loads((out / "results.json").read_text())
    assert res["elo"] is not None and res["options"]["hidden"] == [32] and res["load"]["start"]
    card = json.loads((out / "scorecard.json").read_text())
    assert card["env_id"] == "unrest_v0" and card["ladder"] is not None
    from spyenvs.agents.ladder import load_ladder

    assert {o["opponent"] for o in card["opponents"]} == set(load_ladder("unrest_v0")["bots"])
    plays_legally(TorchPolicy.load(out / "final.npz"), make_game("unrest_v0"), seeds=[0])


# ------------------------------------------------------------------- NFSP
def tiny_nfsp(**kw):
    from spyenvs.experiments.nfsp import NFSPConfig

    return NFSPConfig(**{"env_id": "unrest_v0", "hidden": [32], "batch_size": 16, "learn_every": 8,
                         "min_buffer_size_to_learn": 32, "anticipatory_param": 0.5, "buffer_mb": 4, **kw})


def test_nfsp_runs_a_few_hundred_steps_on_unrest_into_a_loadable_checkpoint(tmp_path):
    pytest.importorskip("pyspiel", reason="needs the openspiel extra")
    pytest.importorskip("tree", reason="OpenSpiel's NFSP needs dm-tree (the openspiel extra)")
    res = run_algorithm("nfsp", tiny_nfsp(), str(tmp_path), steps=300, points=2, curve_games=1,
                        scorecard_games=0, quiet=True)
    assert res["timesteps"] >= 300 and res["policy"].endswith("final.npz:sample")
    for deterministic in (True, False):
        policy = TorchPolicy.load(tmp_path / "final.npz", deterministic=deterministic, seed=0)
        assert policy.meta["info"]["algorithm"] == "nfsp"
        plays_legally(policy, make_game("unrest_v0"), seeds=[0, 1])


def test_nfsp_learns_its_average_policy_into_the_networks_it_exports():
    pytest.importorskip("pyspiel", reason="needs the openspiel extra")
    pytest.importorskip("tree", reason="OpenSpiel's NFSP needs dm-tree (the openspiel extra)")
    from spyenvs.experiments.nfsp import NFSPRun

    run = NFSPRun(tiny_nfsp(seed=1))
    before = {k: [w.copy() for w, _ in layers] for k, layers in run.kind_weights().items()}
    run.train(Budget(None, 400))
    after = run.kind_weights()
    assert all(a.loss[0] is not None for a in run.owners.values())  # the average policies trained
    assert all(not np.array_equal(before[k][0], after[k][0][0]) for k in ("rebel", "empire"))


def test_nfsp_seats_of_one_kind_share_networks_and_buffers():
    """The Agents, 2 players of one kind: two OpenSpiel agents, one set of networks,
    and one replay and reservoir once both have added samples."""
    pytest.importorskip("pyspiel", reason="needs the openspiel extra")
    pytest.importorskip("tree", reason="OpenSpiel's NFSP needs dm-tree (the openspiel extra)")
    from spyenvs.experiments.nfsp import NFSPRun

    run = NFSPRun(tiny_nfsp(env_id="the_agents_v0", anticipatory_param=1.0))
    a, b = run.agents
    assert a is not b and list(run.owners) == ["player"]
    assert a._avg_network is b._avg_network and a._rl_agent._q_network is b._rl_agent._q_network
    run.episode()
    assert a._reservoir_buffer is b._reservoir_buffer and a._rl_agent._replay_buffer is b._rl_agent._replay_buffer
    assert len(a._rl_agent._replay_buffer) > 0


def test_the_bridge_environment_hands_the_acting_player_its_transformed_observation():
    pytest.importorskip("pyspiel", reason="needs the openspiel extra")
    pytest.importorskip("tree", reason="OpenSpiel's NFSP needs dm-tree (the openspiel extra)")
    from spyenvs.experiments.nfsp import BridgeEnvironment
    from spyenvs.openspiel import load_game

    game = load_game("unrest_v0", seed=5)
    transform = InputTransform.for_game(game.template)
    env = BridgeEnvironment(game, transform)
    ts = env.reset()
    rng = np.random.default_rng(0)
    while not ts.last():
        state, p = env.get_state, ts.observations["current_player"]
        np.testing.assert_allclose(ts.observations["info_state"][p],
                                   transform(np.asarray(state.observation_tensor(p), np.float32)))
        assert ts.observations["legal_actions"][p] == state.legal_actions(p) and len(state.legal_actions(p)) > 1
        assert all(ts.observations["info_state"][q] is None for q in range(2) if q != p)
        ts = env.step([int(rng.choice(ts.observations["legal_actions"][p]))])
    assert ts.rewards == env.get_state.returns() and sorted(ts.rewards) == [-1.0, 1.0]
    assert env.forced > 0  # Unrest has single-option decisions: played by the environment


# --------------------------------------------------------------- the table
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def table_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("algorithm_table", os.path.join(ROOT, "scripts", "algorithm_table.py"))
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    return table


def test_the_table_script_renders_saved_results_between_its_markers(tmp_path):
    root = ROOT
    table = table_script()
    with open(os.path.join(root, "agents", "pretrained", "unrest_v0.json")) as f:
        shipped_seconds = json.load(f)["training"]["train_seconds"]
    assert table.recipe_minutes("unrest_v0") == pytest.approx(shipped_seconds / 60, abs=0.01)

    def result(algo, elo):
        kinds = {k: {"score": 5.0, "games": 10, "rate": 0.5, "low": 0.2, "high": 0.8} for k in ("rebel", "empire")}
        card = {"opponents": [{"opponent": "random", "kinds": kinds}, {"opponent": "heuristic", "kinds": kinds}],
                "games_per_role": 10, "load": "1.00 1.00 1.00", "ladder": {"version": "2026-12-03.abcd1234"}}
        return {"algorithm": algo, "env_id": "unrest_v0", "budget": {"minutes": 9.53, "steps": None},
                "timesteps": 12345, "load": {"start": "0.90 1.00 1.00"}, "scorecard": card,
                "elo": {"elo": elo, "plus_minus": 50.0, "bound": None}}

    folder = tmp_path / "algorithms"
    folder.mkdir()
    for algo, elo in (("dmc", 1200.0), ("nfsp", 1100.0)):
        (folder / f"unrest_v0-{algo}.json").write_text(json.dumps(result(algo, elo)))
    (folder / "unrest_v0-dmc.png").write_bytes(b"png")
    page = tmp_path / "results.md"
    page.write_text("# Results\n<!-- results: algorithms -->\nold\n<!-- /results: algorithms -->\ntail\n")
    table.write_table(str(page), str(folder))
    text = page.read_text()
    assert "old" not in text and text.endswith("tail\n")
    assert "| unrest_v0 | dmc | rebel | 50.0% [20.0%, 80.0%] | 50.0% [20.0%, 80.0%] | 1200 ± 50 | 2026-12-03.abcd1234 | 9.53 min |" in text
    assert "unrest_v0: dmc (1200)" in text and "[unrest_v0 dmc](algorithms/unrest_v0-dmc.png)" in text
    assert "| unrest_v0 | ![unrest_v0 dmc](algorithms/unrest_v0-dmc.png) | n/a |" in text  # the curves inline


def test_rescore_plays_a_saved_runs_card_again_on_the_ladder_shipped_now_and_keeps_its_training(tmp_path):
    from spyenvs.agents.ladder import load_ladder

    table = table_script()
    out = tmp_path / "run"
    assert main(["unrest_v0", "--algo", "dmc", "--steps", "300", "--points", "2", "--curve-games", "1",
                 "--scorecard-games", "0", "--out", str(out), "--opt", "num_games=8", "--opt", "hidden=[32]",
                 "--quiet"]) == 0
    saved = json.loads((out / "results.json").read_text())
    old_card = {"seed": 0, "max_decisions": 5000, "ladder": {"version": "2026-01-01.00000000"}, "opponents": []}
    saved.update(scorecard=old_card, elo={"elo": 1.0, "plus_minus": 1.0, "bound": None})
    folder = tmp_path / "algorithms"
    folder.mkdir()
    (folder / "unrest_v0-dmc.json").write_text(json.dumps(saved))
    table.rescore("unrest_v0", "dmc", games=1, search_games=1, folder=str(folder), runs=str(tmp_path), quiet=True)
    again = json.loads((folder / "unrest_v0-dmc.json").read_text())
    assert again["scorecard"]["ladder"]["version"] == load_ladder("unrest_v0")["ladder_version"]
    assert again["elo"] == again["scorecard"]["rating"] and again["elo"]["elo"] != 1.0 and again["rescored"]
    assert again["timesteps"] == saved["timesteps"] and again["load"] == saved["load"]  # the training kept
    assert again["scorecard"]["games_per_role"] == 1
    (out / "final.npz").unlink()
    with pytest.raises(ValueError, match="is gone"):
        table.rescore("unrest_v0", "dmc", games=1, folder=str(folder), quiet=True)


# --------------------------------------------------------------- bad input
@pytest.mark.parametrize("argv, message", [
    (["unrest_v0", "--algo", "dmc"], "give a budget"),
    (["nonsense_v0", "--algo", "dmc", "--steps", "10"], "nonsense_v0"),
    (["unrest_v0", "--algo", "dmc", "--steps", "10", "--opt", "nonsense=1"], "unknown training option 'nonsense'"),
    (["unrest_v0", "--algo", "dmc", "--steps", "10", "--opt", "batch_size=big"], "batch_size"),
    (["unrest_v0", "--algo", "dmc", "--steps", "10", "--opt", "hidden=[]"], "hidden"),
    (["unrest_v0", "--algo", "dmc", "--steps", "10", "--set", "revolution_threshold=-3"], "revolution_threshold"),
    (["unrest_v0", "--algo", "nfsp", "--steps", "10", "--opt", "play=maybe"], "play must be one of sample, greedy"),
])
def test_bad_input_is_a_one_line_error(argv, message, capsys, tmp_path):
    if "nfsp" in argv:
        pytest.importorskip("pyspiel", reason="needs the openspiel extra")
        pytest.importorskip("tree", reason="OpenSpiel's NFSP needs dm-tree (the openspiel extra)")
    code = run_reporting_errors(lambda: main(argv + ["--out", str(tmp_path / "x"), "--quiet"]), "algorithms")
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith("algorithms: error:") and message in err
    assert not (tmp_path / "x").exists()
