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


def test_sprint_made_on_another_board_is_refused_naming_the_board() -> None:
    """A sprint of the board's list whose ``originBoardId`` is another board fails «… заведён на другой доске», no
    write; one made on this board (by number or digits) is chosen."""
    board = {"isLast": True, "values": [{"id": 7, "name": "Спринт 2", "state": "active", "originBoardId": 99}]}
    answers = [ok(issue("X-1", customfield_10104=None)), BOARD_4216, ok(board)]
    report, _ = play("ensure_sprint", SPRINT, answers)
    assert (report.status, report.error, report.operations) == (
        "failed",
        "спринт «Спринт 2» на доске 4216 заведён на другой доске",
        (),
    )
    for origin in (4216, "4216"):
        own = {"isLast": True, "values": [{"id": 7, "name": "Спринт 2", "state": "active", "originBoardId": origin}]}
        answers = [ok(issue("X-1", customfield_10104=None)), BOARD_4216, ok(own), ok(status=204)]
        report, _ = play("ensure_sprint", SPRINT, answers)
        assert seed_result(report.result) == {"sprint_id": 7, "moved": True}


def test_sprint_whose_id_is_zero_is_refused_as_a_path() -> None:
    """A sprint Jira lists with id 0 cannot go into the path: failed «недопустимый id спринта: 0», no write."""
    board = {"isLast": True, "values": [{"id": 0, "name": "Спринт 2", "state": "active"}]}
    answers = [ok(issue("X-1", customfield_10104=None)), BOARD_4216, ok(board)]
    report, _ = play("ensure_sprint", SPRINT, answers)
    assert (report.status, report.error, report.operations) == ("failed", "недопустимый id спринта: 0", ())


def test_sprint_move_remembers_the_open_sprint_it_left() -> None:
    """From «Спринт 2» into «Спринт 3»: ``undo`` names both sprints by id and name."""
    answers = [ok(issue("X-1", customfield_10104=[SPRINT_2])), BOARD_4216, ok(BOARD), ok(status=204)]
    report, steps = play("ensure_sprint", {**SPRINT, "sprint": "Спринт 3"}, answers)
    assert kinds(steps)[-1] == "POST /rest/agile/1.0/sprint/8/issue"
    assert report.result["undo"] == {"from": {"id": 7, "name": "Спринт 2"}, "to": {"id": 8, "name": "Спринт 3"}}


def test_sprint_only_if_unchanged_expecting_a_sprint_of_an_issue_in_none() -> None:
    """if_unchanged names a sprint while the issue is in none: not moved, the conflict names the sprint expected
    and ``null`` found; expecting ``null`` it moves."""
    answers = [ok(issue("X-1", customfield_10104=None)), BOARD_4216, ok(BOARD)]
    report, _ = play("ensure_sprint", {**SPRINT, "if_unchanged": {"sprint": "Спринт 1"}}, answers)
    assert (report.status, seed_result(report.result), report.operations) == (
        "done",
        {"sprint_id": 7, "moved": False, "conflicts": [{"field": "sprint", "expected": "Спринт 1", "found": None}]},
        (),
    )
    answers = [ok(issue("X-1", customfield_10104=None)), BOARD_4216, ok(BOARD), ok(status=204)]
    report, _ = play("ensure_sprint", {**SPRINT, "if_unchanged": {"sprint": None}}, answers)
    assert seed_result(report.result) == {"sprint_id": 7, "moved": True}


def test_backlog_only_if_unchanged_checks_the_open_sprint() -> None:
    """To the backlog while if_unchanged names another sprint than the open one: not moved, the conflict named;
    naming the open sprint it moves."""
    params = {"key": "X-1", "sprint": None, "if_unchanged": {"sprint": "Спринт 3"}}
    report, steps = play("ensure_sprint", params, [ok(issue("X-1", customfield_10104=[SPRINT_2]))])
    assert (len(steps), report.status, seed_result(report.result)) == (
        1,
        "done",
        {
            "sprint_id": None,
            "moved": False,
            "conflicts": [{"field": "sprint", "expected": "Спринт 3", "found": "Спринт 2"}],
        },
    )
    params = {"key": "X-1", "sprint": None, "if_unchanged": {"sprint": "Спринт 2"}}
    answers = [ok(issue("X-1", customfield_10104=[SPRINT_2])), ok(status=204)]
    report, steps = play("ensure_sprint", params, answers)
    assert kinds(steps)[1:] == ["POST /rest/agile/1.0/backlog/issue"]
    assert seed_result(report.result) == {"sprint_id": None, "moved": True}
