"""The hub keeps the drift it computed (``hub_app.operations.drift``) until what it is computed from changes: each write
that can change drift shows in the next ``GET /drift``, on SQLite and PostgreSQL, with the clock standing still (every
write in one tick; only a full run's vanishing needs a later start), and in another hub process on the same database.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest

from adapters.files import FileStore
from adapters.storage.database import Database
from adapters.storage.engine import make_engine
from hub_app.app import create_app
from hub_app.operations.batches import create_batch
from hub_app.runtime.hub import Hub
from reconcile.outlook.approval import HUB
from reconcile.vocabulary.lifecycle import CommandStatus
from reconcile.vocabulary.records import MirrorIssue

from .conftest import Api, Clock
from .support import claim_ok, cmd, create_ok, done, issue, link, run_refresh, seed_mirror
from .test_drift import HAND_EDITS, JOURNAL, full_refresh, made_true, run_batch

pytestmark = pytest.mark.anyio


async def aspects(api: Api, **params: str) -> list[tuple[str, str]]:
    response = await api.get("/drift", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["total"] == len(body["items"])
    return [(item["key"], item["aspect"]) for item in body["items"]]


async def test_a_command_reported_done(api: Api) -> None:
    """The mirror read in the same tick as the report still shows the old value: drift at once."""
    assert (await api.post("/projects", {"name": "AWPCA"}, role="admin")).status_code == 201
    await seed_mirror(api, [issue("AURORA-1", labels=["AWPCA"])])
    assert await aspects(api) == []
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", priority="High")], project="AWPCA")
    assert await aspects(api) == []  # queued sets nothing yet
    await done(api, (await claim_ok(api))["id"])
    assert await aspects(api) == [("AURORA-1", "priority")]
    assert await aspects(api, project="AWPCA") == [("AURORA-1", "priority")]


async def test_a_refresh_page(api: Api) -> None:
    """A page's records count as soon as the page is written, before its refresh is reported."""
    await run_batch(api)
    assert await aspects(api) == []
    assert (await api.post("/refresh", {"keys": ["AURORA-10"]})).status_code == 201
    delivery = await claim_ok(api)
    page = {"page": 1, "kind": "issues", "issues": [issue("AURORA-10", labels=["AWPCA"])], "history": []}
    assert (await api.pages(delivery["id"], page)).status_code == 200
    assert await aspects(api) == [("AURORA-10", "priority")]


async def test_a_webhook_event(api: Api) -> None:
    """An event's record newer than the mirror's replaces it, and the drift with it."""
    await run_batch(api)
    assert await aspects(api, project="AWPCA") == []
    event = {
        "event": "jira:issue_updated",
        "key": "AURORA-10",
        "at": "2026-10-22T09:02:00Z",
        "issue": issue("AURORA-10", labels=["AWPCA"], priority="Low", updated="2026-10-22T09:02:00Z"),
    }
    response = await api.post("/agent/events", {"events": [event]}, role="agent")
    assert response.status_code == 200, response.text
    assert await aspects(api, project="AWPCA") == [("AURORA-10", "priority")]


async def test_a_full_refresh_and_a_vanished_issue(api: Api, clock: Clock) -> None:
    """Hand edits drift; then the issue whose field drifted vanishes (a later full run without it): its drift goes."""
    await run_batch(api)
    assert await aspects(api) == []
    await full_refresh(api, HAND_EDITS, JOURNAL)
    assert await aspects(api) == [("AURORA-1", "duedate"), ("AURORA-1", "link"), ("AURORA-2", "status")]
    clock.advance(minutes=1)  # a full run vanishes what was read before it started
    await full_refresh(api, HAND_EDITS[1:], [])
    assert await aspects(api) == [("AURORA-2", "status")]


async def test_a_reapply_and_its_commands_done(api: Api) -> None:
    """The reapplied batch changes nothing while queued; done and refreshed, the drift is gone."""
    batch = await run_batch(api)
    await full_refresh(api, HAND_EDITS, JOURNAL)
    assert len(await aspects(api)) == 3
    chosen = [c["id"] for c in batch["commands"][:3]]
    assert (await api.post("/drift/reapply", {"command_ids": chosen})).status_code == 201
    assert len(await aspects(api)) == 3
    for _ in range(3):
        await done(api, (await claim_ok(api))["id"])
    await run_refresh(api, await claim_ok(api), made_true())
    assert await aspects(api) == []


async def test_the_link_types_setting(api: Api) -> None:
    """The link type a logical name stands for is part of the rule: changing it changes the drift."""
    await run_batch(api)
    assert await aspects(api) == []
    response = await api.patch("/settings", {"link_types": {"связанные": "Блокирует"}})
    assert response.status_code == 200, response.text
    assert await aspects(api) == [("AURORA-1", "link")]


