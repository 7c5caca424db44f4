#!/usr/bin/env bash
# The install step of freezer's GitHub Action (action.yml): freezer from the action's own checkout
# (github.action_path), so `uses: OWNER/freezer@v1` runs that tag's freezer and nothing else, in a
# venv of its own, so the job's Python and its packages are left as they were.
#
#   FREEZER_SOURCE          the action's checkout (required)
#   FREEZER_HOME            where the venv goes (default: $RUNNER_TEMP/freezer-action)
#   FREEZER_INSTALL_PYTHON  the Python to make it with (default: python3; 3.10 or later)
# Writes `freezer=` and `python=` to $GITHUB_OUTPUT for the guard step (action/run.sh).
set -euo pipefail

source=${FREEZER_SOURCE:?FREEZER_SOURCE: the action checkout to install freezer from}
home=${FREEZER_HOME:-${RUNNER_TEMP:?RUNNER_TEMP is not set: set FREEZER_HOME}/freezer-action}
python=${FREEZER_INSTALL_PYTHON:-python3}

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  printf '::error title=freezer action::%s\n' \
    "freezer needs Python 3.10 or later and '$python' is not; add actions/setup-python (python-version: \"3.12\") before this action"
  exit 2
fi
"$python" -m venv "$home"
"$home/bin/python" -m pip install --quiet --disable-pip-version-check "$source"
"$home/bin/freezer" --version
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'freezer=%s\npython=%s\n' "$home/bin/freezer" "$home/bin/python" >>"$GITHUB_OUTPUT"
fi
