"""The user-facing tools behind the ``spyenvs`` command: terminal play, replays (terminal
and HTML), the pygame viewer, README pictures, random matches and the env benchmark.
Each module owns one tool; :mod:`spyenvs.cli` parses arguments and calls into them."""
