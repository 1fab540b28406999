"""The normalized view of teams, members and messages, and the one converter.

Everything that leaves the sidecar (CLI --json, JSON-RPC) is unstructured by
`converter`, which spells attribute names in camelCase (`from_` -> `from`).
"""

from __future__ import annotations

from typing import Any, Literal

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

Format = Literal["claude", "pseudoclaude"]
FORMATS: tuple[Format, ...] = ("claude", "pseudoclaude")


@attrs.define
class Problem:
    """An error attached to a team or member instead of failing the listing."""

    code: str
    message: str
    path: str | None = None


@attrs.define
class Message:
    id: str
    team: str
    inbox: str
    format: Format
    from_: str
    to: str
    type: str
    text: str
    timestamp: str
    read: bool
    summary: str | None = None
    color: str | None = None
    payload: dict[str, Any] | None = None
    structured: dict[str, Any] | None = None
    raw: dict[str, Any] = attrs.Factory(dict)
    archived: bool = False
    seen: bool = False


@attrs.define
class Member:
    name: str
    inbox: str
    agent_id: str | None = None
    agent_type: str | None = None
    color: str | None = None
    is_active: bool | None = None
    lead: bool = False
    total: int = 0
    unread: int = 0
    owned: bool = False
    phantom: bool = False
    error: Problem | None = None


@attrs.define
class Team:
    id: str
    format: Format
    name: str
    dir: str
    root: str
    lead: str | None = None
    identity: str = "user"
    own_inbox: str | None = None
    description: str | None = None
    members: list[Member] = attrs.Factory(list)
    error: Problem | None = None


@attrs.define
class SendResult:
    recipient: str
    ok: bool
    message_id: str | None = None
    inbox: str | None = None
    error: str | None = None
    code: str | None = None


def camel(name: str) -> str:
    if name == "from_":
        return "from"
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter(omit_if_default=False)

    def unstructure_factory(cls: type) -> Any:
        overrides = {a.name: override(rename=camel(a.name)) for a in attrs.fields(cls)}
        return make_dict_unstructure_fn(cls, conv, **overrides)  # type: ignore[arg-type]

    def structure_factory(cls: type) -> Any:
        overrides = {a.name: override(rename=camel(a.name)) for a in attrs.fields(cls)}
        return make_dict_structure_fn(cls, conv, **overrides)  # type: ignore[arg-type]

    conv.register_unstructure_hook_factory(attrs.has, unstructure_factory)
    conv.register_structure_hook_factory(attrs.has, structure_factory)
    return conv


converter = _make_converter()
