"""Helpers of the MCP tests: the served hub, MCP and HTTP clients, tool answers, the agent's side."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import anyio
import attrs
import httpx
import httpx2
import uvicorn
from litestar import Litestar
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from hub_app.app import create_app
from hub_app.bodies.admin import TokenIn
from hub_app.mcp.endpoint import MCP_PATH, McpEndpoint
from hub_app.operations import admin, batches, mirror
from hub_app.runtime.hub import Hub
from hub_app.runtime.public_url import PublicUrl


def batch(*commands: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A batch body as the assistant writes it."""
    return {"author": "claude", "title": "план", "commands": list(commands), **extra}


TOKEN_NAMES = {"interface": "planner", "admin": "boss", "agent": "bank-agent"}


def _mounts_mcp(app: Litestar) -> bool:
    return any(route.path == MCP_PATH for route in app.routes)


def hub_app_with_mcp(hub: Hub, public_url: str | None = None) -> tuple[Litestar, McpEndpoint | None]:
    """The hub's app with the MCP endpoint; the endpoint is returned when its lifespan is the caller's to run.

    Once ``create_app`` wires :class:`~hub_app.mcp.endpoint.McpPlugin` itself, its app is served as it is.
    """
    url = PublicUrl.of(public_url) if public_url is not None else None
    app = create_app(hub, public_url=url)
    if _mounts_mcp(app):
        return app, None
    endpoint = McpEndpoint(public_url=url)
    return create_app(hub, extra_route_handlers=[endpoint.route_handler], public_url=url), endpoint


def _listening() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    # Listening before uvicorn starts: early connections wait in the backlog until the app is up.
    sock.listen(16)
    return sock


@contextlib.asynccontextmanager
async def serving(
    app: Litestar, endpoint: McpEndpoint | None = None, *, sock: socket.socket | None = None
) -> AsyncIterator[str]:
    """Serve ``app`` with uvicorn on a free port of 127.0.0.1 (or on ``sock``), running ``endpoint``'s lifespan;
    its base URL."""
    sock = sock or _listening()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning"))
    try:
        async with contextlib.AsyncExitStack() as stack:
            if endpoint is not None:
                await stack.enter_async_context(endpoint.lifespan())
            tg = await stack.enter_async_context(anyio.create_task_group())
            tg.start_soon(server.serve, [sock])
            try:
                yield f"http://127.0.0.1:{port}"
            finally:
                server.should_exit = True
    finally:
        sock.close()


@contextlib.asynccontextmanager
async def serving_hub(hub: Hub) -> AsyncIterator[str]:
    """The hub's app served on a free port of 127.0.0.1 whose address is the hub's public URL; that URL."""
    sock = _listening()
    app, endpoint = hub_app_with_mcp(hub, f"http://127.0.0.1:{sock.getsockname()[1]}")
    async with serving(app, endpoint, sock=sock) as base_url:
        yield base_url


@attrs.frozen(kw_only=True)
class Served:
    """A hub serving HTTP: its base URL, the hub itself and a secret per role."""

    base_url: str
    hub: Hub
    tokens: dict[str, str]

    @property
    def mcp_url(self) -> str:
        return self.base_url + MCP_PATH

    def auth(self, role: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[role]}"}

    @contextlib.asynccontextmanager
    async def mcp(self, role: str = "interface") -> AsyncIterator[Client]:
        """The official MCP client over streamable HTTP, with this role's token."""
        async with (
            httpx2.AsyncClient(headers=self.auth(role), timeout=30) as http,
            Client(streamable_http_client(self.mcp_url, http_client=http)) as client,
        ):
            yield client

    @contextlib.asynccontextmanager
    async def http(self) -> AsyncIterator[httpx.AsyncClient]:
        async with httpx.AsyncClient(base_url=self.base_url, timeout=30) as client:
            yield client

    async def count(self) -> tuple[int, int]:
        """How many batches and notes the hub holds."""
        async with self.hub.unit() as unit:
            listed = await batches.list_batches(unit, limit=0)
            notes = await mirror.list_notes(unit, limit=0)
        return listed.total, notes.total


@contextlib.asynccontextmanager
async def serving_with_tokens(hub: Hub) -> AsyncIterator[Served]:
    """``hub`` served (:func:`serving_hub`) with a token of each role of :data:`TOKEN_NAMES`; closed afterwards."""
    try:
        tokens: dict[str, str] = {}
        async with hub.unit() as unit:
            for role, name in TOKEN_NAMES.items():
                tokens[role] = (await admin.add_token(unit, TokenIn(name=name, role=role))).secret
        async with serving_hub(hub) as base_url:
            yield Served(base_url=base_url, hub=hub, tokens=tokens)
    finally:
        await hub.close()


def tool_json(result: Any) -> Any:
    """The JSON a successful tool call answered (its text content; the structured content is the same)."""
    assert result.is_error is False, result.content[0].text
    value = json.loads(result.content[0].text)
    assert result.structured_content == value
    return value


def tool_error(result: Any, *, batch: bool = False) -> str:
    """The message of a tool error, its only text; a batch refused by its validation (``batch``) has a second, the
    API's ``errors``: here the one error found, ``{command, param?, message}`` with the message the first text."""
    assert result.is_error is True, result.content[0].text
    text: str = result.content[0].text
    if not batch:
        assert len(result.content) == 1, result.content
        return text
    _, second = result.content
    [error] = json.loads(second.text)["errors"]
    assert error["message"] == text
    assert set(error) - {"param"} == {"command", "message"}, error
    return text


# --- the agent's side, over the hub's HTTP API ------------------------------------------------------------


async def claim(served: Served) -> dict[str, Any]:
    """``POST /agent/claim`` with the agent token; the delivery it answered."""
    async with served.http() as http:
        response = await http.post(
            "/agent/claim", json={"agent_id": "agent-1", "version": "1.0", "wait": 0}, headers=served.auth("agent")
        )
    assert response.status_code == 200, response.text
    delivery: dict[str, Any] = response.json()
    return delivery


async def load_mirror(
    served: Served, client: Client, issues: list[dict[str, Any]], history: list[dict[str, Any]] | None = None
) -> None:
    """Put ``issues`` (and journal entries) into the mirror as the agent would: a ``refresh`` tool call,
    claimed, paged, reported."""
    created = tool_json(await client.call_tool("refresh", {"keys": [issue["key"] for issue in issues]}))
    delivery = await claim(served)
    assert delivery["id"] == created["commands"][0]["id"]
    async with served.http() as http:
        page = {"page": 1, "kind": "issues", "issues": issues, "history": history or []}
        response = await http.post(f"/agent/commands/{delivery['id']}/pages", json=page, headers=served.auth("agent"))
        assert response.status_code == 200, response.text
        report = {"status": "done", "result": {"issues": len(issues), "neighbours": 0}, "jira_calls": 1}
        response = await http.post(
            f"/agent/commands/{delivery['id']}/report", json=report, headers=served.auth("agent")
        )
        assert response.status_code == 200, response.text


async def upload(served: Served, content: bytes, filename: str) -> str:
    """``POST /files`` with the interface token; the file's sha256."""
    async with served.http() as http:
        response = await http.post(
            "/files", params={"filename": filename}, content=content, headers=served.auth("interface")
        )
    assert response.status_code == 201, response.text
    sha: str = response.json()["sha256"]
    return sha
