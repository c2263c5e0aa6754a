"""The shipped records and what is made from them: the heuristic's own scores beside
each policy's (recorded by --ship, or backfilled for an older file), the results
table with those columns, and the learning-curve pictures. Every test works on temp
copies; the games are Unrest's, a few of them."""

from __future__ import annotations

import json
import os
import shutil

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("yaml")

from spyenvs.experiments import leaderboard  # noqa: E402
from spyenvs.agents.torch_policy import TorchPolicy  # noqa: E402
from spyenvs.experiments.evaluate import heuristic_reference  # noqa: E402

SHIPPED = leaderboard.PRETRAINED
PNG = b"\x89PNG\r\n\x1a\n"


def _copy(folder, env_id: str, **changes) -> dict:
    with open(os.path.join(SHIPPED, f"{env_id}.json")) as f:
        rec = json.load(f)
    for key in ("heuristic_vs", "evaluation", "selection", "history"):
        rec.pop(key, None)  # as shipped before these were recorded
    rec.update(changes)
    leaderboard.write_record(rec, str(folder))
    return rec


def _pages(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    pages = {}
    for name, markers in (("policies.md", ["pretrained", "curves", "leaderboard"]), ("search.md", ["search"]),
                          ("benchmarking.md", ["ladder"]), ("tables.md", ["tables"])):
        body = "".join(f"<!-- results: {m} -->\nold\n<!-- /results: {m} -->\n" for m in markers)
        (tmp_path / name).write_text(f"# {name}\n{body}end\n")
        pages[name] = tmp_path / name
    return pages


# ------------------------------------------------------------------ backfill
def test_backfill_plays_the_heuristic_on_the_games_of_the_shipped_evaluation(tmp_path):
    # a copy that says it was measured on 2 games per role: Unrest's 2 roles make 4 games
    _copy(tmp_path, "unrest_v0", games_per_role=2)
    rec = leaderboard.backfill_heuristic("unrest_v0", folder=str(tmp_path))
    plan = rec["evaluation"]
    assert plan["seed"] == 999_000_000 and plan["opponent_seeds"] == {"random": 999_000_000, "heuristic": 999_000_000}
    assert plan["games"] == 4 and plan["max_decisions"] == 200  # configs/unrest.yaml's cap
    assert plan["heuristic_seed"] == 999_000_001 and "not recorded when shipped" in plan["source"]
    for opp in ("random", "heuristic"):
        assert {k: v["games"] for k, v in rec["heuristic_vs"][opp].items()} == {"rebel": 2, "empire": 2}
    assert rec["heuristic_vs"] == heuristic_reference("unrest_v0", rec["config"], 4, 999_000_000, 200,
                                                      plan["opponent_seeds"])
    on_disk = json.loads((tmp_path / "unrest_v0.json").read_text())
    assert on_disk["heuristic_vs"] == rec["heuristic_vs"] and on_disk["vs"] == rec["vs"]  # the rest as it was


def test_backfill_follows_a_recorded_plan(tmp_path):
    plan = {"seed": 2026, "games": 2, "opponent_seeds": {"random": 2026, "heuristic": 2027}, "max_decisions": 5000,
            "deterministic": True}
    _copy(tmp_path, "unrest_v0", evaluation=plan)
    rec = leaderboard.backfill_heuristic("unrest_v0", folder=str(tmp_path))
    assert {k: v for k, v in rec["evaluation"].items() if k != "heuristic_load"} == dict(plan, heuristic_seed=2028)
    assert rec["evaluation"]["heuristic_load"]
    assert rec["heuristic_vs"] == heuristic_reference("unrest_v0", rec["config"], 2, 2026, 5000,
                                                      plan["opponent_seeds"])


# ------------------------------------------------------------------ ship
def _run_dir(tmp_path, **results) -> str:
    run = tmp_path / "run"
    run.mkdir()
    shutil.copyfile(os.path.join(SHIPPED, "unrest_v0.npz"), run / "final.npz")
    with open(os.path.join(SHIPPED, "unrest_v0.json")) as f:
        rec = json.load(f)
    base = {"env_id": "unrest_v0", "config": rec["config"], "num_players": 2, "vs": rec["vs"], "load": "1.00",
            **rec["training"]}
    (run / "results.json").write_text(json.dumps(dict(base, **results)))
    history = [{"timesteps": 100, "vs": rec["vs"]}]
    (run / "history.json").write_text(json.dumps(history))
    return str(run)


def test_ship_keeps_the_heuristic_scores_plan_selection_and_history_of_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr(leaderboard, "PRETRAINED", str(tmp_path / "pretrained"))
    extra = {"heuristic_vs": {"random": {}, "heuristic": {}}, "evaluation": {"seed": 999_000_000},
             "selection": {"chosen": "snap_000000050", "chosen_timesteps": 50, "candidates": []}}
    rec = leaderboard.ship(_run_dir(tmp_path, **extra), games=200)
    assert {k: rec[k] for k in extra} == extra and rec["history"][0]["timesteps"] == 100
    assert json.loads((tmp_path / "pretrained" / "unrest_v0.json").read_text()) == rec


def test_ship_measuring_again_measures_the_heuristic_on_the_same_games(tmp_path, monkeypatch):
    monkeypatch.setattr(leaderboard, "PRETRAINED", str(tmp_path / "pretrained"))
    rec = leaderboard.ship(_run_dir(tmp_path), games=2, reevaluate=True)
    plan = rec["evaluation"]
    assert plan["seed"] == 2026 and plan["opponent_seeds"] == {"random": 2026, "heuristic": 2027} and plan["games"] == 4
    assert rec["heuristic_vs"] == heuristic_reference("unrest_v0", rec["config"], 4, 2026, 5000,
                                                      plan["opponent_seeds"])
    assert rec["vs"]["heuristic"]["rebel"]["games"] == rec["heuristic_vs"]["heuristic"]["rebel"]["games"] == 2


def test_remeasure_plays_the_shipped_file_and_the_heuristic_on_the_same_games_and_keeps_the_training(tmp_path):
    from spyenvs.agents.pretrained import pretrained_path
    from spyenvs.experiments.evaluate import vs_opponents

    shipped = _copy(tmp_path, "unrest_v0")
    rec = leaderboard.remeasure("unrest_v0", 2, folder=str(tmp_path))
    plan = rec["evaluation"]
    assert plan["seed"] == 2026 and plan["opponent_seeds"] == {"random": 2026, "heuristic": 2027} and plan["games"] == 4
    assert rec["games_per_role"] == 2 and rec["training"] == shipped["training"] and rec["load"]
    assert rec["heuristic_vs"] == heuristic_reference("unrest_v0", rec["config"], 4, 2026, 5000, plan["opponent_seeds"])
    assert rec["vs"] == vs_opponents("unrest_v0", rec["config"], TorchPolicy.load(pretrained_path("unrest_v0")), 4,
                                     2026, 5000, plan["opponent_seeds"])
    assert json.loads((tmp_path / "unrest_v0.json").read_text())["vs"] == rec["vs"]


# ------------------------------------------------------------------ tables and pictures
def _reference(rate: float) -> dict:
    return {"score": rate * 200, "games": 200, "rate": rate, "low": rate - 0.05, "high": rate + 0.05}


def test_the_results_table_shows_the_heuristic_beside_each_score_and_a_dash_without(tmp_path):
    _copy(tmp_path, "unrest_v0", heuristic_vs={"random": {"rebel": _reference(0.77), "empire": _reference(0.9)},
                                               "heuristic": {"rebel": _reference(0.538), "empire": _reference(0.455)}})
    agents = _copy(tmp_path, "the_agents_v0")
    rows = {tuple(c.strip() for c in line.split("|")[1:4]): line.split("|")[1:-1]
            for line in leaderboard.results_table(str(tmp_path)).splitlines()[2:]}
    header = [c.strip() for c in leaderboard.results_table(str(tmp_path)).splitlines()[0].split("|")[1:-1]]
    assert header[:8] == ["env", "players", "role", "vs random [95% CI]", "heuristic's own", "vs heuristic [95% CI]",
                          "heuristic's own", "meets the bar"]
    rebel = [c.strip() for c in rows[("unrest_v0", "2p", "rebel")]]
    assert rebel[4] == "77.0% [72.0%, 82.0%]" and rebel[6] == "53.8% [48.8%, 58.8%]"
    assert rebel[8] == "`unrest_v0.npz`"
    player = [c.strip() for c in rows[("the_agents_v0", "2p", "player")]]
    assert player[4] == "-" and player[6] == "-" and player[7] == "-"
    assert player[3].startswith(f"{agents['vs']['random']['player']['rate']:.1%} [")  # the record's own figure


def test_a_table_at_another_player_count_is_its_own_row_and_file(tmp_path):
    _copy(tmp_path, "the_agents_v0")
    _copy(tmp_path, "the_agents_v0", table="the_agents_v0-3p", config={"num_players": 3}, num_players=3)
    assert sorted(os.listdir(tmp_path)) == ["the_agents_v0-3p.json", "the_agents_v0.json"]
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in leaderboard.results_table(str(tmp_path)).splitlines()[2:]]
    agents = [(r[0], r[1], r[3], r[8]) for r in rows if r[0] == "the_agents_v0"]
    assert [(env, players, file) for env, players, _, file in agents if file] == [
        ("the_agents_v0", "2p", "`the_agents_v0.npz`"), ("the_agents_v0", "3p", "`the_agents_v0-3p.npz`")]
    # every other table of the game has its row, saying no policy ships for it
    assert [(players, said) for _, players, said, file in agents if not file] == [
        ("4p", "no policy shipped yet"), ("5p", "no policy shipped yet")]


