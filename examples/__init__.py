"""Runnable examples (not part of the installed package). From the repository root they
import as ``examples.<name>``, which is how ``spyenvs scorecard ENV examples.<name>:make_policy``
finds them: docs/byo_algorithm.md."""
