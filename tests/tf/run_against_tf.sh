#!/usr/bin/env bash
# Run the ported TF tests that import tf_backend against TensorFlow 2.15 itself, so that
# each translated scenario's expected values are TF's behaviour (issue 38). CI runs the
# colonnade side only (plain `pytest tests/tf`).
#
#   tests/tf/run_against_tf.sh [pytest args]      # TF_VENV=/tmp/tfenv by default
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${TF_VENV:-/tmp/tfenv}"
if ! "$venv/bin/python" -c "import tensorflow" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "tensorflow-cpu==2.15.1"
fi
"$venv/bin/python" -c "import pytest, attr, tensorboardX" 2>/dev/null || "$venv/bin/pip" install -q pytest attrs tensorboardX
files=$(grep -lE "^from (tf|estimator|canned)_backend import" "$here"/test_tf_*.py)
cd "$here/../.."
# colonnade is not installed there: the ported files import only the *_backend modules, tf_test_case
# and numpy under the switch
COLONNADE_TF_BACKEND=tf TF_CPP_MIN_LOG_LEVEL=2 "$venv/bin/python" -m pytest -q \
  -p no:cacheprovider $files "$@"
