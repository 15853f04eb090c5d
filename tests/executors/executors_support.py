"""Drive an executor by feeding it Jira's answers as values (the h11 style: no I/O, no mocks)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from reconcile.executors import Delivery, ExecContext, FetchFile, JiraCall, JiraResponse, Page, Report
from reconcile.executors.base import Step
from reconcile.executors.drive import drive
from reconcile.types.binding import executor_for

#: The issue the executors' value tests talk about, and its path in Jira's API.
KEY = "AURORA-1537"
ISSUE = f"/rest/api/2/issue/{KEY}"

#: A file the hub holds (its content ``abc``), and a link of AURORA-1537 that blocks AURORA-1538.
SHA_ABC = hashlib.sha256(b"abc").hexdigest()
BLOCKS_1538 = {"id": "10007", "type": {"name": "Блокирует начало"}, "outwardIssue": {"key": "AURORA-1538"}}

SYMMETRIC = ExecContext(
    jira_user="bridge-user", jira_time_zone="Europe/Moscow", symmetric_link_types=frozenset({"Связанные"})
)


def delivery(
    type_: str, params: Mapping[str, Any], *, pause: float = 30, context: Mapping[str, Any] | None = None
) -> Delivery:
    return Delivery(id=1, type=type_, params=params, pause_seconds=pause, context=context or {})


def issue(key: str, **fields: Any) -> dict[str, Any]:
    """Jira's answer to ``GET /issue/<key>``: the key and the fields given."""
    return {"key": key, "fields": fields}


def search(*hits: dict[str, Any], total: int | None = None, start: int = 0) -> dict[str, Any]:
    """One page of Jira's search answer holding ``hits``."""
    return {"startAt": start, "maxResults": 100, "total": len(hits) if total is None else total, "issues": list(hits)}


def ok(json: Any = None, status: int = 200, **headers: str) -> JiraResponse:
    return JiraResponse(status=status, json=json, headers=headers)


def play(
    type_: str,
    params: Mapping[str, Any],
    answers: list[JiraResponse],
    *,
    ctx: ExecContext = SYMMETRIC,
    files: Mapping[str, bytes | None] | None = None,
    pause: float = 30,
    context: Mapping[str, Any] | None = None,
) -> tuple[Report, list[Step]]:
    """Run the executor; each ``JiraCall`` gets the next answer in order. Returns the report and every step."""
    pending = list(answers)
    steps: list[Step] = []

    def answer(step: Step) -> Any:
        steps.append(step)
        if isinstance(step, JiraCall):
            assert pending, f"no answer left for {step.method} {step.path}"
            return pending.pop(0)
        if isinstance(step, FetchFile):
            return (files or {}).get(step.sha256)
        return None

    report = drive(executor_for(delivery(type_, params, pause=pause, context=context), ctx), answer)
    assert not pending, f"answers left unused: {pending}"
    return report, steps


def calls(steps: list[Step]) -> list[tuple[str, str]]:
    return [(s.method, s.path) for s in steps if isinstance(s, JiraCall)]


def kinds(steps: list[Step]) -> list[str]:
    """A compact trace: ``GET /path``, ``pause 30``, ``fetch``, ``page issues``."""
    trace: list[str] = []
    for s in steps:
        if isinstance(s, JiraCall):
            trace.append(f"{s.method} {s.path}")
        elif isinstance(s, Page):
            trace.append(f"page {s.kind}")
        elif isinstance(s, FetchFile):
            trace.append("fetch")
        else:
            trace.append(f"pause {s.seconds:g}")
    return trace
