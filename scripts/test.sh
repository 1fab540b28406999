#!/usr/bin/env bash
# Every test: lint and types, the Python suite (unit, interop with real proper-lockfile
# writers and SIGKILLs, end-to-end against the real server), then the extension in a
# real VS Code (code-server + chromium). Installs what it needs on a fresh machine.
set -euo pipefail
usage() {
  cat <<'USAGE'
Usage: bash scripts/test.sh [--python-only | --extension-only] [--list]

Without options, runs everything (what CI runs):
  lint       ruff (check and format --check) and mypy (strict); tsc, eslint and prettier --check (npm run lint,
             npm run format:check) and the TypeScript unit tests (node:test)
  python     pytest: unit, interop and end-to-end (tests/unit, tests/interop, tests/e2e)
  extension  the VS Code extension in a real VS Code (tests/extension/run.sh; the first
             run installs code-server, Node 24 and chromium into ~/.cache/teaminbox)

  --python-only     lint and python
  --extension-only  extension
  --list            print the steps that would run, and run none
  -h, --help        this help
USAGE
}
PYTHON_STEPS=1 EXTENSION_STEPS=1 LIST=0
while [ $# -gt 0 ]; do
  case $1 in
    --python-only) EXTENSION_STEPS=0; shift;;
    --extension-only) PYTHON_STEPS=0; shift;;
    --list) LIST=1; shift;;
    -h|--help) usage; exit 0;;
    *) echo "test.sh: unknown option $1" >&2; usage >&2; exit 2;;
  esac
done
if [ "$PYTHON_STEPS$EXTENSION_STEPS" = 00 ]; then
  echo "test.sh: --python-only and --extension-only together run nothing" >&2; exit 2
fi
steps=()
[ "$PYTHON_STEPS" = 0 ] || steps+=(lint python)
[ "$EXTENSION_STEPS" = 0 ] || steps+=(extension)
if [ "$LIST" = 1 ]; then echo "${steps[*]}"; exit 0; fi

cd "$(dirname "$0")/.."
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
bash scripts/setup.sh
for step in "${steps[@]}"; do
  case $step in
    lint)
      echo "== lint and types"
      .venv/bin/ruff check sidecar tests bench claude-plugin
      .venv/bin/ruff format --check sidecar tests bench scripts claude-plugin
      .venv/bin/mypy
      echo "== TypeScript: types, eslint, prettier and unit tests"
      npm ci --silent
      npm run --silent typecheck
      npm run --silent lint
      npm run --silent format:check
      npm test --silent
      ;;
    python)
      echo "== npm packages for the interop tests"
      npm ci --prefix tests/interop --silent
      echo "== python tests"
      .venv/bin/pytest -p no:cacheprovider
      ;;
    extension)
      echo "== extension tests (real VS Code)"
      bash tests/extension/run.sh
      ;;
  esac
done
