"""What both trainers print and write at the end of a run."""

from __future__ import annotations

from spyenvs.experiments.evaluate import pct


def final_table(title: str, kinds, final: dict) -> str:
    """The closing summary both trainers print: per role, the win rate against random
    and heuristic with its Wilson interval (``final[opponent][role]``)."""
    lines = [title, "| role | vs random [95% CI] | vs heuristic [95% CI] |", "|---|---|---|"]
    for kind in kinds:
        cells = []
        for opp in ("random", "heuristic"):
            v = final.get(opp, {}).get(kind)
            cells.append(pct(v["rate"], v["low"], v["high"]) + f" (n={v['games']})" if v else "n/a")
        lines.append(f"| {kind} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)
