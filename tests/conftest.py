"""Fixtures for every suite; the world they build is support/world.py (import from there,
not from this file: tests/e2e has a conftest.py of its own)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.world import Teams, make_teams


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("TEAMINBOX_ROOTS", raising=False)
    return h


@pytest.fixture
def teams(home: Path) -> Teams:
    return make_teams(home)


@pytest.fixture
def umask022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)
