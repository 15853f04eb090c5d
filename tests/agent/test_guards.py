"""The agent's guards (DESIGN.md 5.4) against a hub speaking the agent endpoints and the simulator: a command
no longer held is never written, and a second process waits for the hub's word before claiming again."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from agent_fakes import FakeHub, command
from test_loop import Rig

from adapters.clock import FakeClock
from agent_app.journal import Journal, JournalBusy

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
    rig = Rig(tmp_path, hub, clock=clock)

    async def after_the_first_pause() -> None:
        clock.on_sleep = _cancel(hub, 61)  # the pause between the two transitions

    clock.on_sleep = after_the_first_pause
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert clock.sleeps == [30.0, 30.0]
    assert rig.jira_writes() == ["POST /rest/api/2/issue/AURORA-1537/transitions"]
    report = hub.reports[0][1]
    assert report["error"] == "команда 61 уже cancelled: запись в Jira отменена"
    assert report["operations"] == [
        {"method": "POST", "path": "/rest/api/2/issue/AURORA-1537/transitions", "status": 204}
    ]
    assert report["result"] == {"status": "Тестирование", "transitions": ["На тестирование"]}


async def test_taken_over_command_is_dropped_without_a_report(tmp_path: Path) -> None:
    """The hub re-issued the command to another process: nothing written, no report, the journal cleared."""
    hub = FakeHub(queue=[command(62, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-12-01"}, 30)])
    clock = HookedClock()
    rig = Rig(tmp_path, hub, clock=clock)

    async def take_over() -> None:
        hub.claimed = {"id": 999}  # still claimed on the hub, but no longer issued to this process

    clock.on_sleep = take_over
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.jira_writes() == []
    assert hub.reports == []
    assert rig.journal.read() is None


async def test_a_command_without_writes_asks_nothing(tmp_path: Path) -> None:
    """A command that needs no write (the due date is already there) never asks the hub."""
    hub = FakeHub(queue=[command(63, "ensure_fields", {"key": "AURORA-1533", "summary": "x"}, 0)])
    rig = Rig(tmp_path, hub)
    sim_issue = rig.sim.raw_issue("AURORA-1533")
    hub.queue[0]["params"]["summary"] = sim_issue["summary"]
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert "GET /agent/commands/63" not in hub.requests
    assert hub.reports[0][1]["result"] == {"changed": []}


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
        hub.claimed = None

    clock.on_sleep = forget
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.jira_writes() == []
    assert hub.reports[0][1]["error"] == "команды 64 нет на хабе: запись в Jira отменена"
