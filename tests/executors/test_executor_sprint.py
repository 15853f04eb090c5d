"""``ensure_sprint`` fed Jira's answers as values (no I/O): moved into a named sprint or the backlog, the settings
and board it needs, and the places its messages name."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.executors import JiraCall
from tests.support import seed_result

from .executors_support import issue, kinds, ok, play

SPRINT = {"key": "X-1", "sprint": "Спринт 2", "board_id": 4216}
#: Jira's answer to ``GET /rest/agile/1.0/board/4216``: a scrum board located in AURORA.
BOARD_4216 = ok({"id": 4216, "name": "AWPCA доска", "type": "scrum", "location": {"projectKey": "AURORA"}})


def test_sprint_without_the_sprint_field_setting_fails_before_any_call() -> None:
    """Settings whose ``fields`` have no ``sprint`` fail the command with «нет настройки fields.sprint», no call."""
    report, steps = play("ensure_sprint", SPRINT, [], context={"fields": {"planned_start": "customfield_11200"}})
    assert (report.status, report.error, steps) == ("failed", "нет настройки fields.sprint", [])


def test_sprint_without_a_board_id_fails_before_any_call() -> None:
    """A named sprint needs the board: a delivery without ``board_id`` fails with «нет параметра board_id» before
    any call."""
    report, steps = play("ensure_sprint", {"key": "X-1", "sprint": "Спринт 2"}, [])
    assert (report.status, report.error, steps) == ("failed", "нет параметра board_id", [])


@pytest.mark.parametrize(
    ("board_id", "shown"),
    [("", '""'), (True, "true"), (1.5, "1.5"), ([4216], "[4216]"), (0, "0"), ("../9001", '"../9001"')],
)
def test_sprint_with_a_board_id_that_is_no_positive_integer_fails_before_any_call(board_id: Any, shown: str) -> None:
    """A ``board_id`` that is empty text, a flag, a fraction, a list, zero or a path is refused before any call:
    «недопустимый id доски: <the value>»."""
    report, steps = play("ensure_sprint", {**SPRINT, "board_id": board_id}, [])
    assert (report.status, report.error, steps) == ("failed", f"недопустимый id доски: {shown}", [])


def test_sprint_board_id_as_text_is_used_as_given() -> None:
    """A board id given as digits in text is the board's path segment like a number."""
    board = {"isLast": True, "values": [{"id": 7, "name": "Спринт 2", "state": "active"}]}
    answers = [ok(issue("X-1", customfield_10104=None)), BOARD_4216, ok(board), ok(status=204)]
    report, steps = play("ensure_sprint", {**SPRINT, "board_id": "4216"}, answers)
    assert kinds(steps)[1:] == [
        "GET /rest/agile/1.0/board/4216",
        "GET /rest/agile/1.0/board/4216/sprint",
        "POST /rest/agile/1.0/sprint/7/issue",
    ]
    assert seed_result(report.result) == {"sprint_id": 7, "moved": True}


def test_sprint_unreadable_issue_answer_names_the_issue() -> None:
    """An issue answer that is not an object fails naming the issue's key and the place «ответ»."""
    report, _ = play("ensure_sprint", SPRINT, [ok([1])])
    assert report.error == "ответ Jira по X-1: ответ — ожидается объект, получено: список"


def test_sprint_unreadable_board_page_names_the_board() -> None:
    """A board's sprint list that cannot be read fails naming «доска <id>» and the place ``values``."""
    report, _ = play("ensure_sprint", SPRINT, [ok(issue("X-1")), BOARD_4216, ok({"values": "x"})])
    assert report.error == "ответ Jira по доска 4216: values — ожидается список, получено: строка"


def test_sprint_on_a_board_without_active_or_future_sprints_lists_none() -> None:
    """A board with no active or future sprint: the failure lists «нет» for them."""
    report, _ = play("ensure_sprint", SPRINT, [ok(issue("X-1")), BOARD_4216, ok({"isLast": True, "values": []})])
    assert report.error == "нет спринта «Спринт 2» на доске 4216; активные и будущие: нет"


PREFIX = "com.atlassian.greenhopper.service.sprint.Sprint"


SPRINT_2 = PREFIX + "@1a2b[id=7,rapidViewId=4216,state=ACTIVE,name=Спринт 2,goal=<null>,sequence=7]"


