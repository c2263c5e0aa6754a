"""The score card's fixed scale (issue 24): the one-player fit against fixed anchors,
ladders made from round-robins by the leaderboard script, and score cards on the toy
game that land on the anchor of the bot they copy and leave the ladder alone."""

from __future__ import annotations

import copy
import json
import os
import math

import pytest

from spyenvs.agents import make_policy
from spyenvs.agents.ladder import find_ladder, full_config, read_ladder
from spyenvs.agents.ladder import tables as ladder_tables
from spyenvs.agents.ladder import ladder_path, pretrained_digest, stale_pretrained
from spyenvs.experiments.evaluate import ELO_SCALE, fit_elo, fit_rating, tournament
from spyenvs.experiments.leaderboard import ladder_from_round_robin, ladder_from_saved, write_ladder
from spyenvs.experiments.scorecard import markdown, scorecard


def expected_score(rating, anchor, sides):
    x = ELO_SCALE * (rating - anchor) + math.log(1 / (sides - 1))
    return 1 / (1 + math.exp(-x))


@pytest.mark.parametrize("sides", [2, 4])
def test_fit_rating_recovers_the_rating_whose_expected_scores_it_is_given(sides):
    anchors = {"random": 1000.0, "heuristic": 1400.0, "pretrained": 1700.0}
    records = [(b, 500 * expected_score(1250.0, r, sides), 500) for b, r in anchors.items()]
    fit = fit_rating(records, anchors, sides)
    assert fit["elo"] == pytest.approx(1250.0, abs=1.0) and fit["bound"] is None
    assert 0 < fit["se"] < 30


def test_an_equal_player_takes_its_share_of_an_n_player_table():
    # 4 sides: a player as good as the anchor wins a quarter of the games
    fit = fit_rating([("random", 25.0, 100)], {"random": 1000.0}, 4)
    assert fit["elo"] == pytest.approx(1000.0, abs=0.5)


def test_a_perfect_or_hopeless_record_is_finite_and_flagged_as_a_bound():
    anchors = {"random": 1000.0, "heuristic": 1400.0}
    best = fit_rating([("random", 20, 20), ("heuristic", 20, 20)], anchors, 2)
    worst = fit_rating([("random", 0, 20), ("heuristic", 0, 20)], anchors, 2)
    assert best["bound"] == "lower" and best["elo"] > 1400 and math.isfinite(best["elo"])
    assert worst["bound"] == "upper" and worst["elo"] < 1000 and math.isfinite(worst["elo"])


@pytest.fixture(scope="module")
def toy_ladder():
    """The toy game's ladder (random and its heuristic), made as the leaderboard makes one."""
    from tests.core.toy_game import HighCard

    population = {"random": make_policy("random", seed=1), "heuristic": make_policy("heuristic", seed=2)}
    res = tournament(HighCard, {}, population, 400, seed=11)
    return ladder_from_round_robin(res, "toy round-robin in the tests")


def test_a_ladder_pins_random_at_1000_and_records_its_games(toy_ladder):
    assert toy_ladder["ratings"]["random"] == 1000.0 and toy_ladder["anchor"] == "random"
    assert toy_ladder["bots"] == ["random", "heuristic"] and toy_ladder["games_per_pair"] == 400
    assert {(m["candidate"], m["opponent"]) for m in toy_ladder["matches"]} == {("random", "heuristic"),
                                                                               ("heuristic", "random")}
    assert toy_ladder["ratings"]["heuristic"] > 1050  # keeping a high card beats a coin flip
    assert toy_ladder["ladder_version"].startswith(toy_ladder["date"])


@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_a_policy_equal_to_a_ladder_bot_rates_near_that_bots_anchor(toy, toy_ladder, bot):
    card = scorecard(toy, {}, make_policy(bot, seed=99), bot, toy_ladder, games_per_role=400, seed=5)
    anchor, rating = toy_ladder["ratings"][bot], card["rating"]
    # within its 95% interval (the seeds are fixed: this is one explicit case, not a flaky draw)
    assert rating["low"] < anchor < rating["high"], (rating, anchor)


def test_a_score_card_leaves_the_anchors_unchanged(toy, toy_ladder):
    before = copy.deepcopy(toy_ladder)
    card = scorecard(toy, {}, make_policy("heuristic", seed=3), "heuristic", toy_ladder, games_per_role=20)
    assert toy_ladder == before
    assert card["ladder"]["ratings"] == before["ratings"]
    assert [o["elo"] for o in card["opponents"]] == [before["ratings"][b] for b in before["bots"]]


def test_every_role_gets_the_asked_games_against_every_bot(toy, toy_ladder):
    card = scorecard(toy, {"num_players": 3}, make_policy("random", seed=0), "random", toy_ladder, games_per_role=7)
    for o in card["opponents"]:
        assert o["games"] == 9 and o["kinds"]["player"]["games"] == 9  # 3 seats, a whole number of rotations
    assert "| heuristic |" in markdown(card)


def test_a_search_bot_gets_the_search_games_and_every_other_bot_the_games(toy, toy_ladder, monkeypatch):
    import spyenvs.experiments.scorecard as scorecard_module

    # the toy ladder has no search bot: let its heuristic stand for expert (seconds a game)
    monkeypatch.setattr(scorecard_module, "is_search", lambda name: name == "heuristic")
    card = scorecard(toy, {}, make_policy("random", seed=0), "random", toy_ladder, games_per_role=30,
                     search_games_per_role=6)
    games = {o["opponent"]: o["games"] for o in card["opponents"]}
    assert games == {"random": 30, "heuristic": 6} and card["search_games_per_role"] == 6
    assert "6 per role against a search bot" in markdown(card)


