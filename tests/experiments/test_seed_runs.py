"""scripts/seed_runs.py: a recipe's seeds, each reported, and their mean held against
issue 22's bar (the heuristic's own score + 5 points vs the heuristic, - 1 point vs
random). Saved results are written by hand here; no game is played."""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("seed_runs", os.path.join(ROOT, "scripts", "seed_runs.py"))
seed_runs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seed_runs)


def cell(rate: float, games: int = 400) -> dict:
    return {"rate": rate, "low": rate - 0.05, "high": rate + 0.05, "score": rate * games, "games": games}


def saved_run(seed: int, vs_heuristic: float, own_vs_heuristic: float = 0.5, vs_random: float = 0.97) -> dict:
    return {"env_id": "the_agents_v0", "timesteps": 1_003_520, "train_seconds": 390.0, "load": "1.00 1.00 1.00",
            "vs": {"random": {"player": cell(vs_random)}, "heuristic": {"player": cell(vs_heuristic)}},
            "heuristic_vs": {"random": {"player": cell(0.965)}, "heuristic": {"player": cell(own_vs_heuristic)}},
            "seed_run": {"seed": seed, "tag": None, "opts": []}}


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / "seeds"
    path.mkdir()
    return path


def test_each_seed_is_a_row_and_the_mean_is_held_against_the_bar(folder, tmp_path):
    for seed, rate in ((0, 0.51), (1, 0.63), (2, 0.60)):
        (folder / f"the_agents_v0-seed{seed}.json").write_text(json.dumps(saved_run(seed, rate)))
    text = seed_runs.results_section(str(folder))
    rows = [line for line in text.splitlines() if "(n=400)" in line]
    assert len(rows) == 3 and "| 0 | player | " in rows[0] and "51.0% [46.0%, 56.0%] (n=400)" in rows[0]
    assert "no (-4.0 pts vs heuristic)" in rows[0]
    assert "yes" in rows[1]
    # mean vs heuristic (51 + 63 + 60) / 3 = 58.0 >= 50 + 5; vs random 97.0 >= 96.5 - 1
    assert "| the_agents_v0 | default | 0, 1, 2 | player | 97.0% | 96.5% | 58.0% | 50.0% | yes |" in text


def test_a_mean_under_the_bar_says_by_how_much(folder):
    for seed, rate in ((0, 0.51), (1, 0.55)):
        (folder / f"the_agents_v0-seed{seed}.json").write_text(json.dumps(saved_run(seed, rate)))
    assert "| 0, 1 | player | 97.0% | 96.5% | 53.0% | 50.0% | no (-2.0 pts vs heuristic) |" in seed_runs.results_section(str(folder))


def test_the_table_goes_between_its_markers(folder, tmp_path):
    (folder / "the_agents_v0-seed0.json").write_text(json.dumps(saved_run(0, 0.6)))
    page = tmp_path / "results.md"
    page.write_text("# R\n<!-- results: seeds -->\nold\n<!-- /results: seeds -->\ntail\n")
    seed_runs.write_table(str(page), str(folder))
    text = page.read_text()
    assert "old" not in text and "| the_agents_v0 | default | 0 | player |" in text and text.endswith("tail\n")


def test_an_option_on_top_of_the_recipe_must_be_named(capsys):
    from spyenvs.tools.arguments import run_reporting_errors

    code = run_reporting_errors(lambda: seed_runs.main(["the_agents_v0", "--opt", "net.privileged_critic=true"]),
                                "seed_runs")
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--tag" in err


def test_a_run_of_another_config_file_names_it_as_its_recipe(folder):
    run = saved_run(0, 0.6)
    run["seed_run"]["config"] = "configs/the_agents_long.yaml"
    (folder / "the_agents_v0-seed0-long.json").write_text(json.dumps(run))
    text = seed_runs.results_section(str(folder))
    assert "| the_agents_v0 | `configs/the_agents_long.yaml` | 0 | player |" in text


def test_a_config_file_must_be_named_too(capsys):
    from spyenvs.tools.arguments import run_reporting_errors

    code = run_reporting_errors(lambda: seed_runs.main(["the_agents_v0", "--config", "configs/the_agents.yaml"]),
                                "seed_runs")
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--tag" in err


def test_a_run_made_before_the_default_changed_is_labelled_by_how_it_differs_from_todays():
    """The recipe column reads the run's recorded options against the config as it is
    now: a run of an older default says what it ran; the protocol's own options (seed,
    final games) are not the recipe; an option the record predates comes from the
    options given at the time."""
    from spyenvs.experiments.config import TrainConfig, default_config_path, load, to_dict

    options = to_dict(load(TrainConfig, default_config_path("the_agents_v0"), "the_agents_v0"))
    options["seed"], options["eval"]["final_games"] = 2, 400
    run = dict(saved_run(2, 0.6), options=options)
    assert seed_runs.recipe_label(run) == "default"
    older = json.loads(json.dumps(options))
    older["torch_threads"], older["total_timesteps"] = 1, 500_000
    del older["env_processes"]  # the trainer had no such option then: one process
    assert seed_runs.recipe_label(dict(run, options=older)) == \
        "default + env_processes=1, torch_threads=1, total_timesteps=500000"
    # an option given at the time that the record holds is read from the record: a run
    # given today's value is no different from today's default
    same = dict(run, seed_run={"seed": 2, "tag": "x", "opts": ["total_timesteps=1000000"]})
    assert seed_runs.recipe_label(same) == "default"
    del older["net"]["prior_weight"]
    given = dict(run, options=older, seed_run={"seed": 2, "tag": "w3", "opts": ["net.prior_weight=3"]})
    assert seed_runs.recipe_label(given).endswith("total_timesteps=500000, net.prior_weight=3")
