#!/usr/bin/env bash
# The RLlib path's tests in their own virtual environment: ray[rllib] pins its own
# gymnasium, so it must never share the main suite's environment. Called from .ci/run.
#   bash .ci/rllib_test.sh            (venv in $SPYENVS_RLLIB_VENV, default /tmp/spyenvs-rllib-venv)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${SPYENVS_RLLIB_VENV:-/tmp/spyenvs-rllib-venv}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
PY="$VENV/bin/python"
"$PY" -m pip install --quiet --upgrade pip
# torch first, pinned: the CPU build lies on disk here; an unpinned torch (ray[rllib]
# does not ask for one, but the extra does) would pull a multi-GB CUDA build
"$PY" -m pip install --quiet torch==2.13.0
"$PY" -m pip install --quiet -e ".[rllib,dev]"
# the main package under the gymnasium that ray[rllib] pins
"$PY" -c "import gymnasium, ray, spyenvs; print('rllib venv: ray', ray.__version__, 'gymnasium', gymnasium.__version__)"
# a local Ray instance on 2 cores: no dashboard, no usage stats, no auth prompt
export RAY_USAGE_STATS_ENABLED=0 RAY_DISABLE_DOCKER_CPU_WARNING=1 PYTHONWARNINGS=ignore::DeprecationWarning
# pyproject addopts already has -q (a second -q would hide the "N passed" line)
"$PY" -m pytest tests_rllib -p no:cacheprovider "$@"
