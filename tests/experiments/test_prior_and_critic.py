"""The training options of issue 22 (points 1, 4, 5): a residual policy over the
heuristic's scores (``net.prior``), a critic that also reads every other seat's
observation (``net.privileged_critic``), and team roles trained as a team
(``learner_teams``). Tiny networks and runs only."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.core.toy_game import HighCard

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from spyenvs.agents.checkpoint import CheckpointError, read_checkpoint  # noqa: E402
from spyenvs.agents.heuristics import HeuristicPolicy  # noqa: E402
from spyenvs.agents.prior import HeuristicPrior, prior_columns  # noqa: E402
from spyenvs.agents.torch_policy import TorchPolicy, policy_input  # noqa: E402
from spyenvs.experiments import config as config_mod  # noqa: E402
from spyenvs.experiments.config import TrainConfig  # noqa: E402
from spyenvs.experiments.league import SnapshotLeague  # noqa: E402
from spyenvs.experiments.nets import policy_kwargs_for  # noqa: E402
from spyenvs.experiments.train_selfplay import (  # noqa: E402
    Learner,
    RunState,
    describe_game,
    load_config,
    make_model,
    make_vec_env,
    train,
)
from spyenvs.registry import make_game  # noqa: E402
from spyenvs.tools.arguments import parse_key_values  # noqa: E402
from spyenvs.wrappers.vec_selfplay import VecSelfPlayEnv  # noqa: E402

TINY_NET = {"net.hidden": [16], "net.channels": 4, "net.dilations": [1, 2], "net.vec_hidden": [16],
            "net.head_hidden": 16, "net.play_hidden": 8}
#: (env id, arch, game options): every game with its shipped arch, and the other archs once
CASES = [("the_agents_v0", "mlp", {"num_players": 2}), ("unrest_v0", "card_table", {}), ("unrest_v0", "mlp", {}),
         ("spy_games_v0", "mlp", {"num_players": 4}), ("specter_ops_v0", "mlp", {"num_players": 3}),
         ("specter_ops_v0", "board_cnn", {"num_players": 2})]


def build(env_id: str, arch: str, game: dict, tmp_path, **opts):
    """(cfg, spec, venv, learner) of a one-game run with ``opts`` as overrides."""
    overrides = {"n_envs": 1, "net.arch": arch, "ppo.n_steps": 8, "ppo.batch_size": 8, **TINY_NET,
                 **{f"game.{k}": v for k, v in game.items()}, **opts}
    cfg = load_config(None, env_id, overrides)
    spec = describe_game(cfg)
    venv = make_vec_env(cfg, spec, env_id, SnapshotLeague(cfg.league, 0, True).pool())
    learner = Learner(cfg, spec, make_model(cfg, spec, venv, str(tmp_path)), RunState())
    return cfg, spec, venv, learner


def masked_logits(policy, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return policy.get_distribution(torch.as_tensor(rows), action_masks=masks).distribution.logits.numpy()


# ------------------------------------------------------------------ the prior
@pytest.mark.parametrize("env_id,arch,game", CASES, ids=[f"{e}-{a}" for e, a, _ in CASES])
def test_an_untrained_residual_plays_the_heuristic(env_id, arch, game, tmp_path):
    """net.prior heuristic: the exported file (float16, weights only, the prior named
    in its meta) plays a best move of the heuristic's scores at every decision of
    heuristic games, in every seat: training starts at the heuristic's strength."""
    cfg, spec, venv, learner = build(env_id, arch, game, tmp_path, **{"net.prior": "heuristic",
                                                                       "net.prior_weight": 2.0})
    path = tmp_path / "prior.npz"
    learner.save_policy(str(path), "prior", half=True)
    arrays, meta = read_checkpoint(path)
    assert meta["prior"] == {"kind": "heuristic", "weight": 2.0}
    # only the network: the named weights of its arch, none as wide as a row of scores
    names = set(arrays)
    expected = {"mlp": {f"{wb}{i}" for wb in "wb" for i in range(meta.get("layers", 0))}}.get(arch)
    if expected is not None:
        assert names == expected
        assert arrays["w0"].shape[1] == spec.obs_dim + (len(spec.kinds) if len(spec.kinds) > 1 else 0)
    assert not any("prior" in n or "score" in n or "critic" in n for n in names)
    policy = TorchPolicy.load(path)
    g = spec.make()
    checked = 0
    for seed in range(2):
        g.reset(seed)
        reference = [HeuristicPolicy(seed).bind(g, s) for s in range(g.num_players)]
        players = [policy.bind(g, s) for s in range(g.num_players)]  # the same observations as the reference
        for _ in range(120 if env_id == "specter_ops_v0" else 300):
            if g.is_over:
                break
            p = g.current_player
            obs, mask = g.observe(p), g.legal_mask()
            scores = reference[p].action_scores(obs, mask)
            move = players[p].act(obs, mask)
            assert scores[move] == scores.max(), (p, move, int(np.argmax(scores)))
            checked += np.count_nonzero(mask) > 1
            g.step(reference[p].act(obs, mask))
    assert checked > 20


