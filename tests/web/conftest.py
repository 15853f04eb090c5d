"""Fixtures of the web page's handler tests: the hub's API fixtures (a hub on each database, a clock, tokens)
and people's browser sessions over the hub's app, logged in with a role's token."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest

from hub_app.runtime.hub import Hub
from tests.hub.conftest import Api, Clock, api, app_of, clock, hub  # noqa: F401 — the API's fixtures, shared

from .support import Browser

Open = Callable[[str], Awaitable[Browser]]
#: ``await browser_from("10.0.0.7")``: a browser, not logged in, whose requests come from that client address.
OpenFrom = Callable[[str], Awaitable[Browser]]


@pytest.fixture
async def browser(api: Api, hub: Hub) -> AsyncIterator[Open]:  # noqa: F811 — the fixtures imported above
    """``await browser("interface")``: a browser logged in with that role's token (``""``: not logged in)."""
    app = app_of(hub)  # the api fixture's app, given this test's hub
    clients: list[httpx.AsyncClient] = []

    async def open_as(role: str) -> Browser:
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://hub.test")
        clients.append(client)
        person = Browser(client=client)
        if role:
            response = await person.login(api.tokens[role])
            assert response.status_code == 303, response.text
        return person

    yield open_as
    for client in clients:
        await client.aclose()


@pytest.fixture
async def browser_from(browser: Open, hub: Hub) -> AsyncIterator[OpenFrom]:  # noqa: F811 — the fixture above
    clients: list[httpx.AsyncClient] = []

    async def open_from(address: str) -> Browser:
        transport = httpx.ASGITransport(app=app_of(hub), client=(address, 50000))
        clients.append(httpx.AsyncClient(transport=transport, base_url="http://hub.test"))
        return Browser(client=clients[-1])

    yield open_from
    for client in clients:
        await client.aclose()
