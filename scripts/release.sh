#!/usr/bin/env bash
# Publishes every per-platform .vsix and the universal one to both extension registries.
#   scripts/release.sh [--build] [FILE.vsix...]     (default: every dist/team-inbox*.vsix)
# First it checks the packages with the rules both registries apply (tests/extension/check_vsix.py
# --release: every target and the universal fallback, one identity and version, the licence, the
# icon and the README). Then, only when both tokens are set (VSCE_PAT for vsce, OVSX_PAT for ovsx),
# it publishes each file with `vsce publish --packagePath` and `ovsx publish`, each tool to its own
# default registry. Without both it publishes nothing and prints what it would run: a release
# that reached one registry only would leave them out of step.
# The Claude Code plugin (claude-plugin/) is published by this repository itself, its own
# marketplace: first its version must be the extension's and `claude plugin validate --strict`
# pass on it and on the marketplace (with the `claude` on PATH, or $CLAUDE); publishing then tags
# the commit `team-inbox--v<version>` and pushes the tag (`claude plugin tag --push`).
#   --build   first build every target (npm run package:all)
# VSCE / OVSX name the two programs (default: node_modules/.bin/vsce; node_modules/.bin/ovsx, else
# npx ovsx@$OVSX_VERSION, fetched only when publishing).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
OVSX_VERSION=${OVSX_VERSION:-0.10.6}

build=0 files=()
for a in "$@"; do
  case $a in
    --build) build=1 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "release: unknown option $a" >&2; exit 2 ;;
    *) files+=("$a") ;;
  esac
done
if [ "$build" = 1 ]; then npm run --silent package:all; fi
if [ ${#files[@]} -eq 0 ]; then
  shopt -s nullglob
  files=(dist/team-inbox*.vsix)
  shopt -u nullglob
fi
[ ${#files[@]} -gt 0 ] || { echo "release: no .vsix files (build them: scripts/release.sh --build)" >&2; exit 1; }

echo "release: checking ${#files[@]} packages" >&2
if ! "$PY" tests/extension/check_vsix.py --release "${files[@]}"; then
  echo "release: the packages would be refused: nothing published" >&2
  exit 1
fi

version=$("$PY" -c 'import json; print(json.load(open("package.json"))["version"])')
plugin=$("$PY" -c 'import json; print(json.load(open("claude-plugin/.claude-plugin/plugin.json"))["version"])')
listed=$("$PY" -c 'import json; print(json.load(open(".claude-plugin/marketplace.json"))["plugins"][0]["version"])')
if [ "$plugin" != "$version" ] || [ "$listed" != "$version" ]; then
  echo "release: the Claude Code plugin is $plugin (marketplace: $listed), the extension $version: make them one" >&2
  exit 1
fi
CLAUDE=${CLAUDE:-claude}
if command -v "$CLAUDE" >/dev/null 2>&1; then
  for what in claude-plugin .; do
    "$CLAUDE" plugin validate --strict "$what" >/dev/null \
      || { echo "release: claude plugin validate --strict $what fails: nothing published" >&2; exit 1; }
  done
else
  echo "release: no claude on PATH: the plugin is not validated here (tests/interop/claude_code/test_plugin_package.py does)" >&2
fi

VSCE_CMD=(${VSCE:-$PWD/node_modules/.bin/vsce})
if [ -n "${OVSX:-}" ]; then OVSX_CMD=($OVSX)
elif [ -x node_modules/.bin/ovsx ]; then OVSX_CMD=("$PWD/node_modules/.bin/ovsx")
else OVSX_CMD=(npx --yes "ovsx@$OVSX_VERSION")
fi

missing=()
[ -n "${VSCE_PAT:-}" ] || missing+=(VSCE_PAT)
[ -n "${OVSX_PAT:-}" ] || missing+=(OVSX_PAT)
if [ ${#missing[@]} -gt 0 ]; then
  echo "release: dry run (${missing[*]} not set): the packages pass; with both tokens this would run:"
  for f in "${files[@]}"; do echo "  vsce publish --packagePath $f"; done
  for f in "${files[@]}"; do echo "  ovsx publish $f"; done
  echo "  $CLAUDE plugin tag --push claude-plugin     (the plugin, team-inbox--v$version)"
  exit 0
fi

# the tokens travel in the environment (both tools read these names), never on a command line
export VSCE_PAT OVSX_PAT
for f in "${files[@]}"; do
  echo "release: vsce publish --packagePath $f" >&2
  "${VSCE_CMD[@]}" publish --packagePath "$f"
done
for f in "${files[@]}"; do
  echo "release: ovsx publish $f" >&2
  "${OVSX_CMD[@]}" publish "$f"
done
echo "release: published ${#files[@]} packages to both registries" >&2
echo "release: $CLAUDE plugin tag --push claude-plugin" >&2
"$CLAUDE" plugin tag --push claude-plugin