def test_the_env_writes_the_learners_prior_columns():
    """VecSelfPlayEnv(prior=...) ends each learner row with prior_columns of the
    learner seat's heuristic scores; the rest of the row is the plain row."""
    plain = VecSelfPlayEnv("unrest_v0", {}, [HeuristicPolicy(0)], num_envs=3, seed=4)
    env = VecSelfPlayEnv("unrest_v0", {}, [HeuristicPolicy(0)], num_envs=3, seed=4, prior=HeuristicPrior(1))
    assert env.row_layout() == {"obs": 1641, "kinds": 2, "opponent": 0, "privileged": 0, "seats": 0, "prior": 60}
    rows, base = env.reset(), plain.reset()
    for _ in range(5):
        np.testing.assert_array_equal(rows[:, :-60], base)
        for i, slot in enumerate(env.slots):
            mine = HeuristicPolicy(0).bind(slot.game, slot.seat)
            obs, mask = slot.game.observe(slot.seat), slot.game.legal_mask()
            np.testing.assert_array_equal(rows[i, -60:], prior_columns(mine.action_scores(obs, mask)[None], mask[None])[0])
        actions = [int(np.flatnonzero(m)[0]) for m in env.action_masks()]
        rows, base = env.step(actions)[0], plain.step(actions)[0]


def test_prior_columns_are_finite_with_the_best_at_zero():
    scores = np.array([[-np.inf, 3.0, 5.0, 4.999999], [1.0, -np.inf, -np.inf, -1e9]])
    cols = prior_columns(scores, np.isfinite(scores))
    assert cols.dtype == np.float32 and np.isfinite(cols).all()
    assert cols[0, 2] == 0.0 and cols[0, 3] < 0.0 and cols[0, 0] == 0.0 and cols[1, 0] == 0.0
    assert cols[1, 3] == -1.0e4


def test_a_prior_policy_needs_its_seat_and_a_known_prior(tmp_path):
    _, spec, _, learner = build("the_agents_v0", "mlp", {"num_players": 2}, tmp_path, **{"net.prior": "heuristic"})
    policy = learner.current_policy()
    g = spec.make()
    g.reset(0)
    with pytest.raises(TypeError, match="bind"):
        policy.act(g.observe(0), g.legal_mask())
    assert policy.bind(g, 0).act(g.observe(0), g.legal_mask()) >= 0
    path = tmp_path / "p.npz"
    learner.save_policy(str(path), "p")
    arrays, meta = read_checkpoint(path)
    for bad in ({"kind": "oracle", "weight": 1.0}, {"kind": "heuristic", "weight": 0}, "heuristic",
                {"kind": "heuristic", "weight": {"player": 1, "spy": 2}}, {"kind": "heuristic", "weight": {"player": -1}},
                {"kind": "heuristic", "weight": 1.0, "open": "step"}, {"kind": "heuristic", "weight": 1.0, "open": [1]}):
        with pytest.raises(CheckpointError, match="prior"):
            TorchPolicy.from_arrays(arrays, dict(meta, prior=bad))
    foreign = TorchPolicy.from_arrays(arrays, dict(meta, prior={"kind": "heuristic", "weight": 1.0, "open": ["A9_fly"]}))
    with pytest.raises(CheckpointError, match="has no decision 'A9_fly'") as err:
        foreign.bind(g, 0)
    assert "\n" not in str(err.value)


# ------------------------------------------------------------ a weight per role kind
#: Specter Ops' role kinds with weights of their own (the agent's prior margin is 1)
KIND_WEIGHTS = {"agent": 2.0, "hunter": 10.0}


