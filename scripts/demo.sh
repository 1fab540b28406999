#!/usr/bin/env bash
# The demo on its defaults: three demo teams in a scratch folder, the CLI on them, then
# simulated teammates that answer and VS Code (code-server) with Team Inbox in its sidebar.
set -euo pipefail
usage() {
  cat <<'USAGE'
Usage: bash scripts/demo.sh [--no-ui] [--port N] [--keep]

Creates three demo teams in a scratch folder (/tmp/teaminbox-demo.XXXXXX): a Claude Code
team, a PseudoClaude team and a workspace folder with the one-file-per-message bus
(.team/). Shows the command line on them (each command printed so that you can paste
it), then runs simulated teammates that answer, and VS Code (code-server) on 127.0.0.1
with Team Inbox in its sidebar. Ctrl-C stops everything; the scratch folder is removed.

  --no-ui     the command-line part only
  --port N    code-server's port (default: 18090, or $TI_DEMO_PORT)
  --keep      keep the scratch folder (and its logs/) when the demo ends
  -h, --help  this help

TEAMINBOX_DEMO_HOME=DIR uses DIR as the scratch folder (and keeps it). The first run with
the UI installs code-server, Node 24 and chromium into ~/.cache/teaminbox (a few minutes).
USAGE
}
UI=1 PORT=${TI_DEMO_PORT:-18090} KEEP=0
while [ $# -gt 0 ]; do
  case $1 in
    --no-ui) UI=0; shift;;
    --port) [ $# -ge 2 ] || { echo "demo.sh: --port needs a number" >&2; exit 2; }; PORT=$2; shift 2;;
    --keep) KEEP=1; shift;;
    -h|--help) usage; exit 0;;
    *) echo "demo.sh: unknown option $1 (see --help)" >&2; exit 2;;
  esac
done
CALLER=$PWD
cd "$(dirname "$0")/.."
REPO=$PWD
bash scripts/setup.sh

if [ -n "${TEAMINBOX_DEMO_HOME:-}" ]; then
  D=$TEAMINBOX_DEMO_HOME KEEP=1
  mkdir -p "$D"
else
  D=$(mktemp -d /tmp/teaminbox-demo.XXXXXX)
fi
CS_PID_FILE="$D/.code-server/pid"
TEAMMATES=""
cleanup() {
  if [ -s "$CS_PID_FILE" ]; then kill -- "-$(cat "$CS_PID_FILE")" 2>/dev/null || true; fi
  if [ -n "$TEAMMATES" ]; then kill "$TEAMMATES" 2>/dev/null || true; wait "$TEAMMATES" 2>/dev/null || true; fi
  if [ "$KEEP" = 1 ]; then echo "demo files kept in $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'echo; exit 130' INT TERM
mkdir -p "$D/logs"

# What a reader can paste: the same program, roots and arguments, quoted for the shell.
TI_BIN="$REPO/.venv/bin/teaminbox"
[ "$CALLER" = "$REPO" ] && SHOWN=.venv/bin/teaminbox || SHOWN=$TI_BIN
ROOTS=(--no-default-roots --root "claude=$D/.claude/teams" --root "pseudoclaude=$D/.PseudoClaude/teams"
  --root "filebus=$D/demo-bus")
quote() {
  local out="" a
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then out+=" $a"; else out+=" ${a@Q}"; fi
  done
  printf '%s\n' "${out# }"
}
run() { echo; echo "\$ $(quote "$SHOWN" "${ROOTS[@]}" "$@")"; "$TI_BIN" "${ROOTS[@]}" "$@"; }

"$TI_BIN" demo init --home "$D"
run teams
run send demo-team researcher "Please add a regression test for the cookie refresh." --summary "Regression test"
run broadcast demo-pc "Stand-up in five minutes."
run send demo-bus reviewer "Yes please, push the two nit fixes."
echo; echo "(the simulated teammates read their inboxes and answer)"
"$TI_BIN" demo teammates --home "$D" --duration 1.5 >"$D/logs/teammates.log" 2>&1
run read demo-team user --unread
run read demo-bus user
unread=$("$TI_BIN" "${ROOTS[@]}" read demo-team user --unread --json | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)["unread"])')
echo; echo "unread in your demo-team inbox: $unread"

[ "$UI" = 1 ] || exit 0
"$TI_BIN" demo teammates --home "$D" >>"$D/logs/teammates.log" 2>&1 &
TEAMMATES=$!
CACHE=${TEAMINBOX_CACHE:-$HOME/.cache/teaminbox}
LOG="$D/logs/vscode.log"
echo
if [ -x "$CACHE/cs/node_modules/.bin/code-server" ] && [ -x "$CACHE/tools/node_modules/node/bin/node" ] \
  && command -v chromium >/dev/null; then
  echo "Starting VS Code with Team Inbox..."
else
  echo "Starting VS Code with Team Inbox: the first run installs code-server, Node 24 and chromium"
  echo "into $CACHE (a few minutes; progress in $LOG)..."
fi
# HOME=$D makes the Claude and PseudoClaude demo teams the sidecar's default roots; the
# file-bus team is the opened workspace folder, and a root as well. Everything code-server
# and the build say goes to the log, not after the address.
if ! bash tests/extension/serve-ui.sh --home "$D" --port "$PORT" --python "$REPO/.venv/bin/python" \
  --folder "$D/demo-bus" --root "filebus=$D/demo-bus" >"$LOG" 2>&1; then
  echo "VS Code did not start; the end of $LOG:" >&2
  tail -n 20 "$LOG" >&2
  exit 1
fi
echo
echo "Team Inbox in VS Code: http://127.0.0.1:$PORT/?folder=$D/demo-bus"
echo "The simulated teammates keep answering what you send. Ctrl-C to stop."
wait "$TEAMMATES"
