"""The httpx Jira client and the agent's driver over it: pacing from the last call, retries after Retry-After,
call counting, refused credentials, a bug inside an executor."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest

from adapters.clock import FakeClock
from adapters.jira_http import JiraAuthError, JiraError, JiraHttp
from agent_app.drive import DriveOutcome, drive
from jira_sim.simulator import Simulator
from reconcile.executors import Delivery, ExecContext, JiraCall
from reconcile.executors._run import Body, Run, run_body
from reconcile.types.binding import executor_for
from tests.support import T0

pytestmark = pytest.mark.anyio


async def test_fake_clock_moves_only_by_sleeping() -> None:
    """FakeClock's time advances by exactly the sleeps, each one recorded."""
    clock = FakeClock(start=100.0)
    await clock.sleep(2.5)
    await clock.sleep(0)
    assert (clock.monotonic(), clock.sleeps) == (102.5, [2.5, 0])


async def test_wait_gap_before_any_call_counts_from_construction() -> None:
    """With no Jira call yet, the gap runs from the client's start (DESIGN 5.4: after a restart, since it)."""
    clock = FakeClock()
    jira = JiraHttp(httpx.AsyncClient(), clock=clock)
    clock.advance(10)
    await jira.wait_gap(30)
    assert (jira.last_call_at, clock.sleeps, clock.monotonic()) == (None, [20], 30)
    await jira.wait_gap(5)
    assert clock.sleeps == [20]
    await jira.aclose()


# --- against the simulator -----------------------------------------------------------------------------


def _connected(max_retries: int = 5, **auth: str | None) -> tuple[Simulator, FakeClock, JiraHttp]:
    clock = FakeClock()
    sim = Simulator(clock=lambda: T0 + timedelta(seconds=clock.monotonic()))
    credentials = auth or {"token": "secret"}
    jira = JiraHttp.connect(
        "http://jira.test/",
        clock=clock,
        transport=httpx.ASGITransport(app=sim.asgi),
        max_retries=max_retries,
        **credentials,
    )
    return sim, clock, jira


async def _drive(jira: JiraHttp, type_: str, params: dict[str, Any], pause: float = 30) -> DriveOutcome:
    delivery = Delivery(id=1, type=type_, params=params, pause_seconds=pause)
    ctx = await jira.exec_context()
    return await drive(executor_for(delivery, ctx), jira)


async def test_myself_and_link_types_are_read_once() -> None:
    """exec_context reads myself, issueLinkType and serverInfo once; symmetric = inward == outward."""
    sim, _, jira = _connected()
    first = await jira.exec_context()
    second = await jira.exec_context()
    assert (
        first
        == second
        == ExecContext(
            jira_user="bridge-user",
            jira_time_zone="Europe/Moscow",
            jira_base_url="http://jira.test",
            symmetric_link_types=frozenset({"Связанные"}),
            link_types=frozenset({"Связанные", "Блокирует начало"}),
        )
    )
    assert [c["path"] for c in sim.calls] == [
        "/rest/api/2/myself",
        "/rest/api/2/issueLinkType",
        "/rest/api/2/serverInfo",
    ]
    await jira.aclose()


async def test_basic_auth_works() -> None:
    """Basic auth as a seeded user is accepted."""
    _, _, jira = _connected(user="bridge-user", password="any")
    assert await jira.myself() == ("bridge-user", "Europe/Moscow")
    await jira.aclose()


async def test_refused_credentials_raise_jira_auth_error() -> None:
    """Without credentials Jira answers 401: JiraAuthError with Jira's message."""
    _, _, jira = _connected(token=None)
    with pytest.raises(JiraAuthError) as caught:
        await jira.myself()
    assert caught.value.status == 401
    assert str(caught.value) == (
        "HTTP 401: You are not authenticated. Authentication required to perform this operation."
    )
    await jira.aclose()


