#!/usr/bin/env bash
# Python environment: .venv with the pinned dependencies and teaminbox (editable).
# A warm run (same Python, same locks) checks a stamp and returns at once.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
  || { echo "teaminbox needs Python 3.10+ ($PY is $("$PY" --version 2>&1))" >&2; exit 1; }
STAMP=.venv/.teaminbox-setup
want="$("$PY" --version 2>&1) $(cat requirements-dev.lock pyproject.toml | cksum)"
if [ -x .venv/bin/teaminbox ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ] \
  && .venv/bin/python -c 'import teaminbox' 2>/dev/null; then
  exit 0
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.lock
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
echo "$want" >"$STAMP"
