"""The score card (``spyenvs scorecard ENV POLICY``): one policy against the game's
frozen ladder of bots, on a fixed Elo scale that two runs or two papers can share.

POLICY plays every role against each bot of the ladder (:mod:`spyenvs.agents.ladder`:
random, heuristic, pretrained, ...), ``games_per_role`` games per role and bot, its
seat rotating and a team role taking every seat of its team
(:func:`~spyenvs.experiments.evaluate.evaluate_vs`), with Wilson 95% intervals. Its
rating is fitted against the ladder's ratings held fixed
(:func:`~spyenvs.experiments.evaluate.fit_rating`, the tournament's Elo model), so the
anchors never move. The card goes out as markdown and JSON, both naming the spyenvs
version, the env and its config, the ladder version, the games, seed, seconds and
load average.

A config without a ladder (``--set`` options that differ from the ladder's) still
gets its win rates against the bots that can play it, and no rating.

    python -m spyenvs.experiments.scorecard unrest_v0 heuristic --games 100
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import sys
import time
from typing import Any

import spyenvs
from spyenvs.agents.checkpoint import CheckpointError
from spyenvs.agents.ladder import config_difference, find_ladder, is_search, load_ladder, stale_pretrained
from spyenvs.agents.registry import make_policy
from spyenvs.core.progress import progress_bar
from spyenvs.experiments.evaluate import (evaluate_vs, fit_rating, games_for, load_average, pct, pin_blas_threads,
                                          seat_groups)
from spyenvs.registry import env_module, make_game
from spyenvs.tools.arguments import add_scorecard_arguments, game_config, run_reporting_errors

#: the layout of a score card's JSON; bumped when a key changes meaning
FORMAT = 1
#: the interval reported around the rating: +-1.96 standard errors
Z95 = 1.959964
RATING_METHOD = ("maximum likelihood against the fixed ladder ratings (fit_elo's model and ridge); "
                 "± is 1.96 standard errors from the log-likelihood's curvature at the estimate")


def spyenvs_version() -> str:
    version = getattr(spyenvs, "__version__", None)
    if version:
        return version
    try:
        return importlib.metadata.version("spyenvs")
    except importlib.metadata.PackageNotFoundError:  # a source checkout that was never installed
        return "unknown"


def _probe(game: Any, config: dict | None):
    """A game of ``config``: ``game`` is an env id or a game class (the tests' toy game)."""
    return make_game(game, **(config or {})) if isinstance(game, str) else game(**(config or {}))


def scorecard(game: Any, config: dict | None, policy: Any, policy_name: str, ladder: dict | None,
              games_per_role: int, seed: int = 0, max_decisions: int | None = 5000, bots: list[str] | None = None,
              unrated: str | None = None, progress=None, search_games_per_role: int | None = None) -> dict[str, Any]:
    """``policy`` against each bot of ``ladder`` (or of ``bots`` when there is no
    ladder for this config: then no rating, and ``unrated`` says why), every role
    ``games_per_role`` times; a search bot (``expert``) ``search_games_per_role``
    times when given (its games cost seconds each).

    ``game`` is an env id or a game class, as for :func:`evaluate_vs`.
    """
    probe = _probe(game, config)
    sides = len(seat_groups(probe))
    names = list(ladder["bots"]) if ladder else list(bots or [])
    search_per_role = search_games_per_role or games_per_role
    t0 = time.monotonic()
    opponents, skipped = [], {}
    for j, name in enumerate(names):
        bot = make_policy(name, seed=seed + 1 + j)
        games = games_for(probe, search_per_role if is_search(name) else games_per_role)
        if ladder is None:
            reason = _cannot_play(bot, probe)
            if reason:
                skipped[name] = reason
                if progress:  # its games are not played: the bar still ends at its total
                    progress(games)
                continue
        res = evaluate_vs(game, config, policy, bot, games, seed + 100_000 * (j + 1), max_decisions, progress)
        opponents.append({"opponent": name, "elo": ladder["ratings"][name] if ladder else None, "games": games,
                          "score": sum(v["score"] for v in res["kinds"].values()), "kinds": res["kinds"],
                          "seconds": round(res["seconds"], 2)})
    rating = None
    if ladder:
        fit = fit_rating([(o["opponent"], o["score"], o["games"]) for o in opponents], ladder["ratings"], sides)
        half = Z95 * fit["se"]
        rating = {"elo": round(fit["elo"], 1), "plus_minus": round(half, 1), "low": round(fit["elo"] - half, 1),
                  "high": round(fit["elo"] + half, 1), "se": round(fit["se"], 2), "bound": fit["bound"],
                  "method": RATING_METHOD}
    return {"format": FORMAT, "spyenvs_version": spyenvs_version(), "env_id": probe.env_id, "config": probe.config,
            "num_players": probe.num_players, "sides": sides, "policy": policy_name,
            "ladder": None if ladder is None else {
                "version": ladder["ladder_version"], "file": ladder.get("file"), "ratings": ladder["ratings"],
                "anchor": ladder["anchor"], "games_per_pair": ladder["games_per_pair"]},
            "unrated": None if ladder else (unrated or "no ladder for this config"),
            "ladder_warning": stale_pretrained(ladder) if ladder else None,
            "skipped": skipped, "games_per_role": games_per_role, "games_per_opponent": games_for(probe, games_per_role),
            "search_games_per_role": search_per_role, "seed": seed,
            "max_decisions": max_decisions, "opponents": opponents, "rating": rating,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "seconds": round(time.monotonic() - t0, 1), "load": load_average()}


def _cannot_play(bot: Any, game: Any) -> str | None:
    """Why ``bot`` cannot play this config (a pretrained policy trained on another), or None."""
    try:
        for seat in range(game.num_players):
            bot.bind(game, seat)
    except CheckpointError as exc:
        return str(exc)
    return None


def rating_text(card: dict[str, Any]) -> str:
    """``1266 ± 96``, saying when the rating is only a bound; or why there is none."""
    r = card["rating"]
    if r is None:
        return f"none: {card['unrated']}"
    text = f"{r['elo']:.0f} ± {r['plus_minus']:.0f}"
    if r["bound"] == "lower":
        text += " (won every game: at least this)"
    elif r["bound"] == "upper":
        text += " (lost every game: at most this)"
    return text


def capped_search_games(card: dict[str, Any]) -> int | None:
    """The games per role a card gave its search bots when fewer than the others', else None."""
    search = card.get("search_games_per_role")
    return search if search and search != card["games_per_role"] else None


def search_games_note(card: dict[str, Any]) -> str:
    """``; 20 per role against a search bot`` when the card capped the search bots' games."""
    search = capped_search_games(card)
    return f"; {search} per role against a search bot" if search else ""


def score_card_total(probe: Any, bots: list[str], games_per_role: int, search_games_per_role: int | None) -> int:
    """Games a score card plays, for its progress bar."""
    search = search_games_per_role or games_per_role
    return sum(games_for(probe, search if is_search(b) else games_per_role) for b in bots)


def markdown(card: dict[str, Any]) -> str:
    """The score card as markdown: a header naming what was measured, one row per bot
    and role, then the rating."""
    lad = card["ladder"]
    config = ", ".join(f"{k}={json.dumps(v)}" for k, v in card["config"].items())
    lines = [f"### Score card: {card['policy']} on {card['env_id']} ({card['num_players']} players)", "",
             f"- spyenvs {card['spyenvs_version']}; config: {config}",
             f"- ladder: {lad['version'] + ' (' + str(lad['file']) + ')' if lad else 'none for this config'}",
             f"- {card['games_per_role']} games per role against each bot ({card['games_per_opponent']} per bot)"
             f"{search_games_note(card)}, seats rotated, seed {card['seed']}; {card['seconds']} s at load "
             f"{card['load']}; {card['date']}",
             "", "| opponent | opponent Elo | role | games | win rate [95% CI] |", "|---|---|---|---|---|"]
    for o in card["opponents"]:
        elo = f"{o['elo']:.0f}" if o["elo"] is not None else "n/a"
        for kind, v in o["kinds"].items():
            lines.append(f"| {o['opponent']} | {elo} | {kind} | {v['games']} | {pct(v['rate'], v['low'], v['high'])} |")
    for name in card["skipped"]:  # the reason is in the JSON
        lines.append(f"| {name} | n/a | (skipped: it cannot play this config) | 0 | n/a |")
    if card.get("ladder_warning"):
        lines += ["", f"Warning: {card['ladder_warning']}."]
    lines += ["", f"**Elo on the ladder: {rating_text(card)}**"]
    if card["rating"]:
        lines.append(f"({card['rating']['method']})")
    return "\n".join(lines) + "\n"


def file_stem(env_id: str, spec: str, players: int | None = None) -> str:
    """``<env_id>[-<N>p]-<policy>``: the player count where ``players`` names one other
    than the game's default, the policy spelled safely for a file name (a checkpoint by
    its name)."""
    path = spec[: -len(":sample")] if spec.endswith(":sample") else spec
    name = os.path.splitext(os.path.basename(path))[0] if os.path.exists(path) else spec
    table = env_id
    if players is not None and players != type(make_game(env_id)).CONFIG["num_players"].default:
        table = f"{env_id}-{players}p"
    return f"{table}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', name).strip('_') or 'policy'}"


def run(args) -> int:
    pin_blas_threads()
    env_module(args.env_id)  # an unknown id fails here with the list of ids
    config = game_config(args)
    probe = _probe(args.env_id, config)  # a bad option fails before any game
    ladder, bots, unrated = find_ladder(args.env_id, config), None, None
    if ladder is None:
        default = load_ladder(args.env_id)
        bots = default["bots"]
        unrated = (f"no ladder for this config (it differs from the default config's ladder in "
                   f"{config_difference(args.env_id, config, default)}): win rates only")
        print(f"warning: {unrated}", file=sys.stderr)
    stale = stale_pretrained(ladder) if ladder else None
    if stale:
        print(f"warning: {stale}", file=sys.stderr)
    policy = make_policy(args.policy, seed=args.seed)
    total = score_card_total(probe, ladder["bots"] if ladder else bots, args.games, args.search_games)
    with progress_bar(total, f"{args.env_id} score card", enabled=not args.quiet) as bar:
        card = scorecard(args.env_id, config, policy, args.policy, ladder, args.games, args.seed,
                         args.max_decisions, bots, unrated, bar.update, args.search_games)
    text = markdown(card)
    print(text)
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, file_stem(args.env_id, args.policy, probe.config.get("num_players")))
    with open(stem + ".json", "w") as f:
        json.dump(card, f, indent=1)
        f.write("\n")
    with open(stem + ".md", "w") as f:
        f.write(text)
    print(f"wrote {stem}.json and {stem}.md", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="spyenvs scorecard", description=__doc__.split("\n")[0])
    add_scorecard_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "scorecard"))
