"""`spyenvs scorecard ENV POLICY` end to end on Unrest (the cheapest registered game):
its files, its use of the shipped ladder, `module:callable` policies, and one-line
errors for bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

import spyenvs
from spyenvs.agents import BasePolicy, make_policy
from spyenvs.agents.ladder import ladder_path, read_ladder
from spyenvs.cli import main
from spyenvs.registry import make_game

GAME = "unrest_v0"
pytestmark = pytest.mark.skipif(GAME not in spyenvs.ENV_IDS, reason=f"{GAME} not registered")


# ---------------------------------------------------- policies the tests load by name
class FirstLegal:
    """A user's policy as plain as it gets: ``act`` only, no base class."""

    def act(self, observation, mask):
        return int(np.flatnonzero(mask)[0])


def make_first_legal():
    return FirstLegal()


def make_seeded(seed=None):
    policy = FirstLegal()
    policy.seed = seed
    return policy


def make_nothing():
    return 42


def run_main(argv, capsys):
    """(exit status, stdout + stderr) of ``spyenvs ARGV`` run in-process."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def error_lines(text):
    return [line for line in text.splitlines() if "error" in line]


# ------------------------------------------------------------------ the command
def test_scorecard_writes_json_and_markdown_naming_version_env_config_and_ladder(tmp_path, capsys):
    ladder_file = ladder_path(GAME)
    before = open(ladder_file, "rb").read()
    code, text = run_main(["scorecard", GAME, "heuristic", "--games", "2", "--seed", "3", "--out", str(tmp_path),
                           "--quiet"], capsys)
    assert code == 0, text
    card = json.loads((tmp_path / f"{GAME}-heuristic.json").read_text())
    ladder = read_ladder(ladder_file)
    assert card["spyenvs_version"] == spyenvs.__version__
    assert card["env_id"] == GAME and card["config"] == make_game(GAME).config
    assert card["ladder"]["version"] == ladder["ladder_version"]
    assert card["ladder"]["ratings"] == ladder["ratings"]
    assert card["games_per_role"] == 2 and card["seed"] == 3 and card["seconds"] >= 0 and card["load"]
    assert [o["opponent"] for o in card["opponents"]] == ladder["bots"]
    for o in card["opponents"]:
        assert {k: v["games"] for k, v in o["kinds"].items()} == {"rebel": 2, "empire": 2}
    assert card["rating"]["low"] <= card["rating"]["elo"] <= card["rating"]["high"]
    md = (tmp_path / f"{GAME}-heuristic.md").read_text()
    for needle in (f"spyenvs {spyenvs.__version__}", GAME, ladder["ladder_version"], "revolution_threshold=21",
                   "2 games per role", "seed 3", "Elo on the ladder"):
        assert needle in md, needle
    assert md in text  # printed too
    assert open(ladder_file, "rb").read() == before  # the anchors are never refitted


def test_scorecard_of_a_module_callable_policy(tmp_path, capsys):
    spec = f"{__name__}:make_first_legal"
    code, text = run_main(["scorecard", GAME, spec, "--games", "1", "--out", str(tmp_path), "--quiet"], capsys)
    assert code == 0, text
    card = json.loads((tmp_path / f"{GAME}-{__name__}_make_first_legal.json").read_text())
    assert card["policy"] == spec and card["rating"] is not None


def test_a_config_without_a_ladder_gets_win_rates_and_no_rating(tmp_path, capsys):
    code, text = run_main(["scorecard", GAME, "random", "--set", "revolution_threshold=25", "--games", "1",
                           "--out", str(tmp_path), "--quiet"], capsys)
    assert code == 0, text
    card = json.loads((tmp_path / f"{GAME}-random.json").read_text())
    assert card["rating"] is None and "revolution_threshold=25" in card["unrated"]
    assert "pretrained" in card["skipped"]  # trained on the default config only
    assert [o["opponent"] for o in card["opponents"]] == ["random", "heuristic", "expert"]


@pytest.mark.parametrize("argv, message", [
    (["scorecard", "nope_v0", "random"], "spyenvs: error: unknown env id 'nope_v0'; available:"),
    (["scorecard", GAME, "nonsense"], "spyenvs: error: unknown policy 'nonsense'; allowed:"),
    (["scorecard", GAME, "no_such_module_xyz:make"],
     "spyenvs: error: policy 'no_such_module_xyz:make': cannot import module 'no_such_module_xyz'"),
    (["scorecard", GAME, f"{__name__}:nope"], f"spyenvs: error: policy '{__name__}:nope': module '{__name__}' "
                                              "has no attribute 'nope'"),
    (["scorecard", GAME, f"{__name__}:make_nothing"], f"spyenvs: error: policy '{__name__}:make_nothing': "
                                                      "make_nothing() returned int, which has no act("),
    (["scorecard", GAME, "random", "--games", "0"], "spyenvs scorecard: error: argument --games: must be a "
                                                    "positive integer, got 0"),
    (["scorecard", GAME, "random", "--games", "many"], "spyenvs scorecard: error: argument --games: must be a "
                                                       "positive integer, got 'many'"),
    (["scorecard", GAME, "random", "--set", "revolution_threshold=999"],
     "spyenvs: error: unrest_v0: invalid value 999 for config 'revolution_threshold'"),
])
def test_bad_input_ends_as_one_error_line(argv, message, tmp_path, capsys):
    code, text = run_main(argv + ["--out", str(tmp_path / "out"), "--quiet"], capsys)
    assert code == 2
    [line] = error_lines(text)
    assert line.startswith(message), line
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------- module:callable in the registry
def test_module_callable_wraps_a_plain_object_with_the_policy_defaults():
    policy = make_policy(f"{__name__}:make_first_legal")
    assert isinstance(policy, BasePolicy) and policy.name == f"{__name__}:make_first_legal"
    game = make_game(GAME)
    game.reset(0)
    bound = policy.bind(game, 0)
    mask = game.legal_mask()
    assert bound.act(game.observe(0), mask) == int(np.flatnonzero(mask)[0])
    batch = bound.act_batch(np.stack([game.observe(0)] * 2), np.stack([mask] * 2))
    assert list(batch) == [int(np.flatnonzero(mask)[0])] * 2


def test_module_callable_passes_the_seed_when_it_takes_one():
    assert make_policy(f"{__name__}:make_seeded", seed=7).inner.seed == 7


def test_module_callable_may_name_a_policy_class():
    class_spec = "spyenvs.agents.policy:RandomPolicy"
    policy = make_policy(class_spec, seed=1)
    assert type(policy).__name__ == "RandomPolicy"  # a BasePolicy already: not wrapped


def test_the_other_colon_forms_are_not_read_as_module_callable():
    assert make_policy("ismcts:7").simulations == 7
    assert type(make_policy("pretrained:sample")).__name__ == "PretrainedPolicy"
