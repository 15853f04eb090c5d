"""Drift end to end: the real hub in process (Litestar over ASGI, SQLite), the real agent, the simulator.

A batch makes a due date, a status and a link true; a person changes all three in Jira through its own REST
API; after a full refresh the hub shows exactly those three, by that person; putting them back writes exactly
three times, and after the refresh nothing drifts.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.clock import FakeClock
from adapters.hub_client import HubClient
from adapters.jira_http import JiraAuthError, JiraError, JiraHttp
from agent_app.journal import Journal
from agent_app.loop import Agent
from hub_app import admin
from hub_app.app import create_app
from hub_app.bodies import TokenIn
from hub_app.runtime import Hub, open_hub
from jira_sim import Simulator
from reconcile.plans import executor_for

pytestmark = pytest.mark.anyio

KEY = "AURORA-1538"
BLOCKER = "AURORA-1446"


class Rig:
    """The hub's API as a planner and an admin use it, one agent, and Jira (the simulator) with its own users."""

    def __init__(self, tmp_path: Path, hub: Hub, tokens: dict[str, str]) -> None:
        app = create_app(hub, mcp=False)
        self.sim = Simulator()
        self.clock = FakeClock(start=0.0)
        self.api = {
            role: httpx.AsyncClient(
                base_url="http://hub",
                transport=httpx.ASGITransport(app=app),
                headers={"Authorization": f"Bearer {secret}"},
            )
            for role, secret in tokens.items()
        }
        self.agent = Agent(
            hub=HubClient("http://hub", tokens["agent"], transport=httpx.ASGITransport(app=app)),
            jira=JiraHttp.connect(
                "http://jira", token="pat", clock=self.clock, transport=httpx.ASGITransport(app=self.sim.asgi)
            ),
            journal=Journal(tmp_path / "journal.json"),
            clock=self.clock,
            agent_id="agent-1",
            version="0.1.0",
            claim_wait=0,
            rng=random.Random(1),
            executor_for=executor_for,
            jira_unreachable=(httpx.TransportError, JiraError),
            jira_refused=(JiraAuthError,),
        )
        # A person at the bank, in Jira's own REST API with their own login.
        self.petrova = httpx.AsyncClient(
            base_url="http://jira", transport=httpx.ASGITransport(app=self.sim.asgi), auth=("petrova", "секрет")
        )

    async def call(self, method: str, path: str, role: str = "interface", **kw: Any) -> Any:
        response = await self.api[role].request(method, path, **kw)
        assert response.status_code in (200, 201), response.text
        return response.json()

    async def run(self, batch: dict[str, Any], steps: int = 20) -> dict[str, Any]:
        """Step the agent until every command of the batch is finished; the batch then."""
        ctx = await self.agent.context()
        for _ in range(steps):
            current: dict[str, Any] = await self.call("GET", f"/batches/{batch['id']}")
            if all(c["status"] not in ("queued", "claimed") for c in current["commands"]):
                return current
            await self.agent.step(ctx)
        raise AssertionError(f"batch {batch['id']} not finished after {steps} steps")

    async def full_refresh(self) -> None:
        final = await self.run(await self.call("POST", "/refresh", json={}))
        assert [c["status"] for c in final["commands"]] == ["done"]

    def jira_writes(self) -> list[str]:
        calls = self.sim.calls
        return [
            f"{c['method']} {c['path']}" for c in calls if c["method"] != "GET" and not c["path"].endswith("/search")
        ]

    async def close(self) -> None:
        for client in (*self.api.values(), self.petrova, self.agent.hub):
            await client.aclose()
        await self.agent.jira.aclose()  # type: ignore[attr-defined]


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    hub = await open_hub(data_dir=tmp_path / "hub")
    tokens = {}
    async with hub.unit() as unit:
        for role in ("agent", "interface", "admin"):
            tokens[role] = (await admin.add_token(unit, TokenIn(name=f"t-{role}", role=role))).secret
    result = Rig(tmp_path, hub, tokens)
    yield result
    await result.close()
    await hub.close()


async def test_hand_edits_show_as_drift_and_go_back_with_three_writes(rig: Rig) -> None:
    """Change a field, a status and a link as another user: exactly those three drift, by petrova; reapply
    writes exactly three times back, and after the refresh nothing drifts."""
    await rig.call("POST", "/projects", "admin", json={"name": "AWPCA", "board_id": 4216})
    await rig.full_refresh()
    batch = await rig.call(
        "POST",
        "/batches",
        json={
            "author": "planner",
            "title": "план",
            "project": "AWPCA",
            "commands": [
                {"type": "ensure_fields", "params": {"key": KEY, "duedate": "2026-11-15"}},
                {"type": "ensure_status", "params": {"key": KEY, "target": "Разработка"}},
                {"type": "ensure_link", "params": {"source": BLOCKER, "target": KEY, "link_type": "блокирует начало"}},
            ],
        },
    )
    done = await rig.run(batch)
    assert [c["status"] for c in done["commands"]] == ["done", "done", "done", "done"]
    assert (await rig.call("GET", "/drift", params={"project": "AWPCA"}))["total"] == 0

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
    await rig.full_refresh()

    drift = await rig.call("GET", "/drift", params={"project": "AWPCA"})
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
    back = await rig.call("POST", "/drift/reapply", json={"command_ids": [i["command_id"] for i in drift["items"]]})
    final = await rig.run(back)
    assert [(c["type"], c["status"]) for c in final["commands"]] == [
        ("ensure_fields", "done"),
        ("ensure_status", "done"),
        ("ensure_link", "done"),
        ("refresh", "done"),
    ]
    await rig.full_refresh()
    assert rig.jira_writes() == [
        f"PUT /rest/api/2/issue/{KEY}",
        f"POST /rest/api/2/issue/{KEY}/transitions",
        "POST /rest/api/2/issueLink",
    ]
    after = await rig.call("GET", "/drift", params={"project": "AWPCA"})
    assert (after["items"], after["total"]) == ([], 0)
