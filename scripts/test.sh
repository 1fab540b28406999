#!/usr/bin/env bash
# Every test: lint and types, the Python suite (unit, interop with real proper-lockfile
# writers and SIGKILLs, end-to-end against the real server), then the extension in a
# real VS Code (code-server + chromium). Installs what it needs on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
bash scripts/setup.sh
echo "== lint and types"
.venv/bin/ruff check sidecar tests bench
.venv/bin/mypy
echo "== npm packages for the interop tests"
npm ci --prefix tests/interop --silent
echo "== python tests"
.venv/bin/pytest -p no:cacheprovider
echo "== extension tests (real VS Code)"
bash tests/extension/run.sh
