"""The agent's webhook listener in-process (DESIGN.md 6.2): the simulator's signed deliveries → the listener →
the real hub (ASGI, SQLite) → the mirror; what is refused or dropped never reaches the hub."""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest

from adapters.clock import FakeClock
from adapters.hub_client import HubClient
from agent_app.listener import QUEUE_SIZE, WebhookListener
from hub_app.app import create_app
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import open_hub
from jira_sim import Simulator
from reconcile.config.settings import Settings
from reconcile.guard.policy import AgentPolicy
from reconcile.jira.webhook_registration import registration
from tests.support import T0

pytestmark = pytest.mark.anyio

SECRET = "s3cret"


@attrs.define
class Rig:
    listener: WebhookListener
    sim: Simulator
    jira: httpx.AsyncClient
    hub: httpx.AsyncClient

    async def edit(self, key: str, **fields: Any) -> None:
        """A person (``ivanov``, basic auth) edits the issue in Jira."""
        person = base64.b64encode(b"ivanov:pw").decode()
        response = await self.jira.put(
            f"/rest/api/2/issue/{key}", json={"fields": fields}, headers={"Authorization": f"Basic {person}"}
        )
        assert response.status_code == 204, response.text

    async def settle(self) -> None:
        """Every delivery made so far is received, and every event queued is sent to the hub."""
        await self.sim.settle_webhooks()
        await self.listener.queue.join()

    async def mirror(self, key: str) -> dict[str, Any] | None:
        response = await self.hub.get(f"/issues/{key}")
        return response.json() if response.status_code == 200 else None  # type: ignore[no-any-return]


@pytest.fixture
async def rig(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Rig]:
    """The rig; ``indirect`` params: ``queue_size``, the simulator's ``clock``, the hub's ``now``, the agent's
    ``allow`` (projects), ``relay`` (``False``: not started; a test starts it)."""
    options: dict[str, Any] = getattr(request, "param", {})
    hub = await open_hub(data_dir=tmp_path / "hub", **({"now": options["now"]} if "now" in options else {}))
    tokens = {}
    for role in ("agent", "interface"):
        async with hub.unit() as unit:
            tokens[role] = (await admin.add_token(unit, TokenIn(name=f"t-{role}", role=role))).secret
    app = create_app(hub)
    stopping = asyncio.Event()
    listener = WebhookListener(
        hub=HubClient("http://hub", tokens["agent"], transport=httpx.ASGITransport(app=app)),
        secret=SECRET.encode(),
        policy=AgentPolicy(allow_projects=options.get("allow", ("AURORA",))),
        clock=FakeClock(),
        stopping=stopping,
        queue_size=options.get("queue_size", QUEUE_SIZE),
    )
    sim = Simulator(webhook_transport=httpx.ASGITransport(app=listener), clock=options.get("clock"))
    jira = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sim.asgi),
        base_url="http://jira.test",
        headers={"Authorization": "Bearer pat"},
    )
    found = registration(
        name="agent", url="http://agent/jira/webhook", projects=["AURORA", "HR"], secret=SECRET, jira_major=10
    )
    assert (await jira.post(found.path, json=found.body)).status_code == 201
    interface = httpx.AsyncClient(
        base_url="http://hub",
        transport=httpx.ASGITransport(app=app),
        headers={"Authorization": f"Bearer {tokens['interface']}"},
    )
    relay = asyncio.create_task(listener.relay()) if options.get("relay", True) else None
    yield Rig(listener=listener, sim=sim, jira=jira, hub=interface)
    stopping.set()
    if relay is not None:
        await relay
    await sim.aclose()
    await jira.aclose()
    await interface.aclose()
    await listener.hub.aclose()
    await hub.close()


async def test_a_signed_edit_reaches_the_mirror(rig: Rig) -> None:
    """A person's edit arrives by webhook and is in the mirror; the agent made no Jira call for it."""
    rig.listener.follow(Settings().agent_context())
    await rig.edit("AURORA-1533", summary="Сверка по событию")
    await rig.settle()
    assert (await rig.mirror("AURORA-1533") or {})["summary"] == "Сверка по событию"
    assert [(c["method"], c["path"]) for c in rig.sim.calls] == [
        ("POST", "/rest/jira-webhook/1.0/webhooks"),
        ("PUT", "/rest/api/2/issue/AURORA-1533"),
    ]
    assert rig.listener.counts == {"queued": 1, "relayed": 1}


