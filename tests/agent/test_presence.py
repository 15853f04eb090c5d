"""The agent is never silent (DESIGN.md 5.6): during every wait it tells the hub it is alive at least every
``claim_wait_seconds / 2``, and while Jira is retried it says so — on the fake clock, against the in-process
simulator and a hub speaking the agent endpoints."""

from __future__ import annotations

import io
import itertools
import logging
from pathlib import Path
from typing import Any

import pytest

from adapters.clock import FakeClock
from adapters.logs import configure_logging, fields_of
from agent_app.presence import heartbeat_interval
from reconcile.config.settings import Settings

from .agent_fakes import LEAD, FakeHub, Fault, command, waited
from .test_loop import Rig

pytestmark = pytest.mark.anyio

STATUS = "POST /agent/status"


def delivered(command_id: int, type: str, params: dict[str, Any], pause: float, *, claim_wait: float) -> dict[str, Any]:
    """A command whose delivery context carries the hub's ``claim_wait_seconds``."""
    body = command(command_id, type, params, pause)
    body["context"] = {**Settings().agent_context(), "claim_wait_seconds": claim_wait}
    return body


def rig_with_timeline(tmp_path: Path, hub: FakeHub, **kwargs: Any) -> Rig:
    clock = FakeClock(start=1000.0)
    hub.clock = clock.monotonic
    return Rig(tmp_path, hub, clock=clock, **kwargs)


def longest_silence(hub: FakeHub) -> float:
    """The longest time between two requests the hub received, from the claim to the report."""
    times = [t for t, _ in hub.timeline]
    return max(b - a for a, b in itertools.pairwise(times))


def test_the_interval_is_half_the_hubs_claim_wait() -> None:
    """The context's claim_wait_seconds halved; the setting's default (25 s) when the hub sent none or nonsense."""
    assert heartbeat_interval({"claim_wait_seconds": 4}) == 2.0
    assert heartbeat_interval({}) == 12.5
    assert heartbeat_interval({"claim_wait_seconds": True}) == 12.5
    assert heartbeat_interval({"claim_wait_seconds": -3}) == 12.5


async def test_heartbeats_during_the_pause_before_a_command(tmp_path: Path) -> None:
    """An 11 s pause with claim_wait_seconds 4: a heartbeat every 2 s, the hub never 2 s without word (the last
    second is cut at the fence's lead, where the delivery check goes out)."""
    params = {"key": "AURORA-1533", "duedate": "2026-12-01"}
    hub = FakeHub(queue=[delivered(70, "ensure_fields", params, 11, claim_wait=4)])
    rig = rig_with_timeline(tmp_path, hub)
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert waited(rig.clock.sleeps) == [2.0] * 5 + [1.0 - LEAD, LEAD]
    assert [(t - 1000.0, r) for t, r in hub.timeline if r == STATUS] == [(2.0 * n, STATUS) for n in range(1, 6)]
    assert longest_silence(hub) == 2.0
    assert [p["last_error"] for p in hub.problems] == [None] * 5
    assert [c for c, _ in hub.reports] == [70]


async def test_heartbeats_during_a_pause_between_two_writes(tmp_path: Path) -> None:
    """A two-step status path paced 5 s with claim_wait_seconds 4: both pauses heartbeat every 2 s."""
    params = {"key": "AURORA-1537", "target": ["Разработка", "Тестирование", "Готово"]}
    hub = FakeHub(queue=[delivered(71, "ensure_status", params, 5, claim_wait=4)])
    rig = rig_with_timeline(tmp_path, hub)
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.jira_writes() == ["POST /rest/api/2/issue/AURORA-1537/transitions"] * 2
    assert hub.requests.count(STATUS) == 4
    assert longest_silence(hub) <= 2.0
    assert sum(rig.clock.sleeps) == pytest.approx(10.0)


