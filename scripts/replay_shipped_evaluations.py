"""Play every shipped policy's final evaluation again and compare it with the figures
shipped beside it (``agents/pretrained/<env_id>.json``).

A change that should not change behaviour (a restructuring, a speed-up) must leave
these figures identical: the evaluation is seeded, so the same policy file, rules and
opponents play the same games. Run from the repository root:

    python scripts/replay_shipped_evaluations.py [ENV ...]

It plays the evaluation the file records (``evaluation``: seed, games, opponents'
seeds, ``max_decisions``), or for a file shipped before that was recorded, the one
``spyenvs train`` played at the end of the shipped run (seed 999,000,000, random and
heuristic opponents seeded alike, the config's ``max_decisions``;
:func:`spyenvs.experiments.leaderboard.trainer_evaluation_plan`), and prints each
role's rate then and now; it exits 1 when any figure differs.
"""

from __future__ import annotations

import json
import os
import sys
import time

from spyenvs.agents import TorchPolicy
from spyenvs.experiments.evaluate import load_average, pin_blas_threads, vs_opponents
from spyenvs.experiments.leaderboard import trainer_evaluation_plan

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRETRAINED = os.path.join(ROOT, "agents", "pretrained")


def replay(env_id: str) -> bool:
    with open(os.path.join(PRETRAINED, f"{env_id}.json")) as f:
        shipped = json.load(f)
    plan = trainer_evaluation_plan(shipped)
    policy = TorchPolicy.load(os.path.join(PRETRAINED, f"{env_id}.npz"), deterministic=plan["deterministic"])
    same = True
    t0 = time.monotonic()
    now_vs = vs_opponents(env_id, shipped["config"], policy, plan["games"], plan["seed"], plan["max_decisions"],
                          plan["opponent_seeds"])
    for name, now in now_vs.items():
        for kind, then in shipped["vs"][name].items():
            rate = now[kind]["rate"]
            mark = "same" if abs(rate - then["rate"]) < 1e-12 else "DIFFERS"
            same = same and mark == "same"
            print(f"{env_id:16} {kind:8} vs {name:9} shipped {then['rate']:6.1%}  now {rate:6.1%}  "
                  f"(n={now[kind]['games']})  {mark}", flush=True)
    print(f"{env_id}: {time.monotonic() - t0:.0f} s, load {load_average()}", flush=True)
    return same


def main(argv: list[str]) -> int:
    pin_blas_threads()
    envs = argv or sorted(name[:-5] for name in os.listdir(PRETRAINED) if name.endswith(".json"))
    results = [replay(env_id) for env_id in envs]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
