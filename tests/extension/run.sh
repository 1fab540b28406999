#!/usr/bin/env bash
# End-to-end test of the Team Inbox extension in real VS Code (code-server 4.139.1) driven by
# Debian chromium + playwright-core. Installs what it needs into ${TEAMINBOX_CACHE:-~/.cache/teaminbox}
# (cold ~3-4 min, warm seconds), builds the .vsix, writes fixture teams into a scratch HOME,
# starts code-server once, then runs the UI test and the extension-host suite (e2e.js, node:test).
# Screenshots and logs land in tests/extension/artifacts/.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# a free port unless TI_PORT says: two runs in the shared work tree must not share a code-server
PORT=${TI_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
START=$(date +%s)

source "$HERE/setup.sh"
source "$HERE/serve-ui.sh"
echo "[run] tools ready after $(( $(date +%s) - START ))s" >&2

cd "$REPO"
if [ -x "$REPO/.venv/bin/python" ]; then export PYTHON="$REPO/.venv/bin/python"; fi
WORK=$(mktemp -d /tmp/teaminbox-e2e.XXXXXX)
# our own copy of the built extension: another run in this work tree may rebuild dist/ and bundled/
bash "$HERE/build-vsix.sh" "$WORK/ext"
echo "[run] vsix built after $(( $(date +%s) - START ))s" >&2
# CI installs the universal .vsix (no orjson inside): the UI test runs on the sidecar's stand-in
cp dist/team-inbox-linux-x64.vsix "$WORK/ext/dist/" 2>/dev/null || true
if unzip -l "$WORK/ext/dist/team-inbox.vsix" | grep -q 'bundled/libs/orjson'; then
  echo "[run] FAIL: the universal .vsix holds orjson" >&2; exit 1
fi
echo "[run] universal .vsix: no orjson inside (json: stand-in)" >&2

# types and the TypeScript unit tests run in scripts/test.sh's lint step (before any install)
ARTIFACTS="$HERE/artifacts"; rm -rf "$ARTIFACTS"; mkdir -p "$ARTIFACTS"
cleanup() {
  local rc=$?
  if [ -n "${TI_CS_PID:-}" ]; then kill -- -"$TI_CS_PID" 2>/dev/null || true; wait "$TI_CS_PID" 2>/dev/null || true; fi
  cp "$WORK/home/.code-server/code-server.log" "$ARTIFACTS/" 2>/dev/null || true
  cp "$WORK/home3/.code-server/code-server.log" "$ARTIFACTS/code-server-trust.log" 2>/dev/null || true
  find "$WORK/home/.code-server/user/logs" -name 'Team Inbox.log' -exec sh -c 'i=0; for f; do i=$((i+1)); cp "$f" "$0/team-inbox-$i.log"; done' "$ARTIFACTS" {} + 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
  echo "[run] done in $(( $(date +%s) - START ))s (rc=$rc)" >&2
}
trap cleanup EXIT
# a real interpreter path: pyenv shims break under a scratch HOME; proves bundled/libs are enough
PY=$(python3 -c 'import sys; print(sys.executable)')
# ...in a venv of its own: no site-packages, so no orjson from the machine either. Only the
# universal .vsix's bundled/libs (no orjson inside) are on the path: the sidecar runs on its stand-in.
"$PY" -m venv --without-pip "$WORK/py" && PY="$WORK/py/bin/python"
# TI_ONLY=teamview: only the team view's UI test (teamview.js)
if [ "${TI_ONLY:-}" = teamview ]; then
  node "$HERE/fixtures.js" "$WORK/home"
  ti_serve "$WORK/home" "$PORT" "$WORK/home/workspace" "$WORK/ext/dist/team-inbox.vsix" "$PY" 0
  CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home" TI_WS="$WORK/home/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
    node --test --test-reporter=tap "$HERE/teamview.js"
  exit
fi
# TI_ONLY=membercost: only the members' context, cost and budget UI test (membercost.js)
if [ "${TI_ONLY:-}" = membercost ]; then
  node "$HERE/fixtures.js" "$WORK/home"
  ti_serve "$WORK/home" "$PORT" "$WORK/home/workspace" "$WORK/ext/dist/team-inbox.vsix" "$PY" 0
  CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home" TI_WS="$WORK/home/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
    node --test --test-reporter=tap "$HERE/membercost.js"
  exit
fi
# TI_ONLY=permissions: only the permission prompt's UI test (permissions.js)
if [ "${TI_ONLY:-}" = permissions ]; then
  node "$HERE/fixtures.js" "$WORK/home"
  ti_serve "$WORK/home" "$PORT" "$WORK/home/workspace" "$WORK/ext/dist/team-inbox.vsix" "$PY" 0
  INSTALLED=$(ls -d "$WORK"/home/.code-server/ext/*team-inbox* | head -1)
  CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home" TI_WS="$WORK/home/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
    TI_PY="$PY" TI_LIBS="$INSTALLED/bundled/libs" node --test --test-reporter=tap "$HERE/permissions.js"
  exit
fi
# TI_ONLY=suite: only the extension-host suite (suite.js, through e2e.js)
if [ "${TI_ONLY:-}" = suite ]; then
  node "$HERE/fixtures.js" "$WORK/home"
  ti_serve "$WORK/home" "$PORT" "$WORK/home/workspace" "$WORK/ext/dist/team-inbox.vsix" "$PY" 0
  CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home" TI_WS="$WORK/home/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
    node --test --test-reporter=tap --test-name-pattern='extension host API' "$HERE/e2e.js"
  exit
fi
# the Claude Code plugin command (plugin.js): the interop harness's real `claude` (installed once
# into the cache) reachable as Claude Code's installer puts it, ~/.local/bin/claude, on the PATH of
# ~/.profile (VS Code's server takes the login shell's environment), a scratch HOME for Claude Code
# too; first in Restricted Mode, then trusted. No smoke-test driver: the person answers a modal.
plugin_ui() { # a HOME of its own for each phase: Claude Code's settings start empty in each
  local exe home bin libs phase
  exe=$("${PYTHON:-python3}" -c 'import sys; sys.path.insert(0, "tests/interop")
from claude_code.install import install; print(install("2.1.332"))') || return 1
  for phase in restricted trusted; do
    home="$WORK/home-plugin-$phase" bin="$WORK/home-plugin-$phase/.local/bin"
    mkdir -p "$bin"
    printf '%s\n' '# as a Debian skeleton .profile: the user'"'"'s own bin on PATH' \
      'if [ -d "$HOME/.local/bin" ]; then PATH="$HOME/.local/bin:$PATH"; fi' >"$home/.profile"
    node "$HERE/fixtures.js" "$home"
    TI_TRUST=$([ $phase = restricted ] && echo 1) TI_NO_DRIVER=1 PATH="$bin:$PATH" \
      ti_serve "$home" "$PORT" "$home/workspace" "$WORK/ext/dist/team-inbox.vsix" "$PY" 0 || return 1
    libs=$(ls -d "$home"/.code-server/ext/*team-inbox*/bundled/libs | head -1)
    PATH="$bin:$PATH" CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$home" TI_WS="$home/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
      TI_PY="$PY" TI_LIBS="$libs" TI_CLAUDE_EXE="$exe" TI_CLAUDE_BIN="$bin" TI_PLUGIN_PHASE=$phase \
      node --test --test-reporter=tap "$HERE/plugin.js" || E2E_RC=1
    kill -- -"$TI_CS_PID" 2>/dev/null || true; wait "$TI_CS_PID" 2>/dev/null || true
  done
}
if [ "${TI_ONLY:-}" = plugin ]; then plugin_ui || E2E_RC=1; exit "${E2E_RC:-0}"; fi
# TI_ONLY=trust: only the Workspace Trust test (trust.js) below; TI_ONLY=lm: only lm.js
if [ "${TI_ONLY:-}" != trust ] && [ "${TI_ONLY:-}" != lm ]; then
node "$HERE/fixtures.js" "$WORK/home"
ti_serve "$WORK/home" "$PORT" "$WORK/home/workspace" "$WORK/ext/dist/team-inbox.vsix" "$PY" 0
echo "[run] code-server up after $(( $(date +%s) - START ))s" >&2
# proof from the installed extension: its bundled/libs give the stand-in under the name orjson
INSTALLED=$(ls -d "$WORK"/home/.code-server/ext/*team-inbox* 2>/dev/null | head -1 || true)
[ -n "$INSTALLED" ] || INSTALLED=$(find "$WORK/home" -maxdepth 6 -type d -path '*ext/teaminbox.team-inbox*' | head -1)
JSON_KIND=$(PYTHONPATH="$INSTALLED/bundled/libs" "$PY" -c 'import teaminbox, orjson; print("stand-in" if orjson.__name__ != "orjson" else "orjson", orjson.__name__)')
echo "[run] installed extension with $PY: json: $JSON_KIND" >&2
case $JSON_KIND in stand-in*) ;; *) echo "[run] FAIL: the sidecar would not run on the stand-in" >&2; exit 1;; esac

CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home" TI_WS="$WORK/home/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
  node --test --test-reporter=tap "$HERE/e2e.js" || E2E_RC=$?
# the first hour (firsthour.js: compose editor, manifest strings) runs even when e2e.js failed
if [ -f "$HERE/firsthour.js" ]; then
  CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home" TI_WS="$WORK/home/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
    node --test --test-reporter=tap "$HERE/firsthour.js"
fi
# the team view (teamview.js: its own teams beside the fixture's)
CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home" TI_WS="$WORK/home/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
  node --test --test-reporter=tap "$HERE/teamview.js" || E2E_RC=$?
# the members' context and cost, the budget toasts, two editors of one file (membercost.js)
CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home" TI_WS="$WORK/home/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
  node --test --test-reporter=tap "$HERE/membercost.js" || E2E_RC=$?
# a teammate's permission prompt (permissions.js: the real hook command, its own team)
CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home" TI_WS="$WORK/home/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
  TI_PY="$PY" TI_LIBS="$INSTALLED/bundled/libs" node --test --test-reporter=tap "$HERE/permissions.js" || E2E_RC=$?
# the Python extension's interpreter (pythonext.js): a code-server of its own, with no
# teamInbox.python and a stand-in for the Python extension installed beside ours
kill -- -"$TI_CS_PID" 2>/dev/null || true; wait "$TI_CS_PID" 2>/dev/null || true
(cd "$HERE/standin-python" && "$REPO/node_modules/.bin/vsce" package --allow-missing-repository --skip-license \
  -o "$WORK/standin-python.vsix" >/dev/null)
node "$HERE/fixtures.js" "$WORK/home2"
TI_EXTRA_VSIX="$WORK/standin-python.vsix" ti_serve "$WORK/home2" "$PORT" "$WORK/home2/workspace" "$WORK/ext/dist/team-inbox.vsix" "" 0
CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home2" TI_WS="$WORK/home2/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" TI_PY="$PY" \
  node --test --test-reporter=tap "$HERE/pythonext.js" || E2E_RC=$?
kill -- -"$TI_CS_PID" 2>/dev/null || true; wait "$TI_CS_PID" 2>/dev/null || true
fi
# the language-model tools and the MCP server definition (lm.js): a code-server of its own whose
# interpreter is the repository's .venv (it has the `mcp` extra the definition's server needs)
if [ "${TI_ONLY:-}" != trust ] && [ -x "$REPO/.venv/bin/python" ]; then
  node "$HERE/fixtures.js" "$WORK/home4"
  ti_serve "$WORK/home4" "$PORT" "$WORK/home4/workspace" "$WORK/ext/dist/team-inbox.vsix" "$REPO/.venv/bin/python" 0
  CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home4" TI_WS="$WORK/home4/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" \
    node --test --test-reporter=tap "$HERE/lm.js" || E2E_RC=$?
  kill -- -"$TI_CS_PID" 2>/dev/null || true; wait "$TI_CS_PID" 2>/dev/null || true
fi
[ "${TI_ONLY:-}" = lm ] && exit "${E2E_RC:-0}"
[ "${TI_ONLY:-}" = trust ] || plugin_ui || E2E_RC=1
# Workspace Trust (trust.js): a code-server of its own with trust on, the folder opens in
# Restricted Mode; the folder's settings name a program, a file and a folder of its own
node "$HERE/fixtures.js" "$WORK/home3"
TI_TRUST=1 ti_serve "$WORK/home3" "$PORT" "$WORK/home3/workspace" "$WORK/ext/dist/team-inbox.vsix" "$PY" 0
CS_BASE="http://127.0.0.1:$PORT" TI_HOME="$WORK/home3" TI_WS="$WORK/home3/workspace" TI_EXT="$WORK/ext" TI_ARTIFACTS="$ARTIFACTS" TI_PY="$PY" \
  node --test --test-reporter=tap "$HERE/trust.js" || E2E_RC=$?
exit "${E2E_RC:-0}"