async def test_a_retried_503_is_shown_and_heartbeats_then_cleared(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Jira answers a write 503 twice (Retry-After 30): each try is logged in one English line and shown as
    last_error «Jira ответила 503, повтор N из 5 через 30 с» at once and at every heartbeat of its wait;
    the write then goes through and, the command over, nothing is shown any more."""
    caplog.set_level(logging.INFO, logger="agent_app")
    params = {"key": "AURORA-1533", "duedate": "2026-12-01"}
    hub = FakeHub(queue=[command(72, "ensure_fields", params, 0)])
    rig = rig_with_timeline(tmp_path, hub)
    rig.sim.add_fault(method="PUT", path_regex="/issue/AURORA-1533$", status=503, retry_after=30, times=2)
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    first, second = (f"Jira ответила 503, повтор {n} из 5 через 30 с" for n in (1, 2))
    assert [p["last_error"] for p in hub.problems] == [first] * 3 + [second] * 3
    assert rig.clock.sleeps == [12.5, 12.5, 5.0] * 2
    assert longest_silence(hub) <= 12.5
    retries = [fields_of(r) for r in caplog.records if r.getMessage() == "jira_retry"]
    assert retries == [
        {
            "command_id": 72,
            "method": "PUT",
            "path": "/rest/api/2/issue/AURORA-1533",
            "status": 503,
            "attempt": n,
            "of": 5,
            "retry_in_seconds": 30.0,
        }
        for n in (1, 2)
    ]
    assert hub.reports[0][1]["status"] == "done"
    assert hub.reports[0][1]["jira_calls"] == 4
    assert rig.agent.last_error is None


async def test_heartbeats_while_the_hub_refuses_a_page(tmp_path: Path) -> None:
    """The hub loses a refresh's page five times: the backoff waits heartbeat (claim_wait_seconds 2), so the hub
    never goes a second without word from the agent; the page then goes through."""
    hub = FakeHub(queue=[delivered(73, "refresh", {"keys": ["AURORA-1538"], "boards": []}, 0, claim_wait=2)])
    rig = rig_with_timeline(tmp_path, hub)
    rig.hub_transport.faults.append(Fault("POST", r"/pages$", "before", times=5))
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert sum(rig.clock.sleeps) > 5.0
    assert hub.requests.count(STATUS) >= 5
    assert longest_silence(hub) <= 1.0
    assert {c for c, _ in hub.pages} == {73}
    assert hub.reports[0][1]["status"] == "done"


async def test_heartbeats_while_a_report_waits_for_the_hub(tmp_path: Path) -> None:
    """The hub loses a report five times: its backoff waits heartbeat too (claim_wait_seconds 2)."""
    hub = FakeHub(queue=[delivered(74, "ensure_fields", {"key": "AURORA-1538", "priority": "High"}, 0, claim_wait=2)])
    rig = rig_with_timeline(tmp_path, hub)
    rig.hub_transport.faults.append(Fault("POST", "/report$", "before", times=5))
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert hub.requests.count(STATUS) >= 5
    assert longest_silence(hub) <= 1.0
    assert [c for c, _ in hub.reports] == [74]


async def test_a_refused_claim_does_not_heartbeat(tmp_path: Path) -> None:
    """Waiting after a 409 (another agent is active) tells the hub nothing: that wait must not keep this agent
    looking alive."""
    hub = FakeHub(claim_answers=[409], retry_after="30")
    rig = rig_with_timeline(tmp_path, hub)
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.clock.sleeps == [30.0]
    assert hub.requests == ["POST /agent/claim", "POST /agent/claim"]


class StoppingClock(FakeClock):
    """A fake clock that asks the agent to stop at its ``limit``-th sleep (the agent would back off for ever)."""

    def __init__(self, limit: int) -> None:
        super().__init__(start=1000.0)
        self.limit = limit
        self.agent: Any = None

    async def sleep(self, seconds: float) -> None:
        await super().sleep(seconds)
        if len(self.sleeps) >= self.limit and self.agent is not None:
            self.agent.request_stop()


@pytest.mark.usefixtures("logging_restored")
async def test_a_token_written_as_the_urls_user_reaches_neither_the_hub_nor_the_log(tmp_path: Path) -> None:
    """``--jira http://PAT@jira`` while Jira cannot be reached: ``last_error`` and every log line name the URL
    with its userinfo hidden (issue 24 item 12)."""
    pat = "N2Y5MzE0OTk3OTg2OkRlbW9QQVQ"
    stream = io.StringIO()
    configure_logging("DEBUG", fmt="json", stream=stream)
    clock = StoppingClock(limit=2)
    hub = FakeHub()
    rig = Rig(tmp_path, hub, clock=clock, jira_url=f"http://{pat}@jira")
    clock.agent = rig.agent
    rig.jira_transport.faults.append(Fault("GET", r"/myself$", "before", times=10))
    await rig.agent.run()
    await rig.close()
    assert [p["last_error"] for p in hub.problems] == [
        "cannot connect to jira at http://***@jira (ConnectError: fault injected before sending): check the host "
        "and port in --jira and the proxy (--jira-proxy or HTTPS_PROXY/NO_PROXY)"
    ] * 2
    assert pat not in stream.getvalue()
    assert "http://***@jira" in stream.getvalue()


async def test_the_hub_hears_at_once_what_is_really_left_of_the_pause(tmp_path: Path) -> None:
    """An 11 s gap whose Jira call was 8 s ago: the agent waits 3 s, not 11, and tells the hub so at once (not at
    its next heartbeat); every heartbeat while it holds the command says which and what is left."""
    params = {"key": "AURORA-1533", "duedate": "2026-12-01"}
    hub = FakeHub(queue=[delivered(72, "ensure_fields", params, 11, claim_wait=4)])
    rig = rig_with_timeline(tmp_path, hub)
    ctx = await rig.agent.context()
    rig.clock.advance(8)
    await rig.agent.step(ctx)
    await rig.close()
    assert hub.problems[0]["pause_command_id"] == 72
    assert hub.problems[0]["pause_left_seconds"] == pytest.approx(3.0)
    assert next(t - 1008.0 for t, r in hub.timeline if r == STATUS) == 0.0
    assert all(p["pause_command_id"] == 72 for p in hub.problems)


async def test_a_whole_pause_is_not_told_twice(tmp_path: Path) -> None:
    """The pause the hub assumes (its gap since the delivery) needs no word at once: heartbeats carry it."""
    params = {"key": "AURORA-1533", "duedate": "2026-12-01"}
    hub = FakeHub(queue=[delivered(73, "ensure_fields", params, 5, claim_wait=4)])
    rig = rig_with_timeline(tmp_path, hub)
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert [(t - 1000.0) for t, r in hub.timeline if r == STATUS] == [2.0, 4.0]
    assert [p["pause_left_seconds"] for p in hub.problems] == [3.0, 1.0]
