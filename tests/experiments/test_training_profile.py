"""scripts/training_profile.py: each part is charged its own time, less the wrapped
calls made inside it, and the saved profiles become one table."""

from __future__ import annotations

import importlib.util
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
spec = importlib.util.spec_from_file_location("training_profile", os.path.join(ROOT, "scripts", "training_profile.py"))
training_profile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(training_profile)


class Clock:
    """A clock that moves only when told to."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


CLOCK = Clock()


class Collector:
    def collect(self):
        CLOCK.now += 2.0
        self.step()
        CLOCK.now += 1.0
        return "done"

    def step(self):
        CLOCK.now += 5.0


def test_a_call_inside_a_wrapped_call_is_charged_to_its_own_part_only(monkeypatch):
    monkeypatch.setattr(training_profile.time, "perf_counter", CLOCK)
    timers = training_profile.Timers()
    timers.wrap(Collector, "collect", "outer")
    timers.wrap(Collector, "step", "inner")
    assert Collector().collect() == "done"
    assert timers.seconds == {"outer": 3.0, "inner": 5.0}  # not 8.0 for the outer call


def test_the_table_shows_each_part_with_its_share_of_the_process(tmp_path):
    parts = {p: 0.0 for p in training_profile.PARTS}
    parts.update({"start-up": 5.0, "PPO update": 10.0, "games and vec env": 25.0})
    (tmp_path / "profile-unrest_v0.json").write_text(json.dumps({
        "env_id": "unrest_v0", "steps": 65536, "wall_s": 50.0, "parts": parts, "env_processes": 2,
        "date": "2026-12-07", "load": "1.0 1.0 1.0"}))
    table = training_profile.profile_table(str(tmp_path))
    row = table.splitlines()[2]
    assert row.startswith("| unrest_v0 | 65,536 | 50.0 | 5.0 (10%) |") and "| 25.0 (50%) |" in row
    assert "| 10.0 (20%) | 2 | 2026-12-07, 1.0 1.0 1.0 |" in row
