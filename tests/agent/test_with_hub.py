"""The agent against the real hub in-process (Litestar over ASGI, SQLite) and the in-process simulator:
the seed's delivery scenarios seen from both ends, with a fake clock for the agent's pauses."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.clock import FakeClock
from adapters.hub_client import ClaimConflict, HubClient
from adapters.jira_http import JiraHttp
from agent_app.journal import Journal
from agent_app.loop import Agent
from hub_app.app import create_app
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import open_hub
from jira_sim import Simulator
from reconcile.config.settings import DEFAULT_PACING
from reconcile.guard.policy import AgentPolicy
from reconcile.types.binding import executor_for
from tests.support import seed_result

from .agent_fakes import AURORA_ONLY, LEAD, Fault, FlakyTransport, waited

pytestmark = pytest.mark.anyio

#: The policy of these agents: the sample's Jira project only (DESIGN.md 5.5).


class WatchedClock(FakeClock):
    """A fake clock whose sleeps go in steps of at most a second, a look (``watch``) after each."""

    def __init__(self) -> None:
        super().__init__(start=0.0)
        self.watch: Callable[[], Awaitable[None]] | None = None

    async def sleep(self, seconds: float) -> None:
        left = max(seconds, 0.0)
        while self.watch is not None and left > 1.0:
            await super().sleep(1.0)
            left -= 1.0
            await self.watch()
        await super().sleep(left)
        if self.watch is not None:
            await self.watch()


class HubRig:
    def __init__(self, tmp_path: Path, app: Any, tokens: dict[str, str], sim: Simulator | None = None) -> None:
        self.tmp_path = tmp_path
        self.tokens = tokens
        self.sim = sim or Simulator()
        self.clock = WatchedClock()
        self.hub_transport = FlakyTransport(httpx.ASGITransport(app=app))
        self.jira_transport = FlakyTransport(httpx.ASGITransport(app=self.sim.asgi))
        self.interface = httpx.AsyncClient(
            base_url="http://hub",
            transport=httpx.ASGITransport(app=app),
            headers={"Authorization": f"Bearer {tokens['interface']}"},
        )
        self.agents: list[Agent] = []

    def agent(self, journal: str = "journal.json", policy: AgentPolicy = AURORA_ONLY) -> Agent:
        """A fresh agent process: its own Jira client (restart time = now), the journal file given."""
        agent = Agent(
            hub=HubClient("http://hub", self.tokens["agent"], transport=self.hub_transport),
            jira=JiraHttp.connect("http://jira", token="pat", clock=self.clock, transport=self.jira_transport),
            journal=Journal(self.tmp_path / journal),
            clock=self.clock,
            agent_id="agent-1",
            version="0.1.0",
            claim_wait=0,
            rng=random.Random(1),
            policy=policy,
            executor_for=executor_for,
        )
        self.agents.append(agent)
        return agent

    async def batch(self, body: dict[str, Any]) -> dict[str, Any]:
        response = await self.interface.post("/batches", json=body)
        assert response.status_code == 201, response.text
        result: dict[str, Any] = response.json()
        return result

    async def get(self, path: str, **params: Any) -> Any:
        response = await self.interface.get(path, params=params)
        assert response.status_code == 200, response.text
        return response.json()

    async def drain(self, agent: Agent, batch_id: int, steps: int = 30) -> dict[str, Any]:
        """Step the agent until every command of the batch is finished."""
        await agent.flush_journal()
        ctx = await agent.context()
        for _ in range(steps):
            batch: dict[str, Any] = await self.get(f"/batches/{batch_id}")
            if all(c["status"] not in ("queued", "claimed") for c in batch["commands"]):
                return batch
            await agent.step(ctx)
        raise AssertionError(f"batch {batch_id} not finished after {steps} steps")

    def jira_writes(self) -> list[str]:
        return [
            f"{c['method']} {c['path']}"
            for c in self.sim.calls
            if c["method"] != "GET" and not c["path"].endswith("/search")
        ]

    async def close(self) -> None:
        await self.interface.aclose()
        for agent in self.agents:
            await agent.hub.aclose()
            await agent.jira.aclose()


#: The hub's wall clock at the agent's monotonic zero: the hub's time moves only when the agent's clock does.
HUB_EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[HubRig]:
    rigs: list[HubRig] = []

    def hub_now() -> datetime:
        return HUB_EPOCH + timedelta(seconds=rigs[0].clock.monotonic() if rigs else 0.0)

    hub = await open_hub(data_dir=tmp_path / "hub", now=hub_now)
    tokens = {}
    for role in ("agent", "interface", "admin"):
        async with hub.unit() as unit:
            tokens[role] = (await admin.add_token(unit, TokenIn(name=f"t-{role}", role=role))).secret
    result = HubRig(tmp_path, create_app(hub), tokens)
    rigs.append(result)
    yield result
    await result.close()
    await hub.close()


def statuses(batch: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["type"], c["status"]) for c in batch["commands"]]


CREATE_AND_LINK = {
    "author": "тест",
    "title": "создать и привязать",
    "commands": [
        {
            "type": "ensure_issue",
            "params": {"temp_key": "new:60", "issue_type": "task", "summary": "Сверка ОСВ", "labels": ["AWPCA"]},
        },
        {
            "type": "ensure_link",
            "params": {"source": "new:60", "target": "AURORA-1537", "link_type": "блокирует начало"},
        },
        {"type": "ensure_comment", "params": {"key": "new:60", "marker": "[план]", "body": "Срок согласован"}},
    ],
    "notes": [{"key": "new:60", "text": "заметка к новой задаче"}],
}


async def test_create_and_link_end_to_end(rig: HubRig) -> None:
    """Seed «Создать и привязать»: the link goes out with the created key; notes move; pauses by type."""
    batch = await rig.batch(CREATE_AND_LINK)
    final = await rig.drain(rig.agent(), batch["id"])
    assert statuses(final) == [
        ("ensure_issue", "done"),
        ("ensure_link", "done"),
        ("ensure_comment", "done"),
        ("refresh", "done"),
    ]
    key = final["commands"][0]["result"]["key"]
    assert seed_result(final["commands"][0]["result"]) == {"key": key, "created": True}
    raw = rig.sim.raw_issue(key)
    assert raw["summary"] == "Сверка ОСВ"
    assert [(link["type"], link["inward"], link["outward"]) for link in raw["links"]] == [
        ("Блокирует начало", key, "AURORA-1537")
    ]
    assert [c["body"] for c in raw["comments"]] == ["[план]\nСрок согласован"]
    notes = await rig.get("/notes", key=key)
    assert [n["text"] for n in notes["items"]] == ["заметка к новой задаче"]
    # Each pause tells the hub every claim_wait_seconds / 2 (12.5 s) that the agent is alive, and asks whether the
    # command may be written by the pause's end (a refresh never writes, so is never asked).
    ahead = [12.5, 12.5, 5.0 - LEAD, LEAD]
    assert waited(rig.clock.sleeps) == [12.5] * 9 + [7.5 - LEAD, LEAD] + ahead * 2 + [2.0]


async def test_lost_claim_answer_is_redelivered(rig: HubRig) -> None:
    """Seed «Ответ на claim потерян»: the same command comes again with deliveries = 2 and is done once."""
    batch = await rig.batch(
        {
            "author": "тест",
            "title": "срок",
            "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1538", "duedate": "2026-12-01"}}],
        }
    )
    rig.hub_transport.faults.append(Fault("POST", "/agent/claim$", "after", error=httpx.ReadError))
    final = await rig.drain(rig.agent(), batch["id"])
    first = final["commands"][0]
    command = await rig.get(f"/commands/{first['id']}")
    assert (command["status"], command["deliveries"]) == ("done", 2)
    assert rig.jira_writes() == ["PUT /rest/api/2/issue/AURORA-1538"]


async def test_restart_sends_the_journaled_report(rig: HubRig) -> None:
    """Killed after executing, before the hub heard: the restarted agent sends the journal's report first."""
    batch = await rig.batch(CREATE_AND_LINK)
    first = rig.agent()

    def die(_: httpx.Request) -> None:
        first.request_stop()
        first.request_stop()

    rig.hub_transport.faults.append(Fault("POST", "/report$", "before", hook=die))
    await first.run()
    entry = first.journal.read()
    assert entry is not None and entry.report is not None and entry.type == "ensure_issue"
    assert (await rig.get(f"/commands/{entry.command_id}"))["status"] == "claimed"

    final = await rig.drain(rig.agent(), batch["id"])
    assert [s for _, s in statuses(final)] == ["done", "done", "done", "done"]
    assert rig.jira_writes().count("POST /rest/api/2/issue") == 1
    created = await rig.get(f"/commands/{entry.command_id}")
    assert created["deliveries"] == 1
    key = created["result"]["key"]
    assert [n["text"] for n in (await rig.get("/notes", key=key))["items"]] == ["заметка к новой задаче"]