async def test_429_is_retried_after_retry_after_and_every_try_counts() -> None:
    """Two 429s with Retry-After 7: slept 7 twice, never earlier; jira_calls counts all three tries."""
    sim, clock, jira = _connected()
    await jira.exec_context()
    sim.add_fault(method="GET", path_regex="/issue/AURORA-1533$", status=429, retry_after=7, times=2)
    start = clock.monotonic()
    outcome = await _drive(jira, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-10-23"})
    assert (outcome.report.status, outcome.jira_calls) == ("done", 3)
    assert clock.sleeps == [7, 7]
    assert [c["status"] for c in sim.calls[-3:]] == [429, 429, 200]
    assert clock.monotonic() - start == 14
    await jira.aclose()


async def test_503_without_retry_after_waits_the_default() -> None:
    """503 without Retry-After waits retry_default_seconds (30 by default) before the retry."""
    sim, clock, jira = _connected()
    await jira.exec_context()
    sim.add_fault(path_regex="/issue/AURORA-1533$", status=503, times=1)
    outcome = await _drive(jira, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-10-23"})
    assert (outcome.report.status, outcome.jira_calls, clock.sleeps) == ("done", 2, [30])
    await jira.aclose()


async def test_retries_give_up_after_max_retries() -> None:
    """After 1 + 5 tries the last 429 fails the command with Jira's message."""
    sim, clock, jira = _connected()
    await jira.exec_context()
    sim.add_fault(path_regex="/issue/AURORA-1533$", status=429, retry_after=1, times=10)
    outcome = await _drive(jira, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-10-23"})
    assert (outcome.report.status, outcome.report.error) == ("failed", "HTTP 429: Rate limit exceeded.")
    assert (outcome.jira_calls, clock.sleeps) == (6, [1, 1, 1, 1, 1])
    await jira.aclose()


async def test_an_html_error_page_is_named_by_its_title() -> None:
    """Jira's HTML 503 page (after retries are exhausted) is the command's error by its title, never markup."""
    sim, _, jira = _connected(max_retries=0)
    await jira.exec_context()
    sim.add_fault(path_regex="/issue/AURORA-1533$", status=503, times=1)
    outcome = await _drive(jira, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-10-23"})
    assert outcome.report.error == "HTTP 503: Service Unavailable"
    await jira.aclose()


async def test_the_agents_own_error_line_names_an_html_page_by_its_title() -> None:
    """Jira's HTML 503 on the agent's own read (``myself``): the agent's error (its status line) by the title."""
    sim, _, jira = _connected(max_retries=0)
    sim.add_fault(path_regex="/myself$", status=503, times=1)
    with pytest.raises(JiraError) as caught:
        await jira.myself()
    assert str(caught.value) == "HTTP 503: Service Unavailable"
    await jira.aclose()


async def test_dropped_connection_propagates() -> None:
    """A dropped connection is an httpx.TransportError for the agent to handle."""
    sim, _, jira = _connected()
    await jira.exec_context()
    sim.add_fault(path_regex="/issue/AURORA-1533$", status="drop", times=1)
    with pytest.raises(httpx.TransportError):
        await _drive(jira, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-10-23"})
    await jira.aclose()


async def test_wait_gap_counts_from_the_last_call() -> None:
    """After a call at t, wait_gap(30) sleeps until t + 30 and no longer."""
    _, clock, jira = _connected()
    await jira.myself()
    assert jira.last_call_at == 0
    clock.advance(12)
    await jira.wait_gap(30)
    assert (clock.sleeps, clock.monotonic()) == ([18], 30)
    await jira.aclose()


async def test_pause_inside_a_command_is_measured_from_the_last_call() -> None:
    """A path of transitions: the second write comes a full gap after the first."""
    sim, clock, jira = _connected()
    outcome = await _drive(jira, "ensure_status", {"key": "AURORA-1538", "target": ["Разработка", "Тестирование"]}, 45)
    posts = [c for c in sim.calls if c["method"] == "POST"]
    assert outcome.report.status == "done"
    assert [c["at"] for c in posts] == ["2026-10-22T09:00:00Z", "2026-10-22T09:00:45Z"]
    assert clock.sleeps == [45]
    await jira.aclose()


async def test_a_bug_inside_an_executor_fails_the_command_not_the_agent() -> None:
    """An exception raised by the executor becomes a failed report with the writes made so far."""
    sim, _, jira = _connected()

    def broken(run: Run) -> Body:
        yield from run.call(JiraCall(method="POST", path="/rest/api/2/issue/AURORA-1538/comment", json={"body": "x"}))
        raise KeyError("key")

    executor = run_body(broken, Delivery(id=1, type="ensure_comment", params={}, pause_seconds=0), ExecContext())
    outcome = await drive(executor, jira)
    assert outcome.report.status == "failed"
    assert outcome.report.error == "внутренняя ошибка агента: KeyError: 'key'"
    assert [op.to_json() for op in outcome.report.operations] == [
        {"method": "POST", "path": "/rest/api/2/issue/AURORA-1538/comment", "status": 201}
    ]
    assert outcome.jira_calls == 1
    assert sim.raw_issue("AURORA-1538")["comments"][-1]["body"] == "x"
    await jira.aclose()


async def test_refused_credentials_inside_a_command_raise_instead_of_failing_it() -> None:
    """A 401 while driving a command raises JiraAuthError: the command is not reported failed."""
    _, _, jira = _connected(token=None)
    delivery = Delivery(id=1, type="ensure_fields", params={"key": "AURORA-1533", "summary": "x"}, pause_seconds=1)

    with pytest.raises(JiraAuthError):
        await drive(executor_for(delivery, ExecContext()), jira)
    await jira.aclose()


async def test_a_boards_own_answer_is_kept_for_the_run() -> None:
    """``GET /rest/agile/1.0/board/{id}`` answered 200 is asked of Jira once (a repeat costs no try); a 404, a
    board's sprint list and a board read with a query are asked every time."""
    sim, _, jira = _connected()
    board = JiraCall(method="GET", path="/rest/agile/1.0/board/9001")
    first, second = await jira.send(board), await jira.send(board)
    assert (first.tries, second.tries, second.answer) == (1, 0, first.answer)
    assert second.answer.json["location"]["projectKey"] == "HR"
    for call in (
        JiraCall(method="GET", path="/rest/agile/1.0/board/77"),
        JiraCall(method="GET", path="/rest/agile/1.0/board/4216/sprint"),
        JiraCall(method="GET", path="/rest/agile/1.0/board/4216", params={"expand": "x"}),
    ):
        assert [(await jira.send(call)).tries for _ in range(2)] == [1, 1]
    assert [c["path"] for c in sim.calls].count("/rest/agile/1.0/board/9001") == 1
    await jira.aclose()
