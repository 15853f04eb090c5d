"""The bank's policy in the agent (DESIGN.md 5.5), whatever the hub sends: refusals with zero Jira calls, JQL
wrapped in the allowed projects, the floor between writes, the write budget — on the fake clock, against the
in-process simulator and a hub speaking the agent endpoints."""

from __future__ import annotations

import itertools
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.clock import FakeClock
from adapters.logs import fields_of
from reconcile.guard.policy import AgentPolicy

from .agent_fakes import FakeHub, Fault, command
from .test_loop import Rig

pytestmark = pytest.mark.anyio

AURORA = ("AURORA",)


async def run_all(rig: Rig, steps: int) -> None:
    ctx = await rig.agent.context()
    for _ in range(steps):
        await rig.agent.step(ctx)
    await rig.close()


def jira_calls_after_start(rig: Rig) -> list[str]:
    """The Jira calls after the agent's start-up reads (``myself``, ``issueLinkType``, ``serverInfo``, ``field``)."""
    assert rig.jira_transport.seen[3] == "GET /rest/api/2/field"
    return rig.jira_transport.seen[4:]


@pytest.mark.parametrize(
    ("command_type", "params", "policy", "error"),
    [
        (
            "ensure_comment",
            {"key": "HR-1", "marker": "[m]", "body": "b"},
            AgentPolicy(allow_projects=AURORA),
            "проект HR не разрешён агенту (разрешены: AURORA)",
        ),
        (
            "ensure_link",
            {"source": "AURORA-1537", "target": "HR-1", "link_type": "связанные"},
            AgentPolicy(allow_projects=AURORA),
            "проект HR не разрешён агенту (разрешены: AURORA)",
        ),
        (
            "ensure_link",
            {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные"},
            AgentPolicy(allow_projects=AURORA, allow_types=("refresh", "ensure_comment")),
            "тип команды ensure_link не разрешён агенту (разрешены: ensure_comment, refresh)",
        ),
        (
            "ensure_fields",
            {"key": "AURORA-1533", "duedate": "2026-12-01"},
            AgentPolicy(allow_projects=AURORA, read_only=True),
            "тип команды ensure_fields не разрешён агенту (разрешены: refresh)",
        ),
        (
            "refresh",
            {"jql": "project = HR) OR (project = AURORA", "boards": []},
            AgentPolicy(allow_projects=AURORA),
            "JQL не принят агентом: непарная закрывающая скобка (позиция 13)",
        ),
        (
            "refresh",
            {"jql": 'summary ~ x\\" ) OR project = HR OR ( summary ~ "a\\"b"', "boards": []},
            AgentPolicy(allow_projects=AURORA),
            "JQL не принят агентом: непарная закрывающая скобка (позиция 15)",
        ),
    ],
)
async def test_outside_the_policy_is_failed_with_zero_jira_calls(
    tmp_path: Path, command_type: str, params: dict[str, Any], policy: AgentPolicy, error: str
) -> None:
    """A key of another project, a refused type, a write to a read-only agent, a JQL that does not parse (issue
    31's escape too):
    reported failed with the policy's words, no Jira call, no pause, nothing asked of the hub."""
    hub = FakeHub(queue=[command(80, command_type, params, 120)])
    rig = Rig(tmp_path, hub, policy=policy)
    await run_all(rig, 1)
    assert jira_calls_after_start(rig) == []
    assert rig.clock.sleeps == []
    assert hub.requests == ["POST /agent/claim", "POST /agent/commands/80/report"]
    assert hub.reports == [(80, {"status": "failed", "result": {}, "error": error, "jira_calls": 0, "operations": []})]
    assert rig.journal.read() is None


async def test_an_ensure_issue_into_another_project_is_refused(tmp_path: Path) -> None:
    """The hub's context names HR as the project to create in: refused before any Jira call."""
    params = {"temp_key": "new:1", "issue_type": "task", "summary": "Премии"}
    delivered = command(81, "ensure_issue", params)
    delivered["context"] = {**delivered["context"], "jira_project": "HR"}
    hub = FakeHub(queue=[delivered])
    rig = Rig(tmp_path, hub)
    await run_all(rig, 1)
    assert jira_calls_after_start(rig) == []
    assert hub.reports[0][1]["error"] == "проект HR не разрешён агенту (разрешены: AURORA)"


async def test_a_refresh_jql_goes_to_jira_inside_the_allowed_projects(tmp_path: Path) -> None:
    """``project = HR`` from the hub goes to Jira as ``project in (AURORA) AND (project = HR)``: nothing found."""
    searches: list[str] = []

    def seen(request: httpx.Request) -> None:
        searches.append(json.loads(request.content)["jql"])

    hub = FakeHub(
        queue=[command(82, "refresh", {"jql": "project = HR", "boards": [], "history": {"jql": "key = HR-1"}})]
    )
    rig = Rig(tmp_path, hub, jira_faults=[Fault("POST", r"/search$", "pass", times=10, hook=seen)])
    await run_all(rig, 1)
    assert searches == ["project in (AURORA) AND (project = HR)", "project in (AURORA) AND (key = HR-1)"]
    report = hub.reports[0][1]
    assert (report["status"], report["result"]["issues"], report["result"]["history"]) == ("done", 0, {"entries": 0})
    assert [page["issues"] for _, page in hub.pages] == [[]]


async def test_the_floor_holds_between_commands_whatever_pause_the_hub_sends(tmp_path: Path) -> None:
    """Three writes delivered with pause_seconds 0 under a 1 s floor (``*=1``): each waits its second."""
    clock = FakeClock(start=1000.0)
    writes: list[float] = []
    hub = FakeHub(
        queue=[
            command(83 + n, "ensure_fields", {"key": "AURORA-1533", "duedate": f"2026-12-0{n + 1}"}, 0)
            for n in range(3)
        ]
    )
    record = Fault("PUT", r"/issue/AURORA-1533$", "pass", times=3, hook=lambda _: writes.append(clock.monotonic()))
    rig = Rig(
        tmp_path, hub, clock=clock, jira_faults=[record], policy=AgentPolicy(allow_projects=AURORA, min_gap={"*": 1})
    )
    await run_all(rig, 3)
    assert [b - a for a, b in itertools.pairwise(writes)] == [pytest.approx(1.0)] * 2
    assert [r[1]["status"] for r in hub.reports] == ["done"] * 3


async def test_the_floor_holds_between_the_writes_of_one_command(tmp_path: Path) -> None:
    """A two-step status path delivered with pause_seconds 0 under a 5 s floor for its type: 5 s between the two
    transitions."""
    clock = FakeClock(start=1000.0)
    writes: list[float] = []
    params = {"key": "AURORA-1537", "target": ["Разработка", "Тестирование", "Готово"]}
    record = Fault("POST", r"/transitions$", "pass", times=2, hook=lambda _: writes.append(clock.monotonic()))
    policy = AgentPolicy(allow_projects=AURORA, min_gap={"ensure_status": 5})
    rig = Rig(
        tmp_path,
        FakeHub(queue=[command(86, "ensure_status", params, 0)]),
        clock=clock,
        jira_faults=[record],
        policy=policy,
    )
    await run_all(rig, 1)
    assert len(writes) == 2
    assert writes[1] - writes[0] == pytest.approx(5.0)


async def test_past_the_write_budget_the_agent_waits_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Two writes an hour: the third waits until the first leaves the hour, heartbeating with «лимит записей
    агента: 2 в час» as last_error; it is then written, and nothing is shown any more."""
    caplog.set_level(logging.INFO, logger="agent_app")
    clock = FakeClock(start=1000.0)
    writes: list[float] = []
    hub = FakeHub(
        queue=[
            command(87 + n, "ensure_comment", {"key": "AURORA-1538", "marker": f"[b{n}]", "body": "b"}, 0)
            for n in range(3)
        ]
    )
    record = Fault("POST", r"/comment$", "pass", times=3, hook=lambda _: writes.append(clock.monotonic()))
    policy = AgentPolicy(allow_projects=AURORA, max_writes_per_hour=2)
    rig = Rig(tmp_path, hub, clock=clock, jira_faults=[record], policy=policy)
    await run_all(rig, 3)
    assert writes[2] - writes[0] == pytest.approx(3600.0)
    shown = [p["last_error"] for p in hub.problems]
    assert set(shown) == {"лимит записей агента: 2 в час"}
    # Told at once, then at each of the 287 heartbeats that fall inside the hour's wait (every 12.5 s).
    assert len(shown) == 288
    assert [r[1]["status"] for r in hub.reports] == ["done"] * 3
    assert rig.agent.last_error is None
    waits = [fields_of(r) for r in caplog.records if r.getMessage() == "write_budget"]
    assert [(w["command_id"], w["max_writes_per_hour"]) for w in waits] == [(89, 2)]


BOARD_REFUSED = "доска 9001 не в разрешённых проектах"


@pytest.mark.parametrize(
    ("board_id", "error", "calls"),
    [
        (
            9001,
            BOARD_REFUSED,
            ["GET /rest/api/2/issue/AURORA-1538", "GET /rest/agile/1.0/board/9001"],
        ),
        (
            "../../../api/2/issue/HR-1?fields=summary",
            'недопустимый id доски: "../../../api/2/issue/HR-1?fields=summary"',
            [],
        ),
    ],
)
async def test_a_hostile_board_moves_nothing_and_reads_no_sprint(
    tmp_path: Path, board_id: Any, error: str, calls: list[str]
) -> None:
    """Issue 31 finding 2, ensure_sprint: HR's board 9001 is read once and refused (its sprints never read, nothing
    moved, no name of HR's in the report); a board id that is a path is refused before any Jira call."""
    params = {"key": "AURORA-1538", "sprint": "Кадры: премии", "board_id": board_id}
    hub = FakeHub(queue=[command(90, "ensure_sprint", params)])
    rig = Rig(tmp_path, hub)
    await run_all(rig, 1)
    assert jira_calls_after_start(rig) == calls
    report = hub.reports[0][1]
    assert (report["status"], report["error"], report["operations"]) == ("failed", error, [])
    assert "Кадры" not in json.dumps(report["result"], ensure_ascii=False)


async def test_a_refresh_reports_no_type_of_another_projects_board(tmp_path: Path) -> None:
    """Issue 31 finding 2, refresh: HR's board 9001 delivered with an unknown type is read once, reported without
    a type (the hub learns nothing of it) and listed as refused; the refresh itself is done."""
    params = {"keys": ["AURORA-1538"], "boards": [{"id": 9001, "type": None}]}
    hub = FakeHub(queue=[command(91, "refresh", params)])
    rig = Rig(tmp_path, hub)
    await run_all(rig, 1)
    assert [c for c in jira_calls_after_start(rig) if "/board/" in c] == ["GET /rest/agile/1.0/board/9001"]
    report = hub.reports[0][1]
    assert (report["status"], report["result"]["boards"], report["result"]["refused_boards"]) == (
        "done",
        {"9001": None},
        [{"id": "9001", "error": BOARD_REFUSED}],
    )


def mapped(command_id: int, params: dict[str, Any], **fields: str) -> dict[str, Any]:
    """An ensure_fields delivered with the hub's field mapping changed as given."""
    delivered = command(command_id, "ensure_fields", params)
    context = delivered["context"]
    delivered["context"] = {**context, "fields": {**context["fields"], **fields}}
    return delivered


async def test_a_planned_start_mapped_to_the_epic_link_writes_nothing(tmp_path: Path) -> None:
    """Issue 31 finding 3: the hub maps planned_start to the Epic Link field and sends ``planned_start: "HR-3"``:
    failed with Jira's name of the field, no Jira call after the start (the field list was read at start)."""
    hub = FakeHub(
        queue=[mapped(92, {"key": "AURORA-1538", "planned_start": "HR-3"}, planned_start="customfield_10100")]
    )
    rig = Rig(tmp_path, hub)
    await run_all(rig, 1)
    assert jira_calls_after_start(rig) == []
    report = hub.reports[0][1]
    assert (report["status"], report["error"], report["jira_calls"]) == (
        "failed",
        "поле customfield_10100 — не дата (Epic Link)",
        0,
    )


async def test_a_field_id_not_seen_yet_reads_jiras_field_list_again(tmp_path: Path) -> None:
    """A delivery mapping a field id the start's list lacks: the list is read again (one call) before judging;
    a field Jira still lacks fails the command, nothing else asked of Jira."""
    hub = FakeHub(
        queue=[mapped(93, {"key": "AURORA-1538", "planned_end": "2026-12-01"}, planned_end="customfield_12000")]
    )
    rig = Rig(tmp_path, hub)
    await run_all(rig, 1)
    assert jira_calls_after_start(rig) == ["GET /rest/api/2/field"]
    assert hub.reports[0][1]["error"] == "поля customfield_12000 нет в Jira (planned_end)"


async def test_a_pinned_field_refuses_another_mapping_of_the_hub(tmp_path: Path) -> None:
    """``--field planned_start=customfield_11200``: the hub's 11201 (a date field too) is refused, zero calls."""
    hub = FakeHub(
        queue=[mapped(94, {"key": "AURORA-1538", "planned_start": "2026-12-01"}, planned_start="customfield_11201")]
    )
    rig = Rig(tmp_path, hub, policy=AgentPolicy(allow_projects=AURORA, fields={"planned_start": "customfield_11200"}))
    await run_all(rig, 1)
    assert jira_calls_after_start(rig) == []
    assert hub.reports[0][1]["error"] == (
        "поле planned_start: хаб указал customfield_11201, политика агента — customfield_11200"
    )