async def test_the_agents_symmetric_link_types(api: Api) -> None:
    """A link Jira shows the other way round holds only while the agent says its type is symmetric."""
    await run_batch(api)
    reversed_link = link("10007", "Связанные", "AURORA-2", "AURORA-1")
    assert (await api.post("/refresh", {"keys": ["AURORA-1", "AURORA-2"]})).status_code == 201
    delivery = await claim_ok(api, symmetric_link_types=["Связанные"])
    shown = [
        issue("AURORA-1", labels=["AWPCA"], duedate="2026-10-23", links=[reversed_link]),
        issue("AURORA-2", labels=["AWPCA"], status="Готово", links=[reversed_link]),
    ]
    await run_refresh(api, delivery, shown)
    assert await aspects(api) == []
    await claim_ok(api, symmetric_link_types=[])  # the project's own refresh, claimed: no mirror write yet
    assert await aspects(api) == [("AURORA-1", "link")]


@pytest.fixture
async def other(hub_url: str, tmp_path: Path, clock: Clock, hub: Hub) -> AsyncIterator[Api]:
    """Another hub process on the same database (its own engine and kept drift), with the first one's tokens."""
    second = Hub(database=Database(make_engine(hub_url)), files=FileStore(tmp_path / "other"), now=clock)
    try:
        transport = httpx.ASGITransport(app=create_app(second))
        async with httpx.AsyncClient(transport=transport, base_url="http://other.test") as client:
            yield Api(client=client, tokens={})
    finally:
        await second.close()


async def test_another_hub_process_sees_the_writes_of_this_one(api: Api, other: Api) -> None:
    """Each process keeps its own drift; a write through one shows in the other's next answer."""
    other.tokens.update(api.tokens)
    await run_batch(api)
    assert await aspects(other) == []
    await full_refresh(api, HAND_EDITS, JOURNAL)
    assert len(await aspects(other)) == 3
    await full_refresh(other, made_true(), [])
    assert await aspects(api) == []
    assert await aspects(other) == []


async def test_the_writes_that_bump_the_generations(hub: Hub, clock: Clock) -> None:
    """Writing mirror records or vanishing them bumps the mirror's; resolving a command, the commands'; nothing
    written or a claim bumps neither (a standing clock throughout)."""

    async def generations() -> tuple[int, int]:
        async with hub.unit() as unit:
            return await unit.db.drift_generations()

    assert await generations() == (0, 0)
    record = MirrorIssue(key="AURORA-1", summary="Задача", updated="2026-10-20T09:00:00Z")
    async with hub.unit() as unit:
        assert await unit.db.mirror.upsert_issues([record], command_id=None, now=clock()) == ["AURORA-1"]
    assert await generations() == (0, 1)
    older = attrs.evolve(record, updated="2026-10-19T09:00:00Z")
    async with hub.unit() as unit:  # older than the stored record: nothing written
        assert await unit.db.mirror.upsert_issues([older], command_id=None, now=clock()) == []
        await unit.db.mirror.vanish([], now=clock())
    assert await generations() == (0, 1)
    async with hub.unit() as unit:
        await unit.db.mirror.vanish(["AURORA-1"], now=clock())
    assert await generations() == (0, 2)
    body = {"author": "planner", "title": "план", "commands": [cmd("ensure_fields", key="AURORA-1", priority="High")]}
    async with hub.unit() as unit:
        created = await create_batch(unit, body, requester=HUB)
    async with hub.unit() as unit:
        command = await unit.db.queue.command(created.commands[0].id)
        assert command is not None
        await unit.db.queue.save(attrs.evolve(command, status=CommandStatus.CLAIMED))
    assert await generations() == (0, 2)
    async with hub.unit() as unit:
        await unit.db.queue.save(attrs.evolve(command, status=CommandStatus.DONE, finished_at=clock()))
    assert await generations() == (1, 2)


async def test_labels_and_sprints_are_read_when_set(api: Api) -> None:
    """A label and a sprint drift on the whole mirror's page too (their mirror parts read only for such settings)."""
    assert (
        await api.post("/projects", {"name": "AWPCA", "board_id": 4216, "board_type": "scrum"}, role="admin")
    ).status_code == 201
    sprint = {"id": 7, "name": "Спринт 2", "state": "active"}
    await seed_mirror(api, [issue("AURORA-1", labels=["AWPCA"]), issue("AURORA-2", labels=["AWPCA"])])
    await create_ok(
        api,
        [
            cmd("ensure_fields", key="AURORA-1", labels_add=["срочно"]),
            cmd("ensure_sprint", key="AURORA-2", sprint="Спринт 2"),
        ],
        project="AWPCA",
    )
    for _ in range(2):
        await done(api, (await claim_ok(api))["id"])
    made = [issue("AURORA-1", labels=["AWPCA", "срочно"]), issue("AURORA-2", labels=["AWPCA"], sprint=sprint)]
    await run_refresh(api, await claim_ok(api), made)
    assert await aspects(api) == []
    await seed_mirror(api, [issue("AURORA-1", labels=["AWPCA"]), issue("AURORA-2", labels=["AWPCA"])])
    assert await aspects(api) == [("AURORA-1", "label:срочно"), ("AURORA-2", "sprint")]
    assert await aspects(api, project="AWPCA") == [("AURORA-1", "label:срочно"), ("AURORA-2", "sprint")]
