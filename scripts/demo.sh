#!/usr/bin/env bash
# The main job on its defaults: demo teams (Claude Code + PseudoClaude) in a scratch
# folder, a send, a read and an unread count from the CLI, then simulated teammates
# that answer, and VS Code (code-server) on 127.0.0.1 with Team Inbox in its sidebar.
#   bash scripts/demo.sh [--no-ui] [--port N]
set -euo pipefail
cd "$(dirname "$0")/.."
UI=1 PORT=${TI_DEMO_PORT:-18090}
while [ $# -gt 0 ]; do
  case $1 in --no-ui) UI=0; shift;; --port) PORT=$2; shift 2;; *) echo "unknown option $1" >&2; exit 2;; esac
done
bash scripts/setup.sh
D=${TEAMINBOX_DEMO_HOME:-$(mktemp -d /tmp/teaminbox-demo.XXXXXX)}
TI=(.venv/bin/teaminbox --no-default-roots --root "claude=$D/.claude/teams" --root "pseudoclaude=$D/.PseudoClaude/teams")
run() { echo; echo "\$ teaminbox ${*}"; "${TI[@]}" "$@"; }

.venv/bin/teaminbox demo init --home "$D"
run teams
run send demo-team researcher "Please add a regression test for the cookie refresh." --summary "Regression test"
run broadcast demo-pc "Stand-up in five minutes."
echo; echo "(the simulated teammates read their inboxes and answer)"
.venv/bin/teaminbox demo teammates --home "$D" --duration 1.5 >/dev/null
run read demo-team user --unread
unread=$("${TI[@]}" read demo-team user --unread --json | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)["unread"])')
echo "unread in your demo-team inbox: $unread"

[ "$UI" = 1 ] || exit 0
.venv/bin/teaminbox demo teammates --home "$D" >"$D/teammates.log" 2>&1 &
TEAMMATES=$!
trap 'kill $TEAMMATES 2>/dev/null || true' EXIT
echo; echo "Starting VS Code with Team Inbox (first run installs code-server and chromium: a few minutes)..."
# HOME=$D makes the demo teams the sidecar's default roots.
bash tests/extension/serve-ui.sh --home "$D" --port "$PORT" --python "$PWD/.venv/bin/python" --foreground