def test_the_table_says_when_an_earlier_snapshot_ships(tmp_path):
    _copy(tmp_path, "the_agents_v0", selection={"chosen": "snap_000950000", "chosen_timesteps": 950_000})
    assert "| 1,003,520 (ships the snapshot at 950,000) |" in leaderboard.results_table(str(tmp_path))
    _copy(tmp_path, "the_agents_v0", selection={"chosen": "final", "chosen_timesteps": 1_003_520})
    assert "| 1,003,520 |" in leaderboard.results_table(str(tmp_path))


def test_tables_draw_each_shipped_curve_against_the_heuristic_with_its_level(tmp_path, monkeypatch):
    records, img = tmp_path / "records", tmp_path / "docs" / "img"
    records.mkdir()
    history = [{"timesteps": t, "vs": {"random": {"player": _reference(0.9)}, "heuristic": {"player": _reference(r)}}}
               for t, r in ((100, 0.3), (200, 0.45))]
    _copy(records, "the_agents_v0", history=history,
          heuristic_vs={"random": {"player": _reference(0.965)}, "heuristic": {"player": _reference(0.516)}})
    _copy(records, "spy_games_v0", history=history)  # a curve but no heuristic level: no line
    _copy(records, "unrest_v0")  # no history: no picture
    drawn = []
    real_plot = leaderboard.plot_learning_curve
    monkeypatch.setattr(leaderboard, "plot_learning_curve",
                        lambda *a, **k: (drawn.append((a[1], k)), real_plot(*a, **k)))
    pages = _pages(tmp_path / "docs")
    leaderboard.write_tables(str(pages["policies.md"]), str(pages["search.md"]), str(pages["benchmarking.md"]),
                             folder=str(records), img=str(img), tables_md=str(pages["tables.md"]))
    tables = pages["tables.md"].read_text()
    assert "| the_agents_v0 | 2p | `the_agents_v0.npz` | 2p |" in tables
    assert "| the_agents_v0 | 5p | none yet |" in tables and "old" not in tables
    by_path = {os.path.basename(p): k for p, k in drawn}
    agents = by_path["learning_curve_the_agents_v0.png"]
    assert agents["opponents"] == ("heuristic",) and agents["levels"] == {("heuristic", "player"): 0.516}
    assert by_path["learning_curve_spy_games_v0.png"]["levels"] == {}
    assert sorted(os.listdir(img)) == ["learning_curve_spy_games_v0.png", "learning_curve_the_agents_v0.png"]
    assert (img / "learning_curve_the_agents_v0.png").read_bytes()[:8] == PNG
    text = pages["policies.md"].read_text()
    assert "![the_agents_v0 learning curve](img/learning_curve_the_agents_v0.png)" in text
    assert "**spy_games_v0** (no heuristic level recorded: no line)" in text
    assert "**unrest_v0**: no training history in the shipped file" in text
    assert "| heuristic's own | meets the bar |" in text and "old" not in text


