"""``ensure_sprint`` fed values with no I/O: the settings and board it needs, and the places its messages name."""

from __future__ import annotations

from typing import Any

import pytest

from .executors_support import issue, kinds, ok, play

SPRINT = {"key": "X-1", "sprint": "Спринт 2", "board_id": 4216}


def test_sprint_without_the_sprint_field_setting_fails_before_any_call() -> None:
    """Settings whose ``fields`` have no ``sprint`` fail the command with «нет настройки fields.sprint», no call."""
    report, steps = play("ensure_sprint", SPRINT, [], context={"fields": {"planned_start": "customfield_11200"}})
    assert (report.status, report.error, steps) == ("failed", "нет настройки fields.sprint", [])


@pytest.mark.parametrize("board_id", [None, "", True, 1.5, [4216]])
def test_sprint_without_a_usable_board_id_fails_after_reading_the_issue(board_id: Any) -> None:
    """A named sprint needs the board: a delivery whose ``board_id`` is missing, empty text, a flag or not an
    id fails with «нет параметра board_id» after the issue's read, and the board is never asked."""
    params = {"key": "X-1", "sprint": "Спринт 2"} | ({} if board_id is None else {"board_id": board_id})
    report, steps = play("ensure_sprint", params, [ok(issue("X-1", customfield_10104=None))])
    assert (report.status, report.error) == ("failed", "нет параметра board_id")
    assert kinds(steps) == ["GET /rest/api/2/issue/X-1"]


def test_sprint_board_id_as_text_is_used_as_given() -> None:
    """A board id given as text (not empty) is the board's path segment like a number."""
    board = {"isLast": True, "values": [{"id": 7, "name": "Спринт 2", "state": "active"}]}
    answers = [ok(issue("X-1", customfield_10104=None)), ok(board), ok(status=204)]
    report, steps = play("ensure_sprint", {**SPRINT, "board_id": "4216"}, answers)
    assert kinds(steps)[1:] == ["GET /rest/agile/1.0/board/4216/sprint", "POST /rest/agile/1.0/sprint/7/issue"]
    assert dict(report.result) == {"sprint_id": 7, "moved": True}


def test_sprint_unreadable_issue_answer_names_the_issue() -> None:
    """An issue answer that is not an object fails naming the issue's key and the place «ответ»."""
    report, _ = play("ensure_sprint", SPRINT, [ok([1])])
    assert report.error == "ответ Jira по X-1: ответ — ожидается объект, получено: список"


def test_sprint_unreadable_board_page_names_the_board() -> None:
    """A board's sprint list that cannot be read fails naming «доска <id>» and the place ``values``."""
    report, _ = play("ensure_sprint", SPRINT, [ok(issue("X-1")), ok({"values": "x"})])
    assert report.error == "ответ Jira по доска 4216: values — ожидается список, получено: строка"


def test_sprint_on_a_board_without_active_or_future_sprints_lists_none() -> None:
    """A board with no active or future sprint: the failure lists «нет» for them."""
    report, _ = play("ensure_sprint", SPRINT, [ok(issue("X-1")), ok({"isLast": True, "values": []})])
    assert report.error == "нет спринта «Спринт 2» на доске 4216; активные и будущие: нет"
