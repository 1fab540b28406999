"""Fixtures of the end-to-end suites: `client`, the real `teaminbox serve` driven by
pytest-lsp (defined with the helpers in lsp_session.py)."""

from lsp_session import client

__all__ = ["client"]
