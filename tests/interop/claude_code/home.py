"""What Claude Code runs in: a scratch HOME whose `.claude.json` skips onboarding, approves
the dummy API key and trusts the working folder, and the environment that points it at the
fake API."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

API_KEY = "sk-ant-api03-teaminbox-interop-dummy-key-0123456789abcdefXYZ"


def project_dir_name(cwd: Path | str) -> str:
    """How Claude Code names a project's transcript folder: every non-alphanumeric -> '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def make_home(home: Path, cwd: Path) -> None:
    """A scratch HOME for Claude Code: onboarded, the dummy key approved, `cwd` trusted."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".claude").mkdir(exist_ok=True)
    config = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": "2.1.332",
        "theme": "dark",
        "numStartups": 5,
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "bypassPermissionsModeAccepted": True,
        "hasSeenTasksHint": True,
        "autoUpdates": False,
        "projects": {
            str(cwd): {
                "hasTrustDialogAccepted": True,
                "hasCompletedProjectOnboarding": True,
                "allowedTools": [],
                "projectOnboardingSeenCount": 5,
            }
        },
    }
    (home / ".claude.json").write_text(json.dumps(config, indent=2))


def claude_env(home: Path, port: int) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        {
            "HOME": str(home),
            "USER": os.environ.get("USER", "root"),
            "TERM": "xterm-256color",
            "COLUMNS": "200",
            "LINES": "50",
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ANTHROPIC_API_KEY": API_KEY,
            "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
            "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
        }
    )
    return env
