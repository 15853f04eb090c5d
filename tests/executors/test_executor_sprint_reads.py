"""``ensure_sprint`` repeated costs one read when the issue's sprint field already shows the target sprint, and
the board is read once for the driver's run (the simulator counts every call the real driver makes)."""

from __future__ import annotations

import pytest

from tests.support import seed_result

from .sim_support import Bench

pytestmark = pytest.mark.anyio

BOARD = 4216


def reads(bench: Bench) -> list[str]:
    return [f"{c['method']} {c['path']}" for c in bench.sim.calls]


async def test_a_repeat_into_the_active_sprint_reads_only_the_issue(bench: Bench) -> None:
    """The first run reads the issue, the board and its sprints and moves; the repeat reads the issue, nothing
    more."""
    params = {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": BOARD}
    first = await bench.run("ensure_sprint", params)
    assert (first.jira_calls, seed_result(first.report.result)) == (4, {"sprint_id": 7, "moved": True})
    again = await bench.run("ensure_sprint", params)
    assert (again.jira_calls, seed_result(again.report.result)) == (1, {"sprint_id": 7, "moved": False})
    assert reads(bench) == ["GET /rest/api/2/issue/AURORA-1538"]


async def test_a_future_sprint_or_another_board_still_reads_the_board(bench: Bench) -> None:
    """A future sprint of that name is not proof (an active one of the same name would win), nor is the same
    name on another board: the board's sprints are read (the board itself is not read again in the run), and
    nothing is written; an unknown board fails at its own read."""
    params = {"key": "AURORA-1538", "sprint": "Спринт 3", "board_id": BOARD}
    await bench.run("ensure_sprint", params)
    again = await bench.run("ensure_sprint", params)
    assert (again.jira_calls, seed_result(again.report.result)) == (2, {"sprint_id": 8, "moved": False})
    await bench.run("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": BOARD})
    elsewhere = await bench.run("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 9999})
    assert (elsewhere.jira_calls, elsewhere.report.error) == (
        2,
        "HTTP 404: Board does not exist or you do not have permission to see it.",
    )
    assert reads(bench) == ["GET /rest/api/2/issue/AURORA-1538", "GET /rest/agile/1.0/board/9999"]