def _rate(rate):
    return {"rate": rate, "low": rate - 0.05, "high": rate + 0.05, "games": 400}


def test_beats_the_heuristic_needs_its_own_score_plus_5_points_vs_heuristic_and_minus_1_vs_random():
    heuristic = {"random": {"rebel": _rate(0.76)}, "heuristic": {"rebel": _rate(0.415)}}
    met = {"random": {"rebel": _rate(0.755)}, "heuristic": {"rebel": _rate(0.465)}}
    assert leaderboard.beats_heuristic(met, heuristic, "rebel") == "yes"
    short = {"random": {"rebel": _rate(0.70)}, "heuristic": {"rebel": _rate(0.45)}}
    assert leaderboard.beats_heuristic(short, heuristic, "rebel") == \
        "no (-1.5 pts vs heuristic, -5.0 pts vs random)"
    assert leaderboard.beats_heuristic(met, None, "rebel") == "-"


def test_above_90_percent_the_bar_against_the_heuristic_is_half_the_way_to_100():
    heuristic = {"random": {"hunter": _rate(1.0)}, "heuristic": {"hunter": _rate(0.92)}}
    assert leaderboard.heuristic_bar(0.92) == pytest.approx(0.96)
    assert leaderboard.heuristic_bar(0.90) == pytest.approx(0.95)  # not above 90%: its own + 5
    short = {"random": {"hunter": _rate(1.0)}, "heuristic": {"hunter": _rate(0.95)}}
    assert leaderboard.beats_heuristic(short, heuristic, "hunter") == "no (-1.0 pts vs heuristic)"
    met = {"random": {"hunter": _rate(1.0)}, "heuristic": {"hunter": _rate(0.96)}}
    assert leaderboard.beats_heuristic(met, heuristic, "hunter") == "yes"