async def test_crash_before_journaling_the_report_finds_the_created_issue(rig: HubRig) -> None:
    """Seed «Потерянный отчёт о создании задачи»: no journal left, re-delivery finds the issue, one issue."""
    batch = await rig.batch(CREATE_AND_LINK)
    rig.jira_transport.faults.append(Fault("POST", r"/rest/api/2/issue$", "after", error=httpx.RemoteProtocolError))
    first = rig.agent(journal="lost.json")
    await first.flush_journal()
    ctx = await first.context()
    await first.step(ctx)  # the create's answer is lost: no report
    (rig.tmp_path / "lost.json").unlink()  # and the crash took the journal with it

    final = await rig.drain(rig.agent(journal="fresh.json"), batch["id"])
    issue_command = final["commands"][0]
    command = await rig.get(f"/commands/{issue_command['id']}")
    assert (command["status"], command["deliveries"]) == ("done", 2)
    assert command["result"]["created"] is False
    assert rig.jira_writes().count("POST /rest/api/2/issue") == 1
    key = command["result"]["key"]
    assert [n["text"] for n in (await rig.get("/notes", key=key))["items"]] == ["заметка к новой задаче"]


class _CancellingClock(FakeClock):
    """The agent's clock; its first sleep (the pause before the command) runs ``during_pause`` first."""

    def __init__(self) -> None:
        super().__init__(start=0.0)
        self.during_pause: Any = None

    async def sleep(self, seconds: float) -> None:
        hook, self.during_pause = self.during_pause, None
        if hook is not None:
            await hook()
        await super().sleep(seconds)


