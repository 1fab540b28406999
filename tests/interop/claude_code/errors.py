"""The one failure of these tests' harness: it carries the evidence in its message."""

from __future__ import annotations


class HarnessError(AssertionError):
    """A failure of the harness or of Claude Code, with the evidence in its message."""
