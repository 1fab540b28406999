#!/usr/bin/env bash
# Builds dist/team-inbox.vsix: npm ci (when needed), esbuild bundle, bundled/libs, vsce.
set -euo pipefail
cd "$(dirname "$0")/../.."
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
if ! [ -x node_modules/.bin/vsce ] || ! [ -x node_modules/.bin/esbuild ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >/dev/null
fi
npm run --silent package >/dev/null
ls -la dist/team-inbox.vsix >&2