def test_search_and_ismcts_bots_are_the_search_bots():
    from spyenvs.agents.ladder import is_search

    assert is_search("expert") and is_search("ismcts") and is_search("ismcts:200")
    assert not any(is_search(b) for b in ("random", "heuristic", "pretrained", "runs/x/final.npz"))


def test_write_ladder_writes_what_the_score_card_reads(tmp_path, toy_ladder):
    path = write_ladder(toy_ladder, folder=str(tmp_path))
    assert read_ladder(path)["ratings"] == toy_ladder["ratings"]


def test_a_ladder_at_another_player_count_is_named_after_its_table(tmp_path, toy_ladder):
    ladder = dict(toy_ladder, env_id="the_agents_v0", table="the_agents_v0-3p", config={"num_players": 3})
    path = write_ladder(ladder, folder=str(tmp_path))
    assert os.path.basename(path) == "the_agents_v0-3p.json"


# ------------------------------------------------------------ the shipped ladders
def shipped_ladder(table: str) -> dict:
    return read_ladder(ladder_path(*table.split("-", 1)))


@pytest.mark.parametrize("table", ladder_tables())
def test_each_shipped_ladder_refits_from_its_own_matches_and_is_found_by_its_config(table):
    ladder = shipped_ladder(table)
    assert ladder["ratings"][ladder["anchor"]] == 1000.0 and ladder["bots"][0] == "random"
    records = [(m["candidate"], m["opponent"], m["score"], m["games"]) for m in ladder["matches"]]
    refit = fit_elo(records, ladder["bots"], ladder["sides"], anchor=ladder["anchor"], iters=20_000)
    assert refit == pytest.approx(ladder["ratings"], abs=0.1)
    assert ladder.get("table", ladder["env_id"]) == table  # older ladders name no table: their env id's
    assert find_ladder(ladder["env_id"], ladder["config"])["ladder_version"] == ladder["ladder_version"]
    if "-" not in table:  # <env_id>.json is the default config's ladder
        assert full_config(table, ladder["config"]) == full_config(table, {})


@pytest.mark.parametrize("table", ladder_tables())
def test_a_ladder_refitted_from_a_saved_round_robin_is_what_the_script_makes(table):
    ladder = shipped_ladder(table)
    if not ladder["source"].startswith("refitted from the saved round-robin"):
        pytest.skip(f"{table}'s ladder was played, not refitted")
    again = ladder_from_saved(table)
    assert again["ratings"] == ladder["ratings"] and again["matches"] == ladder["matches"]
    assert again["ladder_version"].split(".", 1)[1] == ladder["ladder_version"].split(".", 1)[1]
    assert json.loads(json.dumps(again["config"])) == ladder["config"]


@pytest.mark.parametrize("table", ladder_tables())
def test_each_shipped_ladder_rated_the_pretrained_file_shipped_now(table):
    """A ladder's pretrained anchor is the rating of one file: shipping another policy
    without remaking the ladder would put every score card on a wrong scale."""
    ladder = shipped_ladder(table)
    if "pretrained" not in ladder["bots"]:
        pytest.skip(f"{table}'s ladder has no pretrained bot")
    assert ladder.get("pretrained_sha256") == pretrained_digest(ladder["env_id"], ladder["config"]), \
        stale_pretrained(ladder)


def test_a_ladder_that_rated_another_pretrained_file_is_flagged_on_the_card(toy):
    ladder = copy.deepcopy(read_ladder(ladder_path("unrest_v0")))
    assert stale_pretrained(ladder) is None
    ladder["pretrained_sha256"] = "0" * 64
    assert "stale" in stale_pretrained(ladder)
    card = scorecard("unrest_v0", {}, make_policy("random", seed=0), "random", ladder, games_per_role=1)
    assert card["ladder_warning"] == stale_pretrained(ladder) and "Warning: the unrest_v0 ladder" in markdown(card)


def test_a_score_card_at_another_player_count_is_named_after_its_table():
    from spyenvs.experiments.scorecard import file_stem

    assert file_stem("specter_ops_v0", "pretrained") == "specter_ops_v0-pretrained"
    assert file_stem("specter_ops_v0", "pretrained", 2) == "specter_ops_v0-pretrained"
    assert file_stem("specter_ops_v0", "pretrained", 3) == "specter_ops_v0-3p-pretrained"
    assert file_stem("the_agents_v0", "ismcts:50:random", 4) == "the_agents_v0-4p-ismcts_50_random"


def test_a_round_robin_without_the_plain_ismcts_plays_only_the_ladders_bots(tmp_path, monkeypatch):
    """``leaderboard --ladder --no-ismcts`` plays no game the ladder would throw away."""
    from spyenvs.experiments import leaderboard as lb

    monkeypatch.setattr(lb, "LEADERBOARD", str(tmp_path))
    res = lb.leaderboard("the_agents_v0", games=1, sims=2, expert=False, ismcts=False)
    assert res["population"] == ["random", "heuristic", "pretrained"]
    assert {(m["candidate"], m["opponent"]) for m in res["matches"]} == {
        (a, b) for a in res["population"] for b in res["population"] if a != b}
    assert set(lb.ladder_from_round_robin(res, "test")["bots"]) == set(res["population"])
