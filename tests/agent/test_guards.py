"""The agent's guards (DESIGN.md 5.4, 5.6) against a hub speaking the agent endpoints and the simulator: a command
no longer held by this delivery is never written, the question costs the pacing nothing, and a second process
waits for the hub's word before claiming again."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from adapters.clock import FakeClock
from adapters.logs import fields_of
from agent_app.journal import Journal, JournalBusy
from tests.support import seed_result

from .agent_fakes import LEAD, FakeHub, Fault, command, waited
from .test_loop import Rig

pytestmark = pytest.mark.anyio


class HookedClock(FakeClock):
    """A fake clock that runs ``on_sleep`` (once) at the first sleep: something happens during a pause."""

    def __init__(self) -> None:
        super().__init__(start=1000.0)
        self.on_sleep: Callable[[], Awaitable[None]] | None = None

    async def sleep(self, seconds: float) -> None:
        hook, self.on_sleep = self.on_sleep, None
        if hook is not None:
            await hook()
        await super().sleep(seconds)


def _cancel(hub: FakeHub, command_id: int) -> Callable[[], Awaitable[None]]:
    async def cancel() -> None:
        hub.statuses[command_id] = "cancelled"
        hub.claimed = None

    return cancel


async def test_cancelled_during_the_pause_is_never_written(tmp_path: Path) -> None:
    """Force-cancelled while the agent waits its pause: it asks before writing, writes nothing, reports 0 ops."""
    hub = FakeHub(queue=[command(60, "ensure_comment", {"key": "AURORA-1533", "marker": "[m]", "body": "b"}, 30)])
    clock = HookedClock()
    rig = Rig(tmp_path, hub, clock=clock)
    clock.on_sleep = _cancel(hub, 60)
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.jira_writes() == []
    assert hub.requests[-2:] == ["GET /agent/commands/60", "POST /agent/commands/60/report"]
    assert hub.reports == [
        (
            60,
            {
                "status": "failed",
                "result": {},
                "error": "команда 60 уже cancelled: запись в Jira отменена",
                "jira_calls": 1,
                "operations": [],
            },
        )
    ]
    assert rig.journal.read() is None


async def test_cancelled_between_two_writes_stops_there(tmp_path: Path) -> None:
    """A two-step status path cancelled during the pause between its writes: the first write stays the only one."""
    params = {"key": "AURORA-1537", "target": ["Разработка", "Тестирование", "Готово"]}
    hub = FakeHub(queue=[command(61, "ensure_status", params, 30)])
    clock = HookedClock()

    def after_the_first_write(_: object) -> None:
        clock.on_sleep = _cancel(hub, 61)  # the pause between the two transitions

    first_write = Fault("POST", r"/transitions$", "pass", hook=after_the_first_write)
    rig = Rig(tmp_path, hub, clock=clock, jira_faults=[first_write])
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert waited(clock.sleeps[:4]) == [12.5, 12.5, 5.0 - LEAD, LEAD]
    assert sum(clock.sleeps[4:]) == pytest.approx(30.0)
    assert rig.jira_writes() == ["POST /rest/api/2/issue/AURORA-1537/transitions"]
    report = hub.reports[0][1]
    assert report["error"] == "команда 61 уже cancelled: запись в Jira отменена"
    assert report["operations"] == [
        {"method": "POST", "path": "/rest/api/2/issue/AURORA-1537/transitions", "status": 204}
    ]
    assert seed_result(report["result"]) == {"status": "Тестирование", "transitions": ["На тестирование"]}


async def test_taken_over_command_is_dropped_without_a_report(tmp_path: Path) -> None:
    """The hub re-issued the command to another process: nothing written, no report, the journal cleared."""
    hub = FakeHub(queue=[command(62, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-12-01"}, 30)])
    clock = HookedClock()
    rig = Rig(tmp_path, hub, clock=clock)

    async def take_over() -> None:
        hub.active_instance = "another-process"  # still claimed on the hub, but issued to another process now

    clock.on_sleep = take_over
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.jira_writes() == []
    assert hub.reports == []
    assert rig.journal.read() is None


async def test_a_command_without_writes_is_asked_about_once_and_writes_nothing(tmp_path: Path) -> None:
    """A command that needs no write (the summary is already there) is asked about once, alongside its read
    (the answer is not awaited by anything), and reported done with nothing written."""
    hub = FakeHub(queue=[command(63, "ensure_fields", {"key": "AURORA-1533", "summary": "x"}, 0)])
    rig = Rig(tmp_path, hub)
    sim_issue = rig.sim.raw_issue("AURORA-1533")
    hub.queue[0]["params"]["summary"] = sim_issue["summary"]
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert hub.requests.count("GET /agent/commands/63") <= 1
    assert rig.jira_writes() == []
    assert hub.reports[0][1]["result"] == {"changed": []}


async def test_a_refresh_is_never_asked_about(tmp_path: Path) -> None:
    """A refresh never writes to Jira, so the hub is never asked whether it may."""
    hub = FakeHub(queue=[command(65, "refresh", {"keys": ["AURORA-1538"], "boards": []}, 0)])
    rig = Rig(tmp_path, hub)
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert [r for r in hub.requests if r.startswith("GET ")] == []
    assert hub.reports[0][1]["status"] == "done"


async def test_claim_conflict_waits_the_hubs_retry_after(tmp_path: Path) -> None:
    """409 with Retry-After 7: the agent asks again after 7 s, not a long poll later."""
    hub = FakeHub(claim_answers=[409], retry_after="7")
    rig = Rig(tmp_path, hub)
    rig.agent.claim_wait = 25
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.clock.sleeps == [7.0]


def test_the_journal_keeps_its_instance(tmp_path: Path) -> None:
    """The instance is made once and survives entries, clears and new Journal objects (a restart)."""
    journal = Journal(tmp_path / "j.json")
    instance = journal.instance()
    assert len(instance) == 32
    journal.begin(command_id=1, type="refresh", deliveries=1)
    journal.clear()
    assert Journal(tmp_path / "j.json").instance() == instance
    assert Journal(tmp_path / "other.json").instance() != instance


def test_one_process_per_journal(tmp_path: Path) -> None:
    """A second holder of the same journal's lock is refused; after the first lets go, it may take it."""
    first, second = Journal(tmp_path / "j.json"), Journal(tmp_path / "j.json")
    with first.lock(), pytest.raises(JournalBusy, match=r"is held by another agent process"), second.lock():
        pass
    with second.lock():
        pass


