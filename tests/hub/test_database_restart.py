"""The hub while its PostgreSQL restarts: 503 with ``Retry-After`` (never 500), serving again once the database is
back, and the LISTEN connection made again so that a batch on one hub wakes a claim waiting on another.

Each test stops and starts a private PostgreSQL server of its own (``tests/pg_cluster.py``), never the shared one.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import attrs
import httpx
import pytest

from adapters.files import FileStore
from adapters.storage.database import Database
from adapters.storage.engine import make_engine, migrate
from hub_app.app import create_app
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import Hub
from tests.pg_cluster import Cluster, private_cluster
from tests.support import cmd

pytestmark = pytest.mark.anyio

BATCH = {"author": "planner", "title": "план", "commands": [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")]}


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    with private_cluster() as made:
        yield made


async def _hub(cluster: Cluster, files: Path) -> Hub:
    engine = make_engine(cluster.url)
    await migrate(engine)
    return Hub(database=Database(engine), files=FileStore(files))


@attrs.frozen
class Served:
    hub: Hub
    client: httpx.AsyncClient


@pytest.fixture
async def hubs(cluster: Cluster, tmp_path: Path) -> AsyncIterator[tuple[Served, Served]]:
    """Two listening hubs on the private server, each with its app (made here: Litestar configures logging
    when an app is built, which must happen before caplog starts capturing the test)."""
    served = []
    for name in ("a", "b"):
        hub = await _hub(cluster, tmp_path / name)
        await hub.start_listening()
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(hub)), base_url="http://hub.test")
        served.append(Served(hub=hub, client=client))
    try:
        yield served[0], served[1]
    finally:
        for each in served:
            await each.client.aclose()
            await each.hub.close()


async def _tokens(hub: Hub) -> dict[str, str]:
    tokens = {}
    async with hub.unit() as unit:
        for role in ("agent", "interface"):
            tokens[role] = (await admin.add_token(unit, TokenIn(name=f"{role}-token", role=role))).secret
    return tokens


def _auth(tokens: dict[str, str], role: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens[role]}"}


async def test_an_outage_answers_503_with_retry_after_and_serving_resumes(
    hubs: tuple[Served, Served], cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    """Database stopped: reads, claims and /readyz answer 503 «база данных не отвечает» with Retry-After 2, logged
    as warnings without traceback; started again: the same requests answer 200 with no restart of the hub."""
    served, _ = hubs
    tokens = await _tokens(served.hub)
    client = served.client
    assert (await client.get("/batches", headers=_auth(tokens, "interface"))).status_code == 200
    await anyio.to_thread.run_sync(cluster.stop)
    caplog.clear()
    answers = [
        await client.get("/batches", headers=_auth(tokens, "interface")),
        await client.post("/agent/claim", json={"agent_id": "a", "wait": 0}, headers=_auth(tokens, "agent")),
        await client.get("/readyz"),
        await client.head("/readyz"),
    ]
    assert [(a.status_code, a.headers.get("retry-after")) for a in answers] == [(503, "2")] * 4
    assert [a.json() for a in answers[:3]] == [{"status_code": 503, "detail": "база данных не отвечает"}] * 3
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert any(r.getMessage() == "database_unavailable" for r in caplog.records)
    assert all(r.exc_info is None for r in caplog.records if r.getMessage() == "database_unavailable")
    await anyio.to_thread.run_sync(cluster.start)
    assert (await client.get("/batches", headers=_auth(tokens, "interface"))).status_code == 200
    assert (await client.get("/readyz")).status_code == 200


async def _until_listening_again(caplog: pytest.LogCaptureFixture, hubs: int) -> None:
    with anyio.fail_after(30):
        while sum(r.getMessage() == "listen_restored" for r in caplog.records) < hubs:  # noqa: ASYNC110
            await anyio.sleep(0.02)


async def test_after_a_restart_a_batch_on_one_hub_wakes_a_claim_on_the_other(
    hubs: tuple[Served, Served], cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    """PostgreSQL restarted under two listening hubs: both LISTEN again, and a batch created on the first wakes a
    claim waiting on the second at once (well before its 5 s re-poll: under 2 s, a generous bound)."""
    caplog.set_level(logging.INFO, logger="adapters.storage.database")
    first, second = hubs
    tokens = await _tokens(first.hub)
    one, other = first.client, second.client
    await anyio.to_thread.run_sync(cluster.restart)
    await _until_listening_again(caplog, hubs=2)
    result: dict[str, float | int] = {}

    async def claim() -> None:
        body = {"agent_id": "a", "version": "1", "wait": 20}
        response = await other.post("/agent/claim", json=body, headers=_auth(tokens, "agent"))
        result["status"], result["answered"] = response.status_code, anyio.current_time()

    async def looked_once() -> bool:
        """The claim's first look has committed (the hub knows the agent): only a wake-up can answer it before
        its re-poll now."""
        status = await one.get("/agent-status", headers=_auth(tokens, "interface"))
        return bool(status.json().get("agent_id") == "a")

    async with anyio.create_task_group() as tg:
        tg.start_soon(claim)
        with anyio.fail_after(10):
            while not await looked_once():  # noqa: ASYNC110
                await anyio.sleep(0.01)
        assert (await one.post("/batches", json=BATCH, headers=_auth(tokens, "interface"))).status_code == 201
        created = anyio.current_time()
    assert result["status"] == 200
    assert result["answered"] - created < 2
