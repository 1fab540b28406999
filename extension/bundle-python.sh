#!/usr/bin/env bash
# Installs the sidecar and its dependencies into bundled/libs (shipped inside the .vsix;
# the extension runs `python -m teaminbox serve` with PYTHONPATH=bundled/libs).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
# build from a copy so setuptools leaves no build/ or egg-info in the work tree
SRC=$(mktemp -d); trap 'rm -rf "$SRC"' EXIT
cp -r pyproject.toml sidecar "$SRC"/
[ -f README.md ] && cp README.md "$SRC"/ || echo "# teaminbox" > "$SRC/README.md"
find "$SRC/sidecar" \( -name '__pycache__' -o -name '*.egg-info' \) -prune -exec rm -rf {} +
rm -rf bundled/libs
"$PY" -m pip install --quiet --disable-pip-version-check --no-compile -t bundled/libs "$SRC"
rm -rf bundled/libs/bin
