"""The game seeds each kind of evaluation plays, in one place.

An evaluation of ``n`` games from seed ``s`` plays the games seeded ``s .. s + n - 1``
(:func:`spyenvs.experiments.evaluate.evaluate_vs`). Every kind of evaluation below
draws its games from its own half-open range of seeds, and the ranges do not overlap
(``tests/experiments/test_selection.py`` checks every pair). What this buys: the
snapshot a training run ships is chosen on :data:`SELECTION` games, and the figures
it is reported with come from :data:`FINAL_EVAL` games (or :data:`SHIP_EVAL` when
``leaderboard --ship --reevaluate`` measures it again), so the choice cannot have
been fitted to the games it is judged on.

Training games are not here: their seeds come from each training env's own random
stream, not from a range.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeedRange:
    """Game seeds ``start .. stop - 1`` reserved for one kind of evaluation."""

    name: str
    start: int
    stop: int

    def first(self, games: int, offset: int = 0) -> int:
        """The first seed of ``games`` games that start ``offset`` into the range; an
        offset that would run past the end wraps round (only a run of hundreds of
        millions of steps gets there), so the games always stay inside the range."""
        room = self.stop - self.start - int(games)
        if room < 0:
            raise ValueError(f"{self.name}: {games} games do not fit in its {self.stop - self.start} seeds")
        return self.start + int(offset) % (room + 1)

    def holds(self, first: int, games: int) -> bool:
        """Whether the games seeded ``first .. first + games - 1`` lie inside the range."""
        return self.start <= first and first + games <= self.stop

    def overlaps(self, other: "SeedRange") -> bool:
        return self.start < other.stop and other.start < self.stop


#: ``leaderboard --ship``'s own measurement of a policy (when the run's is not reused)
SHIP_EVAL = SeedRange("ship re-measurement", 2_026, 1_002_026)
#: the trainer's periodic evaluations: the offset is the learner's step count
PERIODIC_EVAL = SeedRange("periodic evaluation", 10_000_000, 700_000_000)
#: ``spyenvs exploit``'s final evaluation of a best response and its references
EXPLOIT_FINAL = SeedRange("exploitability probe's final evaluation", 777_000_000, 778_000_000)
#: the games that choose which of a run's last snapshots ships
SELECTION = SeedRange("snapshot selection", 900_000_000, 999_000_000)
#: the trainer's final evaluation: the shipped figures and the heuristic's beside them
FINAL_EVAL = SeedRange("final evaluation", 999_000_000, 1_000_000_000)

ALL = (SHIP_EVAL, PERIODIC_EVAL, EXPLOIT_FINAL, SELECTION, FINAL_EVAL)