def test_the_committed_pages_are_what_the_saved_results_generate(tmp_path):
    """The README and the docs hold no hand-typed figure: regenerating every generated
    section from the saved results (scripts/results_tables.py) on copies of the pages
    changes nothing, and every page with a generated section is one it rewrites."""
    import importlib.util
    import re

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    spec = importlib.util.spec_from_file_location("results_tables", os.path.join(root, "scripts", "results_tables.py"))
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    shutil.copyfile(os.path.join(root, "README.md"), tmp_path / "README.md")
    shutil.copytree(os.path.join(root, "docs"), tmp_path / "docs")
    written = set()
    for page in tables.write_all(str(tmp_path)):
        name = os.path.relpath(page, tmp_path)
        written.add(name.replace(os.sep, "/"))
        with open(page) as made, open(os.path.join(root, name)) as committed:
            assert made.read() == committed.read(), f"{name} differs from what scripts/results_tables.py makes"
    marked = set()
    for folder, _, files in os.walk(root):
        if os.path.relpath(folder, root).split(os.sep)[0] in (".venv", ".git", "site", "node_modules"):
            continue
        for f in files:
            path = os.path.join(folder, f)
            if f.endswith(".md") and re.search(r"^<!-- results: [\w-]+ -->$", open(path, encoding="utf-8").read(), re.M):
                marked.add(os.path.relpath(path, root).replace(os.sep, "/"))
    assert marked - written == set(), "pages with generated sections that no generator rewrites"