@pytest.fixture(scope="module")
def per_kind(tmp_path_factory):
    """(spec, venv, learner) of a 2-player Specter Ops net with the prior weighted per
    kind, its residual moved off zero (as training would) so the logits show both parts."""
    tmp = tmp_path_factory.mktemp("per_kind")
    _, spec, venv, learner = build("specter_ops_v0", "mlp", {"num_players": 2}, tmp,
                                   **{"n_envs": 4, "net.prior": "heuristic", "net.prior_weight": KIND_WEIGHTS})
    with torch.no_grad():
        last = learner.model.policy.actor[-1]
        last.weight.normal_(0.0, 0.5, generator=torch.Generator().manual_seed(0))
        last.bias.normal_(0.0, 0.5, generator=torch.Generator().manual_seed(1))
    return spec, venv, learner


def test_a_weight_per_kind_scales_each_rows_prior_by_its_kind(per_kind):
    """From explicit rows: logits = the row's kind's weight * prior + residual."""
    spec, _, learner = per_kind
    policy = learner.model.policy
    r = policy.row
    assert spec.kinds == ["agent", "hunter"] and r["prior_weight"] == [2.0, 10.0]
    rng = np.random.default_rng(0)
    rows = rng.random((4, r["critic"] + r["prior"]), dtype=np.float32)
    rows[:, r["obs"]:r["obs"] + r["kinds"]] = np.eye(2, dtype=np.float32)[[0, 1, 1, 0]]
    rows[:, r["critic"]:] = -rng.random((4, r["prior"]), dtype=np.float32) * 5
    x = torch.as_tensor(rows)
    with torch.no_grad():
        logits = policy._logits_values(x, need_values=False)[0].numpy()
        residual = policy.actor(x[:, :r["actor"]]).numpy()
    assert np.abs(residual).max() > 0.1
    for i, kind in enumerate(["agent", "hunter", "hunter", "agent"]):
        np.testing.assert_allclose(logits[i], KIND_WEIGHTS[kind] * rows[i, r["critic"]:] + residual[i],
                                   rtol=1e-5, atol=1e-5)


def test_an_exported_weight_per_kind_plays_each_seat_with_its_kinds_weight(per_kind, tmp_path):
    """The file names the weight per kind; the loaded player's agent and hunter seats
    add their own kind's weight times the prior, and agree with the training net."""
    spec, venv, learner = per_kind
    path = tmp_path / "per_kind.npz"
    learner.save_policy(str(path), "per_kind")
    assert read_checkpoint(path)[1]["prior"] == {"kind": "heuristic", "weight": KIND_WEIGHTS}
    exported = TorchPolicy.load(path)
    seen = set()
    for _ in range(10):
        rows, masks = venv.reset(), venv.action_masks()
        for i, slot in enumerate(venv.slots):
            kind = venv.kinds[slot.kind_index]
            obs, mask = slot.game.observe(slot.seat), slot.game.legal_mask()
            bound = exported.bind(slot.game, slot.seat)
            assert bound.prior_weight == KIND_WEIGHTS[kind]
            ours = bound.action_logits(obs, mask)
            residual = bound.net.logits(policy_input(obs.astype(np.float32), bound.kind_index, 2))
            prior = bound.prior_scorer.scores(obs[None], mask[None], advance=False)[0]
            legal = mask > 0
            np.testing.assert_allclose(ours[legal], (KIND_WEIGHTS[kind] * prior + residual)[legal], rtol=1e-4, atol=1e-3)
            theirs = masked_logits(learner.model.policy, rows[i:i + 1], masks[i:i + 1])[0]
            np.testing.assert_allclose(ours[legal] - ours[legal].max(), theirs[legal] - theirs[legal].max(), atol=1e-3)
            seen.add(kind)
        if seen == set(KIND_WEIGHTS):
            break
    assert seen == set(KIND_WEIGHTS)


@pytest.mark.parametrize("weight,message", [
    ({"agent": 2, "spy": 10}, "names role kind 'spy', which the game does not have; its role kinds: agent, hunter"),
    ({"agent": 2}, "has no weight for role kind 'hunter'"),
    ({"agent": 2, "hunter": 0}, "must map each role kind to a positive number, got 'hunter': 0"),
    ({"agent": 2, "hunter": "ten"}, "must map each role kind to a positive number"),
    ({}, "must name a weight for each role kind"),
    ("{agent: 2, hunter", "must be a mapping such as"),
    ("{agent:2, hunter:10}", "needs a space after each colon"),
])
def test_a_bad_weight_per_kind_is_a_one_line_error(weight, message):
    with pytest.raises(ValueError, match="'net.prior_weight' " + message) as err:
        describe_game(load_config(None, "specter_ops_v0", {"net.prior": "heuristic", "net.prior_weight": weight}))
    assert "\n" not in str(err.value)


