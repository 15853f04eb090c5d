"""Rules of ``ensure_sprint``, ``ensure_link`` and ``refresh`` that the mutation run found no test stating:
the messages a person reads in a failed command or a refresh's result, and the places they name."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from plans_support import SYMMETRIC, kinds, ok, play

from reconcile.plans import ExecContext, JiraCall
from reconcile.plans.refresh import jira_since

SPRINT = {"key": "X-1", "sprint": "Спринт 2", "board_id": 4216}


def issue(key: str = "X-1", **fields: Any) -> dict[str, Any]:
    return {"key": key, "fields": fields}


def search(*hits: dict[str, Any], total: int | None = None, start: int = 0) -> dict[str, Any]:
    return {"startAt": start, "maxResults": 100, "total": len(hits) if total is None else total, "issues": list(hits)}


# --- ensure_sprint -------------------------------------------------------------------------------------------


def test_sprint_without_the_sprint_field_setting_fails_before_any_call() -> None:
    """Settings whose ``fields`` have no ``sprint`` fail the command with «нет настройки fields.sprint», no call."""
    report, steps = play("ensure_sprint", SPRINT, [], context={"fields": {"planned_start": "customfield_11200"}})
    assert (report.status, report.error, steps) == ("failed", "нет настройки fields.sprint", [])


@pytest.mark.parametrize("board_id", [None, "", True, 1.5, [4216]])
def test_sprint_without_a_usable_board_id_fails_after_reading_the_issue(board_id: Any) -> None:
    """A named sprint needs the board: a delivery whose ``board_id`` is missing, empty text, a flag or not an
    id fails with «нет параметра board_id» after the issue's read, and the board is never asked."""
    params = {"key": "X-1", "sprint": "Спринт 2"} | ({} if board_id is None else {"board_id": board_id})
    report, steps = play("ensure_sprint", params, [ok(issue(customfield_10104=None))])
    assert (report.status, report.error) == ("failed", "нет параметра board_id")
    assert kinds(steps) == ["GET /rest/api/2/issue/X-1"]


def test_sprint_board_id_as_text_is_used_as_given() -> None:
    """A board id given as text (not empty) is the board's path segment like a number."""
    board = {"isLast": True, "values": [{"id": 7, "name": "Спринт 2", "state": "active"}]}
    answers = [ok(issue(customfield_10104=None)), ok(board), ok(status=204)]
    report, steps = play("ensure_sprint", {**SPRINT, "board_id": "4216"}, answers)
    assert kinds(steps)[1:] == ["GET /rest/agile/1.0/board/4216/sprint", "POST /rest/agile/1.0/sprint/7/issue"]
    assert dict(report.result) == {"sprint_id": 7, "moved": True}


def test_sprint_unreadable_issue_answer_names_the_issue() -> None:
    """An issue answer that is not an object fails naming the issue's key and the place «ответ»."""
    report, _ = play("ensure_sprint", SPRINT, [ok([1])])
    assert report.error == "ответ Jira по X-1: ответ — ожидается объект, получено: список"


def test_sprint_unreadable_board_page_names_the_board() -> None:
    """A board's sprint list that cannot be read fails naming «доска <id>» and the place ``values``."""
    report, _ = play("ensure_sprint", SPRINT, [ok(issue()), ok({"values": "x"})])
    assert report.error == "ответ Jira по доска 4216: values — ожидается список, получено: строка"


def test_sprint_on_a_board_without_active_or_future_sprints_lists_none() -> None:
    """A board with no active or future sprint: the failure lists «нет» for them."""
    report, _ = play("ensure_sprint", SPRINT, [ok(issue()), ok({"isLast": True, "values": []})])
    assert report.error == "нет спринта «Спринт 2» на доске 4216; активные и будущие: нет"


# --- ensure_link ---------------------------------------------------------------------------------------------

