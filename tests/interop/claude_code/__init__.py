"""Drive the real Claude Code CLI offline against a scripted fake Messages API.

A package (with this file) so that its conftest.py is imported as
`claude_code.conftest` and does not shadow tests/conftest.py, which other
test modules import as `conftest`.
"""