def test_the_recipe_column_names_the_config_file_a_run_ran_exactly():
    """The default config, another of the game's config files (Unrest's longer
    expert-iteration config), or the default with the options that differ."""
    from spyenvs.experiments.config import TrainConfig, default_config_path, load, to_dict

    def record(**changes):
        options = to_dict(load(TrainConfig, default_config_path("unrest_v0"), "unrest_v0"))
        for dotted, value in changes.items():
            section, key = dotted.split(".")
            options[section][key] = value
        return {"env_id": "unrest_v0", "options": options}

    assert leaderboard.recipe_cell(record()) == "`configs/unrest.yaml`"
    assert leaderboard.recipe_cell(record(**{"eval.final_games": 400})) == \
        "`configs/unrest.yaml` with `eval.final_games=400`"
    expert = default_config_path("unrest_v0").replace("unrest.yaml", "unrest_expert.yaml")
    options = to_dict(load(TrainConfig, expert, "unrest_v0"))
    assert leaderboard.recipe_cell({"env_id": "unrest_v0", "options": options}) == "`configs/unrest_expert.yaml`"
    options["warm_start"]["demos"] = "runs/first/demos.npz"  # the same recipe, its teacher's games kept
    assert leaderboard.recipe_cell({"env_id": "unrest_v0", "options": options}) == \
        "`configs/unrest_expert.yaml`, its teacher's games kept from `runs/first/demos.npz`"
    assert leaderboard.recipe_cell({"env_id": "unrest_v0"}) == "not recorded"
    # a record from before env_processes existed ran in one process: against a default
    # that splits the games, it says so
    older = to_dict(load(TrainConfig, default_config_path("unrest_v0"), "unrest_v0"))
    del older["env_processes"]
    assert leaderboard.recipe_cell({"env_id": "unrest_v0", "options": older}) == \
        "`configs/unrest.yaml` with `env_processes=1`"


def test_measuring_a_file_in_two_processes_gives_the_figures_of_one():
    path = os.path.join(SHIPPED, "unrest_v0.npz")
    config = json.loads(open(os.path.join(SHIPPED, "unrest_v0.json")).read())["config"]
    one = leaderboard.measure_file("unrest_v0", config, path, 2, seed=77)
    two = leaderboard.measure_file("unrest_v0", config, path, 2, seed=77, workers=2)
    assert one[:3] == two[:3]


def test_a_served_player_count_is_measured_on_its_own_games_and_gets_its_rows(tmp_path, monkeypatch):
    from spyenvs.agents import pretrained

    shutil.copyfile(os.path.join(SHIPPED, "spy_games_v0.npz"), tmp_path / "spy_games_v0.npz")
    rec = json.loads(open(os.path.join(SHIPPED, "spy_games_v0.json")).read())
    rec.pop("serves", None)  # as shipped before it served other counts
    leaderboard.write_record(rec, str(tmp_path))
    rec = leaderboard.serve("spy_games_v0", 2, 1, folder=str(tmp_path))
    served = rec["serves"]["2"]
    assert served["config"]["num_players"] == 2 and served["games_per_role"] == 1
    assert served["evaluation"]["seed"] == 2_026 + leaderboard.SERVE_OFFSET * 2  # past the games that decided it
    assert set(served["vs"]) == {"random", "heuristic"} and set(served["heuristic_vs"]) == {"random", "heuristic"}
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in leaderboard.results_table(str(tmp_path)).splitlines()[2:]]
    spy = {r[1]: r for r in rows if r[0] == "spy_games_v0"}
    assert spy["2p"][8] == "`spy_games_v0.npz` (trained at 4p)" and spy["3p"][3] == "no policy shipped yet"
    # the package's pretrained policy binds to a served count through the record
    monkeypatch.setattr(pretrained, "HERE", str(tmp_path))
    assert pretrained.find_table("spy_games_v0", {"num_players": 2}) == "spy_games_v0"
    assert pretrained.find_table("spy_games_v0", {"num_players": 3}) is None
    assert pretrained.find_table("spy_games_v0", {"num_players": 2, "negotiation": "off"}) is None