LINK = {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные"}
KNOWS_OTHER = ExecContext(symmetric_link_types=frozenset({"Связанные"}), link_types=frozenset({"Дубликат"}))


def links(*entries: dict[str, Any]) -> dict[str, Any]:
    return issue("AURORA-1537", issuelinks=list(entries))


def test_link_type_missing_from_the_settings_fails_naming_the_logical_name() -> None:
    """A logical link type the settings do not map fails with «нет настройки link_types.<name>», no call."""
    report, steps = play("ensure_link", {**LINK, "link_type": "дублирует"}, [])
    assert (report.status, report.error, steps) == ("failed", "нет настройки link_types.дублирует", [])


def test_link_types_answer_that_cannot_be_read_names_the_call_and_the_place() -> None:
    """GET /issueLinkType answering something other than an object, or ``issueLinkTypes`` not a list, fails
    naming the call and the place."""
    report, _ = play("ensure_link", LINK, [ok([])], ctx=KNOWS_OTHER)
    assert report.error == "ответ Jira по GET /rest/api/2/issueLinkType: ответ — ожидается объект, получено: список"
    report, _ = play("ensure_link", LINK, [ok({"issueLinkTypes": "x"})], ctx=KNOWS_OTHER)
    assert report.error == (
        "ответ Jira по GET /rest/api/2/issueLinkType: issueLinkTypes — ожидается список, получено: строка"
    )


def test_link_types_of_jira_only_named_objects_count_and_none_is_said_as_net() -> None:
    """Only entries that are objects with a text ``name`` are Jira's link types (others are skipped, never a
    crash); when none is left the failure says «есть: нет»."""
    answer = {"issueLinkTypes": ["Связанные", {"name": 5}, {"id": "1"}, {"name": "Блокирует начало"}]}
    report, _ = play("ensure_link", LINK, [ok(answer)], ctx=KNOWS_OTHER)
    assert report.error == "в Jira нет типа связи «Связанные»; есть: Блокирует начало"
    report, _ = play("ensure_link", LINK, [ok({"issueLinkTypes": []})], ctx=KNOWS_OTHER)
    assert report.error == "в Jira нет типа связи «Связанные»; есть: нет"


def test_link_unreadable_source_issue_names_it() -> None:
    """The source issue's answer that is not an object fails naming the source key; so does its read-back
    after a POST without a Location."""
    report, _ = play("ensure_link", LINK, [ok([])])
    assert report.error == "ответ Jira по AURORA-1537: ответ — ожидается объект, получено: список"
    report, _ = play("ensure_link", LINK, [ok(links()), ok(status=201), ok([])])
    assert report.error == "ответ Jira по AURORA-1537: ответ — ожидается объект, получено: список"


def test_link_conflicts_are_listed_with_a_comma() -> None:
    """Several conflicting links are named one after another, separated by «, »."""
    blocks = {"id": "10007", "type": {"name": "Блокирует начало"}, "outwardIssue": {"key": "AURORA-1538"}}
    blocked = {"id": "10008", "type": {"name": "Блокирует начало"}, "inwardIssue": {"key": "AURORA-1538"}}
    report, _ = play("ensure_link", LINK, [ok(links(blocks, blocked))])
    assert report.error == (
        "конфликт: связь «Блокирует начало» AURORA-1537 → AURORA-1538 (id 10007), "
        "«Блокирует начало» AURORA-1538 → AURORA-1537 (id 10008); нужна «Связанные»; replace не задан"
    )


def test_link_read_back_takes_the_new_link_of_the_wanted_type_only() -> None:
    """Read back after a POST without a Location: the id is that of the wanted type's link source → target,
    not of another type's link between the same two issues listed before it."""
    other = {"id": "10001", "type": {"name": "Дубликат"}, "outwardIssue": {"key": "AURORA-1538"}}
    new = {"id": "10011", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}
    report, _ = play("ensure_link", LINK, [ok(links(other)), ok(status=201), ok(links(other, new))])
    assert (report.status, dict(report.result)) == ("done", {"existed": False, "link_id": "10011", "removed": []})


def test_link_read_back_without_the_new_link_is_done_without_an_id() -> None:
    """The read-back does not show the created link yet: done, ``link_id`` null (never a crash)."""
    report, steps = play("ensure_link", LINK, [ok(links()), ok(status=201), ok(links())])
    assert (report.status, dict(report.result)) == ("done", {"existed": False, "link_id": None, "removed": []})
    assert [o.method for o in report.operations] == ["POST"]
    assert len(steps) == 3