def test_a_config_file_and_the_command_line_read_a_weight_per_kind(tmp_path):
    """YAML's prior_weight: {agent: 2, hunter: 10}; --opt 'net.prior_weight={agent: 2,
    hunter: 10}' (YAML's flow mapping) or JSON; a later number replaces the mapping."""
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("net:\n  prior: heuristic\n  prior_weight: {agent: 2, hunter: 10}\n")
    configs = [load_config(str(recipe), "specter_ops_v0")]
    for text in ("{agent: 2, hunter: 10}", '{"agent": 2, "hunter": 10}'):
        configs.append(load_config(None, "specter_ops_v0", parse_key_values([f"net.prior_weight={text}"], "--opt")))
    for cfg in configs:
        assert cfg.net.prior_weight == {"agent": 2, "hunter": 10}
        assert cfg.net.prior_weight_per_kind(["agent", "hunter"]) == [2.0, 10.0]
    assert load_config(str(recipe), "specter_ops_v0", {"net.prior_weight": 5}).net.prior_weight == 5


def test_a_float_weight_and_a_one_kind_game_keep_one_weight(tmp_path):
    """A number stays the one weight of every kind (the row, the net's fast path, the
    file); a mapping in a game of one role kind is that one weight too."""
    _, spec, _, learner = build("unrest_v0", "mlp", {}, tmp_path, **{"net.prior": "heuristic",
                                                                      "net.prior_weight": 4})
    policy = learner.model.policy
    assert policy.row["prior_weight"] == 4.0 and policy.prior_kind_weights is None
    assert learner.meta("x")["prior"] == {"kind": "heuristic", "weight": 4.0}
    g = spec.make()
    g.reset(0)
    assert {learner.current_policy().bind(g, s).prior_weight for s in (0, 1)} == {4.0}
    cfg = load_config(None, "the_agents_v0", {"net.prior": "heuristic", "net.prior_weight": {"player": 3}})
    assert cfg.net.prior_weight_per_kind(describe_game(cfg).kinds) == 3.0


EQUIPMENT = ["A2_equipment_before", "A4_equipment_after", "A2t_equipment_target"]


def specter_states(decisions: set[str], seed: int = 3):
    """(game copy's observation, mask, decision name) of the agent's decisions with a
    choice in one 2-player Specter Ops game the heuristics play, for ``decisions``."""
    game = make_game("specter_ops_v0", num_players=2)
    game.reset(seed)
    players = [HeuristicPolicy(seed + s).bind(game, s) for s in range(game.num_players)]
    found = []
    while not game.is_over and len(found) < 40:
        seat, mask = game.current_player, game.legal_mask()
        obs = game.observe(seat)
        if seat == 0 and mask.sum() > 1 and game.decision_name() in decisions:
            found.append((obs, mask.copy(), game.decision_name()))
        game.step(players[seat].act(obs, mask))
    return found


def test_an_open_decision_leaves_its_rows_to_the_residual():
    """Rows at an open decision (the agent's equipment windows) get prior columns of 0;
    every other row gets the heuristic's, as without the option."""
    states = specter_states({"A2_equipment_before", "A3_move_step"})
    assert {name for *_, name in states} == {"A2_equipment_before", "A3_move_step"}
    obs = np.stack([o for o, _, _ in states])
    masks = np.stack([m for _, m, _ in states])
    game = make_game("specter_ops_v0", num_players=2)
    plain = HeuristicPrior(0).bind(game, 0).scores(obs, masks, advance=False)
    opened = HeuristicPrior(0, EQUIPMENT).bind(game, 0).scores(obs, masks, advance=False)
    at_window = np.array([name == "A2_equipment_before" for *_, name in states])
    assert (plain[at_window] != 0).any()  # the heuristic's "no card" leads there
    assert not opened[at_window].any()
    np.testing.assert_array_equal(opened[~at_window], plain[~at_window])


