"""The agent's loop: journal, claim, pause, execute, report — against the in-process Jira simulator
(real JiraHttp over ASGI), a hub speaking the agent endpoints, and a fake clock (no real sleeps)."""

from __future__ import annotations

import io
import json
import logging
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from adapters.clock import FakeClock
from adapters.hub_client import HubClient
from adapters.jira_http import JiraHttp
from adapters.logs import configure_logging, fields_of
from agent_app.journal import Journal, JournalEntry
from agent_app.loop import Agent, AgentFatal
from agent_app.retry import Backoff, backoff_delay
from jira_sim import Simulator
from reconcile.guard.policy import AgentPolicy
from reconcile.types.binding import executor_for

from .agent_fakes import AURORA_ONLY, LEAD, FakeHub, Fault, FlakyTransport, command, waited

pytestmark = pytest.mark.anyio

#: The policy of these agents: the sample's Jira project only (DESIGN.md 5.5).

SEED = 20261022


class Rig:
    """One agent wired to a simulator and a hub, with faults on either side and a shared fake clock."""

    def __init__(
        self,
        tmp_path: Path,
        hub: FakeHub,
        *,
        jira_faults: list[Fault] | None = None,
        jira_token: str = "pat",
        clock: FakeClock | None = None,
        policy: AgentPolicy = AURORA_ONLY,
        jira_url: str = "http://jira",
    ) -> None:
        self.sim = Simulator()
        self.clock = clock or FakeClock(start=1000.0)
        self.hub = hub
        self.hub_transport = FlakyTransport(hub.transport())
        self.jira_transport = FlakyTransport(httpx.ASGITransport(app=self.sim.asgi), jira_faults)
        self.jira = JiraHttp.connect(jira_url, token=jira_token, clock=self.clock, transport=self.jira_transport)
        self.hub_client = HubClient("http://hub", "agent-secret", transport=self.hub_transport)
        self.journal = Journal(tmp_path / "journal.json")
        self.agent = Agent(
            hub=self.hub_client,
            jira=self.jira,
            journal=self.journal,
            clock=self.clock,
            agent_id="agent-1",
            version="0.1.0",
            claim_wait=0,
            rng=random.Random(SEED),
            policy=policy,
            executor_for=executor_for,
        )

    def jira_writes(self) -> list[str]:
        return [s for s in self.jira_transport.seen if not s.startswith("GET ") and not s.endswith("/search")]

    async def close(self) -> None:
        await self.hub_client.aclose()
        await self.jira.aclose()


@pytest.fixture
def command_lines(caplog: pytest.LogCaptureFixture) -> Callable[[], list[dict[str, Any]]]:
    """Reads the agent's ``command`` events (the event name and its fields) logged so far."""
    caplog.set_level(logging.INFO, logger="agent_app")

    def read() -> list[dict[str, Any]]:
        lines = [{"event": r.getMessage(), **fields_of(r)} for r in caplog.records if r.name.startswith("agent_app")]
        return [line for line in lines if line["event"] == "command"]

    return read


class HangingClock(FakeClock):
    """A fake clock whose sleeps call ``on_sleep`` and then never end: only a stop request can end them."""

    def __init__(self) -> None:
        super().__init__(start=1000.0)
        self.on_sleep: Callable[[], None] = lambda: None

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.on_sleep()
        await anyio.sleep_forever()


def expected_backoffs(count: int) -> list[float]:
    rng = random.Random(SEED)
    return [backoff_delay(Backoff(), n, rng) for n in range(count)]


