"""Choosing the shipped policy among a run's last snapshots, on games whose seeds no
final evaluation plays, and the heuristic's own scores measured beside the final
evaluation (toy game, a few hundred steps)."""

from __future__ import annotations

import itertools
import json

import pytest

from tests.core.toy_game import HighCard

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from spyenvs.agents.checkpoint import read_checkpoint  # noqa: E402
from spyenvs.experiments import seed_ranges, train_selfplay  # noqa: E402
from spyenvs.experiments.evaluate import heuristic_reference  # noqa: E402
from spyenvs.experiments.seed_ranges import FINAL_EVAL, SELECTION, SeedRange  # noqa: E402
from spyenvs.experiments.train_selfplay import Candidate, choose, load_config, selection_score, train  # noqa: E402

SMALL = {"total_timesteps": 1024, "n_envs": 2, "ppo.n_steps": 128, "ppo.batch_size": 64,
         "ppo.n_epochs": 2, "league.snapshot_every": 256, "eval.every": 512, "eval.games": 6,
         "eval.final_games": 12, "game.num_players": 3, "selection.games": 6}


# ------------------------------------------------------------------ the seeds
def test_every_pair_of_evaluation_seed_ranges_is_disjoint():
    for a, b in itertools.combinations(seed_ranges.ALL, 2):
        assert not a.overlaps(b), (a.name, b.name)
    assert SELECTION.stop <= FINAL_EVAL.start  # the selection games end before the final evaluation's begin


def test_a_seed_range_keeps_an_evaluation_inside_it():
    r = SeedRange("r", 100, 110)
    assert r.first(4) == 100 and r.holds(100, 4)
    assert r.first(4, offset=6) == 106 and r.holds(106, 4)  # the last 4 seeds
    assert r.first(4, offset=7) == 100  # past the end: wraps round, still inside
    assert not r.holds(107, 4)
    with pytest.raises(ValueError, match="do not fit"):
        r.first(11)


def test_periodic_evaluation_seeds_are_what_they_were_before_the_ranges():
    assert seed_ranges.PERIODIC_EVAL.first(80, offset=200_000) == 10_000_000 + 200_000
    assert FINAL_EVAL.first(400) == 999_000_000


# ------------------------------------------------------------------ the choice
def _c(name: str, t: int) -> Candidate:
    return Candidate(name, t, f"{name}.pt", f"{name}.npz")


def test_the_best_selection_score_ships():
    scored = [(_c("final", 300), 0.50), (_c("snap_200", 200), 0.62), (_c("snap_100", 100), 0.55)]
    assert choose(scored).name == "snap_200"


def test_a_tie_ships_the_later_snapshot():
    scored = [(_c("snap_100", 100), 0.6), (_c("final", 300), 0.6), (_c("snap_200", 200), 0.6)]
    assert choose(scored).name == "final"
    assert choose([(_c("snap_100", 100), 0.6), (_c("snap_200", 200), 0.6)]).name == "snap_200"


def test_the_selection_score_weighs_each_role_kind_once():
    kinds = {"agent": {"rate": 0.2, "games": 100}, "hunter": {"rate": 0.6, "games": 100}}
    assert selection_score(kinds) == pytest.approx(0.4)


@pytest.mark.parametrize("key,value,message", [
    ("selection.snapshots", 0, "'selection.snapshots' must be at least 1"),
    ("selection.games", -1, "'selection.games' must be 0 or more"),
])
def test_selection_options_out_of_range_are_refused(key, value, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, HighCard.env_id, {key: value})


# ------------------------------------------------------------------ a run
@pytest.fixture(scope="module")
def run_shipping_a_snapshot(tmp_path_factory):
    """A run whose choice is forced to the oldest candidate, so a snapshot ships."""
    out = tmp_path_factory.mktemp("select")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(train_selfplay, "choose", lambda scored: min(scored, key=lambda cs: cs[0].timesteps)[0])
        res = train(load_config(None, HighCard.env_id, SMALL), str(out), quiet=True, game=HighCard)
    return out, res


