"""The user-facing tools behind the ``spyenvs`` command: terminal play, replays (terminal
and HTML), README pictures, random matches and the env benchmark. Each module owns one
tool; :mod:`spyenvs.cli` parses arguments and calls into them. (The pygame window of the
``human`` render mode is :mod:`spyenvs.core.viewer`, under the adapter that opens it.)"""
