#!/usr/bin/env bash
# Builds the .vsix files into dist/:
#   dist/team-inbox.vsix                 universal: no orjson (the sidecar uses its standard-library
#                                        stand-in, teaminbox/orjson_standin.py); what CI installs
#   dist/team-inbox-<target>.vsix        per platform (`vsce package --target`), with that platform's
#                                        orjson wheels for CPython 3.10..3.14 unpacked into bundled/libs
#   package-vsix.sh [TARGET...]   TARGET: universal linux-x64 linux-arm64 darwin-x64 darwin-arm64
#                                 win32-x64 alpine-x64, or "all" (default: universal)
# Expects dist/extension.js and bundled/libs (extension/bundle-python.sh) to be built. Each package is
# staged in a temporary folder, so bundled/libs itself is never changed.
# CI builds "universal linux-x64" only (tests/extension/build-vsix.sh); `npm run package:all` builds
# every target (~6 x 5 wheel downloads of ~150 KB, about a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
ALL=(universal linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 alpine-x64)
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(universal)
[ "${targets[0]}" = all ] && targets=("${ALL[@]}")
ORJSON=$(sed -n 's/^orjson==//p' requirements.lock)
[ -n "$ORJSON" ] || { echo "package-vsix: no orjson pin in requirements.lock" >&2; exit 1; }
VSCE=$PWD/node_modules/.bin/vsce
[ -f dist/extension.js ] && [ -d bundled/libs/teaminbox ] || { echo "package-vsix: build dist/extension.js and bundled/libs first" >&2; exit 1; }

# pip --platform tags of each target (pip tries them in order)
platforms() {
  case $1 in
    linux-x64)    echo "manylinux_2_17_x86_64 manylinux2014_x86_64" ;;
    linux-arm64)  echo "manylinux_2_17_aarch64 manylinux2014_aarch64" ;;
    darwin-x64)   echo "macosx_10_15_x86_64 macosx_10_12_x86_64" ;;
    darwin-arm64) echo "macosx_11_0_arm64" ;;
    win32-x64)    echo "win_amd64" ;;
    alpine-x64)   echo "musllinux_1_2_x86_64 musllinux_1_1_x86_64" ;;
    *) echo "package-vsix: unknown target $1" >&2; return 1 ;;
  esac
}

mkdir -p dist
for t in "${targets[@]}"; do
  stage=$(mktemp -d)
  cp package.json LICENSE .vscodeignore "$stage"/
  # the CHANGELOG's links into the repo (docs/...) cannot be resolved without a repository URL:
  # they become plain text naming the file
  "$PY" -c 'import re, sys
text = open("CHANGELOG.md", encoding="utf-8").read()
text = re.sub(r"\[([^\]]+)\]\((?!https?:|#|mailto:)([^)]+)\)", r"\1 (`\2` in the repository)", text)
open(sys.argv[1], "w", encoding="utf-8").write(text)' "$stage/CHANGELOG.md"
  for f in package.nls.json; do [ -f "$f" ] && cp "$f" "$stage"/; done
  mkdir -p "$stage/dist" "$stage/extension" "$stage/bundled"
  cp dist/extension.js dist/teamView.js dist/teamView.css "$stage/dist/"
  cp extension/README.md "$stage/extension/"
  for d in extension/media l10n; do [ -d "$d" ] && mkdir -p "$stage/$(dirname "$d")" && cp -r "$d" "$stage/$d"; done
  cp -r bundled/libs "$stage/bundled/libs"
  # the Claude Code plugin and its marketplace file (teamInbox.installPlugin copies them out)
  cp -r claude-plugin .claude-plugin "$stage"/
  find "$stage/claude-plugin" \( -name __pycache__ -o -name '*.pyc' \) -prune -exec rm -rf {} +
  find "$stage/bundled" \( -name __pycache__ -o -name '*.pyc' \) -prune -exec rm -rf {} +
  # whatever orjson the packaging machine installed goes: a target gets its own wheels, universal none
  rm -rf "$stage"/bundled/libs/orjson "$stage"/bundled/libs/orjson-*.dist-info "$stage"/bundled/libs/orjson.libs
  args=(--no-dependencies --allow-missing-repository --readme-path extension/README.md)
  if [ "$t" = universal ]; then
    out=dist/team-inbox.vsix
  else
    out=dist/team-inbox-$t.vsix
    plat=(); for p in $(platforms "$t"); do plat+=(--platform "$p"); done
    for minor in 10 11 12 13 14; do
      whl=$(mktemp -d)
      "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --python-version "3.$minor" --implementation cp --abi "cp3$minor" "${plat[@]}" \
        -d "$whl" "orjson==$ORJSON" 2>/dev/null \
        || { echo "package-vsix: no orjson $ORJSON wheel for CPython 3.$minor on $t" >&2; rm -rf "$whl" "$stage"; exit 1; }
      "$PY" -c 'import sys, zipfile, glob
for w in glob.glob(sys.argv[1] + "/*.whl"):
    zipfile.ZipFile(w).extractall(sys.argv[2])' "$whl" "$stage/bundled/libs"
      rm -rf "$whl"
    done
    args+=(--target "$t")
  fi
  # Bytecode for every CPython here (hash-checked: valid whatever mtimes the install gives the
  # files): a user's first start with one of these skips compiling ~14,000 lines of the sidecar and
  # the libraries (~0.3 s); another version compiles them once, beside the sources.
  tags=" "
  for py in "$PY" python3 python3.10 python3.11 python3.12 python3.13 python3.14; do
    command -v "$py" >/dev/null 2>&1 || continue
    tag=$("$py" -c 'import sys; print(sys.implementation.cache_tag if sys.version_info >= (3, 10) else "")' 2>/dev/null) || continue
    [ -n "$tag" ] && [[ "$tags" != *" $tag "* ]] || continue
    # a file another version cannot compile just gets no bytecode: it compiles at its first import
    "$py" -m compileall -q -j 0 --invalidation-mode checked-hash "$stage/bundled/libs" >/dev/null || true
    # and the attrs/cattrs code a start compiles (codecache.py reads it until the user's own is
    # written): a first-ever start then compiles none of it (~30-40 ms of ~200 here)
    "$py" scripts/seed-codecache.py "$stage/bundled/libs" 2>/dev/null \
      || echo "package-vsix: no attrs code seed for $tag" >&2
    tags+="$tag "
  done
  sed -i '/__pycache__/d; /\*\.pyc/d' "$stage/.vscodeignore"  # the stage holds only these
  (cd "$stage" && "$VSCE" package "${args[@]}" -o "$stage/out.vsix" >/dev/null)
  mv "$stage/out.vsix" "$out"
  rm -rf "$stage"
  echo "package-vsix: $out $(du -k "$out" | cut -f1) KB (bytecode for:$tags)" >&2
done
