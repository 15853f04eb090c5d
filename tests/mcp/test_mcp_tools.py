"""The other MCP tools (status, cancel, retry, the mirror, notes, refresh) and the endpoint's auth."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from litestar import Litestar
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from sqlalchemy import text

from hub_app.bodies.admin import ProjectIn
from hub_app.mcp.endpoint import McpPlugin
from hub_app.operations import admin, batches
from hub_app.runtime.roles import Caller, Role
from tests.support import cmd

from .mcp_support import Served, batch, claim, load_mirror, serving, tool_error, tool_json

pytestmark = pytest.mark.anyio


TWO_FIELDS = batch(
    cmd("ensure_fields", key="AURORA-1533", duedate="2026-10-23"),
    cmd("ensure_comment", key="AURORA-1533", marker="[план]", body="срок сдвинут"),
)

# --- auth ---------------------------------------------------------------------------------------------------

TOOLS_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "batch_create", "arguments": TWO_FIELDS},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
NO_TOKEN = "нужен заголовок Authorization: Bearer <токен>"
UNKNOWN_TOKEN = "токен неизвестен или отозван"
AGENT_REFUSED = "роли agent это не разрешено; нужна interface или admin"


@pytest.mark.parametrize(
    ("authorization", "status", "detail"),
    [
        (None, 401, NO_TOKEN),
        ("Basic cGxhbm5lcjp4", 401, NO_TOKEN),
        ("Bearer not-a-token", 401, UNKNOWN_TOKEN),
        ("agent", 403, AGENT_REFUSED),
    ],
    ids=["no token", "not bearer", "wrong token", "agent token"],
)
async def test_call_without_interface_token_is_refused(
    served: Served, authorization: str | None, status: int, detail: str
) -> None:
    """A tools/call without a valid interface or admin token answers 401/403 in the API's shape, writes nothing."""
    headers = dict(MCP_HEADERS)
    if authorization == "agent":
        headers.update(served.auth("agent"))
    elif authorization is not None:
        headers["Authorization"] = authorization
    async with served.http() as http:
        response = await http.post("/mcp", json=TOOLS_CALL, headers=headers)
    assert response.status_code == status
    assert response.json() == {"status_code": status, "detail": detail}
    assert await served.count() == (0, 0)


async def test_revoked_token_is_refused(served: Served) -> None:
    """A revoked interface token no longer opens MCP."""
    async with served.hub.unit() as unit:
        await admin.revoke_token(unit, "planner")
    async with served.http() as http:
        response = await http.post("/mcp", json=TOOLS_CALL, headers={**MCP_HEADERS, **served.auth("interface")})
    assert (response.status_code, response.json()["detail"]) == (401, UNKNOWN_TOKEN)


