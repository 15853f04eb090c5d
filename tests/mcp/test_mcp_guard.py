"""The bank's guard over MCP, through the official client, on SQLite and PostgreSQL: the hub's scope (keys and
JQL inside jira_project), approval that follows the token whatever door it uses (the issue's attack: cancel over
MCP, retry over HTTP)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adapters.files import FileStore
from adapters.storage.database import Database
from adapters.storage.engine import make_engine, truncate_all
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import Hub
from tests.hub.support import FIELDS, PENDING, decision
from tests.support import cmd

from .mcp_support import Served, batch, claim, serving_with_tokens, tool_error, tool_json

pytestmark = pytest.mark.anyio


@pytest.fixture
async def served(migrated_url: str, tmp_path: Path) -> AsyncIterator[Served]:
    """The served hub of tests/mcp, on each database."""
    engine = make_engine(migrated_url)
    await truncate_all(engine)
    hub = Hub(database=Database(engine), files=FileStore(tmp_path / "files"))
    async with serving_with_tokens(hub) as served:
        yield served


async def _approval(served: Served, **doors: bool) -> None:
    async with served.hub.unit() as unit:
        await admin.patch_settings(unit, {"approval": doors})


async def _assistant(served: Served) -> None:
    """An interface token added with needs_approval, as the role ``assistant`` of ``served``."""
    async with served.hub.unit() as unit:
        created = await admin.add_token(unit, TokenIn(name="claude", role="interface", needs_approval=True))
    served.tokens["assistant"] = created.secret


async def _post(served: Served, path: str, role: str, body: Any = None) -> Any:
    async with served.http() as http:
        return await http.post(path, json=body if body is not None else {}, headers=served.auth(role))


async def test_keys_and_jql_stay_inside_the_project(served: Served) -> None:
    """batch_create and note_add on HR-1 → the API's 422 as a tool error, nothing written; refresh by JQL is stored
    inside AURORA; a JQL that does not parse is refused."""
    async with served.mcp() as client:
        keys = await client.call_tool("batch_create", batch(cmd("ensure_comment", key="HR-1", marker="m", body="b")))
        note = await client.call_tool("note_add", {"key": "HR-1", "text": "зарплаты"})
        bad = await client.call_tool("refresh", {"jql": "key = AURORA-1) OR (project = HR"})
        assert await served.count() == (0, 0)
        refresh = tool_json(await client.call_tool("refresh", {"jql": "key = HR-1"}))
    assert tool_error(keys, batch=True) == tool_error(note) == "HR-1 не в проекте Jira AURORA"
    assert tool_error(bad, batch=True) == "команда 1 (refresh): JQL не принят: непарная закрывающая скобка (позиция 15)"
    assert refresh["commands"][0]["params"] == {"jql": "project = AURORA AND (key = HR-1)"}
    assert (await claim(served))["params"]["jql"] == "project = AURORA AND (key = HR-1)"


async def test_cancel_over_mcp_then_retry_over_http_still_waits(served: Served) -> None:
    """The issue's attack: approval.mcp on, approval.http off; the assistant's pending batch cancelled over MCP
    and its command retried over HTTP with the same token → pending, nothing issued."""
    await _approval(served, mcp=True, http=False)
    async with served.mcp() as client:
        created = tool_json(await client.call_tool("batch_create", batch(FIELDS)))
        assert decision(created["approval"]) == PENDING
        tool_json(await client.call_tool("batch_cancel", {"batch_id": created["id"]}))
    retried = await _post(served, f"/commands/{created['commands'][0]['id']}/retry", "interface")
    assert (retried.status_code, decision(retried.json()["approval"])) == (201, PENDING)
    async with served.http() as http:
        nothing = await http.post(
            "/agent/claim", json={"agent_id": "agent-1", "version": "1.0", "wait": 0}, headers=served.auth("agent")
        )
    assert nothing.status_code == 204


async def test_a_rejected_batch_retried_waits(served: Served) -> None:
    """Rejected by a person; command_retry over MCP and a retry over HTTP, doors off by then → both pending."""
    await _approval(served, mcp=True)
    async with served.mcp() as client:
        created = tool_json(await client.call_tool("batch_create", batch(FIELDS)))
        assert (await _post(served, f"/batches/{created['id']}/reject", "admin", {"reason": "нет"})).status_code == 200
        await _approval(served, mcp=False)
        command_id = created["commands"][0]["id"]
        over_mcp = tool_json(await client.call_tool("command_retry", {"command_id": command_id}))
    over_http = await _post(served, f"/commands/{command_id}/retry", "admin")
    assert decision(over_mcp["approval"]) == decision(over_http.json()["approval"]) == PENDING
    assert over_mcp["approval_url"] == f"{served.base_url}/batches/{over_mcp['id']}"


async def test_a_token_that_needs_approval_waits_over_mcp(served: Served) -> None:
    """The token's batch_create waits with approval.mcp off and says so with the batch's page; its refresh does
    not wait (it only reads Jira)."""
    await _assistant(served)
    async with served.mcp("assistant") as client:
        created = tool_json(await client.call_tool("batch_create", batch(FIELDS)))
        refresh = tool_json(await client.call_tool("refresh", {"keys": ["AURORA-1"]}))
        status = tool_json(await client.call_tool("batch_status", {"batch_id": created["id"]}))
    assert (status["token_name"], status["door"], decision(created["approval"])) == ("claude", "mcp", PENDING)
    assert created["approval_url"] == f"{served.base_url}/batches/{created['id']}"
    assert refresh["approval"] is None
    shown = {"plan": created["approval"]["plan"]["digest"]}
    approve = await _post(served, f"/batches/{created['id']}/approve", "assistant", shown)
    assert approve.json()["detail"] == "токен claude сам требует одобрения своих пакетов и одобрять пакеты не может"
