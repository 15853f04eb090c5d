"""drift_list over MCP: the same operation and answer as ``GET /drift``."""

from __future__ import annotations

from typing import Any

import pytest

from hub_app.bodies.admin import ProjectIn
from hub_app.operations import admin

from .mcp_support import Served, claim, load_mirror, tool_error, tool_json

pytestmark = pytest.mark.anyio


def issue(key: str, **fields: Any) -> dict[str, Any]:
    return {"key": key, "summary": f"Задача {key}", "status": "Разработка", "labels": ["AWPCA"], **fields}


async def report_done(served: Served, command_id: int) -> None:
    async with served.http() as http:
        body = {"status": "done", "result": {}, "jira_calls": 1, "operations": []}
        response = await http.post(f"/agent/commands/{command_id}/report", json=body, headers=served.auth("agent"))
    assert response.status_code == 200, response.text


async def test_drift_list_answers_what_get_drift_answers(served: Served) -> None:
    """A status changed by hand after the batch: drift_list names it as GET /drift does; a bad project is refused."""
    async with served.hub.unit() as unit:
        await admin.create_project(unit, ProjectIn(name="AWPCA", board_id=4216, board_type="scrum"))
    async with served.mcp() as client:
        await load_mirror(served, client, [issue("AURORA-1"), issue("AURORA-2")])
        batch = {
            "author": "claude",
            "title": "план",
            "project": "AWPCA",
            "commands": [{"type": "ensure_status", "params": {"key": "AURORA-1", "target": "Готово"}}],
        }
        created = tool_json(await client.call_tool("batch_create", batch))
        await report_done(served, (await claim(served))["id"])
        tail = await claim(served)
        await report_done(served, tail["id"])
        journal = [
            {
                "key": "AURORA-1",
                "id": "7001",
                "created": "2026-10-22T10:00:00Z",
                "author": "petrova",
                "items": [
                    {"field": "status", "from": "3", "from_string": "Готово", "to": "1", "to_string": "Разработка"}
                ],
            }
        ]
        await load_mirror(served, client, [issue("AURORA-1"), issue("AURORA-2")], journal)
        listed = tool_json(await client.call_tool("drift_list", {"project": "AWPCA"}))
        unknown = await client.call_tool("drift_list", {"project": "NOPE"})
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    async with served.http() as http:
        answered = (await http.get("/drift", params={"project": "AWPCA"}, headers=served.auth("interface"))).json()
    assert listed == answered
    assert [(i["command_id"], i["aspect"], i["wanted"], i["now"], i["changed_by"]) for i in listed["items"]] == [
        (created["commands"][0]["id"], "status", "Готово", "Разработка", "petrova")
    ]
    assert tool_error(unknown) == "нет проекта NOPE"
    assert tools["drift_list"].input_schema["required"] == []
    assert tools["drift_list"].annotations is not None and tools["drift_list"].annotations.read_only_hint is True
