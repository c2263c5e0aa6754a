"""Tournaments between policies, with seat and role rotation (also ``spyenvs eval``).

A *match* ``A vs B`` puts A in one seat and B in every other seat; A's seat rotates
over all seats game by game, so every role (and every seat of a role) is played
equally often. Win rates are per role kind (win 1, draw 1/2, loss 0; a team win
counts for each member) with Wilson 95% intervals. A tournament plays every ordered
pair of a population and fits Elo ratings to all its games: A beats the rest of the
table with probability ``sigmoid(ln10/400 * (R_A - R_B) + logit(1/N))``, so that two
equal players in an N-seat game win 1/N each; :func:`fit_rating` places one player
against fixed anchor ratings with the same model (the score card). Results go out as JSON and a markdown
table; :func:`plot_learning_curve` draws a training run's evaluation history.
:func:`heuristic_reference` measures the heuristic where a policy was measured (same
seats, opponents and games), the level a trained policy's scores are read against.

    python -m spyenvs.experiments.evaluate unrest_v0 random heuristic runs/unrest_v0/final.pt --games 200
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Any, Sequence

import numpy as np

from spyenvs.agents.arena import play_sides, score
from spyenvs.agents.registry import make_policy
from spyenvs.core.game import role_kind, role_kinds, seats_by_side
from spyenvs.core.progress import progress_bar
from spyenvs.core.stats import wilson_interval
from spyenvs.registry import make_game
from spyenvs.tools.arguments import add_eval_arguments, game_config, run_reporting_errors


def _new_game(game: Any, config: dict | None):
    if isinstance(game, str):
        return make_game(game, **(config or {}))
    return game(**(config or {}))


def seat_groups(game: Any) -> list[list[int]]:
    """The seats of each side at the deal (``game.starting_sides()``), one group per
    side in side order: every seat of a team kind together (e.g. Specter Ops'
    hunters, who win or lose as one), any other seat alone. A candidate takes one
    group; where sides change during a game (the 5-player traitor) it then plays
    every seat of its side as the game goes (:func:`~spyenvs.agents.arena.play_sides`)."""
    return seats_by_side(game.starting_sides())


def games_for(game: Any, games_per_role: int, kinds: Sequence[str] | None = None) -> int:
    """Games to play so that every role kind (or each of ``kinds``) gets at least
    ``games_per_role`` games with the candidate's seat group rotating (a whole number
    of rotations)."""
    groups = _groups_of(game, kinds)
    per_kind: dict[str, int] = {}
    for grp in groups:
        k = role_kind(game.roles[grp[0]])
        per_kind[k] = per_kind.get(k, 0) + 1
    rotations = max(-(-games_per_role // c) for c in per_kind.values())
    return rotations * len(groups)


def _groups_of(game: Any, kinds: Sequence[str] | None) -> list[list[int]]:
    """:func:`seat_groups`, only those of ``kinds`` when given (an unknown kind is a ValueError)."""
    groups = seat_groups(game)
    if kinds is None:
        return groups
    unknown = [k for k in kinds if k not in role_kinds(game.roles)]
    if unknown:
        raise ValueError(f"role kind {unknown[0]!r} not in {game.env_id}; allowed: {', '.join(role_kinds(game.roles))}")
    return [grp for grp in groups if role_kind(game.roles[grp[0]]) in kinds]


def evaluate_vs(game: Any, config: dict | None, candidate, opponent, games: int, seed: int = 0,
                max_decisions: int | None = 5000, progress=None, kinds: Sequence[str] | None = None) -> dict[str, Any]:
    """``candidate`` in one rotating seat group (:func:`seat_groups`: a team role
    takes every seat of its team, and where sides change, every seat of its side as
    the game goes; with ``kinds``, only the groups of those role kinds), ``opponent``
    in all the others. In an N-player game the rate of a kind is
    its win share.

    Returns ``{"kinds": {kind: {"score", "games", "rate", "low", "high"}}, ...}``.
    """
    g = _new_game(game, config)
    n = g.num_players
    groups = _groups_of(g, kinds)
    start = g.starting_sides()
    tally = {k: [0.0, 0] for k in role_kinds(g.roles)}
    t0 = time.monotonic()
    decisions = 0
    for i in range(games):
        group = groups[i % len(groups)]
        side = start[group[0]]
        side_policies = [opponent] * (max(start) + 1)
        side_policies[side] = candidate
        outcome = play_sides(g, side_policies, seed + i, max_decisions)
        decisions += len(g.actions)
        k = role_kind(g.roles[group[0]])
        # a seat still on the candidate's side at the end (its first seat may have left it)
        tally[k][0] += score(outcome[g.sides().index(side)])
        tally[k][1] += 1
        if progress:
            progress(1)
    out = {}
    for k, (s, m) in tally.items():
        if not m:
            continue
        lo, hi = wilson_interval(s, m)
        out[k] = {"score": s, "games": m, "rate": s / m, "low": lo, "high": hi}
    return {"env_id": g.env_id, "config": g.config, "num_players": n, "sides": len(groups), "kinds": out,
            "games": games, "seconds": time.monotonic() - t0, "decisions": decisions}


def vs_opponents(game: Any, config: dict | None, candidate, games: int, seed: int, max_decisions: int | None,
                 opponent_seeds: dict[str, int]) -> dict[str, dict]:
    """``candidate``'s per-kind results (:func:`evaluate_vs`'s ``kinds``) against each
    opponent of ``opponent_seeds`` (a registry name -> its seed), ``games`` games from
    ``seed`` each. Every opponent is made afresh from its seed, so two candidates
    measured with the same arguments meet the same opponents in the same games."""
    return {name: evaluate_vs(game, config, candidate, make_policy(name, seed=s), games, seed, max_decisions)["kinds"]
            for name, s in opponent_seeds.items()}


def heuristic_seed(opponent_seeds: dict[str, int]) -> int:
    """The seed of the heuristic measured as a candidate beside a policy: one past
    every opponent's, so it never shares a random stream with an opponent."""
    return max(opponent_seeds.values()) + 1