def test_selection_compares_the_final_weights_and_the_snapshots_before_them(run_shipping_a_snapshot):
    out, res = run_shipping_a_snapshot
    sel = res["selection"]
    names = [c["name"] for c in sel["candidates"]]
    steps = [c["timesteps"] for c in sel["candidates"]]
    assert names[0] == "final" and len(names) == 3 and steps == sorted(steps, reverse=True)
    assert steps[0] == res["timesteps"] and all(t < res["timesteps"] for t in steps[1:])
    for c in sel["candidates"]:
        assert c["kinds"]["player"]["games"] == sel["games"] == 6  # 6 per role: 2 rotations of 3 seats
        assert c["score"] == selection_score(c["kinds"])
    assert json.loads((out / "results.json").read_text())["selection"] == sel


def test_the_chosen_snapshot_is_what_the_run_ships_and_the_last_weights_are_kept(run_shipping_a_snapshot):
    out, res = run_shipping_a_snapshot
    sel = res["selection"]
    oldest = sel["candidates"][-1]
    assert sel["chosen"] == oldest["name"] and sel["chosen_timesteps"] == oldest["timesteps"]
    # final.npz is byte for byte the file the selection played; final.pt is the snapshot
    assert (out / "final.npz").read_bytes() == (out / "selection" / f"{oldest['name']}.npz").read_bytes()
    assert (out / "final.pt").read_bytes() == (out / "snapshots" / f"{oldest['name']}.pt").read_bytes()
    _, meta = read_checkpoint(out / "last.npz")
    assert meta["info"]["timesteps"] == res["timesteps"]  # the last weights are kept beside it
    assert (out / "last.pt").is_file()


def test_selection_games_and_final_evaluation_games_share_no_seed(run_shipping_a_snapshot):
    _, res = run_shipping_a_snapshot
    sel, ev = res["selection"], res["evaluation"]
    selection_seeds = set(range(sel["seed"], sel["seed"] + sel["games"]))
    final_seeds = set(range(ev["seed"], ev["seed"] + ev["games"]))
    assert SELECTION.holds(sel["seed"], sel["games"]) and FINAL_EVAL.holds(ev["seed"], ev["games"])
    assert not selection_seeds & final_seeds


def test_the_heuristic_is_measured_in_the_same_seats_opponents_and_games_as_the_shipped_policy(
        run_shipping_a_snapshot):
    out, res = run_shipping_a_snapshot
    ev = res["evaluation"]
    assert ev["opponent_seeds"] == {"random": 999_000_000, "heuristic": 999_000_000}  # as before selection
    assert set(res["heuristic_vs"]) == set(res["vs"]) == {"random", "heuristic"}
    again = heuristic_reference(HighCard, {"num_players": 3}, ev["games"], ev["seed"], ev["max_decisions"],
                                ev["opponent_seeds"])
    assert again == res["heuristic_vs"]  # the recorded plan replays the same games
    text = (out / "results.md").read_text()
    assert "| heuristic vs random |" in text and f"ships {res['selection']['chosen']}" in text


def test_one_snapshot_ships_the_final_weights_without_selection_games(tmp_path):
    (tmp_path / "last.pt").write_bytes(b"an earlier run's last weights")  # stale: removed, not left beside final
    res = train(load_config(None, HighCard.env_id, dict(SMALL, **{"selection.snapshots": 1})), str(tmp_path),
                quiet=True, game=HighCard)
    assert "selection" not in res and not (tmp_path / "selection").exists() and not (tmp_path / "last.pt").exists()
    _, meta = read_checkpoint(tmp_path / "final.npz")
    assert meta["info"]["timesteps"] == res["timesteps"] and meta["name"] == f"{HighCard.env_id}_final"
    assert res["evaluation"]["seed"] == 999_000_000
