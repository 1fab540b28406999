#!/usr/bin/env bash
# Builds dist/team-inbox.vsix (universal: no orjson, the sidecar's stand-in) and
# dist/team-inbox-linux-x64.vsix: npm ci (when needed), esbuild bundle, bundled/libs, vsce
# (scripts/package-vsix.sh), then checks both with check_vsix.py. `npm run package:all` builds
# every platform's .vsix; CI builds these two only.
#   build-vsix.sh [COPY_TO]   also copies the extension (package.json, dist/, bundled/) to COPY_TO
# The work tree is shared: builds take a lock, and a run that needs the files to stay put while it
# tests (run.sh) asks for its own copy instead of reading dist/ and bundled/ live.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec 9>"${TMPDIR:-/tmp}/teaminbox-build-vsix.lock"
flock 9
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
if ! [ -x node_modules/.bin/vsce ] || ! [ -x node_modules/.bin/esbuild ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >/dev/null
fi
npm run --silent package >/dev/null
bash scripts/package-vsix.sh linux-x64
"${PYTHON:-python3}" tests/extension/check_vsix.py dist/team-inbox.vsix dist/team-inbox-linux-x64.vsix >&2
if [ $# -ge 1 ]; then
  mkdir -p "$1"
  cp -r package.json package.nls.json dist bundled "$1"/
  mkdir -p "$1/extension" && cp -r extension/media "$1/extension/"
fi
