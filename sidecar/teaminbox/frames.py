"""Builders for the structured frames both formats know, format-neutral.

A Frame carries a type and its fields in Claude's camelCase spelling; each
format turns it into its own spelling (Claude: JSON inside `text`;
PseudoClaude: `type` plus a snake_case `payload`).
"""

from __future__ import annotations

import time
from typing import Any

import attrs


@attrs.define
class Frame:
    type: str
    fields: dict[str, Any] = attrs.Factory(dict)


def _request_id(kind: str, team: str) -> str:
    return f"{kind}-{int(time.time() * 1000)}@{team}"


def shutdown_request(team: str, reason: str | None = None) -> Frame:
    fields: dict[str, Any] = {"requestId": _request_id("shutdown", team)}
    if reason:
        fields["reason"] = reason
    return Frame("shutdown_request", fields)


def shutdown_response(request_id: str, approve: bool, reason: str | None = None) -> Frame:
    fields: dict[str, Any] = {"requestId": request_id, "approve": approve}
    if reason:
        fields["reason"] = reason
    return Frame("shutdown_response", fields)


def plan_approval_response(request_id: str, approved: bool, feedback: str | None = None) -> Frame:
    fields: dict[str, Any] = {"requestId": request_id, "approved": approved}
    if feedback:
        fields["feedback"] = feedback
    return Frame("plan_approval_response", fields)


def task_assignment(task_id: str, subject: str, description: str, assigned_by: str) -> Frame:
    return Frame(
        "task_assignment",
        {
            "taskId": task_id,
            "subject": subject,
            "description": description,
            "assignedBy": assigned_by,
        },
    )


BUILDERS = {
    "shutdown_request": shutdown_request,
    "shutdown_response": shutdown_response,
    "plan_approval_response": plan_approval_response,
    "task_assignment": task_assignment,
}
