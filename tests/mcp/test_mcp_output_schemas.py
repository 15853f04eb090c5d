"""Every MCP tool declares an ``outputSchema`` built from the API's answer types, and its answers validate."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from hub_app.answers.batches import BatchDetail
from hub_app.answers.schema import answer_schema
from hub_app.bodies.admin import ProjectIn
from hub_app.mcp.tools import tools
from hub_app.operations import admin
from tests.support import cmd

from .mcp_support import Served, batch, claim, load_mirror, tool_json

pytestmark = pytest.mark.anyio

LINKED = {
    "key": "AURORA-1",
    "summary": "Сверка",
    "status": "Разработка",
    "labels": ["AWPCA"],
    "sprint": {"id": 7, "name": "Спринт 2", "state": "active"},
    "links": [{"id": "10007", "type": "Связанные", "source": "AURORA-1", "target": "AURORA-2"}],
}
JOURNAL = [
    {
        "key": "AURORA-1",
        "id": "7001",
        "created": "2026-10-22T10:00:00Z",
        "author": "petrova",
        "items": [{"field": "status", "from": "3", "from_string": "Готово", "to": "1", "to_string": "Разработка"}],
    }
]


async def test_every_tool_declares_an_object_schema(served: Served) -> None:
    """tools/list gives each tool an outputSchema: a valid JSON Schema 2020-12 object, the one its answer type
    makes (the status tool's is BatchDetail's, as GET /batches/{id} documents it)."""
    async with served.mcp() as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(listed) == {tool.name for tool in tools()}
    for name, tool in listed.items():
        assert tool.output_schema is not None, name
        assert tool.output_schema["type"] == "object", name
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
    assert listed["batch_status"].output_schema == answer_schema(BatchDetail)


async def test_every_tools_answer_validates_against_its_schema(served: Served) -> None:
    """One call of each tool on a hub with a project, a mirror (links, sprint, journal), a batch waiting for
    approval and a failed command: every structuredContent is valid against the tool's outputSchema."""
    async with served.hub.unit() as unit:
        await admin.create_project(unit, ProjectIn(name="AWPCA", board_id=4216, board_type="scrum"))
    answers: dict[str, Any] = {}
    async with served.mcp() as client:
        schemas = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
        await load_mirror(served, client, [LINKED], JOURNAL)

        async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            answers[name] = tool_json(await client.call_tool(name, args))
            return answers[name]

        plan = batch(cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"), project="AWPCA")
        await call("batch_plan", plan)
        created = await call("batch_create", {**plan, "idempotency_key": "k"})
        answers["batch_create (replayed)"] = tool_json(
            await client.call_tool("batch_create", {**plan, "idempotency_key": "k"})
        )
        delivered = await claim(served)
        async with served.http() as http:
            failed = {"status": "failed", "result": {}, "error": "HTTP 400", "jira_calls": 1, "operations": []}
            await http.post(f"/agent/commands/{delivered['id']}/report", json=failed, headers=served.auth("agent"))
        await call("batch_status", {"batch_id": created["id"]})
        await call("command_retry", {"command_id": delivered["id"]})
        await call("batch_cancel", {"batch_id": created["id"], "force": True})
        again = await claim(served)  # the retry's command: done, with what its write replaced
        undo = {
            "changed": {"duedate": {"from": "2026-10-01", "to": "2026-10-23"}},
            "labels": {"added": [], "removed": []},
        }
        done = {
            "status": "done",
            "result": {"changed": ["duedate"], "undo": undo},
            "jira_calls": 2,
            "operations": [{"method": "PUT", "path": "/rest/api/2/issue/AURORA-1", "status": 204}],
        }
        async with served.http() as http:
            await http.post(f"/agent/commands/{again['id']}/report", json=done, headers=served.auth("agent"))
            retried = answers["command_retry"]["id"]
            await http.post(f"/batches/{retried}/cancel", json={}, headers=served.auth("interface"))
        await call("batch_undo", {"batch_id": retried, "dry_run": True})
        await call("issues_list", {"project": "AWPCA"})
        await call("issue_get", {"key": "AURORA-1"})
        await call("drift_list", {"project": "AWPCA"})
        await call("note_add", {"key": "AURORA-1", "text": "заметка"})
        await call("refresh", {})
    assert answers["batch_create (replayed)"]["replayed"] is True
    assert answers["issue_get"]["journal"]["total"] == 1
    assert {name.split(" ")[0] for name in answers} == set(schemas)
    for name, answer in answers.items():
        jsonschema.Draft202012Validator(schemas[name.split(" ")[0]]).validate(answer)


async def test_an_answer_of_another_shape_is_invalid(served: Served) -> None:
    """The schema is strict where it must be: a batch without its commands, or with a status that is a number,
    does not validate."""
    async with served.mcp() as client:
        created = tool_json(await client.call_tool("batch_create", batch(cmd("refresh", keys=["AURORA-1"]))))
        schema = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}["batch_create"]
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid(created)
    assert not validator.is_valid({key: value for key, value in created.items() if key != "commands"})
    broken = {**created, "commands": [{**created["commands"][0], "status": 3}]}
    assert not validator.is_valid(broken)