async def test_command_paused_executed_reported_and_journal_cleared(tmp_path: Path) -> None:
    """A claimed ensure_fields waits its pause from the last Jira call (telling the hub it is alive every
    claim_wait_seconds / 2 = 12.5 s of it, and asking whether it may write by the pause's end), writes once,
    reports, clears the journal."""
    hub = FakeHub(queue=[command(40, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-12-01"}, 120)])
    rig = Rig(tmp_path, hub)
    ctx = await rig.agent.context()
    await rig.agent.step(ctx)
    await rig.close()
    assert waited(rig.clock.sleeps) == [12.5] * 9 + [7.5 - LEAD, LEAD]
    assert hub.requests == [
        "POST /agent/claim",
        *["POST /agent/status"] * 9,
        "GET /agent/commands/40",
        "POST /agent/commands/40/report",
    ]
    assert hub.reports == [
        (
            40,
            {
                "status": "done",
                "result": {
                    "changed": ["duedate"],
                    "undo": {
                        "changed": {"duedate": {"from": "2026-10-23", "to": "2026-12-01"}},
                        "labels": {"added": [], "removed": []},
                    },
                },
                "jira_calls": 2,
                "operations": [{"method": "PUT", "path": "/rest/api/2/issue/AURORA-1533", "status": 204}],
            },
        )
    ]
    assert rig.journal.read() is None
    assert rig.sim.raw_issue("AURORA-1533")["duedate"] == "2026-12-01"


async def test_claim_carries_jira_identity(tmp_path: Path) -> None:
    """Every claim sends jira_user, its time zone, Jira's address (serverInfo's baseUrl), the symmetric link
    types read from Jira, the journal's instance and the bank's pace (no floors, no budget here)."""
    rig = Rig(tmp_path, FakeHub())
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.hub.claims == [
        {
            "agent_id": "agent-1",
            "instance": rig.journal.instance(),
            "version": "0.1.0",
            "jira_user": "bridge-user",
            "jira_time_zone": "Europe/Moscow",
            "jira_base_url": "http://jira",
            "symmetric_link_types": ["Связанные"],
            "wait": 0,
            "policy": {"min_gap": {}, "max_writes_per_hour": 0},
        }
    ]


async def test_empty_queue_means_no_pause(tmp_path: Path) -> None:
    """Nothing queued: the claim answers 204 and the agent does not sleep (seed: «Нет следующей команды»)."""
    rig = Rig(tmp_path, FakeHub())
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.clock.sleeps == []
    assert rig.hub.requests == ["POST /agent/claim"]


async def test_unacknowledged_report_is_sent_before_any_claim(tmp_path: Path) -> None:
    """On start, a report left in the journal goes to the hub first, then the entry is cleared."""
    issued = {**command(5, "ensure_issue", {"temp_key": "new:5", "summary": "Отчёт"}), "deliveries": 1}
    hub = FakeHub(issued={5: issued}, statuses={5: "claimed"})  # issued before the agent stopped
    rig = Rig(tmp_path, hub)
    report = {"status": "done", "result": {"key": "AURORA-1561", "created": True}, "jira_calls": 2, "operations": []}
    rig.journal.write(JournalEntry(command_id=5, type="ensure_issue", deliveries=1, report=report))

    async def stop_at_claim() -> None:
        rig.agent.request_stop()
        await anyio.Event().wait()

    hub.claim_answers.append(stop_at_claim)
    await rig.agent.run()
    await rig.close()
    assert hub.requests[:2] == ["POST /agent/commands/5/report", "POST /agent/claim"]
    assert hub.reports == [(5, report)]
    assert rig.journal.read() is None


async def test_report_retried_with_backoff_kept_in_journal(tmp_path: Path) -> None:
    """While the hub is unreachable the report stays in the journal and is retried with jittered backoff."""
    hub = FakeHub(queue=[command(41, "ensure_comment", {"key": "AURORA-1538", "marker": "[план]", "body": "Срок"})])
    rig = Rig(tmp_path, hub)
    seen_in_journal: list[JournalEntry | None] = []
    rig.hub_transport.faults.append(
        Fault("POST", "/report$", "before", times=3, hook=lambda _: seen_in_journal.append(rig.journal.read()))
    )
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.clock.sleeps == expected_backoffs(3)
    assert all(entry is not None and entry.command_id == 41 and entry.report for entry in seen_in_journal)
    assert len(seen_in_journal) == 3
    assert [c for c, _ in hub.reports] == [41]
    assert hub.reports[0][1]["result"]["action"] == "created"
    assert rig.journal.read() is None


async def test_lost_answer_to_a_report_is_resent_idempotently(tmp_path: Path) -> None:
    """The hub processed the report but the answer was lost: the agent sends it again and accepts the ack."""
    hub = FakeHub(queue=[command(42, "ensure_fields", {"key": "AURORA-1538", "priority": "High"})])
    rig = Rig(tmp_path, hub)
    rig.hub_transport.faults.append(Fault("POST", "/report$", "after", error=httpx.ReadError))
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert [c for c, _ in hub.reports] == [42, 42]
    assert rig.journal.read() is None


async def test_jira_dropped_mid_create_is_not_reported_and_redelivery_finds_the_issue(
    tmp_path: Path, command_lines: Callable[[], list[dict[str, Any]]]
) -> None:
    """A connection dropped after Jira created the issue: no failed report; re-delivery finds it, one issue."""
    params = {"temp_key": "new:5", "issue_type": "task", "summary": "Отчёт", "labels": ["AWPCA"]}
    hub = FakeHub(queue=[command(43, "ensure_issue", params)])
    rig = Rig(
        tmp_path, hub, jira_faults=[Fault("POST", r"/rest/api/2/issue$", "after", error=httpx.RemoteProtocolError)]
    )
    ctx = await rig.agent.context()
    await rig.agent.step(ctx)
    assert hub.reports == []
    assert rig.journal.read() == JournalEntry(command_id=43, type="ensure_issue", deliveries=1, report=None)
    await rig.agent.step(ctx)
    await rig.close()
    assert len(hub.reports) == 1
    command_id, body = hub.reports[0]
    assert (command_id, body["status"], body["result"]["created"]) == (43, "done", False)
    assert rig.jira_writes() == ["POST /rest/api/2/issue"]
    assert rig.sim.raw_issue(body["result"]["key"])["summary"] == "Отчёт"
    outcomes = [(line["command_id"], line["deliveries"], line["outcome"]) for line in command_lines()]
    assert outcomes == [(43, 1, "jira_unreachable"), (43, 2, "done")]


async def test_jira_outage_probed_before_claiming_again(tmp_path: Path) -> None:
    """After a dropped connection the agent probes Jira (GET /myself) with backoff before the next claim."""
    hub = FakeHub(queue=[command(44, "ensure_status", {"key": "AURORA-1538", "target": "Разработка"})])
    rig = Rig(tmp_path, hub)
    ctx = await rig.agent.context()
    rig.jira_transport.faults += [
        Fault("GET", r"/issue/AURORA-1538$", "before"),
        Fault("GET", r"/myself$", "before", times=2),
    ]
    await rig.agent.step(ctx)
    await rig.close()
    assert rig.clock.sleeps == expected_backoffs(3)
    assert rig.jira_transport.seen[-3:] == ["GET /rest/api/2/myself"] * 3
    # What stalls the agent is told to the hub at each wait (it counts as online meanwhile), naming Jira's URL;
    # the delivery check went out alongside the read that failed.
    assert hub.requests == ["POST /agent/claim", "GET /agent/commands/44", *["POST /agent/status"] * 3]
    assert [p["last_error"] for p in hub.problems] == [
        "cannot connect to jira at http://jira (ConnectError: fault injected before sending): check the host and "
        "port in --jira and the proxy (--jira-proxy or HTTPS_PROXY/NO_PROXY)"
    ] * 3
    assert rig.agent.last_error is None


async def test_pause_counts_from_last_jira_call(tmp_path: Path) -> None:
    """Two commands: the second waits its pause from the first one's last Jira call, no more."""
    hub = FakeHub(
        queue=[
            command(45, "ensure_fields", {"key": "AURORA-1538", "priority": "High"}, 120),
            command(46, "ensure_comment", {"key": "AURORA-1538", "marker": "[m]", "body": "b"}, 30),
        ]
    )
    rig = Rig(tmp_path, hub)
    ctx = await rig.agent.context()
    await rig.agent.step(ctx)
    rig.clock.advance(10)  # the hub took 10 s to answer the next claim
    await rig.agent.step(ctx)
    await rig.close()
    assert waited(rig.clock.sleeps) == [12.5] * 9 + [7.5 - LEAD, LEAD] + [12.5, 7.5 - LEAD, LEAD]
    assert [c for c, _ in hub.reports] == [45, 46]


async def test_stop_abandons_a_long_poll_at_once(tmp_path: Path) -> None:
    """A stop request during a waiting claim ends the loop without waiting for the hub's answer."""
    rig = Rig(tmp_path, FakeHub())
    never = anyio.Event()

    async def long_poll() -> None:
        rig.agent.request_stop()
        await never.wait()

    rig.hub.claim_answers.append(long_poll)
    with anyio.fail_after(5):
        await rig.agent.run()
    await rig.close()
    assert rig.journal.read() is None
    assert rig.hub.reports == []


async def test_stop_while_executing_finishes_and_reports(tmp_path: Path) -> None:
    """A first stop request during a command lets it finish and be reported; no further claim."""
    hub = FakeHub(queue=[command(47, "ensure_fields", {"key": "AURORA-1538", "priority": "High"})])
    rig = Rig(tmp_path, hub)
    rig.jira_transport.faults.append(
        Fault("PUT", r"/issue/AURORA-1538$", "pass", hook=lambda _: rig.agent.request_stop())
    )
    await rig.agent.run()
    await rig.close()
    assert [c for c, _ in hub.reports] == [47]
    assert hub.requests.count("POST /agent/claim") == 1
    assert rig.journal.read() is None


async def test_second_stop_abandons_keeping_the_journal(
    tmp_path: Path, command_lines: Callable[[], list[dict[str, Any]]]
) -> None:
    """Two stop requests abandon the command in hand: nothing reported, the journal still names it."""
    hub = FakeHub(queue=[command(48, "ensure_fields", {"key": "AURORA-1538", "priority": "High"})])
    rig = Rig(tmp_path, hub)

    async def stop_twice(_: httpx.Request) -> None:
        rig.agent.request_stop()
        rig.agent.request_stop()
        await anyio.Event().wait()  # Jira hangs; the second stop must not wait for it

    rig.jira_transport.faults.append(Fault("GET", r"/issue/AURORA-1538$", "pass", hook=stop_twice))
    await rig.agent.run()
    await rig.close()
    assert hub.reports == []
    assert rig.journal.read() == JournalEntry(command_id=48, type="ensure_fields", deliveries=1)
    assert [(line["command_id"], line["outcome"]) for line in command_lines()] == [(48, "abandoned")]


async def test_stop_with_the_hub_away_mid_refresh_abandons_at_once(
    tmp_path: Path, command_lines: Callable[[], list[dict[str, Any]]]
) -> None:
    """One stop request while a refresh page cannot reach the hub: the command is abandoned, the journal keeps it."""
    hub = FakeHub(queue=[command(49, "refresh", {"keys": ["AURORA-1538"], "boards": []})])
    rig = Rig(tmp_path, hub)
    rig.hub_transport.faults.append(
        Fault("POST", r"/pages$", "before", times=1000, hook=lambda _: rig.agent.request_stop())
    )
    await rig.agent.run()
    await rig.close()
    assert hub.reports == []
    assert rig.journal.read() == JournalEntry(command_id=49, type="refresh", deliveries=1)
    assert [(line["command_id"], line["outcome"]) for line in command_lines()] == [(49, "abandoned")]
    assert rig.hub_transport.seen.count("POST /agent/commands/49/pages") == 1


async def test_stop_during_a_page_backoff_abandons_at_once(
    tmp_path: Path, command_lines: Callable[[], list[dict[str, Any]]]
) -> None:
    """A stop request while waiting to post a refresh page again ends the wait at once: abandoned, journal kept."""
    hub = FakeHub(queue=[command(53, "refresh", {"keys": ["AURORA-1538"], "boards": []})])
    clock = HangingClock()
    rig = Rig(tmp_path, hub, clock=clock)
    clock.on_sleep = rig.agent.request_stop
    rig.hub_transport.faults.append(Fault("POST", r"/pages$", "before", times=1000))
    with anyio.fail_after(5):
        await rig.agent.run()
    await rig.close()
    assert (len(clock.sleeps), hub.reports) == (1, [])
    assert rig.journal.read() == JournalEntry(command_id=53, type="refresh", deliveries=1)
    assert [(line["command_id"], line["outcome"]) for line in command_lines()] == [(53, "abandoned")]


async def test_jira_refusing_the_agent_while_probed_is_backed_off_and_told(tmp_path: Path) -> None:
    """Jira dropped a call, then answers the probe with 401 twice: the agent backs off (DESIGN.md 5.4), tells
    the hub one line naming Jira's URL and what to check, and claims again once Jira takes it."""
    hub = FakeHub(queue=[command(54, "ensure_status", {"key": "AURORA-1538", "target": "Разработка"})])
    rig = Rig(tmp_path, hub)
    ctx = await rig.agent.context()
    rig.jira_transport.faults += [
        Fault("GET", r"/issue/AURORA-1538$", "before"),
        Fault("GET", r"/myself$", "status", status=401, times=2),
    ]
    await rig.agent.step(ctx)
    await rig.close()
    assert (rig.clock.sleeps, hub.reports) == (expected_backoffs(3), [])
    refused = (
        "jira at http://jira refused the agent's credentials on GET /rest/api/2/myself (HTTP 401): check "
        "the token (SDLC_AGENT_JIRA_TOKEN or SDLC_AGENT_JIRA_TOKEN_FILE) or the user and password"
    )
    assert [p["last_error"] for p in hub.problems] == [
        "cannot connect to jira at http://jira (ConnectError: fault injected before sending): check the host and "
        "port in --jira and the proxy (--jira-proxy or HTTPS_PROXY/NO_PROXY)",
        refused,
        refused,
    ]
    assert rig.journal.read() == JournalEntry(command_id=54, type="ensure_status", deliveries=1)


async def test_a_probe_answered_with_an_error_is_not_jira_taking_the_agent(tmp_path: Path) -> None:
    """After a dropped call, the probe gets 403 (a locked-out user) and then 502 (a proxy in front of Jira):
    neither counts as Jira answering, so no command is claimed meanwhile; each is told to the hub once."""
    hub = FakeHub(queue=[command(55, "ensure_status", {"key": "AURORA-1538", "target": "Разработка"})])
    rig = Rig(tmp_path, hub)
    ctx = await rig.agent.context()
    rig.jira_transport.faults += [
        Fault("GET", r"/issue/AURORA-1538$", "before"),
        Fault("GET", r"/myself$", "status", status=403),
        Fault("GET", r"/myself$", "status", status=502),
    ]
    await rig.agent.step(ctx)
    await rig.close()
    assert rig.clock.sleeps == expected_backoffs(3)
    assert hub.requests == [
        "POST /agent/claim",
        "GET /agent/commands/55",
        "POST /agent/status",
        "POST /agent/status",
        "POST /agent/status",
    ]
    assert [p["last_error"].split(": check")[0] for p in hub.problems] == [
        "cannot connect to jira at http://jira (ConnectError: fault injected before sending)",
        "jira at http://jira refused the agent's credentials on GET /rest/api/2/myself (HTTP 403)",
        "jira at http://jira answered GET /rest/api/2/myself with HTTP 502",
    ]


async def test_claim_conflict_waits_and_retries(tmp_path: Path) -> None:
    """409 on claim (another agent active): the agent waits and claims again."""
    hub = FakeHub(claim_answers=[409])
    rig = Rig(tmp_path, hub)
    rig.agent.claim_wait = 25
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.clock.sleeps == [25.0]
    assert hub.requests == ["POST /agent/claim", "POST /agent/claim"]


async def test_a_404_to_the_claim_is_a_wrong_hub_url_backed_off(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A 404 to the claim (a hub base URL without the path a reverse proxy serves it under): one line naming
    the URL and --hub, a backoff, and the claim again; nothing is sent to the hub as last_error (it is the hub)."""
    caplog.set_level(logging.INFO, logger="agent_app")
    hub = FakeHub(claim_answers=[404, 404])
    rig = Rig(tmp_path, hub)
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.clock.sleeps == expected_backoffs(2)
    assert hub.requests == ["POST /agent/claim"] * 3
    assert [(r.__dict__["target"], r.__dict__["error"]) for r in caplog.records if r.getMessage() == "unreachable"] == [
        (
            "hub",
            "hub at http://hub answered POST /agent/claim with HTTP 404: другой агент активен: check the hub's base "
            "URL (and the path a reverse proxy puts it under) in --hub",
        )
    ]
    assert [r.getMessage() for r in caplog.records if r.getMessage() == "reachable"] == ["reachable"]


async def test_refused_token_is_fatal(tmp_path: Path) -> None:
    """401 from the hub stops the agent with AgentFatal; nothing is executed."""
    rig = Rig(tmp_path, FakeHub())
    rig.hub_client = HubClient("http://hub", "wrong", transport=rig.hub.transport())
    rig.agent.hub = rig.hub_client
    with pytest.raises(AgentFatal) as caught:
        await rig.agent.run()
    await rig.close()
    assert str(caught.value) == (
        "hub at http://hub refused the agent's credentials on POST /agent/claim (HTTP 401: нет токена): "
        "check the agent-role token (SDLC_AGENT_HUB_TOKEN or SDLC_AGENT_HUB_TOKEN_FILE)"
    )


async def test_one_structured_line_per_command(
    tmp_path: Path, command_lines: Callable[[], list[dict[str, Any]]]
) -> None:
    """Each executed command logs one event: command_id, type, key, deliveries, jira_calls, outcome, duration_ms."""
    hub = FakeHub(queue=[command(49, "ensure_status", {"key": "AURORA-1538", "target": "Разработка"}, 30)])
    rig = Rig(tmp_path, hub)
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    lines = command_lines()
    assert lines == [
        {
            "event": "command",
            "command_id": 49,
            "type": "ensure_status",
            "key": "AURORA-1538",
            "deliveries": 1,
            "outcome": "done",
            "duration_ms": 30000,
            "jira_calls": 3,
            "ack": "done",
        }
    ]


async def test_executor_error_is_reported_failed(tmp_path: Path, command_lines: Callable[[], Any]) -> None:
    """An executor that raises (a bug) ends its command as failed with the error, instead of crash-looping."""
    hub = FakeHub(queue=[command(50, "ensure_fields", {"key": "AURORA-1538", "priority": "High"})])
    rig = Rig(tmp_path, hub)

    def broken(delivery: Any, ctx: Any) -> Any:
        raise KeyError("priority")

    rig.agent.executor_for = broken
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert hub.reports == [
        (
            50,
            {
                "status": "failed",
                "result": {},
                "error": "ошибка агента: KeyError: 'priority'",
                "jira_calls": 0,
                "operations": [],
            },
        )
    ]
    assert [line["outcome"] for line in command_lines()] == ["failed"]
    assert rig.journal.read() is None


@pytest.mark.usefixtures("logging_restored")
async def test_no_secret_reaches_the_log(tmp_path: Path) -> None:
    """Commands run at DEBUG through a hub outage and a Jira drop: the log has their events with fields, and
    neither the hub's token nor Jira's (nothing is masked here: nothing may log them in the first place)."""
    jira_token = "jira-pat-5a1f9c0e"
    stream = io.StringIO()
    configure_logging("DEBUG", fmt="json", stream=stream)
    hub = FakeHub(
        queue=[
            command(51, "ensure_fields", {"key": "AURORA-1538", "priority": "High"}),
            command(52, "ensure_comment", {"key": "AURORA-1538", "marker": "[m]", "body": "b"}),
        ]
    )
    rig = Rig(tmp_path, hub, jira_token=jira_token)
    rig.hub_transport.faults.append(Fault("POST", "/report$", "before"))
    ctx = await rig.agent.context()
    await rig.agent.step(ctx)
    rig.jira_transport.faults.append(Fault("GET", r"/comment$", "before"))
    await rig.agent.step(ctx)
    await rig.agent.step(ctx)
    rig.agent.hub = HubClient("http://hub", "wrong-hub-token", transport=hub.transport())
    with pytest.raises(AgentFatal):
        await rig.agent.step(ctx)
    await rig.agent.hub.aclose()
    await rig.close()
    output = stream.getvalue()
    assert [secret for secret in ("agent-secret", jira_token, "wrong-hub-token", "Bearer") if secret in output] == []
    events = [json.loads(line) for line in output.splitlines()]
    ours = [(e["event"], e.get("what"), e.get("command_id"), e.get("outcome")) for e in events]
    assert [e for e in ours if e[0] in ("command", "retry")] == [
        ("retry", "report", None, None),
        ("command", None, 51, "done"),
        ("command", None, 52, "jira_unreachable"),
        ("retry", "jira", None, None),
        ("command", None, 52, "done"),
    ]
    assert {e["logger"] for e in events} >= {"agent_app.loop", "agent_app.retry"}
