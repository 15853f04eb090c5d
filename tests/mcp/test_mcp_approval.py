"""batch_plan and approval over MCP, through the official client: the plan writes nothing; with approval.mcp
on, batch_create answers pending with the batch's page and nothing is issued; batch_status shows the state."""

from __future__ import annotations

import pytest

from hub_app.operations import admin
from tests.hub.support import decision
from tests.support import cmd

from .mcp_support import Served, batch, load_mirror, tool_error, tool_json

pytestmark = pytest.mark.anyio


async def _approval(served: Served, **doors: bool) -> None:
    async with served.hub.unit() as unit:
        await admin.patch_settings(unit, {"approval": doors})


async def _claim_status(served: Served) -> int:
    async with served.http() as http:
        response = await http.post(
            "/agent/claim", json={"agent_id": "agent-1", "version": "1.0", "wait": 0}, headers=served.auth("agent")
        )
    return response.status_code


async def test_batch_plan_answers_the_plan_and_writes_nothing(served: Served) -> None:
    """batch_plan: the lines of each command from the mirror, no batch, command or note stored."""
    body = batch(
        cmd("ensure_issue", temp_key="new:1", summary="Сверка"),
        cmd("ensure_fields", key="AURORA-1533", duedate="2026-10-30"),
        cmd("ensure_link", source="new:1", target="AURORA-1533", link_type="связанные"),
        notes=[{"key": "new:1", "text": "почему"}],
    )
    async with served.mcp() as client:
        await load_mirror(served, client, [{"key": "AURORA-1533", "duedate": "2026-10-23"}])
        before = await served.count()
        plan = tool_json(await client.call_tool("batch_plan", body))
        refused = await client.call_tool("batch_plan", batch(cmd("ensure_status", key="AURORA-1533")))
    assert await served.count() == before == (1, 0)
    assert (plan["batch_id"], plan["author"], plan["approval"]) == (None, "claude", None)
    assert plan["totals"] == {"+": 2, "~": 1, "-": 0}
    assert [(c["seq"], c["command_id"], c["status"], c["lines"]) for c in plan["commands"]] == [
        (1, None, "queued", [{"sign": "+", "text": "задача «Сверка» в AURORA: тип «Задача»", "unknown": True}]),
        (2, None, "queued", [{"sign": "~", "text": "срок: 23.10 → 30.10", "unknown": False}]),
        (3, None, "queued", [{"sign": "+", "text": "связь «Связанные» new:1 → AURORA-1533", "unknown": True}]),
        (4, None, "queued", [{"sign": "=", "text": "нет изменений: только чтение Jira в зеркало", "unknown": False}]),
    ]
    assert tool_error(refused, batch=True) == "команда 1 (ensure_status): нет target; ожидаются key, target"


async def test_batch_create_with_approval_on_waits_for_a_person(served: Served) -> None:
    """approval.mcp on: pending, the answer says so with <hub>/batches/<id>; nothing issued; batch_status shows it."""
    await _approval(served, mcp=True)
    async with served.mcp() as client:
        created = tool_json(
            await client.call_tool("batch_create", batch(cmd("ensure_fields", key="AURORA-1", duedate=None)))
        )
        assert await _claim_status(served) == 204
        status = tool_json(await client.call_tool("batch_status", {"batch_id": created["id"]}))
    url = f"{served.base_url}/batches/{created['id']}"
    assert decision(created["approval"]) == {"state": "pending", "by": None, "at": None, "reason": None}
    assert status["approval"]["plan"] == created["approval"]["plan"]  # the plan it waits with, digest and lines
    assert created["approval_url"] == url
    assert created["message"] == (
        f"Пакет ждёт одобрения человеком: ни одна команда не выполняется, пока его не одобрят на странице {url} "
        "(одобрить может только другой человек, не создатель). Покажите пользователю план и ссылку; статус — "
        "batch_status (approval.state)."
    )
    assert (status["door"], status["approval"]["state"]) == ("mcp", "pending")
    assert [c["status"] for c in status["commands"]] == ["queued", "queued"]

    async with served.http() as http:
        shown = {"plan": created["approval"]["plan"]["digest"]}
        own = await http.post(f"/batches/{created['id']}/approve", json=shown, headers=served.auth("interface"))
        other = await http.post(f"/batches/{created['id']}/approve", json=shown, headers=served.auth("admin"))
    assert own.json() == {"status_code": 403, "detail": "нельзя одобрить свой пакет"}
    assert other.json()["approval"]["by"] == "boss"
    assert await _claim_status(served) == 200


async def test_doors_are_separate_and_off_means_unchanged(served: Served) -> None:
    """approval.http alone leaves MCP batches as they were: no approval, no URL, issued at once."""
    await _approval(served, http=True)
    async with served.mcp() as client:
        created = tool_json(
            await client.call_tool("batch_create", batch(cmd("ensure_fields", key="AURORA-1", duedate=None)))
        )
    assert created["approval"] is None
    assert "approval_url" not in created and "message" not in created
    assert await _claim_status(served) == 200
