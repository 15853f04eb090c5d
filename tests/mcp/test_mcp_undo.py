"""MCP ``batch_undo`` (DESIGN.md 6.4, 7): the plan first (``dry_run`` is the default), then the undo batch with the
same Russian words as the HTTP API; a batch still running is refused the same way."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import cmd

from .mcp_support import Served, batch, claim, load_mirror, tool_error, tool_json

pytestmark = pytest.mark.anyio

KEY = "AURORA-1533"


async def _report(served: Served, delivery: dict[str, Any], result: dict[str, Any], writes: int) -> None:
    operations = [{"method": "PUT", "path": f"/rest/api/2/issue/{KEY}", "status": 204}] * writes
    report = {"status": "done", "result": result, "jira_calls": 1 + writes, "operations": operations}
    async with served.http() as http:
        response = await http.post(
            f"/agent/commands/{delivery['id']}/report", json=report, headers=served.auth("agent")
        )
    assert response.status_code == 200, response.text


async def test_batch_undo_plans_first_then_creates_the_undo_batch(served: Served) -> None:
    """batch_undo answers the plan and stores nothing; with dry_run false it creates «Откат пакета N: …» whose
    ensure_fields puts the due date back only while Jira holds the one the batch set; a batch still queued is
    refused with the API's words."""
    async with served.mcp() as client:
        await load_mirror(served, client, [{"key": KEY, "duedate": "2026-10-30"}])
        created = tool_json(
            await client.call_tool("batch_create", batch(cmd("ensure_fields", key=KEY, duedate="2026-10-30")))
        )
        undo = {
            "changed": {"duedate": {"from": "2026-10-23", "to": "2026-10-30"}},
            "labels": {"added": [], "removed": []},
        }
        await _report(served, await claim(served), {"changed": ["duedate"], "undo": undo}, 1)
        await _report(served, await claim(served), {"issues": 1, "neighbours": 0}, 0)
        queued = tool_json(await client.call_tool("batch_create", batch(cmd("ensure_fields", key=KEY, duedate=None))))
        running = await client.call_tool("batch_undo", {"batch_id": queued["id"]})
        before = await served.count()
        plan = tool_json(await client.call_tool("batch_undo", {"batch_id": created["id"]}))
        assert await served.count() == before
        made = tool_json(await client.call_tool("batch_undo", {"batch_id": created["id"], "dry_run": False}))
    assert (plan["dry_run"], plan["batch"], plan["title"]) == (True, None, f"Откат пакета {created['id']}: план")
    assert [(i["type"], i["outcome"], i["commands"]) for i in plan["items"]] == [("ensure_fields", "undone", [1])]
    assert [line["text"] for line in plan["plan"]["commands"][0]["lines"]] == ["срок: 30.10 → 23.10"]
    assert made["batch"]["undo_of"] == created["id"]
    assert made["batch"]["commands"][0]["params"] == {
        "key": KEY,
        "duedate": "2026-10-23",
        "if_unchanged": {"duedate": "2026-10-30"},
    }
    assert (
        tool_error(running) == f"пакет {queued['id']} ещё выполняется — дождитесь его или отмените, затем откатывайте"
    )