async def test_an_unsigned_delivery_is_refused(rig: Rig) -> None:
    """A body without the right ``X-Hub-Signature`` is 401 and nothing is relayed."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=rig.listener), base_url="http://agent") as jira:
        body = b'{"webhookEvent": "jira:issue_updated", "issue": {"key": "AURORA-1"}}'
        unsigned = await jira.post("/jira/webhook", content=body)
        wrong = await jira.post("/jira/webhook", content=body, headers={"X-Hub-Signature": "sha256=00"})
    assert (unsigned.status_code, wrong.status_code) == (401, 401)
    assert rig.listener.counts == {"unsigned": 2}
    assert rig.listener.queue.empty()


async def test_events_outside_the_policy_are_dropped(rig: Rig) -> None:
    """An edit of HR-1 (a project the agent may not read) is answered but never relayed."""
    rig.listener.follow(Settings().agent_context())
    await rig.edit("HR-1", summary="Тайна")
    await rig.settle()
    assert rig.listener.counts == {"outside_policy": 1}
    assert await rig.mirror("HR-1") is None


async def test_a_duplicate_delivery_is_relayed_once(rig: Rig) -> None:
    """Jira's repeat of a delivery (the same bytes) is dropped by the listener."""
    rig.listener.follow(Settings().agent_context())
    rig.sim.set_webhook_faults(duplicate=1)
    await rig.edit("AURORA-1533", summary="Один раз")
    await rig.settle()
    assert rig.listener.counts == {"queued": 1, "duplicate": 1, "relayed": 1}


async def test_before_the_first_delivery_the_hub_reads_the_key_itself(rig: Rig) -> None:
    """Without a delivery's context the custom fields are unknown: the event goes without its issue, and the hub
    queues one refresh of its key instead of writing a row that could miss a field."""
    await rig.edit("AURORA-1533", summary="Поля ещё неизвестны")
    await rig.settle()
    assert await rig.mirror("AURORA-1533") is None
    latest = (await rig.hub.get("/batches")).json()["items"][0]
    batch = (await rig.hub.get(f"/batches/{latest['id']}")).json()
    assert batch["title"] == "обновление по событиям Jira"
    assert batch["commands"][0]["params"] == {"keys": ["AURORA-1533"]}


@pytest.mark.parametrize("rig", [{"queue_size": 2}], indirect=True)
async def test_a_full_queue_makes_deliveries_wait_not_vanish(rig: Rig) -> None:
    """With room for 2 events, 30 edits still all reach the hub: a delivery waits for room instead."""
    rig.listener.follow(Settings().agent_context())
    for n in range(30):
        await rig.edit("AURORA-1533", summary=f"Правка {n}")
    await rig.settle()
    assert rig.listener.counts == {"queued": 30, "relayed": 30}


class _Milliseconds:
    """Jira's clock in a burst: each reading a millisecond after the last, from 09:00:00 — 300 edits in 0.9 s."""

    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        self.at += timedelta(milliseconds=1)
        return self.at


@pytest.mark.parametrize("rig", [{"clock": _Milliseconds(), "now": lambda: T0 + timedelta(seconds=1)}], indirect=True)
async def test_300_distinct_events_within_a_second_all_reach_the_hub(rig: Rig) -> None:
    """Issue 31 finding 11: 300 edits of one issue within a second, each its own signed delivery, are all relayed
    and all taken by the hub — none a duplicate (cut to the second, their ``updated`` were equal and the hub
    counted 298 of them duplicates) — and the mirror shows the last."""
    rig.listener.follow(Settings().agent_context())
    for n in range(300):
        await rig.edit("AURORA-1533", summary=f"Правка {n}")
    await rig.settle()
    assert rig.listener.counts == {"queued": 300, "relayed": 300}
    metrics = (await rig.hub.get("/metrics")).text
    outcomes = dict(re.findall(r'sdlc_hub_webhook_events_total\{outcome="(\w+)"\} (\d+)', metrics))
    assert "duplicate" not in outcomes
    assert int(outcomes["applied"]) + int(outcomes.get("stale", 0)) == 300
    mirrored = await rig.mirror("AURORA-1533") or {}
    assert (mirrored["summary"], mirrored["updated"][:20]) == ("Правка 299", "2026-10-22T09:00:00.")


@pytest.mark.parametrize("rig", [{"allow": ("AURORA", "HR"), "relay": False}], indirect=True)
async def test_an_event_the_hub_refuses_costs_the_others_nothing(rig: Rig) -> None:
    """An agent allowed HR too, before it knows the hub's project: three events go in one batch, the hub refuses
    it for HR-1 (422); sent again one by one, the two of AURORA reach the hub and HR-1 alone is refused."""
    for key in ("AURORA-1533", "HR-1", "AURORA-1537"):
        await rig.edit(key, summary=f"Правка {key}")
    await rig.sim.settle_webhooks()
    relay = asyncio.create_task(rig.listener.relay())
    await rig.listener.queue.join()
    rig.listener.stopping.set()
    await relay
    assert rig.listener.counts == {"queued": 3, "relayed": 2, "refused": 1}
    batches = (await rig.hub.get("/batches")).json()["items"]
    batch = (await rig.hub.get(f"/batches/{batches[0]['id']}")).json()
    assert batch["commands"][0]["params"] == {"keys": ["AURORA-1533", "AURORA-1537"]}


@pytest.mark.parametrize("rig", [{"allow": ("AURORA", "HR")}], indirect=True)
async def test_events_outside_the_hubs_project_are_dropped_once_known(rig: Rig) -> None:
    """A delivery told the agent the hub works in AURORA: an edit of HR-1, which its policy allows, is answered
    and dropped, never sent for the hub to refuse."""
    rig.listener.follow(Settings().agent_context())
    await rig.edit("HR-1", summary="Другой проект")
    await rig.settle()
    assert rig.listener.counts == {"outside_hub_project": 1}
