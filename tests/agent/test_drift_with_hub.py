"""Drift end to end: the real hub in process (Litestar over ASGI, SQLite), the real agent, the simulator.

A batch makes a due date, a status and a link true; a person changes all three in Jira through its own REST
API; after a full refresh the hub shows exactly those three, by that person; putting them back writes exactly
three times, and after the refresh nothing drifts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_app.loop import Agent
from hub_app import admin
from hub_app.app import create_app
from hub_app.bodies.admin import ProjectIn, TokenIn
from hub_app.runtime import open_hub

from .test_with_hub import HubRig

pytestmark = pytest.mark.anyio

KEY = "AURORA-1538"
BLOCKER = "AURORA-1446"


class Rig(HubRig):
    """The rig of the agent with the hub, plus a person at the bank using Jira's REST API with their own login."""

    def __init__(self, tmp_path: Path, app: Any, tokens: dict[str, str]) -> None:
        super().__init__(tmp_path, app, tokens)
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


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    hub = await open_hub(data_dir=tmp_path / "hub")
    tokens = {}
    async with hub.unit() as unit:
        await admin.create_project(unit, ProjectIn(name="AWPCA", board_id=4216))
        for role in ("agent", "interface"):
            tokens[role] = (await admin.add_token(unit, TokenIn(name=f"t-{role}", role=role))).secret
    result = Rig(tmp_path, create_app(hub, mcp=False), tokens)
    yield result
    await result.close()
    await hub.close()


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
