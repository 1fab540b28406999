"""The wire contract is written once (teaminbox.protocol + model): the TypeScript types and the
docs tables are generated from it, and this fails while either is stale."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import attrs
import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gen_protocol.py"


def _gen() -> Any:
    spec = importlib.util.spec_from_file_location("gen_protocol", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generated_files_match_the_python_contract() -> None:
    r = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=REPO
    )
    assert r.returncode == 0, (
        "extension/src/protocol.ts or docs/protocol.md is stale: run "
        f".venv/bin/python scripts/gen_protocol.py\n{r.stderr}"
    )


def test_every_method_and_notification_is_in_the_typescript() -> None:
    from teaminbox.protocol import METHODS, NOTIFICATIONS

    ts = (REPO / "extension" / "src" / "protocol.ts").read_text()
    for name, m in METHODS.items():
        assert f'"{name}": [{m.params.__name__}, {m.result.__name__}];' in ts
    for name, n in NOTIFICATIONS.items():
        assert f'"{name}": {n.params.__name__};' in ts


# The generator's rules, on classes it has never seen (the sidecar keeps adding some).


@attrs.define
class _Inner:
    state: Literal["on", "off"]
    extra: dict[str, Any] | None = None


@attrs.define
class _Outer:
    inner: _Inner
    many: list[_Inner | None]
    from_: str
    agent_id: str | None = None
    total: int = 0


def test_rules_on_new_classes() -> None:
    gen = _gen()
    assert gen.ts_type(dict[str, int]) == "Record<string, number>"
    assert gen.ts_type(Any) == "unknown"
    assert gen.ts_type(Literal["a", "b"]) == '"a" | "b"'
    assert gen.ts_type(list[_Inner | None]) == "(_Inner | null)[]"
    assert gen.ts_type(tuple[int, ...]) == "number[]"
    with pytest.raises(gen.ContractError):
        gen.ts_type(dict[int, str])
    with pytest.raises(gen.ContractError):
        gen.ts_type(complex)

    out = gen.read_shape(_Outer)
    assert [f.name for f in out.fields] == ["inner", "many", "from", "agentId", "total"]
    assert gen.nested_classes(out.fields[1].hint) == [_Inner]

    # results: always present; params: optional where defaulted; None -> null either way
    out.is_output = True
    assert [gen.optional(out, f) for f in out.fields] == [False] * 5
    out.is_input = True
    assert [gen.optional(out, f) for f in out.fields] == [False, False, False, True, True]
