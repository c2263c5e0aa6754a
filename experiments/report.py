"""What both trainers print and write at the end of a run."""

from __future__ import annotations

from spyenvs.experiments.evaluate import pct


def final_table(title: str, kinds, final: dict, reference: dict | None = None) -> str:
    """The closing summary both trainers print: per role, the win rate against random
    and heuristic with its Wilson interval (``final[opponent][role]``). With
    ``reference`` (the heuristic's own scores in the same seats and games, same
    shape), each is followed by the heuristic's."""
    opponents = ("random", "heuristic")
    head = [f"vs {opp} [95% CI]" for opp in opponents]
    if reference is not None:
        head = [h for opp, cell in zip(opponents, head) for h in (cell, f"heuristic vs {opp}")]
    lines = [title, "| role | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for kind in kinds:
        cells = []
        for opp in opponents:
            v = final.get(opp, {}).get(kind)
            cells.append(pct(v["rate"], v["low"], v["high"]) + f" (n={v['games']})" if v else "n/a")
            if reference is not None:
                r = reference.get(opp, {}).get(kind)
                cells.append(pct(r["rate"], r["low"], r["high"]) if r else "n/a")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
