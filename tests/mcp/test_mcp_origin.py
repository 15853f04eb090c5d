"""``/mcp`` and the hub's public URL (DESIGN.md 7): a foreign ``Origin`` or ``Host`` is refused (403) before the
token is looked at; the approval link is built from the public URL, never from the request's ``Host``."""

from __future__ import annotations

import json
from typing import Any

import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from hub_app.app import create_app
from hub_app.operations import admin
from hub_app.runtime.public_url import PublicUrl

from .mcp_support import Served, serving, tool_json

pytestmark = pytest.mark.anyio

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
FIELDS = {"type": "ensure_fields", "params": {"key": "AURORA-1", "duedate": "2026-10-23"}}
ARGUMENTS = {"author": "claude", "title": "план", "commands": [FIELDS]}
CREATE = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "batch_create", "arguments": ARGUMENTS}}


async def _call(url: str, **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(url, json=CREATE, headers={**MCP_HEADERS, **headers})


def _created(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return json.loads(response.json()["result"]["content"][0]["text"])


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1", "https://127.0.0.1:{port}"])
async def test_a_foreign_origin_is_refused_before_the_token(served: Served, origin: str) -> None:
    """Origin present and not the public URL's origin (another host, scheme or port, «null») → 403 naming both,
    with or without a token; nothing written."""
    port = served.base_url.rsplit(":", 1)[1]
    origin = origin.format(port=port)
    detail = f"Origin {origin} не принят: MCP хаба принимает запросы только со страниц {served.base_url}"
    for auth in (served.auth("interface"), {}):
        response = await _call(served.mcp_url, Origin=origin, **auth)
        assert (response.status_code, response.json()) == (403, {"status_code": 403, "detail": detail})
    assert await served.count() == (0, 0)


async def test_the_hubs_own_origin_or_none_is_served(served: Served) -> None:
    """No Origin (a desktop assistant) or the hub's own origin: the call runs."""
    assert _created(await _call(served.mcp_url, **served.auth("interface")))["id"] == 1
    assert _created(await _call(served.mcp_url, Origin=served.base_url, **served.auth("interface")))["id"] == 2


async def test_a_foreign_host_is_refused_and_loopback_names_pass(served: Served) -> None:
    """Host of another name (DNS rebinding) → 403; on a loopback hub, localhost with any port is the hub too."""
    port = served.base_url.rsplit(":", 1)[1]
    refused = await _call(served.mcp_url, Host=f"rebound.example:{port}", **served.auth("interface"))
    assert refused.json() == {
        "status_code": 403,
        "detail": f"Host rebound.example:{port} не принят: MCP хаба отвечает по адресу {served.base_url}",
    }
    assert _created(await _call(served.mcp_url, Host=f"localhost:{port}", **served.auth("interface")))["id"] == 1
    assert await served.count() == (1, 0)


async def test_the_approval_link_is_the_public_url_whatever_the_host(served: Served) -> None:
    """A hub behind a proxy at https://hub.bank.example/planning, listening on loopback: reached as the proxy
    (Host hub.bank.example, a forwarded host ignored) or as 127.0.0.1, the link is the public URL's; another Host
    is refused."""
    async with served.hub.unit() as unit:
        await admin.patch_settings(unit, {"approval": {"mcp": True}})
    public = PublicUrl.of("https://hub.bank.example/planning/", listen_host="127.0.0.1")
    app = create_app(served.hub, public_url=public)
    async with serving(app) as base_url:
        mcp_url = base_url + "/mcp"
        auth = served.auth("interface")
        proxied = _created(
            await _call(mcp_url, Host="hub.bank.example", **{"X-Forwarded-Host": "evil.example"}, **auth)
        )
        direct = _created(await _call(mcp_url, **auth))
        other = await _call(mcp_url, Host="hub.bank.example:8443", **auth)
    assert proxied["approval_url"] == f"https://hub.bank.example/planning/batches/{proxied['id']}"
    assert direct["approval_url"] == f"https://hub.bank.example/planning/batches/{direct['id']}"
    assert (
        other.json()["detail"]
        == "Host hub.bank.example:8443 не принят: MCP хаба отвечает по адресу https://hub.bank.example"
    )


async def test_the_official_client_works_with_the_public_url(served: Served) -> None:
    """The SDK's client (it sends no Origin) lists and calls tools as before."""
    async with (
        httpx2.AsyncClient(headers=served.auth("interface"), timeout=30) as http,
        Client(streamable_http_client(served.mcp_url, http_client=http)) as client,
    ):
        created = tool_json(await client.call_tool("batch_create", ARGUMENTS))
    assert created["approval"] is None
