"""Fixtures of the hub's API tests: a hub on each database, a settable clock, tokens and clients."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
from litestar import Litestar

from adapters.files import FileStore
from adapters.storage.database import Database
from adapters.storage.engine import is_postgres, make_engine, truncate_all
from hub_app.app import create_app
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import Hub
from tests.support import T0


@attrs.define
class Clock:
    """The hub's injectable ``now``: tests move it explicitly."""

    current: datetime = T0

    def __call__(self) -> datetime:
        return self.current

    def advance(self, **kwargs: float) -> datetime:
        self.current += timedelta(**kwargs)
        return self.current


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def hub(hub_url: str, tmp_path: Path, clock: Clock) -> AsyncIterator[Hub]:
    engine = make_engine(hub_url)
    if is_postgres(engine):
        await truncate_all(engine)
    hub = Hub(database=Database(engine), files=FileStore(tmp_path / "files"), now=clock)
    try:
        yield hub
    finally:
        await hub.close()


@attrs.define
class Api:
    """An HTTP client of the hub with one token per role."""

    client: httpx.AsyncClient
    tokens: dict[str, str]

    def auth(self, role: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[role]}"}

    async def post(self, path: str, json: Any = None, role: str = "interface", **kw: Any) -> Any:
        return await self.client.post(path, json=json, headers=self.auth(role), **kw)

    async def get(self, path: str, role: str = "interface", **kw: Any) -> Any:
        return await self.client.get(path, headers=self.auth(role), **kw)

    async def patch(self, path: str, json: Any = None, role: str = "admin", **kw: Any) -> Any:
        return await self.client.patch(path, json=json, headers=self.auth(role), **kw)

    async def delete(self, path: str, role: str = "admin", **kw: Any) -> Any:
        return await self.client.delete(path, headers=self.auth(role), **kw)

    async def claim(self, agent_id: str = "agent-1", **extra: Any) -> Any:
        body = {"agent_id": agent_id, "version": "1.0", "wait": 0, **extra}
        return await self.post("/agent/claim", body, role="agent")

    async def report(self, command_id: int, body: dict[str, Any]) -> Any:
        return await self.post(f"/agent/commands/{command_id}/report", body, role="agent")

    async def pages(self, command_id: int, body: dict[str, Any]) -> Any:
        return await self.post(f"/agent/commands/{command_id}/pages", body, role="agent")


_APPS: list[Litestar] = []


def app_of(hub: Hub) -> Litestar:
    """The hub's app, built once a worker (a tenth of a second of CPU) and given ``hub``: it holds no state of a
    test but ``state.hub`` (the MCP manager runs only in a lifespan, which an ASGI transport does not run; sessions
    and drafts are the hub's database's). The ``api`` fixture and the web page's ``browser`` share it."""
    if not _APPS:
        _APPS.append(create_app(hub))
    _APPS[0].state.hub = hub
    return _APPS[0]


@pytest.fixture
async def api(hub: Hub) -> AsyncIterator[Api]:
    tokens = {}
    async with hub.unit() as unit:
        for role in ("agent", "interface", "admin"):
            created = await admin.add_token(unit, TokenIn(name=f"{role}-token", role=role))
            tokens[role] = created.secret
    app = app_of(hub)
    await hub.start_listening()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://hub.test") as client:
        yield Api(client=client, tokens=tokens)
