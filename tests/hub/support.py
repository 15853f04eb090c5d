"""Helpers of the hub's API tests: wire records and driving the agent side through the HTTP API."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support import cmd

from .conftest import Api

#: A command every approval test can put in a batch, and the approval of a batch nobody has decided yet.
FIELDS = cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")
PENDING = {"state": "pending", "by": None, "at": None, "reason": None}


def decision(approval: dict[str, Any] | None) -> dict[str, Any] | None:
    """An approval's decision alone (state, by, at, reason), without the plan it carries."""
    return None if approval is None else {k: approval[k] for k in ("state", "by", "at", "reason")}


async def approve(api: Api, batch_id: int, role: str = "admin") -> httpx.Response:
    """Approve the plan the approver reads now (its digest from ``GET /batches/{id}/plan``)."""
    plan = (await api.get(f"/batches/{batch_id}/plan", role=role)).json()
    return await api.post(f"/batches/{batch_id}/approve", {"plan": plan.get("digest")}, role=role)


def issue(key: str, **fields: Any) -> dict[str, Any]:
    """A wire issue record (DESIGN.md section 6) with defaults for the fields not given."""
    record: dict[str, Any] = {
        "key": key,
        "summary": f"Задача {key}",
        "description": None,
        "status": "Разработка",
        "status_category": "indeterminate",
        "priority": "Major",
        "duedate": None,
        "planned_start": None,
        "planned_end": None,
        "labels": [],
        "epic_key": None,
        "assignee": None,
        "reporter": "ivanov",
        "created": "2026-10-20T09:00:00Z",
        "updated": "2026-10-20T09:00:00Z",
        "sprint": None,
        "links": [],
    }
    record.update(fields)
    return record


def link(jira_id: str, type_: str, source: str, target: str) -> dict[str, str]:
    return {"id": jira_id, "type": type_, "source": source, "target": target}


async def claim_ok(api: Api, **extra: Any) -> dict[str, Any]:
    """Claim and expect a delivery."""
    response = await api.claim(**extra)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


async def claim_none(api: Api, **extra: Any) -> None:
    response = await api.claim(**extra)
    assert response.status_code == 204, response.text


async def done(api: Api, command_id: int, result: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    body = {"status": "done", "result": result or {}, "jira_calls": 1, "operations": [], **extra}
    response = await api.report(command_id, body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


async def run_refresh(
    api: Api, delivery: dict[str, Any], issues: list[dict[str, Any]], result: dict[str, Any] | None = None
) -> None:
    """Answer a delivered refresh: one page of ``issues``, then a ``done`` report."""
    assert delivery["type"] == "refresh"
    response = await api.pages(delivery["id"], {"page": 1, "kind": "issues", "issues": issues, "history": []})
    assert response.status_code == 200, response.text
    await done(api, delivery["id"], {"issues": len(issues), "neighbours": 0, "boards": {}, **(result or {})})


async def seed_mirror(api: Api, issues: list[dict[str, Any]]) -> None:
    """Load ``issues`` into the mirror through a keys refresh, delivered and answered like the agent would."""
    response = await api.post("/refresh", {"keys": [i["key"] for i in issues]})
    assert response.status_code == 201, response.text
    delivery = await claim_ok(api)
    await run_refresh(api, delivery, issues)


async def create(api: Api, commands: list[dict[str, Any]], **extra: Any) -> Any:
    body = {"author": "planner", "title": "план", "commands": commands, **extra}
    return await api.post("/batches", body)


async def create_ok(api: Api, commands: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    response = await create(api, commands, **extra)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def assert_refused(response: httpx.Response, detail: str, *, batch: bool, status: int = 422) -> None:
    """The whole answer of a refused request: ``status`` with ``detail`` exactly, and nothing else, unless the
    refusal is a batch's validation (``batch``: ``POST /batches``, its dry run, ``POST /refresh``), a 422 that
    carries ``errors`` too: here the one error found, ``{command, param?, message}`` with ``detail`` its message."""
    assert response.status_code == status, response.text
    body = response.json()
    if not batch:
        assert body == {"status_code": status, "detail": detail}
        return
    assert status == 422, "a batch's validation refuses with 422"
    assert set(body) == {"status_code", "detail", "errors"}, body
    assert (body["status_code"], body["detail"]) == (422, detail)
    [error] = body["errors"]
    assert error["message"] == detail
    assert set(error) - {"param"} == {"command", "message"}, error
    assert error["command"] is None or isinstance(error["command"], int)
    assert isinstance(error.get("param", ""), str)
