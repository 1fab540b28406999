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
# built beside and swapped in at the end: a sidecar running from bundled/libs never sees half a tree
OUT=bundled/libs.new.$$
rm -rf bundled/libs.new.*; mkdir -p bundled
# the versions CI tests (requirements.lock), not whatever is newest today
CONSTRAINTS=(); [ -f requirements.lock ] && CONSTRAINTS=(-c requirements.lock)
"$PY" -m pip install --quiet --disable-pip-version-check --no-compile -t "$OUT" "${CONSTRAINTS[@]}" "$SRC"
# backports that pip skips when the packaging Python is 3.11+ but a 3.10 user needs (cattrs)
"$PY" -m pip install --quiet --disable-pip-version-check --no-compile --no-deps -t "$OUT" exceptiongroup
rm -rf "$OUT/bin"

# Native extensions are built for one CPython minor version. Add the other versions' builds of the
# same release next to it (Python loads the .so whose ABI tag matches), so the .vsix works with any
# Python 3.10+, not only the one that packaged it. Best effort: a missing wheel only warns.
for pkg in orjson; do
  info=$(ls -d "$OUT"/"$pkg"-*.dist-info 2>/dev/null | head -1) || true
  [ -n "$info" ] || continue
  ver=${info##*/"$pkg"-}; ver=${ver%.dist-info}
  arch=$(uname -m)
  for minor in 10 11 12 13 14; do
    ls "$OUT"/"$pkg"/*.cpython-3"$minor"-* >/dev/null 2>&1 && continue
    tmp=$(mktemp -d)
    if "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --python-version "3.$minor" --implementation cp --abi "cp3$minor" \
        --platform "manylinux_2_17_$arch" --platform "manylinux2014_$arch" -d "$tmp" "$pkg==$ver" 2>/dev/null; then
      "$PY" - "$tmp" "$OUT" <<'PY'
import pathlib, sys, zipfile
for whl in pathlib.Path(sys.argv[1]).glob("*.whl"):
    with zipfile.ZipFile(whl) as z:
        for n in z.namelist():
            if n.endswith(".so") and "/" in n and not n.split("/")[0].endswith((".dist-info", ".libs")):
                z.extract(n, sys.argv[2])
PY
    else
      echo "bundle-python: no $pkg $ver wheel for CPython 3.$minor ($arch); skipped" >&2
    fi
    rm -rf "$tmp"
  done
done
rm -rf bundled/libs.old; [ -d bundled/libs ] && mv bundled/libs bundled/libs.old
mv "$OUT" bundled/libs
rm -rf bundled/libs.old
