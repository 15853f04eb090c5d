"""A board the hub names is verified before it is used (DESIGN.md 5.7, issue 31 finding 2): against the simulator,
whose HR project has board 9001, an agent allowed only AURORA reads HR's board once to learn where it is, and
then nothing more of it — no sprint list, no move, no name of HR's in a report."""

from __future__ import annotations

import json

import pytest

from reconcile.executors.boards import board_problem
from reconcile.guard.paths import positive_id
from tests.support import seed_result

from .sim_support import Bench

AURORA = ("AURORA",)
REFUSED = "доска 9001 не в разрешённых проектах"


def calls(bench: Bench) -> list[str]:
    return [f"{c['method']} {c['path']}" for c in bench.sim.calls]


@pytest.mark.anyio
async def test_a_sprint_of_another_projects_board_is_refused_after_reading_the_board(bench: Bench) -> None:
    """ensure_sprint with HR's board 9001: the issue and the board are read, the board refused; its sprints are
    never read, nothing moves, and the report names no sprint of HR's."""
    seen = []
    for sprint in ("Кадры: премии", "Спринт 2", "нет такого"):
        outcome = await bench.run(
            "ensure_sprint", {"key": "AURORA-1538", "sprint": sprint, "board_id": 9001}, allowed=AURORA
        )
        assert (outcome.report.status, outcome.report.error, outcome.report.operations) == ("failed", REFUSED, ())
        assert "Кадры" not in json.dumps(seed_result(outcome.report.result), ensure_ascii=False)
        seen.append(calls(bench))
    # The board's answer is kept for the run: read by the first command only.
    assert seen == [
        ["GET /rest/api/2/issue/AURORA-1538", "GET /rest/agile/1.0/board/9001"],
        ["GET /rest/api/2/issue/AURORA-1538"],
        ["GET /rest/api/2/issue/AURORA-1538"],
    ]
    assert "HR" not in json.dumps(bench.sim.raw_issue("AURORA-1538"), ensure_ascii=False)


@pytest.mark.anyio
async def test_a_sprint_of_an_allowed_board_is_read_and_moved(bench: Bench) -> None:
    """ensure_sprint with AURORA's board 4216: board, sprints, move — the board read once for the run."""
    outcome = await bench.run(
        "ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 3", "board_id": 4216}, allowed=AURORA
    )
    assert (outcome.report.status, seed_result(outcome.report.result)) == ("done", {"sprint_id": 8, "moved": True})
    assert calls(bench) == [
        "GET /rest/api/2/issue/AURORA-1538",
        "GET /rest/agile/1.0/board/4216",
        "GET /rest/agile/1.0/board/4216/sprint",
        "POST /rest/agile/1.0/sprint/8/issue",
    ]
    again = await bench.run(
        "ensure_sprint", {"key": "AURORA-1537", "sprint": "Спринт 3", "board_id": 4216}, allowed=AURORA
    )
    assert (again.report.status, again.jira_calls) == ("done", 3)
    assert "GET /rest/agile/1.0/board/4216" not in calls(bench)


@pytest.mark.anyio
async def test_a_refresh_learns_no_type_of_a_refused_board(bench: Bench) -> None:
    """A refresh delivered with HR's board 9001 of unknown type: the board is read once (it is the type's read as
    well), reported without a type and listed as refused; AURORA's 5120 gets its type; the issues are read."""
    params = {"keys": ["AURORA-1538"], "boards": [{"id": 9001, "type": None}, {"id": 5120, "type": None}]}
    outcome = await bench.run("refresh", params, allowed=AURORA)
    result = seed_result(outcome.report.result)
    assert (outcome.report.status, result["issues"]) == ("done", 1)
    assert (result["boards"], result["refused_boards"]) == (
        {"9001": None, "5120": "kanban"},
        [{"id": "9001", "error": REFUSED}],
    )
    assert [c for c in calls(bench) if "/board/" in c] == [
        "GET /rest/agile/1.0/board/9001",
        "GET /rest/agile/1.0/board/5120",
    ]
    again = await bench.run("refresh", params, allowed=AURORA)
    assert dict(again.report.result)["boards"] == {"9001": None, "5120": "kanban"}
    assert [c for c in calls(bench) if "/board/" in c] == []


@pytest.mark.anyio
async def test_a_refresh_of_known_boards_reads_no_board(bench: Bench) -> None:
    """Boards whose type the hub knows are neither read nor checked: a refresh costs no board call for them."""
    params = {"keys": ["AURORA-1538"], "boards": [{"id": 9001, "type": "scrum"}, {"id": 4216, "type": "scrum"}]}
    outcome = await bench.run("refresh", params, allowed=AURORA)
    assert (outcome.report.status, seed_result(outcome.report.result)["boards"]) == ("done", {})
    assert [c for c in calls(bench) if "/board/" in c] == []


def test_a_board_answer_that_is_no_object_is_refused() -> None:
    """A board read answered with anything but an object with an allowed ``location.projectKey`` is refused; with
    no policy (``None``) every board passes."""
    board = positive_id(9001, "доски")
    for body in ([1], None, "AURORA", {"location": "AURORA"}, {"location": {"projectKey": 1}}, {"id": 9001}):
        assert board_problem(body, board, ("AURORA",)) == REFUSED
    assert board_problem({"location": {"projectKey": "AURORA"}}, board, ("AURORA",)) is None
    assert board_problem([1], board, None) is None