def test_the_columns_of_per_game_priors_come_in_one_call_as_row_by_row():
    """The vectorised env scores each game's prior (one per game: the Specter Ops
    heuristics remember their game) apart, then turns all their rows into columns in
    one call when their columns_key agrees: the same columns as each row's own
    ``scores``, open decisions 0 included."""
    states = specter_states({"A2_equipment_before", "A3_move_step"})
    game = make_game("specter_ops_v0", num_players=2)
    priors = [HeuristicPrior(k, EQUIPMENT).bind(game, 0) for k in range(len(states))]
    assert len({p.columns_key for p in priors}) == 1
    obs = np.stack([o for o, _, _ in states])
    masks = np.stack([m for _, m, _ in states])
    raw = np.concatenate([p.raw_scores(o[None], m[None], advance=False) for p, (o, m, _) in zip(priors, states)])
    one_call = priors[0].columns(obs, masks, raw)
    row_by_row = np.concatenate([p.scores(o[None], m[None], advance=False) for p, (o, m, _) in zip(priors, states)])
    np.testing.assert_array_equal(one_call, row_by_row)
    assert not one_call[[name == "A2_equipment_before" for *_, name in states]].any()
    assert HeuristicPrior(0).bind(game, 0).columns_key != priors[0].columns_key


def test_a_file_names_its_open_decisions_and_its_player_leaves_them_to_the_residual(tmp_path):
    _, spec, _, learner = build("specter_ops_v0", "mlp", {"num_players": 2}, tmp_path,
                                **{"net.prior": "heuristic", "net.prior_weight": 10, "net.prior_open": EQUIPMENT})
    path = tmp_path / "open.npz"
    learner.save_policy(str(path), "open")
    assert read_checkpoint(path)[1]["prior"] == {"kind": "heuristic", "weight": 10.0, "open": EQUIPMENT}
    bound = TorchPolicy.load(path).bind(spec.make(), 0)
    obs, mask, _ = specter_states({"A2_equipment_before"})[0]
    assert not bound.prior_scorer.scores(obs[None], mask[None], advance=False).any()
    residual = bound.net.logits(policy_input(obs.astype(np.float32), bound.kind_index, 2))
    legal = mask > 0
    np.testing.assert_allclose(bound.action_logits(obs, mask)[legal], residual[legal], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("env_id", ["specter_ops_v0", "the_agents_v0"])
def test_a_games_decisions_name_its_observations_pending_decision_one_hot(env_id):
    """Open decisions are found by the observation's one-hot: its hot place is the
    index of ``decision_name()`` in the game's ``decisions``, at every decision."""
    game = make_game(env_id)
    game.reset(5)
    rng = np.random.default_rng(5)
    block = game.layout.blocks["decision"].slice
    for _ in range(300):
        if game.is_over:
            break
        seat = game.current_player
        hot = game.observe(seat)[block]
        assert hot.sum() == 1 and game.decisions[int(np.argmax(hot))] == game.decision_name()
        game.step(int(rng.choice(game.legal_actions())))


@pytest.mark.parametrize("env_id,overrides,message", [
    ("specter_ops_v0", {"net.prior_open": EQUIPMENT}, "'net.prior_open' needs net.prior heuristic"),
    ("specter_ops_v0", {"net.prior": "heuristic", "net.prior_open": "A2_equipment_before"},
     "'net.prior_open' must be a list"),
    ("specter_ops_v0", {"net.prior": "heuristic", "net.prior_open": ["A9_fly"]},
     "'net.prior_open': specter_ops_v0 has no decision 'A9_fly'; its decisions: S1_hunter_character"),
    ("unrest_v0", {"net.prior": "heuristic", "net.prior_open": ["play"]},
     "'net.prior_open': unrest_v0 has no pending-decision block"),
])
def test_bad_open_decisions_are_a_one_line_error(env_id, overrides, message):
    with pytest.raises(ValueError, match=message) as err:
        describe_game(load_config(None, env_id, overrides))
    assert "\n" not in str(err.value)


def test_the_command_line_reads_open_decisions_as_the_readme_writes_them():
    """--opt 'net.prior_open=[A2_equipment_before, A4_equipment_after]' (YAML's flow
    sequence: not JSON, so the command line's parser kept it a string) is a list."""
    text = "[A2_equipment_before, A4_equipment_after, A2t_equipment_target]"
    overrides = {"net.prior": "heuristic", **parse_key_values([f"net.prior_open={text}"], "--opt")}
    assert load_config(None, "specter_ops_v0", overrides).net.prior_open == EQUIPMENT


@pytest.mark.parametrize("text,message", [
    ("[A2_equipment_before, A4", "must be a list such as \\[a, b\\]"),
    ("[A2_equipment_before: 1]", "must be a list of decision names"),
])
def test_a_malformed_open_list_on_the_command_line_is_a_one_line_error(text, message):
    with pytest.raises(ValueError, match="'net.prior_open' " + message) as err:
        load_config(None, "specter_ops_v0", {"net.prior": "heuristic", "net.prior_open": text})
    assert "\n" not in str(err.value)


# ----------------------------------------------------------- the privileged critic
@pytest.mark.parametrize("env_id,arch,game", CASES[1:], ids=[f"{e}-{a}" for e, a, _ in CASES[1:]])
def test_the_privileged_critic_never_reaches_the_actor(env_id, arch, game, tmp_path):
    """net.privileged_critic: the other seats' observations change the value, never
    the logits; a critic head per role kind; the export reads what any player reads
    and reproduces the actor from raw observations."""
    cfg, spec, venv, learner = build(env_id, arch, game, tmp_path, **{"net.privileged_critic": True,
                                                                       "scale_observations": True})
    policy = learner.model.policy
    layout = venv.row_layout()
    n = make_game(env_id, **game).num_players
    assert layout["privileged"] == (n - 1) * layout["obs"] and layout["seats"] == n - 1
    rows = np.concatenate([venv.reset() for _ in range(3)])
    masks = np.concatenate([venv.action_masks()] * 3)
    first, end = policy.row["actor"], policy.row["critic"]
    assert end - first == layout["privileged"]
    changed = rows.copy()
    changed[:, first:end] = np.random.default_rng(0).random((rows.shape[0], end - first))
    np.testing.assert_array_equal(masked_logits(policy, rows, masks), masked_logits(policy, changed, masks))
    with torch.no_grad():
        v0 = policy.predict_values(torch.as_tensor(rows)).numpy()
        v1 = policy.predict_values(torch.as_tensor(changed)).numpy()
    assert v0.shape == (rows.shape[0], 1) and not np.allclose(v0, v1)
    assert policy.row["value_heads"] == (len(spec.kinds) if len(spec.kinds) > 1 else 1)
    # the exported actor reads the raw observation (+ role one-hot) only, and agrees
    path = tmp_path / "critic.npz"
    learner.save_policy(str(path), "critic")
    exported = TorchPolicy.load(path)
    assert "prior" not in exported.meta
    slot = venv.slots[0]
    bound = exported.bind(slot.game, slot.seat)
    ours = bound.action_logits(slot.game.observe(slot.seat), slot.game.legal_mask())
    theirs = masked_logits(policy, rows[:1], masks[:1])[0]
    legal = masks[0]
    np.testing.assert_allclose(ours[legal] - ours[legal].max(), theirs[legal] - theirs[legal].max(), atol=2e-4)


def test_the_board_critic_reads_every_seats_board_as_channels(tmp_path):
    _, _, venv, learner = build("specter_ops_v0", "board_cnn", {"num_players": 3}, tmp_path,
                                **{"net.privileged_critic": True})
    policy = learner.model.policy
    planes = policy.board_config["board_shape"][0]
    assert policy.critic.board_shape[0] == 3 * planes and policy.actor.board_shape[0] == planes
    assert sorted(policy.critic_columns.tolist()) == list(range(policy.row["critic"]))


# ------------------------------------------------------------------ training
def test_specter_ops_hunters_train_as_a_team(tmp_path):
    """learner_teams: the learner takes both hunter seats of an episode; a few
    hundred steps of Specter Ops train end to end (with the privileged critic too)."""
    opts = {"game.num_players": 3, "learner_teams": True, "net.privileged_critic": True, "total_timesteps": 256,
            "n_envs": 2, "ppo.n_steps": 64, "ppo.batch_size": 64, "ppo.n_epochs": 1, "net.hidden": [16],
            "league.heuristic_weight": 0.0, "league.snapshot_every": 128, "eval.games": 0, "eval.final_games": 0,
            "selection.snapshots": 1}
    cfg = load_config(None, "specter_ops_v0", opts)
    venv = make_vec_env(cfg, describe_game(cfg), cfg.env_id, SnapshotLeague(cfg.league, 0, False).pool())
    assert (1, 2) in venv.learner_groups and (0,) in venv.learner_groups
    res = train(cfg, str(tmp_path), quiet=True)
    assert res["timesteps"] >= 256
    policy = TorchPolicy.load(tmp_path / "final.npz")
    g = make_game("specter_ops_v0", num_players=3)
    g.reset(0)
    seat = g.current_player
    assert g.legal_mask()[policy.bind(g, seat).act(g.observe(seat), g.legal_mask())]


def test_a_run_with_prior_and_privileged_critic_warm_starts_the_critic_alone(tmp_path):
    """Unrest with both options: the warm start fits the critic alone (the actor's
    residual stays zero), snapshots with a prior play in the league, the shipped file
    names the prior."""
    opts = {"net.prior": "heuristic", "net.privileged_critic": True, "net.arch": "card_table",
            "total_timesteps": 256, "n_envs": 2,
            "ppo.n_steps": 64, "ppo.batch_size": 64, "ppo.n_epochs": 1, "net.hidden": [16], "net.play_hidden": 8,
            "warm_start.games": 4, "warm_start.epochs": 1, "league.snapshot_every": 128, "eval.games": 0,
            "eval.final_games": 4, "selection.games": 2}
    cfg = load_config(None, "unrest_v0", opts)
    res = train(cfg, str(tmp_path), quiet=True)
    assert res["warm_start"]["critic_only"] and res["warm_start"]["agreement"] > 0.5
    cloned, _ = read_checkpoint(tmp_path / "cloned.pt")
    assert not cloned["out.w"].any() and not cloned["play_out.w"].any()  # the residual starts at zero
    assert TorchPolicy.load(tmp_path / "final.npz").meta["prior"] == {"kind": "heuristic", "weight": 1.0}
    assert set(res["vs"]) == {"random", "heuristic"}


def test_a_prior_run_cloning_another_teacher_trains_the_residual_on_its_moves(tmp_path):
    """Expert iteration over the prior: a warm-start teacher that is not the prior (here
    random play, the cheapest) is cloned into the actor's residual, which leaves zero,
    and the cloning term may then run during PPO."""
    opts = {"net.prior": "heuristic", "net.arch": "card_table", "total_timesteps": 128, "n_envs": 2,
            "ppo.n_steps": 64, "ppo.batch_size": 64, "ppo.n_epochs": 1, "net.hidden": [16], "net.play_hidden": 8,
            "warm_start.games": 4, "warm_start.epochs": 1, "warm_start.teacher": "random", "clone_reg.coef": 0.5,
            "eval.games": 0, "eval.final_games": 2, "selection.snapshots": 1}
    cfg = load_config(None, "unrest_v0", opts)
    assert not cfg.prior_plays_teacher
    res = train(cfg, str(tmp_path), quiet=True)
    assert "critic_only" not in res["warm_start"]
    cloned, _ = read_checkpoint(tmp_path / "cloned.pt")
    assert cloned["out.w"].any() or cloned["play_out.w"].any()  # the residual learnt the teacher's moves


# ------------------------------------------------------------------ the options
@pytest.mark.parametrize("overrides,message", [
    ({"net.prior": "oracle"}, "'net.prior' must be none, heuristic or lookahead:DECISION"),
    ({"net.prior": "lookahead:play_cards:dets=0"}, "'net.prior': lookahead dets must be a positive int, got 0"),
    ({"net.prior_weight": 0.0}, "'net.prior_weight' must be a positive number"),
    ({"net.prior": "heuristic", "clone_reg.coef": 0.5}, "'clone_reg.coef' must be 0 with net.prior heuristic"),
    ({"warm_start.workers": 0}, "'warm_start.workers' must be at least 1"),
    ({"warm_start.targets": "values"}, "'warm_start.targets' must be one of moves, visits, got 'values'"),
    ({"net.privileged_critic": "yes"}, "'net.privileged_critic' must be true or false"),
    ({"learner_teams": 1}, "'learner_teams' must be true or false"),
])
def test_the_options_are_checked_with_one_line_errors(overrides, message):
    with pytest.raises(ValueError, match=message) as err:
        load_config(None, "unrest_v0", overrides)
    assert "\n" not in str(err.value)


def test_visit_targets_do_not_combine_with_a_macro():
    with pytest.raises(ValueError, match="'warm_start.targets' visits does not combine with macro") as err:
        load_config(None, "specter_ops_v0", {"macro": "specter_destination", "warm_start.targets": "visits"})
    assert "\n" not in str(err.value)


#: the recipe options each shipped config turns on (measured: docs/results/policies.md)
SHIPPED_OPTIONS = {"the_agents_v0": ("heuristic", False, False), "unrest_v0": ("heuristic", False, False),
                   "spy_games_v0": ("none", False, False), "specter_ops_v0": ("heuristic", False, True)}


def test_the_options_are_off_by_default_and_the_shipped_configs_turn_on_only_what_was_measured():
    cfg = TrainConfig()
    assert (cfg.net.prior, cfg.net.privileged_critic, cfg.learner_teams) == ("none", False, False)
    for env_id, expected in SHIPPED_OPTIONS.items():
        shipped = load_config(config_mod.default_config_path(env_id), env_id)
        assert (shipped.net.prior, shipped.net.privileged_critic, shipped.learner_teams) == expected, env_id
        if shipped.net.prior != "none":
            assert shipped.clone_reg.coef == 0  # the prior already holds the heuristic


def test_unsupported_combinations_say_so_in_one_line():
    game = make_game("specter_ops_v0", num_players=2)
    row = {"obs": game.observation_size, "kinds": 2, "opponent": 0, "privileged": game.observation_size,
           "seats": 1, "prior": 0, "value_heads": 2}
    with pytest.raises(ValueError, match="share_trunk cannot go with net.privileged_critic") as err:
        policy_kwargs_for("specter_ops_v0", game, {"arch": "board_cnn", "share_trunk": True}, row=row)
    assert "\n" not in str(err.value)

    class NoHeuristic(HighCard):
        info = dataclasses.replace(HighCard.info, env_id="no_heuristic_test",
                                   pettingzoo_id="spyenvs/no_heuristic_test-v0")

    cfg = load_config(None, "no_heuristic_test", {"net.prior": "heuristic"})
    with pytest.raises(ValueError, match="net.prior heuristic needs a game with a heuristic; no_heuristic_test has none"):
        describe_game(cfg, NoHeuristic)


def test_the_prior_probe_table_shows_each_weight_beside_the_heuristics_own_score(tmp_path):
    """scripts/prior_weight_probe.py: a saved probe renders one row per role and mode,
    greedy once (it does not depend on the weight), each beside the heuristic's own."""
    import importlib.util
    import json
    import os

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    spec = importlib.util.spec_from_file_location("prior_weight_probe",
                                                  os.path.join(root, "scripts", "prior_weight_probe.py"))
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)

    def kinds(rate):
        return {"agent": {"score": rate * 10, "games": 10, "rate": rate, "low": 0.1, "high": 0.9}}

    saved = {"env_id": "specter_ops_v0", "rows": [{"weight": 1.0, "mode": "greedy", "kinds": kinds(0.6)},
                                                 {"weight": 1.0, "mode": "sampled", "kinds": kinds(0.05)},
                                                 {"weight": 10.0, "mode": "sampled", "kinds": kinds(0.5)}],
             "heuristic_vs_heuristic": kinds(0.55), "load": {"start": "1.00", "end": "1.10"}}
    (tmp_path / "specter_ops_v0.json").write_text(json.dumps(saved))
    lines = probe.results_section(str(tmp_path)).splitlines()
    assert lines[2].startswith("| specter_ops_v0 | agent | greedy (any weight) | 60.0% [10.0%, 90.0%] | 55.0%")
    assert lines[3].startswith("| specter_ops_v0 | agent | sampled, weight 1 | 5.0%")
    assert lines[4].startswith("| specter_ops_v0 | agent | sampled, weight 10 | 50.0%") and len(lines) == 5


def test_the_prior_probe_plays_its_games_per_role():
    import importlib.util
    import os

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    spec = importlib.util.spec_from_file_location("prior_weight_probe",
                                                  os.path.join(root, "scripts", "prior_weight_probe.py"))
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    res = probe.probe("unrest_v0", [1.0], games=2)
    assert [(r["mode"], {k: v["games"] for k, v in r["kinds"].items()}) for r in res["rows"]] == [
        ("greedy", {"rebel": 2, "empire": 2}), ("sampled", {"rebel": 2, "empire": 2})]
    assert {k: v["games"] for k, v in res["heuristic_vs_heuristic"].items()} == {"rebel": 2, "empire": 2}