SPRINT_1 = PREFIX + "@1a2c[id=6,rapidViewId=4216,state=CLOSED,name=Спринт 1,goal=<null>,sequence=6]"


BOARD = {
    "maxResults": 50,
    "startAt": 0,
    "isLast": True,
    "values": [
        {"id": 7, "name": "Спринт 2", "state": "active"},
        {"id": 8, "name": "Спринт 3", "state": "future"},
    ],
}


def test_sprint_move_into_a_named_sprint() -> None:
    """An issue outside the sprint is moved with POST /sprint/{id}/issue."""
    answers = [ok(issue("AURORA-1538", customfield_10104=None)), BOARD_4216, ok(BOARD), ok(status=204)]
    report, steps = play("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 4216}, answers)
    assert kinds(steps)[1:] == [
        "GET /rest/agile/1.0/board/4216",
        "GET /rest/agile/1.0/board/4216/sprint",
        "POST /rest/agile/1.0/sprint/7/issue",
    ]
    assert isinstance(steps[2], JiraCall)
    assert steps[2].params == {"state": "active,future", "startAt": "0", "maxResults": "50"}
    assert isinstance(steps[3], JiraCall)
    assert steps[3].json == {"issues": ["AURORA-1538"]}
    assert seed_result(report.result) == {"sprint_id": 7, "moved": True}


def test_sprint_already_in_it_writes_nothing() -> None:
    """Already in «Спринт 2» (old string form, active, the same board): done, moved false, the board not read."""
    answers = [ok(issue("X-1", customfield_10104=[SPRINT_1, SPRINT_2]))]
    report, _ = play("ensure_sprint", {"key": "X-1", "sprint": "Спринт 2", "board_id": 4216}, answers)
    assert (report.status, seed_result(report.result), report.operations) == (
        "done",
        {"sprint_id": 7, "moved": False},
        (),
    )


def test_sprint_unknown_name_lists_active_and_future() -> None:
    """An unknown sprint name fails listing the board's active and future sprints."""
    report, _ = play(
        "ensure_sprint",
        {"key": "X-1", "sprint": "Спринт 9", "board_id": 4216},
        [ok(issue("X-1")), BOARD_4216, ok(BOARD)],
    )
    assert report.error == "нет спринта «Спринт 9» на доске 4216; активные и будущие: Спринт 2, Спринт 3"


def test_backlog_moves_only_from_an_open_sprint() -> None:
    """backlog: POST /backlog/issue from an open sprint; from a closed one only, nothing."""
    report, steps = play(
        "ensure_sprint",
        {"key": "X-1", "sprint": "backlog"},
        [ok(issue("X-1", customfield_10104=[SPRINT_2])), ok(status=204)],
    )
    assert kinds(steps)[1:] == ["POST /rest/agile/1.0/backlog/issue"]
    assert seed_result(report.result) == {"sprint_id": None, "moved": True}
    report, steps = play(
        "ensure_sprint", {"key": "X-1", "sprint": "backlog"}, [ok(issue("X-1", customfield_10104=[SPRINT_1]))]
    )
    assert (len(steps), seed_result(report.result)) == (1, {"sprint_id": None, "moved": False})


def test_sprint_of_two_with_one_name_the_active_one_is_chosen() -> None:
    """Two sprints of the wanted name: the active one (Jira may say ACTIVE); of two future ones, the first."""
    board = {
        "isLast": True,
        "values": [
            {"id": 10, "name": "Спринт 4", "state": "future"},
            {"id": 11, "name": "Спринт 4", "state": "ACTIVE"},
            {"id": 12, "name": "Спринт 5", "state": "future"},
            {"id": 13, "name": "Спринт 5", "state": "future"},
        ],
    }
    for name, sprint_id in (("Спринт 4", 11), ("Спринт 5", 12)):
        answers = [ok(issue("X-1", customfield_10104=None)), BOARD_4216, ok(board), ok(status=204)]
        report, steps = play("ensure_sprint", {"key": "X-1", "sprint": name, "board_id": 4216}, answers)
        assert kinds(steps)[-1] == f"POST /rest/agile/1.0/sprint/{sprint_id}/issue"
        assert seed_result(report.result) == {"sprint_id": sprint_id, "moved": True}