async def test_force_cancel_during_the_pause_writes_nothing(rig: HubRig) -> None:
    """Cancelled with force while the agent waits its pause: no Jira write at all; the command stays cancelled."""
    rig.clock = _CancellingClock()
    batch = await rig.batch(
        {
            "author": "тест",
            "title": "комментарий",
            "commands": [{"type": "ensure_comment", "params": {"key": "AURORA-1537", "marker": "[m]", "body": "b"}}],
        }
    )
    command_id = batch["commands"][0]["id"]

    async def cancel() -> None:
        response = await rig.interface.post(f"/commands/{command_id}/cancel", json={"force": True})
        assert response.status_code == 200, response.text

    rig.clock.during_pause = cancel
    agent = rig.agent()
    await agent.step(await agent.context())
    assert rig.jira_writes() == []
    assert [c["method"] for c in rig.sim.calls if "/comment" in c["path"]] == ["GET"]
    seen = rig.hub_transport.seen
    assert seen[seen.index(f"GET /agent/commands/{command_id}") + 1] == f"POST /agent/commands/{command_id}/report"
    command = await rig.get(f"/commands/{command_id}")
    assert (command["status"], command["result"], command["operations"]) == ("cancelled", None, None)


async def test_a_copy_is_refused_and_a_restart_resumes_at_once(rig: HubRig) -> None:
    """A second process (its own journal) gets 409 while the first holds a command; the first, restarted on its
    journal after being killed in the pause, gets the command again at once and writes once."""
    batch = await rig.batch(
        {
            "author": "тест",
            "title": "срок",
            "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1538", "duedate": "2026-12-01"}}],
        }
    )
    first = rig.agent()
    ctx = await first.context()

    delivery = await first.claim(ctx)
    assert delivery is not None
    first.request_stop()  # killed during the pause: nothing written, the journal names the command
    assert await first.execute(delivery, ctx) == "abandoned"

    copy = rig.agent(journal="copy.json")
    assert copy.instance != first.instance
    with pytest.raises(ClaimConflict) as refused:
        await copy.hub.claim(agent_id="agent-1", instance=copy.instance, version="0.1.0", wait=0)
    assert refused.value.detail.startswith("агент agent-1 уже работает в другом процессе")
    assert refused.value.retry_after is not None and 0 < refused.value.retry_after <= 50

    restarted = rig.agent()
    assert restarted.instance == first.instance
    final = await rig.drain(restarted, batch["id"])
    command = await rig.get(f"/commands/{final['commands'][0]['id']}")
    assert (command["status"], command["deliveries"]) == ("done", 2)
    assert rig.jira_writes() == ["PUT /rest/api/2/issue/AURORA-1538"]