async def test_a_command_the_hub_no_longer_has_is_dropped(tmp_path: Path) -> None:
    """The hub answers 404 before the write (its database was reset): nothing written, the drop reported."""
    hub = FakeHub(queue=[command(64, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-12-01"}, 30)])
    clock = HookedClock()
    rig = Rig(tmp_path, hub, clock=clock)

    async def forget() -> None:
        hub.statuses.pop(64)
        hub.issued.pop(64)
        hub.claimed = None

    clock.on_sleep = forget
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.jira_writes() == []
    assert hub.reports[0][1]["error"] == "команды 64 нет на хабе: запись в Jira отменена"


async def test_a_superseded_delivery_is_dropped_without_a_write_or_a_report(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The hub issued the command again while this delivery waited its pause (it answers deliveries 2 to a
    delivery 1): nothing is written, the later delivery settles the command, the journal is cleared."""
    caplog.set_level(logging.INFO, logger="agent_app")
    hub = FakeHub(queue=[command(66, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-12-01"}, 30)])
    clock = HookedClock()
    rig = Rig(tmp_path, hub, clock=clock)

    async def deliver_again() -> None:
        assert hub.claimed is not None
        hub.claimed["deliveries"] += 1

    clock.on_sleep = deliver_again
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.jira_writes() == []
    assert hub.reports == []
    assert rig.journal.read() is None
    lines = [fields_of(r) for r in caplog.records if r.getMessage() == "command"]
    assert [(line["outcome"], line["error"]) for line in lines] == [
        ("taken_over", "доставка 1 команды 66 заменена доставкой 2: запись отменена")
    ]


async def test_the_check_goes_out_alongside_the_reads(tmp_path: Path) -> None:
    """The delivery check is asked when the command starts, not after its reads: the hub holds its answer until
    Jira has seen the command's read, and the command still writes (a check asked after the reads would wait for
    ever)."""
    read_seen = anyio.Event()

    async def answer_after_the_read(_: object) -> None:
        await read_seen.wait()

    hub = FakeHub(queue=[command(67, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-12-01"}, 0)])
    read = Fault("GET", r"/issue/AURORA-1533$", "pass", hook=lambda _: read_seen.set())
    rig = Rig(tmp_path, hub, jira_faults=[read])
    rig.hub_transport.faults.append(Fault("GET", r"/agent/commands/67$", "pass", hook=answer_after_the_read))
    with anyio.fail_after(5):
        await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.jira_writes() == ["PUT /rest/api/2/issue/AURORA-1533"]
    assert hub.reports[0][1]["status"] == "done"


class YieldingClock(FakeClock):
    """A fake clock that lets every task ready to run go as far as it can before time moves (as a real sleep
    would): a request started before a sleep reaches the hub at the time it was started."""

    async def sleep(self, seconds: float) -> None:
        for _ in range(50):
            await anyio.lowlevel.checkpoint()
        await super().sleep(seconds)


async def test_after_a_pause_the_check_is_answered_by_the_pause_end(tmp_path: Path) -> None:
    """The check is asked within the fence's lead before each pause ends — the pause before the command and the
    30 s between its two transitions — so each write follows its pause at once: 30 s after the first, to the
    clock."""
    clock = YieldingClock(start=1000.0)
    params = {"key": "AURORA-1537", "target": ["Разработка", "Тестирование", "Готово"]}
    hub = FakeHub(queue=[command(68, "ensure_status", params, 30)], clock=clock.monotonic)
    writes: list[float] = []
    rig = Rig(
        tmp_path,
        hub,
        clock=clock,
        jira_faults=[Fault("POST", r"/transitions$", "pass", times=2, hook=lambda _: writes.append(clock.monotonic()))],
    )
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    checks = [t for t, r in hub.timeline if r == "GET /agent/commands/68"]
    assert len(checks) == 2
    assert 0 < writes[0] - checks[0] <= rig.agent.fence.lead
    assert 0 < writes[1] - checks[1] <= rig.agent.fence.lead
    assert writes[1] - writes[0] == pytest.approx(30.0)
