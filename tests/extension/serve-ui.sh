#!/usr/bin/env bash
# Start code-server (real VS Code 1.139) on 127.0.0.1 with the Team Inbox extension installed.
#   bash tests/extension/serve-ui.sh --home DIR [--port 18090] [--root PATH]... [--folder DIR]
#                                    [--vsix FILE] [--python PY] [--foreground]
# Installs what it needs once (cached in ${TEAMINBOX_CACHE:-~/.cache/teaminbox}), builds the
# .vsix unless --vsix is given, prints the URL, and leaves code-server running in the background
# (its pid in DIR/.code-server/pid; stop it with: kill -- -$(cat DIR/.code-server/pid)).
# Sourcing this file only defines ti_serve (used by run.sh).

ti_serve() { # ti_serve HOME PORT FOLDER VSIX PYTHON FOREGROUND ROOTS...
  local home=$1 port=$2 folder=$3 vsix=$4 python=$5 fg=$6; shift 6
  local data="$home/.code-server"
  mkdir -p "$data/user/User" "$folder"
  # TI_REUSE_EXT=1: keep an installed extension (a restart, as a user's; its bytecode cache stays valid)
  if [ "${TI_REUSE_EXT:-}" != 1 ] || ! ls -d "$data"/ext/teaminbox.team-inbox-* >/dev/null 2>&1; then
    rm -rf "$data/ext"
    PATH="$TI_NODE24:$PATH" HOME="$home" "$TI_CS" --extensions-dir "$data/ext" --user-data-dir "$data/user" \
      --install-extension "$vsix" --force >"$data/install.log" 2>&1 || { cat "$data/install.log" >&2; return 1; }
    # TI_EXTRA_VSIX: another extension beside ours (pythonext.js: a stand-in for the Python extension)
    if [ -n "${TI_EXTRA_VSIX:-}" ]; then
      PATH="$TI_NODE24:$PATH" HOME="$home" "$TI_CS" --extensions-dir "$data/ext" --user-data-dir "$data/user" \
        --install-extension "$TI_EXTRA_VSIX" --force >>"$data/install.log" 2>&1 || { cat "$data/install.log" >&2; return 1; }
    fi
  fi
  local roots_json
  roots_json=$(printf '%s\n' "$@" | python3 -c 'import json,sys; print(json.dumps([l for l in sys.stdin.read().splitlines() if l]))')
  # TI_TRUST=1: Workspace Trust on, the folder not trusted (Restricted Mode) and no start-up
  # question (trust.js trusts it through the UI); otherwise trust is off: every folder is trusted
  python3 - "$data/user/User/settings.json" "$python" "$roots_json" "${TI_TRUST:-}" <<'PY'
import json, sys
path, python, roots, trust = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4] == "1"
# spelled as VS Code 1.139 migrates them: an older spelling makes it rewrite settings.json at each
# start, which opens the file and activates the JSON and TypeScript extensions in a fresh window
s = {"workbench.startupEditor": "none", "security.workspace.trust.enabled": False,
     "telemetry.telemetryLevel": "off", "update.mode": "none", "extensions.autoUpdate": "off",
     "extensions.autoCheckUpdates": False, "chat.disableAIFeatures": True,
     "workbench.tips.enabled": False, "workbench.secondarySideBar.defaultVisibility": "hidden", "workbench.colorTheme": "Dark Modern"}
if trust: s.update({"security.workspace.trust.enabled": True, "security.workspace.trust.startupPrompt": "never",
                   "security.workspace.trust.banner": "always"})
if python: s["teamInbox.python"] = python
if roots: s["teamInbox.roots"] = roots
json.dump(s, open(path, "w"), indent=2)
PY
  # a scratch HOME keeps code-server out of ~/.config and points the sidecar's default roots there
  local trust_flag=(--disable-workspace-trust)
  [ "${TI_TRUST:-}" = 1 ] && trust_flag=()
  # TI_NO_DRIVER=1: no smoke-test driver, which refuses every modal dialog (plugin.js answers one)
  local driver=(--vscode-option enable-smoke-test-driver)
  [ "${TI_NO_DRIVER:-}" = 1 ] && driver=()
  local cmd=(env -u CLAUDE_CONFIG_DIR -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME -u XDG_CACHE_HOME
    HOME="$home" PATH="$TI_NODE24:$PATH"
    "$TI_CS" --bind-addr "127.0.0.1:$port" --auth none --disable-telemetry --disable-update-check
    "${trust_flag[@]}" --disable-getting-started-override "${driver[@]}"
    --extensions-dir "$data/ext" --user-data-dir "$data/user" "$folder")
  echo "Team Inbox in VS Code: http://127.0.0.1:$port/?folder=$folder"
  if [ "$fg" = 1 ]; then exec "${cmd[@]}"; fi
  setsid "${cmd[@]}" >"$data/code-server.log" 2>&1 &
  echo $! >"$data/pid"
  TI_CS_PID=$!
  local i
  for i in $(seq 120); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && return 0
    kill -0 "$TI_CS_PID" 2>/dev/null || { cat "$data/code-server.log" >&2; return 1; }
    sleep 0.5
  done
  echo "code-server did not answer on port $port" >&2; return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  HERE=$(cd "$(dirname "$0")" && pwd); REPO=$(cd "$HERE/../.." && pwd)
  home="" port=18090 folder="" vsix="" python="" fg=0 roots=()
  while [ $# -gt 0 ]; do
    case $1 in
      --home) home=$2; shift 2;; --port) port=$2; shift 2;; --root) roots+=("$2"); shift 2;;
      --folder) folder=$2; shift 2;; --vsix) vsix=$2; shift 2;; --python) python=$2; shift 2;;
      --foreground) fg=1; shift;;
      *) echo "unknown option $1" >&2; exit 2;;
    esac
  done
  [ -n "$home" ] || { echo "--home DIR is required" >&2; exit 2; }
  mkdir -p "$home"; home=$(cd "$home" && pwd)
  [ -n "$folder" ] || folder="$home/workspace"
  source "$HERE/setup.sh"
  if [ -z "$vsix" ]; then (cd "$REPO" && bash "$HERE/build-vsix.sh" >&2); vsix="$REPO/dist/team-inbox.vsix"; fi
  [ -n "$python" ] || python=$(python3 -c 'import sys; print(sys.executable)')
  ti_serve "$home" "$port" "$folder" "$vsix" "$python" "$fg" "${roots[@]}"
  echo "pid $(cat "$home/.code-server/pid") (stop: kill -- -\$(cat $home/.code-server/pid))"
fi