def heuristic_reference(game: Any, config: dict | None, games: int, seed: int, max_decisions: int | None,
                        opponent_seeds: dict[str, int]) -> dict[str, dict]:
    """The heuristic's own scores where a policy was measured: in the candidate's
    seats, against the same opponents, on the same games (:func:`vs_opponents`)."""
    candidate = make_policy("heuristic", seed=heuristic_seed(opponent_seeds))
    return vs_opponents(game, config, candidate, games, seed, max_decisions, opponent_seeds)


#: the small ridge of both fits, in score units per rating point: it keeps a player
#: who never wins (or always wins) at a finite rating
RIDGE = 1e-4
#: ln(10) / 400: a 400-point gap is 10:1 odds
ELO_SCALE = math.log(10) / 400


def fit_elo(results: list[tuple[str, str, float, int]], names: list[str], num_players: int,
            anchor: str | None = None, iters: int = 2000) -> dict[str, float]:
    """Elo ratings from (A, B, A's total score, games) records; see module docstring.
    ``anchor`` (default the first name) is pinned at 1000."""
    idx = {nm: i for i, nm in enumerate(names)}
    r = np.zeros(len(names))
    offset = math.log(1.0 / (num_players - 1)) if num_players > 1 else 0.0  # logit(1/N)
    k = ELO_SCALE
    lr = 50.0
    for _ in range(iters):
        grad = np.zeros_like(r)
        for a, b, s, m in results:
            if m == 0:
                continue
            p = 1.0 / (1.0 + math.exp(-(k * (r[idx[a]] - r[idx[b]]) + offset)))
            grad[idx[a]] += (s - m * p)
            grad[idx[b]] -= (s - m * p)
        # small ridge keeps never-winning/always-winning players finite
        grad -= RIDGE * r
        total = sum(m for *_, m in results) or 1
        r += lr * grad / total * len(names)
    base = r[idx[anchor or names[0]]]
    return {nm: float(1000 + r[i] - base) for nm, i in idx.items()}