async def test_the_eta_follows_an_agent_stricter_than_the_hub(rig: HubRig) -> None:
    """Issue 32's case: the hub paces every type at 4 s, the bank's agent at ``--min-gap '*=12'``; 3 ensure_comment
    (and the tail refresh). The estimate stays the seed's 16 s; ``eta_seconds`` when the batch is created is
    within 10 % of the run on the fake clock (48 s: four pauses of 12 s); ``remaining_seconds``, looked at every
    second of the run, never goes up, and ends at 0."""
    admin = {"Authorization": f"Bearer {rig.tokens['admin']}"}
    pacing = {"pacing": dict.fromkeys(DEFAULT_PACING, 4)}
    assert (await rig.interface.patch("/settings", json=pacing, headers=admin)).status_code == 200
    agent = rig.agent(policy=AgentPolicy(allow_projects=("AURORA",), min_gap={"*": 12.0}))
    ctx = await agent.context()
    await agent.step(ctx)  # the idle agent's long poll: nothing queued, its pace told
    comments = [
        {"type": "ensure_comment", "params": {"key": key, "marker": f"[eta-{n}]", "body": "темп банка"}}
        for n, key in enumerate(("AURORA-1533", "AURORA-1537", "AURORA-1538"))
    ]
    batch = await rig.batch({"author": "тест", "title": "темп", "commands": comments})
    assert batch["estimate_seconds"] == 16
    seen: list[tuple[float, float]] = []

    async def look() -> None:
        progress = (await rig.get(f"/batches/{batch['id']}"))["progress"]
        seen.append((rig.clock.monotonic(), progress["remaining_seconds"]))

    await look()
    eta = (await rig.get(f"/batches/{batch['id']}"))["progress"]["eta_seconds"]
    rig.clock.watch = look
    final = await rig.drain(agent, batch["id"])
    rig.clock.watch = None
    run = final["progress"]["elapsed_seconds"]
    assert [c["status"] for c in final["commands"]] == ["done"] * 4
    assert run == 48
    assert abs(eta - run) <= 0.1 * run, (eta, run)
    remaining = [r for _, r in seen]
    assert len(remaining) > 40
    assert all(later <= earlier + 0.001 for earlier, later in itertools.pairwise(remaining)), seen
    assert final["progress"]["remaining_seconds"] == 0


async def test_no_two_writes_closer_than_their_gap(rig: HubRig) -> None:
    """A transition path (3 writes), a replaced link (2), a field and a comment at the seed's gaps: on the fake clock
    that the simulator stamps its calls with too, every two Jira writes are at least the later command's gap apart
    (30 s, 120 s before the field) — inside a command as between two."""
    rig.sim = Simulator(clock=lambda: HUB_EPOCH + timedelta(seconds=rig.clock.monotonic()))
    rig.jira_transport = FlakyTransport(httpx.ASGITransport(app=rig.sim.asgi))
    path = ["Разработка", "Тестирование", "Готово"]
    link = {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные", "replace": True}
    commands = [
        {"type": "ensure_status", "params": {"key": "AURORA-1446", "target": path}},
        {"type": "ensure_link", "params": link},
        {"type": "ensure_fields", "params": {"key": "AURORA-1538", "priority": "High"}},
        {"type": "ensure_comment", "params": {"key": "AURORA-1538", "marker": "[m]", "body": "темп"}},
    ]
    batch = await rig.batch({"author": "тест", "title": "темп", "commands": commands})
    final = await rig.drain(rig.agent(), batch["id"])
    assert [c["status"] for c in final["commands"]] == ["done"] * 5
    writes = [
        (c["path"], datetime.fromisoformat(c["at"].replace("Z", "+00:00")))
        for c in rig.sim.calls
        if c["method"] != "GET" and not c["path"].endswith("/search")
    ]
    assert len(writes) == 7
    gaps = [(b[0], (b[1] - a[1]).total_seconds()) for a, b in itertools.pairwise(writes)]
    wanted = {"/rest/api/2/issue/AURORA-1538": 120.0}
    assert all(seconds >= wanted.get(path, 30.0) for path, seconds in gaps), gaps
