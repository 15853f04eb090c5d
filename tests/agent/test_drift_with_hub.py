"""Drift end to end: the real hub in process (Litestar over ASGI, SQLite), the real agent, the simulator.

A batch makes a due date, a status and a link true; a person changes all three in Jira through its own REST
API; after a full refresh the hub shows exactly those three, by that person; putting them back writes exactly
three times, and after the refresh nothing drifts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.hub_client import HubClient
from agent_app.listener import WebhookListener
from agent_app.loop import Agent
from hub_app.app import create_app
from hub_app.bodies.admin import ProjectIn, TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import open_hub
from jira_sim import Simulator
from reconcile.config.settings import Settings
from reconcile.jira.webhook_registration import registration

from .agent_fakes import AURORA_ONLY
from .test_with_hub import HubRig

pytestmark = pytest.mark.anyio

KEY = "AURORA-1538"
BLOCKER = "AURORA-1446"


class Rig(HubRig):
    """The rig of the agent with the hub, plus a person at the bank using Jira's REST API with their own login."""

    def __init__(self, tmp_path: Path, app: Any, tokens: dict[str, str], sim: Simulator | None = None) -> None:
        super().__init__(tmp_path, app, tokens, sim)
        self.petrova = httpx.AsyncClient(
            base_url="http://jira", transport=httpx.ASGITransport(app=self.sim.asgi), auth=("petrova", "секрет")
        )

    async def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = await self.interface.post(path, json=body)
        assert response.status_code == 201, response.text
        result: dict[str, Any] = response.json()
        return result

    async def full_refresh(self, agent: Agent) -> None:
        final = await self.drain(agent, (await self.post("/refresh", {}))["id"])
        assert [c["status"] for c in final["commands"]] == ["done"]

    async def close(self) -> None:
        await self.petrova.aclose()
        await super().close()


@contextlib.asynccontextmanager
async def open_rig(tmp_path: Path, sim: Simulator | None = None) -> AsyncIterator[Rig]:
    """The rig on a fresh hub in ``tmp_path``: project AWPCA on board 4216, an agent token and an interface one;
    ``sim`` is the Jira (default: the simulator's sample)."""
    hub = await open_hub(data_dir=tmp_path / "hub")
    tokens = {}
    async with hub.unit() as unit:
        await admin.create_project(unit, ProjectIn(name="AWPCA", board_id=4216))
        for role in ("agent", "interface"):
            tokens[role] = (await admin.add_token(unit, TokenIn(name=f"t-{role}", role=role))).secret
    result = Rig(tmp_path, create_app(hub, mcp=False), tokens, sim)
    try:
        yield result
    finally:
        await result.close()
        await hub.close()


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    async with open_rig(tmp_path) as result:
        yield result


async def test_hand_edits_show_as_drift_and_go_back_with_three_writes(rig: Rig) -> None:
    """Change a field, a status and a link as another user: exactly those three drift, by petrova; reapply
    writes exactly three times back, and after the refresh nothing drifts."""
    agent = rig.agent()
    await rig.full_refresh(agent)
    batch = await rig.batch(
        {
            "author": "planner",
            "title": "план",
            "project": "AWPCA",
            "commands": [
                {"type": "ensure_fields", "params": {"key": KEY, "duedate": "2026-11-15"}},
                {"type": "ensure_status", "params": {"key": KEY, "target": "Разработка"}},
                {"type": "ensure_link", "params": {"source": BLOCKER, "target": KEY, "link_type": "блокирует начало"}},
            ],
        }
    )
    done = await rig.drain(agent, batch["id"])
    assert [c["status"] for c in done["commands"]] == ["done", "done", "done", "done"]
    assert (await rig.get("/drift", project="AWPCA"))["total"] == 0

    link_id = next(
        link["id"] for link in rig.sim.raw_issue(KEY)["links"] if (link["inward"], link["outward"]) == (BLOCKER, KEY)
    )
    for method, path, body in (
        ("PUT", f"/rest/api/2/issue/{KEY}", {"fields": {"duedate": "2026-12-31"}}),
        ("POST", f"/rest/api/2/issue/{KEY}/transitions", {"transition": {"id": "41"}}),
        ("DELETE", f"/rest/api/2/issueLink/{link_id}", None),
    ):
        response = await rig.petrova.request(method, path, json=body)
        assert response.status_code == 204, response.text
    await rig.full_refresh(agent)

    drift = await rig.get("/drift", project="AWPCA")
    ids = [c["id"] for c in batch["commands"]]
    assert drift["last_full_refresh_at"] is not None
    assert [
        (i["command_id"], i["key"], i["aspect"], i["wanted"], i["now"], i["changed_by"]) for i in drift["items"]
    ] == [
        (ids[2], BLOCKER, "link", {"source": BLOCKER, "target": KEY, "type": "Блокирует начало"}, [], "petrova"),
        (ids[0], KEY, "duedate", "2026-11-15", "2026-12-31", "petrova"),
        (ids[1], KEY, "status", "Разработка", "Ожидание разработки", "petrova"),
    ]
    assert all(i["changed_at"] for i in drift["items"])

    rig.sim.clear_calls()
    back = await rig.post("/drift/reapply", {"command_ids": [i["command_id"] for i in drift["items"]]})
    final = await rig.drain(agent, back["id"])
    assert [(c["type"], c["status"]) for c in final["commands"]] == [
        ("ensure_fields", "done"),
        ("ensure_status", "done"),
        ("ensure_link", "done"),
        ("refresh", "done"),
    ]
    await rig.full_refresh(agent)
    assert rig.jira_writes() == [
        f"PUT /rest/api/2/issue/{KEY}",
        f"POST /rest/api/2/issue/{KEY}/transitions",
        "POST /rest/api/2/issueLink",
    ]
    after = await rig.get("/drift", project="AWPCA")
    assert (after["items"], after["total"]) == ([], 0)


