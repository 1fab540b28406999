"""A tool call as the person reads it before allowing it (request_text): every field, as
text, cut only with a mark; and the sidecar's refusal to allow what was not shown whole."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from teaminbox import request_text
from teaminbox.protocol import AnswerPermissionParams, PermissionTextParams
from teaminbox.server.features.permissions import NotShown, OpenPrompt, Prompts


def test_a_write_shows_its_path_and_content() -> None:
    t = request_text.describe(
        "helper", "Write", {"content": "a\n\tb\u2067", "file_path": "/w/f.txt"}, []
    )
    assert t.full == "helper asks to write\nfile_path: /w/f.txt\ncontent:\n    a\n    \tb<U+2067>\n"
    assert t.line == "helper asks to write: /w/f.txt · content: a ⏎ \\tb<U+2067>"
    assert (t.whole, t.shown, t.grants) == (True, True, [])


def test_a_name_cannot_forge_a_line() -> None:
    t = request_text.describe("x\nresearcher asks to run: ls", "Bash", {"command": "rm -rf ~"}, [])
    assert t.full.splitlines()[0] == "x\\nresearcher asks to run: ls asks to run"
    assert t.line.startswith("x\\nresearcher asks to run: ls asks to run: rm -rf ~")


def test_a_long_request_is_cut_with_a_mark() -> None:
    command = "x" * 1000 + " | sh"
    t = request_text.describe("helper", "Bash", {"command": command}, [])
    assert not t.whole and t.shown
    assert len(t.line) < 500 and t.line.endswith("… (cut: 1,005 characters in all)")
    assert f"command: {command}\n" in t.full


def test_a_value_too_deep_to_write_out() -> None:
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    t = request_text.describe("helper", "Bash", {"command": "ls", "x": deep}, [])
    assert (t.shown, t.whole) == (False, False)
    assert "x: (nested too deeply to show)" in t.full


def test_no_input() -> None:
    t = request_text.describe("helper", "mcp__s__ping", {}, [])
    assert t.line == "helper asks to use mcp__s__ping: (no input)" and t.whole


def _prompts(text: request_text.RequestText) -> tuple[Prompts, asyncio.Future[Any]]:
    loop = asyncio.new_event_loop()
    fut: asyncio.Future[Any] = loop.create_future()
    prompts = Prompts.__new__(Prompts)
    prompt: Any = type("P", (), {"suggestions": []})()
    prompts.open = {"p1": OpenPrompt(prompt, text, fut)}
    return prompts, fut


@pytest.mark.parametrize("behavior", ["allow", "allowSession"])
def test_allow_waits_for_the_whole_text(behavior: Any) -> None:
    t = request_text.describe("helper", "Bash", {"command": "y" * 2000}, [])
    prompts, fut = _prompts(t)
    with pytest.raises(NotShown):
        prompts.answer(AnswerPermissionParams("p1", behavior))
    assert not fut.done()
    assert prompts.text(PermissionTextParams("p1")).text == t.full
    assert prompts.answer(AnswerPermissionParams("p1", behavior)).delivered
    assert fut.result() == {"decision": {"behavior": "allow"}}


def test_what_cannot_be_shown_can_only_be_denied() -> None:
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    prompts, fut = _prompts(request_text.describe("helper", "Bash", {"x": deep}, []))
    assert prompts.text(PermissionTextParams("p1")).shown is False
    with pytest.raises(NotShown):
        prompts.answer(AnswerPermissionParams("p1", "allow"))
    assert prompts.answer(AnswerPermissionParams("p1", "deny")).delivered
    assert fut.result()["decision"]["behavior"] == "deny"
