"""The claim's long poll: a new batch wakes a waiting claim at once, in-process and across hub processes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from adapters.files import FileStore
from adapters.storage.database import Database
from adapters.storage.engine import make_engine
from hub_app.operations import batches
from hub_app.runtime.hub import Hub
from reconcile.outlook.approval import Door, Requester
from tests.support import cmd

from .conftest import Api

pytestmark = pytest.mark.anyio

BATCH = {
    "author": "planner",
    "title": "план",
    "commands": [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")],
}


async def _until_waiting(hub: Hub) -> None:
    """Until a claim waits on the hub's wake-up (bounded)."""
    with anyio.fail_after(10):
        # The waiting task has no event of its own to signal that it waits: look at the wake-up's waiters.
        while hub.wakeup.waiting() == 0:  # noqa: ASYNC110
            await anyio.sleep(0.01)


@pytest.fixture
def no_repoll(monkeypatch: pytest.MonkeyPatch) -> None:
    """A waiting claim looks at the queue again only when woken (or at its end): a claim answered with a command
    within its wait was woken, whatever the machine's speed."""
    monkeypatch.setattr("hub_app.runtime.longpoll.REPOLL_SECONDS", 3600.0)


async def _claim_while(api: Api, hub: Hub, create: Any) -> Any:
    result: dict[str, Any] = {}

    async def claim() -> None:
        result["response"] = await api.post("/agent/claim", {"agent_id": "a", "wait": 20}, role="agent")

    async with anyio.create_task_group() as tg:
        tg.start_soon(claim)
        await _until_waiting(hub)
        await create()
    return result["response"]


@pytest.mark.usefixtures("no_repoll")
async def test_new_batch_wakes_waiting_claim(api: Api, hub: Hub) -> None:
    """A claim waiting with wait = 20 gets the command as soon as the batch is created (before the re-poll)."""

    async def create() -> None:
        assert (await api.post("/batches", BATCH)).status_code == 201

    response = await _claim_while(api, hub, create)
    assert response.status_code == 200
    assert response.json()["params"] == {"key": "AURORA-1", "duedate": "2026-10-23"}


async def test_wait_is_capped_by_claim_wait_seconds(api: Api) -> None:
    """wait above claim_wait_seconds is cut to it: an empty queue answers 204 after the setting's 0.2 s, not the
    30 s asked (the guard below only keeps a broken cap from hanging the suite)."""
    await api.patch("/settings", {"claim_wait_seconds": 0.2})
    with anyio.fail_after(25):
        response = await api.post("/agent/claim", {"agent_id": "a", "wait": 30}, role="agent")
    assert response.status_code == 204


@pytest.fixture
async def other_hub(pg_url: str, tmp_path: Path) -> AsyncIterator[Hub]:
    """A second hub (its own engine and wake-up) on the PostgreSQL test database, as another process has."""
    hub = Hub(database=Database(make_engine(pg_url)), files=FileStore(tmp_path / "other"))
    yield hub
    await hub.close()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
@pytest.mark.usefixtures("no_repoll")
async def test_notify_wakes_claim_in_another_hub(api: Api, hub: Hub, other_hub: Hub) -> None:
    """On PostgreSQL a batch created by another hub process wakes this one's claim through LISTEN/NOTIFY."""

    async def create() -> None:
        async with other_hub.unit() as unit:
            await batches.create_batch(unit, BATCH, requester=Requester(door=Door.HTTP, token_name="other"))

    response = await _claim_while(api, hub, create)
    assert response.status_code == 200


async def test_a_new_poll_of_the_same_instance_ends_the_previous_one(api: Api, hub: Hub) -> None:
    """One waiting claim per agent instance: a second poll of agent a / instance i ends the first with 204 at once
    (long before its 20 s), and waits itself; another instance's poll ends nothing."""
    answers: dict[str, tuple[int, float]] = {}

    async def claim(name: str, instance: str, wait: float) -> None:
        started = anyio.current_time()
        body = {"agent_id": "a", "instance": instance, "wait": wait}
        response = await api.post("/agent/claim", body, role="agent")
        answers[name] = (response.status_code, anyio.current_time() - started)

    async with anyio.create_task_group() as tg:
        tg.start_soon(claim, "first", "i", 20)
        await _until_waiting(hub)
        tg.start_soon(claim, "second", "i", 0.5)
    assert answers["first"][0] == 204 and answers["first"][1] < 4
    assert answers["second"][0] == 204 and answers["second"][1] >= 0.5
    assert hub.wakeup.waiting() == 0


async def test_hundreds_of_claims_leave_the_pool_to_the_interface(api: Api, hub: Hub) -> None:
    """300 concurrent long polls of one agent token (one instance, or copies of it): no answer is 5xx, each is
    204 or 409, an interface read meanwhile answers, and what is left is one waiting claim that holds no database
    connection, cancelled then (the 15 s wait only bounds a loaded machine; how fast the read is:
    bench/bench_longpoll.py)."""
    codes: list[int] = []

    async def claim(n: int) -> None:
        body = {"agent_id": "agent-1", "instance": "i" if n % 2 else f"copy-{n}", "wait": 15}
        codes.append((await api.post("/agent/claim", body, role="agent")).status_code)

    async def one_claim_waits_holding_nothing() -> None:
        with anyio.fail_after(15):
            pool = hub.database.engine.pool
            while len(codes) < 299 or hub.wakeup.waiting() > 1 or pool.checkedout() > 0:  # type: ignore[attr-defined]  # noqa: ASYNC110
                await anyio.sleep(0.01)
        assert hub.wakeup.waiting() == 1

    read: dict[str, int] = {}
    async with anyio.create_task_group() as tg:
        for n in range(300):
            tg.start_soon(claim, n)
        await anyio.lowlevel.checkpoint()  # every claim has started before the read
        read["status"] = (await api.get("/batches")).status_code
        await one_claim_waits_holding_nothing()
        tg.cancel_scope.cancel()  # the one left would wait out its 15 s
    assert read["status"] == 200
    assert len(codes) == 299
    assert set(codes) <= {204, 409}