async def test_a_persons_edit_by_webhook_is_named_in_drift_at_once(rig: Rig) -> None:
    """Drift from the event: petrova's edit reaches the hub through the simulator's webhook and the agent's listener
    (its ``user`` and ``changelog``); ``GET /drift`` names petrova and the edit's time at once, before any refresh;
    the refresh that reads the changelog later keeps the one entry (same issue, same Jira history id)."""
    agent = rig.agent()
    await rig.full_refresh(agent)
    body = {"type": "ensure_fields", "params": {"key": KEY, "duedate": "2026-11-15"}}
    batch = await rig.batch({"author": "planner", "title": "срок", "project": "AWPCA", "commands": [body]})
    assert [c["status"] for c in (await rig.drain(agent, batch["id"]))["commands"]] == ["done", "done"]
    stopping = asyncio.Event()
    listener = WebhookListener(
        hub=HubClient("http://hub", rig.tokens["agent"], transport=rig.hub_transport),
        secret=b"s3cret",
        policy=AURORA_ONLY,
        clock=rig.clock,
        stopping=stopping,
    )
    listener.follow(Settings().agent_context())
    rig.sim.controls.webhooks.transport = httpx.ASGITransport(app=listener)
    found = registration(
        name="agent", url="http://agent/jira/webhook", projects=["AURORA"], secret="s3cret", jira_major=10
    )
    jira = httpx.AsyncClient(base_url="http://jira", transport=httpx.ASGITransport(app=rig.sim.asgi))
    assert (await jira.post(found.path, json=found.body, headers={"Authorization": "Bearer pat"})).status_code == 201
    relay = asyncio.create_task(listener.relay())
    try:
        edited = await rig.petrova.put(f"/rest/api/2/issue/{KEY}", json={"fields": {"duedate": "2026-12-31"}})
        assert edited.status_code == 204, edited.text
        await rig.sim.settle_webhooks()
        await listener.queue.join()
        change = rig.sim.raw_issue(KEY)["changelog"][-1]
        drift = await rig.get("/drift", project="AWPCA")
        assert [(i["aspect"], i["now"], i["changed_by"]) for i in drift["items"]] == [
            ("duedate", "2026-12-31", "petrova")
        ]
        changed_at = drift["items"][0]["changed_at"]
        made = datetime.fromisoformat(change["created"]).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        assert changed_at == made
        journal = await rig.get(f"/issues/{KEY}/history")
        by_petrova = [e for e in journal["items"] if e["author"] == "petrova"]
        assert [(e["id"], e["created"]) for e in by_petrova] == [(str(change["id"]), changed_at)]
        await rig.full_refresh(agent)
        again = await rig.get(f"/issues/{KEY}/history")
        assert [e for e in again["items"] if e["author"] == "petrova"] == by_petrova
    finally:
        stopping.set()
        await relay
        await jira.aclose()
        await listener.hub.aclose()
        await rig.sim.aclose()