def test_every_table_page_says_per_table_whether_the_ladder_and_the_probe_cover_it(tmp_path):
    """docs/tables.md: per table, the score card's ladder (``agents/ladder/<table>.json``)
    and the exploitability probe of its pretrained policy, as the best response's points
    over the heuristic's own win rate against it, per role."""
    records, probes, ladders = tmp_path / "records", tmp_path / "exploit", tmp_path / "ladder"
    for folder in (records, probes, ladders):
        folder.mkdir()
    _copy(records, "the_agents_v0")
    (ladders / "the_agents_v0.json").write_text("{}")
    probe = {"budget": {"minutes_per_kind": 2.0},
             "kinds": {"player": {"final": _rate(0.52), "references": {"heuristic": _rate(0.405)}}}}
    (probes / "the_agents_v0-pretrained.json").write_text(json.dumps(probe))
    table = leaderboard.coverage_table(str(records), exploit_folder=str(probes), ladder_folder=str(ladders))
    assert "| the_agents_v0 | 2p | `the_agents_v0.npz` | 2p |" in table
    row = next(line for line in table.splitlines() if line.startswith("| the_agents_v0 | 2p |"))
    assert row.endswith("| yes | player +11.5 (2 min) |")
    assert leaderboard.probe_cell("the_agents_v0-3p", str(probes)) == "none yet"


def test_shipping_one_role_kind_keeps_the_other_kinds_network_and_names_its_run(tmp_path):
    """--ship-kind: the table's file plays the new run's network for that kind and its
    own for the others; measured on games past every ship-range game that chose it; the
    kind's rows name its run, recipe and steps."""
    import numpy as np

    from spyenvs.agents.checkpoint import read_checkpoint, save_policy

    records, run = tmp_path / "records", tmp_path / "run"
    records.mkdir(), run.mkdir()
    rec = _copy(records, "unrest_v0")
    shutil.copyfile(os.path.join(SHIPPED, "unrest_v0.npz"), records / "unrest_v0.npz")
    _, meta = read_checkpoint(os.path.join(SHIPPED, "unrest_v0.npz"))
    rng = np.random.default_rng(0)
    sizes = (meta["obs_dim"] + 2, 8, meta["num_actions"])
    save_policy(run / "final.npz", [(rng.normal(size=(o, i)).astype(np.float32), np.zeros(o, np.float32))
                                    for i, o in zip(sizes, sizes[1:])],
                {k: v for k, v in meta.items() if k not in ("layers", "format", "version")})
    (run / "results.json").write_text(json.dumps({"env_id": "unrest_v0", "config": rec["config"], "num_players": 2,
                                                  "timesteps": 4321, "train_seconds": 60.0}))
    shipped = leaderboard.ship_kind("unrest_v0", "empire", str(run), 1, folder=str(records))
    assert shipped["evaluation"]["seed"] == 2_026 + leaderboard.KIND_OFFSET and shipped["games_per_role"] == 1
    assert shipped["kinds_from"]["empire"]["training"]["timesteps"] == 4321
    assert leaderboard.made_by(shipped, "rebel")["training"] == rec["training"]
    composed = TorchPolicy.load(records / "unrest_v0.npz")
    assert composed.meta["arch"] == "per_kind" and composed.meta["kind_nets"]["empire"]["layers"] == 2
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in leaderboard.results_table(str(records)).splitlines()]
    unrest = {r[2]: r for r in rows if r and r[0] == "unrest_v0"}
    assert "this role's network from" in unrest["empire"][9] and unrest["empire"][10] == "4,321"
    assert "this role's network from" not in unrest["rebel"][9]
    (run / "results.json").write_text(json.dumps({"env_id": "the_agents_v0", "config": {}, "num_players": 2}))
    with pytest.raises(ValueError, match="trained the_agents_v0, not unrest_v0"):
        leaderboard.ship_kind("unrest_v0", "empire", str(run), 1, folder=str(records))


@pytest.mark.parametrize("argv,why", [
    (["--ship-kind", "nope_v0", "agent", "."], "no shipped policy for 'nope_v0'"),
    (["--ship-kind", "specter_ops_v0", "spy", "."], "specter_ops_v0 has no role kind 'spy'; its kinds: agent, hunter"),
    (["--ship-kind", "specter_ops_v0", "agent", "missing_run"], "missing_run: no results.json"),
])
def test_shipping_a_role_kind_names_what_is_wrong_in_one_line(argv, why):
    with pytest.raises(SystemExit, match=why) as err:
        leaderboard.main(argv)
    assert "\n" not in str(err.value)
