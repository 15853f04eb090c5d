"""``ensure_sprint`` repeated costs one read when the issue's sprint field already shows the target sprint
(the simulator counts every call the real driver makes)."""

from __future__ import annotations

import pytest

from tests.support import seed_result

from .sim_support import Bench

pytestmark = pytest.mark.anyio

BOARD = 4216


def reads(bench: Bench) -> list[str]:
    return [f"{c['method']} {c['path']}" for c in bench.sim.calls]


async def test_a_repeat_into_the_active_sprint_reads_only_the_issue(bench: Bench) -> None:
    """The first run reads the issue and the board's sprints and moves; the repeat reads the issue, nothing more."""
    params = {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": BOARD}
    first = await bench.run("ensure_sprint", params)
    assert (first.jira_calls, seed_result(first.report.result)) == (3, {"sprint_id": 7, "moved": True})
    again = await bench.run("ensure_sprint", params)
    assert (again.jira_calls, seed_result(again.report.result)) == (1, {"sprint_id": 7, "moved": False})
    assert reads(bench) == ["GET /rest/api/2/issue/AURORA-1538"]


async def test_a_future_sprint_or_another_board_still_reads_the_board(bench: Bench) -> None:
    """A future sprint of that name is not proof (an active one of the same name would win), nor is the same
    name on another board: the board's sprints are read, and nothing is written."""
    params = {"key": "AURORA-1538", "sprint": "Спринт 3", "board_id": BOARD}
    await bench.run("ensure_sprint", params)
    again = await bench.run("ensure_sprint", params)
    assert (again.jira_calls, seed_result(again.report.result)) == (2, {"sprint_id": 8, "moved": False})
    await bench.run("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": BOARD})
    elsewhere = await bench.run("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 9999})
    assert elsewhere.jira_calls >= 2
    assert reads(bench)[:2] == ["GET /rest/api/2/issue/AURORA-1538", "GET /rest/agile/1.0/board/9999/sprint"]