@pytest.mark.parametrize("role", [None, "wrong", "agent"])
async def test_official_client_cannot_connect_without_interface_token(served: Served, role: str | None) -> None:
    """The official client fails to connect with no, a wrong or an agent token; every answer was 401/403."""
    headers = {} if role is None else {"Authorization": "Bearer nope"} if role == "wrong" else served.auth(role)
    statuses: list[int] = []

    async def record(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    with pytest.raises(ExceptionGroup) as failure:
        async with (
            httpx2.AsyncClient(headers=headers, event_hooks={"response": [record]}) as http,
            Client(streamable_http_client(served.mcp_url, http_client=http)) as client,
        ):
            await client.list_tools()
    assert failure.group_contains(MCPError, depth=2)
    assert statuses
    assert set(statuses) == ({403} if role == "agent" else {401})


async def test_legacy_handshake_clients_are_served(served: Served) -> None:
    """A client on the initialize handshake (pre-2026 protocol) lists the tools and creates a batch too."""
    async with (
        httpx2.AsyncClient(headers=served.auth("interface")) as http,
        Client(streamable_http_client(served.mcp_url, http_client=http), mode="legacy") as client,
    ):
        names = [tool.name for tool in (await client.list_tools()).tools]
        created = tool_json(await client.call_tool("batch_create", TWO_FIELDS))
    assert names[0] == "batch_create"
    assert created["author"] == "claude"


# --- batch_status, batch_cancel, command_retry ----------------------------------------------------------------


async def test_batch_status_errors(served: Served) -> None:
    """batch_status of an unknown batch, or with a batch_id that is not an integer, is a tool error."""
    async with served.mcp() as client:
        missing = await client.call_tool("batch_status", {"batch_id": 999})
        wrong = await client.call_tool("batch_status", {"batch_id": "1"})
        extra = await client.call_tool("batch_status", {"batch_id": 1, "verbose": True})
    assert tool_error(missing) == "пакета 999 нет"
    assert tool_error(wrong) == "batch_id — ожидается целое число"
    assert tool_error(extra) == "лишние поля verbose; ожидаются batch_id; необязательные wait_seconds"


async def test_batch_cancel_leaves_the_claimed_command_unless_forced(served: Served) -> None:
    """batch_cancel cancels queued commands; the claimed one only with force: true."""
    async with served.mcp() as client:
        created = tool_json(await client.call_tool("batch_create", TWO_FIELDS))
        await claim(served)
        soft = tool_json(await client.call_tool("batch_cancel", {"batch_id": created["id"]}))
        forced = tool_json(await client.call_tool("batch_cancel", {"batch_id": created["id"], "force": True}))
    assert [c["status"] for c in soft["commands"]] == ["claimed", "cancelled", "cancelled"]
    assert [c["status"] for c in forced["commands"]] == ["cancelled", "cancelled", "cancelled"]


async def test_command_retry_makes_a_new_batch(served: Served) -> None:
    """command_retry of a cancelled command: a new batch with its params, the tail refresh and this token."""
    async with served.mcp() as client:
        created = tool_json(await client.call_tool("batch_create", TWO_FIELDS))
        comment = created["commands"][1]
        queued = await client.call_tool("command_retry", {"command_id": comment["id"]})
        tool_json(await client.call_tool("batch_cancel", {"batch_id": created["id"]}))
        retried = tool_json(await client.call_tool("command_retry", {"command_id": comment["id"]}))
        status = tool_json(await client.call_tool("batch_status", {"batch_id": retried["id"]}))
    assert tool_error(queued) == (
        f"команда {comment['id']} в статусе queued — повтор только после failed, skipped, cancelled"
    )
    assert [(c["type"], c["params"]) for c in retried["commands"]] == [
        ("ensure_comment", comment["params"]),
        ("refresh", {"keys": ["AURORA-1533"]}),
    ]
    assert status["commands"][0]["retry_of"] == comment["id"]
    assert (status["author"], status["token_name"]) == ("claude", "planner")


# --- the mirror, notes, refresh -------------------------------------------------------------------------------

# Jira shows a link on both of its issues; the mirror replaces an issue's links with what its record shows.
LINK = {"id": "10007", "type": "Блокирует начало", "source": "AURORA-1537", "target": "AURORA-1538"}
ISSUES = [
    {"key": "AURORA-1537", "summary": "Загрузка ОСВ", "status": "Разработка", "labels": ["AWPCA"], "links": [LINK]},
    {
        "key": "AURORA-1538",
        "summary": "Сверка",
        "status": "Ожидание разработки",
        "labels": ["AWPCA"],
        "links": [LINK],
    },
    {"key": "AURORA-1", "summary": "Остатки", "labels": ["STOCKS_DRRK"]},
]
JOURNAL = [
    {
        "key": "AURORA-1538",
        "id": "5001",
        "created": "2026-10-22T09:30:00Z",
        "author": "ivanov",
        "items": [
            {"field": "status", "from": "1", "from_string": "Новая", "to": "3", "to_string": "Ожидание разработки"}
        ],
    }
]


async def test_issues_list_is_the_project_slice(served: Served) -> None:
    """issues_list answers the project's slice of the mirror with links; an unknown project is a tool error."""
    async with served.hub.unit() as unit:
        await admin.create_project(unit, ProjectIn(name="AWPCA"))
    async with served.mcp() as client:
        await load_mirror(served, client, ISSUES)
        page = tool_json(await client.call_tool("issues_list", {"project": "AWPCA"}))
        second = tool_json(await client.call_tool("issues_list", {"project": "AWPCA", "limit": 1, "offset": 1}))
        unknown = await client.call_tool("issues_list", {"project": "NOPE"})
    assert page["total"] == 2
    assert [(i["key"], i["summary"]) for i in page["items"]] == [
        ("AURORA-1537", "Загрузка ОСВ"),
        ("AURORA-1538", "Сверка"),
    ]
    assert page["items"][0]["links"] == [LINK]
    assert ([i["key"] for i in second["items"]], second["total"]) == (["AURORA-1538"], 2)
    assert tool_error(unknown) == "нет проекта NOPE"


async def test_issue_get_has_links_notes_and_journal(served: Served) -> None:
    """issue_get answers the issue with its links, its notes (note_add) and its journal."""
    async with served.mcp() as client:
        await load_mirror(served, client, ISSUES, JOURNAL)
        by_token = tool_json(await client.call_tool("note_add", {"key": "AURORA-1538", "text": "ждёт ОСВ"}))
        by_author = await client.call_tool("note_add", {"key": "AURORA-1538", "text": "срок", "author": "root"})
        issue = tool_json(await client.call_tool("issue_get", {"key": "AURORA-1538"}))
        missing = await client.call_tool("issue_get", {"key": "AURORA-9"})
    assert (issue["key"], issue["status"], issue["labels"]) == ("AURORA-1538", "Ожидание разработки", ["AWPCA"])
    assert [link["id"] for link in issue["links"]] == ["10007"]
    assert [(n["id"], n["author"], n["text"]) for n in issue["notes"]] == [(by_token["id"], "planner", "ждёт ОСВ")]
    assert tool_error(by_author) == "лишние поля author; ожидаются key, text"
    assert issue["journal"]["total"] == 1
    entry = issue["journal"]["items"][0]
    assert (entry["id"], entry["author"], entry["items"][0]["to_string"]) == ("5001", "ivanov", "Ожидание разработки")
    assert tool_error(missing) == "задачи AURORA-9 нет в зеркале"


async def test_note_add_refuses_a_temp_key_and_writes_nothing(served: Served) -> None:
    """note_add on new:<n> is a tool error (notes of new issues go with their batch); nothing is stored."""
    async with served.mcp() as client:
        result = await client.call_tool("note_add", {"key": "new:1", "text": "потом"})
        empty = await client.call_tool("note_add", {"key": "AURORA-1", "text": "   "})
    assert tool_error(result) == "key — ожидается ключ задачи Jira (AURORA-1538); new:<n> — только в пакете"
    assert tool_error(empty) == "text — ожидается непустая строка"
    assert await served.count() == (0, 0)


async def test_refresh_tool(served: Served) -> None:
    """refresh by keys makes a refresh-only batch; both keys and jql, or a full one without projects, are refused."""
    async with served.mcp() as client:
        both = await client.call_tool("refresh", {"keys": ["AURORA-1"], "jql": "project = AURORA"})
        full = await client.call_tool("refresh", {})
        assert await served.count() == (0, 0)
        created = tool_json(await client.call_tool("refresh", {"keys": ["AURORA-1", "AURORA-2"]}))
        status = tool_json(await client.call_tool("batch_status", {"batch_id": created["id"]}))
    assert tool_error(both) == "только одно из keys, jql"
    assert tool_error(full) == "нет проектов — полное обновление невозможно"
    assert [(c["type"], c["params"]) for c in created["commands"]] == [("refresh", {"keys": ["AURORA-1", "AURORA-2"]})]
    assert (status["token_name"], status["author"]) == ("planner", "planner")


# --- wiring and failures ----------------------------------------------------------------------------------------


async def test_plugin_mounts_the_endpoint_and_runs_its_lifespan(served: Served) -> None:
    """Litestar(plugins=[McpPlugin()]) serves MCP at /mcp with the token an app guard leaves in the state."""

    async def trusting_guard(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
        connection.state.caller = Caller(name="script", role=Role.INTERFACE)

    app = Litestar(plugins=[McpPlugin()], guards=[trusting_guard])
    app.state.hub = served.hub
    async with (
        serving(app) as base_url,
        httpx2.AsyncClient() as http,
        Client(streamable_http_client(base_url + "/mcp", http_client=http)) as client,
    ):
        created = tool_json(await client.call_tool("batch_create", TWO_FIELDS))
    async with served.hub.unit() as unit:
        stored = await batches.get_batch(unit, created["id"])
    assert stored.token_name == "script"


async def test_endpoint_without_the_hub_guard_refuses_everything(served: Served) -> None:
    """Mounted without a guard that authenticates, the endpoint answers 401 to every call: it fails closed."""
    app = Litestar(plugins=[McpPlugin()])
    app.state.hub = served.hub
    async with serving(app) as base_url, httpx2.AsyncClient() as http:
        response = await http.post(
            base_url + "/mcp", json=TOOLS_CALL, headers={**MCP_HEADERS, **served.auth("interface")}
        )
    assert (response.status_code, response.json()) == (401, {"status_code": 401, "detail": NO_TOKEN})
    assert await served.count() == (0, 0)


async def test_a_failure_of_the_hub_is_a_tool_error(served: Served, caplog: pytest.LogCaptureFixture) -> None:
    """A database failure inside a tool is logged and answered as «внутренняя ошибка хаба», as HTTP's 500."""
    async with served.hub.database.engine.begin() as conn:
        await conn.execute(text("DROP TABLE mirror_issue"))
    async with served.mcp() as client:
        result = await client.call_tool("issue_get", {"key": "AURORA-1"})
    assert tool_error(result) == "внутренняя ошибка хаба"
    assert [r.getMessage() for r in caplog.records if r.name == "hub_app.mcp.server"] == ["MCP tool issue_get failed"]
