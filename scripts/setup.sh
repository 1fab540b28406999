#!/usr/bin/env bash
# Python environment: .venv with the pinned dependencies and teaminbox (editable).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
  || { echo "teaminbox needs Python 3.10+ ($PY is $("$PY" --version 2>&1))" >&2; exit 1; }
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.lock
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