def fit_rating(results: list[tuple[str, float, int]], anchors: dict[str, float], num_players: int) -> dict[str, Any]:
    """One player's Elo against fixed ``anchors`` (name -> rating), from
    (opponent, the player's total score, games) records. The anchors never move.

    The model is :func:`fit_elo`'s: the N-player offset, and the same ridge, here
    pulling towards the anchors' mean. The estimate solves "expected score = actual
    score" (plus the ridge), which is monotone in the rating, by bisection. Returns
    ``{"elo", "se", "bound"}``: ``se`` is the standard error from the curvature of the
    log-likelihood at the estimate (the observed information); ``bound`` is
    ``"lower"`` when the player won every game (the likelihood alone would put it at
    infinity and the ridge holds it finite, so the true rating is at least this),
    ``"upper"`` when it lost every game, else None.
    """
    played = [(anchors[b], s, m) for b, s, m in results if m]
    if not played:
        raise ValueError("no games to fit a rating from")
    offset = math.log(1.0 / (num_players - 1)) if num_players > 1 else 0.0
    prior = sum(anchors.values()) / len(anchors)

    def p_win(rating: float, anchor: float) -> float:
        x = ELO_SCALE * (rating - anchor) + offset
        return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0

    def surplus(rating: float) -> float:  # actual minus expected score, minus the ridge: decreasing
        return sum(s - m * p_win(rating, a) for a, s, m in played) - RIDGE * (rating - prior)

    lo, hi = min(anchors.values()) - 1000.0, max(anchors.values()) + 1000.0
    while surplus(lo) < 0:
        lo -= 1000.0
    while surplus(hi) > 0:
        hi += 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if surplus(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-6:
            break
    rating = (lo + hi) / 2
    info = sum(m * p_win(rating, a) * (1 - p_win(rating, a)) for a, _, m in played) * ELO_SCALE ** 2
    info += RIDGE * ELO_SCALE
    score, games = sum(s for _, s, _ in played), sum(m for *_, m in played)
    bound = "lower" if score >= games else ("upper" if score <= 0 else None)
    return {"elo": rating, "se": 1.0 / math.sqrt(info), "bound": bound}


def _match_job(job: tuple) -> dict[str, Any]:
    """One ordered pair of a tournament, its policies made from their specs here (a
    worker process of :func:`tournament` builds its own)."""
    game, config, a, b, games, seed, max_decisions, policy_seeds = job
    from spyenvs.agents.registry import make_policy
    return evaluate_vs(game, config, make_policy(a, seed=policy_seeds[a]), make_policy(b, seed=policy_seeds[b]),
                       games, seed, max_decisions)


def map_jobs(fn, jobs: list, workers: int = 1):
    """``fn`` over ``jobs``, results in order: here, or in ``workers`` spawned worker
    processes when more than one (``fn`` and the jobs must then pickle)."""
    if workers <= 1:
        for job in jobs:
            yield fn(job)
        return
    import multiprocessing as mp  # late: only a parallel run needs it

    with mp.get_context("spawn").Pool(workers) as pool:
        yield from pool.imap(fn, jobs)


def tournament(game: Any, config: dict | None, population: dict[str, Any], games: int, seed: int = 0,
               max_decisions: int | None = 5000, progress=None, pair_games=None, workers: int = 1,
               policy_seeds: dict[str, int] | None = None) -> dict[str, Any]:
    """Every ordered pair of ``population`` (name -> policy) plays ``games`` games, or
    ``pair_games(a, b)`` where given. With ``policy_seeds`` (name -> seed; the names
    must then be registry specs) every pair makes fresh policies from their names, so
    its games do not depend on the pairs played before it, and ``workers > 1`` runs
    the pairs in that many processes with the same results."""
    names = list(population)
    matches = []
    records = []
    probe = _new_game(game, config)
    num_players = probe.num_players
    sides = len(seat_groups(probe))  # a team plays as one side in the Elo model
    pairs = [(i, a, j, b) for i, a in enumerate(names) for j, b in enumerate(names) if a != b]
    count = {(a, b): pair_games(a, b) if pair_games else games for _, a, _, b in pairs}
    seeds = {(a, b): seed + 100_000 * (i * len(names) + j) for i, a, j, b in pairs}
    jobs = [(game, config, a, b, count[a, b], seeds[a, b], max_decisions, policy_seeds) for _, a, _, b in pairs]
    if policy_seeds is not None:
        results = []
        for res in map_jobs(_match_job, jobs, workers):
            results.append(res)
            if progress:
                progress(res["games"])
    else:
        results = [evaluate_vs(game, config, population[a], population[b], count[a, b], seeds[a, b], max_decisions,
                               progress) for _, a, _, b in pairs]
    for (_, a, _, b), res in zip(pairs, results):
        matches.append({"candidate": a, "opponent": b, **res})
        s = sum(v["score"] for v in res["kinds"].values())
        records.append((a, b, s, count[a, b]))
    elo = fit_elo(records, names, sides)
    first = matches[0] if matches else {}
    return {"env_id": first.get("env_id"), "config": first.get("config"), "num_players": num_players,
            "games_per_match": games, "population": names, "matches": matches, "elo": elo}


def pin_blas_threads(n: int = 1) -> None:
    """One BLAS thread for this process, as the trainer does: evaluation is many
    small matrix products, and a second BLAS thread only contends on 2 cores."""
    try:  # late: threadpoolctl comes with the train extra; evaluation runs without it
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - in the train extra
        return
    threadpool_limits(int(n))


def load_average() -> str:
    """uptime's three load averages, recorded beside every measured figure."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - no load average on this platform
        return "?"


def beat_bar(own: float, by: float, half_way_above: float) -> float:
    """The score a candidate must reach against the heuristic, given the heuristic's
    own in the same seats: its own + ``by``, or half the way from it to 100% where its
    own is above ``half_way_above``."""
    return own + (1.0 - own) / 2 if own > half_way_above else own + by


def pct(rate: float, lo: float, hi: float) -> str:
    return f"{rate:.1%} [{lo:.1%}, {hi:.1%}]"


def markdown_table(result: dict[str, Any]) -> str:
    """The tournament as markdown: one row per match and role kind, then Elo."""
    n = result["num_players"]
    lines = [f"### {result['env_id']} ({n} players, {result['games_per_match']} games per match)", "",
             "| candidate | opponent | role | games | win rate [95% CI] |", "|---|---|---|---|---|"]
    for m in result["matches"]:
        for kind, v in m["kinds"].items():
            lines.append(f"| {m['candidate']} | {m['opponent']} | {kind} | {v['games']} | {pct(v['rate'], v['low'], v['high'])} |")
    lines += ["", "| policy | Elo |", "|---|---|"]
    for nm, e in sorted(result["elo"].items(), key=lambda kv: -kv[1]):
        lines.append(f"| {nm} | {e:.0f} |")
    return "\n".join(lines) + "\n"


def plot_learning_curve(history: list[dict[str, Any]], path: str, title: str = "",
                        xlabel: str = "training steps (learner decisions)",
                        opponents: Sequence[str] | None = None,
                        levels: dict[tuple[str, str], float] | None = None) -> None:
    """PNG of win rate (with intervals) against training steps, one line per
    opponent and role kind (only those of ``opponents`` when given); ``history`` rows
    look like ``{"timesteps": T, "vs": {"random": {kind: {rate, low, high}}, ...}}``.
    ``levels`` ((opponent, kind) -> rate) draws a dashed horizontal line in that
    series' colour: the heuristic's own score against the same opponent, so the
    curve reads as above or below the heuristic."""
    # late: matplotlib is in the train extra only. The object-oriented API without
    # pyplot: no GUI backend, and pyplot's import is slow for every training process
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.2), dpi=110)
    ax = fig.subplots()
    series: dict[tuple[str, str], list[tuple[int, float, float, float]]] = {}
    for row in history:
        for opp, kinds in row["vs"].items():
            if opponents is not None and opp not in opponents:
                continue
            for kind, v in kinds.items():
                series.setdefault((opp, kind), []).append((row["timesteps"], v["rate"], v["low"], v["high"]))
    for (opp, kind), pts in sorted(series.items()):
        pts.sort()
        x = [p[0] for p in pts]
        line, = ax.plot(x, [p[1] for p in pts], marker="o", ms=3, label=f"{kind} vs {opp}")
        ax.fill_between(x, [p[2] for p in pts], [p[3] for p in pts], alpha=0.15, color=line.get_color())
        level = (levels or {}).get((opp, kind))
        if level is not None:
            ax.axhline(level, ls="--", lw=1, color=line.get_color(), label=f"heuristic {kind} vs {opp}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.set_title(title)
    if series:
        ax.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path)


def reference_levels(heuristic_vs: dict[str, dict] | None) -> dict[tuple[str, str], float]:
    """(opponent, kind) -> the heuristic's own rate, from a ``heuristic_vs`` record
    (:func:`heuristic_reference`); empty when there is none."""
    return {(opp, kind): v["rate"] for opp, kinds in (heuristic_vs or {}).items() for kind, v in kinds.items()}


def main(argv=None) -> int:
    """``spyenvs eval ENV_ID POLICY [POLICY ...]``: a tournament, printed as markdown."""
    parser = argparse.ArgumentParser(prog="spyenvs eval", description="tournament between policies with seat/role rotation")
    add_arguments(parser)
    return run(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command-line arguments (shared with ``spyenvs eval``)."""
    add_eval_arguments(parser)


def run(args) -> int:
    pin_blas_threads()
    config = game_config(args)
    if len(args.policies) < 2:
        raise SystemExit("a tournament needs at least two policies")
    population = {}
    for i, spec in enumerate(args.policies):
        name = spec if spec in population or not os.path.exists(spec) else os.path.splitext(os.path.basename(spec))[0]
        if name in population:
            name = f"{name}#{i}"
        population[name] = make_policy(spec, seed=args.seed + i)
    total = args.games * len(population) * (len(population) - 1)
    with progress_bar(total, f"{args.env_id} tournament", enabled=not args.quiet) as bar:
        result = tournament(args.env_id, config, population, args.games, args.seed, args.max_decisions, bar.update)
    text = markdown_table(result)
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "tournament.json"), "w") as f:
            json.dump(result, f, indent=1)
        with open(os.path.join(args.out, "tournament.md"), "w") as f:
            f.write(text)
        print(f"wrote {args.out}/tournament.json and tournament.md", file=sys.stderr)
    if getattr(args, "curve", None):
        with open(args.curve) as f:
            history = json.load(f)
        png = os.path.join(args.out or os.path.dirname(os.path.abspath(args.curve)), "learning_curve.png")
        plot_learning_curve(history, png, f"{args.env_id} self-play")
        print(f"wrote {png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "evaluate"))
