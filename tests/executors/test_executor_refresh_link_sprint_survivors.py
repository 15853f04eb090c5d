"""Rules of ``ensure_sprint``, ``ensure_link`` and ``refresh`` that the mutation run found no test stating:
the messages a person reads in a failed command or a refresh's result, and the places they name."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from executors_support import kinds, ok, play

from reconcile.executors import ExecContext, JiraCall
from reconcile.executors.refresh import jira_since

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


# --- refresh: jira_since -------------------------------------------------------------------------------------


@pytest.fixture
def moscow_machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The agent's machine runs in Moscow time (UTC+3): nothing may depend on it."""
    monkeypatch.setenv("TZ", "Europe/Moscow")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("moscow_machine")
def test_since_is_read_as_the_instant_it_names_whatever_the_machines_zone() -> None:
    """``since`` without an offset is UTC, with one the instant it names; no Jira zone, or one unknown, is UTC;
    the machine's own zone never counts."""
    assert jira_since("2026-10-22T08:45:00", None) == "2026/10/22 08:45"
    assert jira_since("2026-10-22T08:45:00", "") == "2026/10/22 08:45"
    assert jira_since("2026-10-22T08:45:00+03:00", "UTC") == "2026/10/22 05:45"
    assert jira_since("2026-10-22T08:45:00Z", "Nowhere/Unknown") == "2026/10/22 08:45"
    assert jira_since("2026-10-22T08:45:59Z", "Asia/Vladivostok") == "2026/10/22 18:45"


# --- refresh -------------------------------------------------------------------------------------------------

NO_ISSUES = ok(search())


def _searches(steps: list[Any]) -> list[dict[str, Any]]:
    return [s.json for s in steps if isinstance(s, JiraCall) and s.method == "POST"]


def test_refresh_without_keys_or_jql_fails_before_any_call() -> None:
    """Neither ``keys`` (text keys) nor a non-blank ``jql``: failed «нет параметра keys или jql», no call."""
    for params in ({}, {"jql": "  ", "keys": [5]}):
        report, steps = play("refresh", params, [])
        assert (report.status, report.error, steps) == ("failed", "нет параметра keys или jql", [])


def test_refresh_unreadable_search_page_names_the_search() -> None:
    """A page of the issues search that cannot be read fails the refresh naming ``POST /rest/api/2/search``."""
    report, _ = play("refresh", {"jql": "project = A"}, [ok({"issues": "x"})])
    assert (report.status, report.error) == (
        "failed",
        "ответ Jira по POST /rest/api/2/search: issues — ожидается список, получено: строка",
    )


def test_refresh_failing_on_the_neighbours_reports_what_it_had() -> None:
    """A failure while reading the neighbours ends failed with the issues counted so far, no neighbours and
    no boards yet."""
    hit = issue("A-1", issuelinks=[{"id": "1", "type": {"name": "Связанные"}, "outwardIssue": {"key": "A-2"}}])
    answers = [ok(search(hit)), ok({"errorMessages": ["сбой"]}, status=500)]
    report, _ = play("refresh", {"jql": "project = A"}, answers)
    assert (report.status, report.error) == ("failed", "HTTP 500: сбой")
    assert dict(report.result) == {"issues": 1, "neighbours": 0, "boards": {}}


def test_refresh_neighbours_are_read_in_one_query_of_up_to_100_keys_and_leniently() -> None:
    """The neighbours of a page go into one ``key in (…)`` query; naming a deleted issue (400) it is asked
    again with ``validateQuery: false``, the same body otherwise."""
    ends = [{"id": str(i), "type": {"name": "Связанные"}, "outwardIssue": {"key": f"A-{i}"}} for i in (2, 3)]
    answers = [
        ok(search(issue("A-1", issuelinks=ends))),
        ok({"errorMessages": ["An issue with key 'A-3' does not exist"]}, status=400),
        ok(search(issue("A-2"))),
    ]
    report, steps = play("refresh", {"jql": "project = A"}, answers)
    first, retry = _searches(steps)[1:]
    assert first["jql"] == "key in (A-2, A-3)"
    assert "validateQuery" not in first
    assert retry == first | {"validateQuery": False}
    assert (report.status, report.result["neighbours"]) == ("done", 1)


def test_refresh_by_keys_stays_lenient_on_later_pages() -> None:
    """Once a ``keys`` query was asked leniently, its later pages are asked leniently too, with the same
    fields, page size and the next start."""
    answers = [
        ok({"errorMessages": ["An issue with key 'A-9' does not exist"]}, status=400),
        ok(search(issue("A-1"), total=2)),
        ok(search(issue("A-2"), total=2, start=1)),
    ]
    report, steps = play("refresh", {"keys": ["A-1", "A-2", "A-9"]}, answers)
    strict, lenient, second = _searches(steps)
    assert strict["maxResults"] == 100 and strict["startAt"] == 0 and "validateQuery" not in strict
    assert lenient == strict | {"validateQuery": False}
    assert second == lenient | {"startAt": 1}
    assert (report.status, report.result["issues"]) == ("done", 2)


def test_refresh_board_types() -> None:
    """Only boards of unknown type are asked, each of them; «scrum» and «kanban» are types, anything else
    (another word, a non-object answer, a board Jira does not have: 404) is unknown (null)."""
    boards = [{"id": 9, "type": "kanban"}] + [{"id": i, "type": None} for i in (1, 2, 3, 4, 5)]
    answers = [
        NO_ISSUES,
        ok({"type": "scrum"}),
        ok({"type": "kanban"}),
        ok({"type": "simple"}),
        ok([]),
        ok({"errorMessages": ["Board does not exist"]}, status=404),
    ]
    report, steps = play("refresh", {"jql": "project = A", "boards": boards}, answers)
    assert [k for k in kinds(steps) if k.startswith("GET")] == [
        f"GET /rest/agile/1.0/board/{i}" for i in (1, 2, 3, 4, 5)
    ]
    assert report.status == "done"
    assert report.result["boards"] == {"1": "scrum", "2": "kanban", "3": None, "4": None, "5": None}


def test_refresh_history_jql_is_asked_strictly() -> None:
    """The journal's own JQL is sent as given, validated by Jira (no ``validateQuery``), for the changelog."""
    _, steps = play("refresh", {"jql": "project = A", "history": {"jql": "project = B"}}, [NO_ISSUES, NO_ISSUES])
    assert _searches(steps)[1] == {
        "jql": "project = B",
        "startAt": 0,
        "maxResults": 100,
        "fields": ["updated"],
        "expand": ["changelog"],
    }


def _changelog(key: str, *ids: str) -> dict[str, Any]:
    histories = [{"id": i, "created": "2026-10-22T12:00:00.000+0300", "items": []} for i in ids]
    return {"key": key, "changelog": {"histories": histories}}


def test_refresh_unreadable_changelog_is_listed_and_the_rest_is_read() -> None:
    """An issue whose changelog cannot be read is listed in ``unreadable`` with the reason; the issues after
    it on the page are still read."""
    bad = {"key": "X-1", "changelog": {"histories": "x"}}
    answers = [NO_ISSUES, ok(search(bad, _changelog("X-2", "5")))]
    report, steps = play("refresh", {"jql": "project = A", "history": {"jql": "project = A"}}, answers)
    assert [e.key for s in steps if getattr(s, "kind", None) == "history" for e in s.history] == ["X-2"]
    assert report.result["history"] == {"entries": 1}
    assert report.result["unreadable"] == [
        {"key": "X-1", "error": "ответ Jira по X-1: changelog.histories — ожидается список, получено: строка"}
    ]


def test_refresh_journal_entries_add_up_over_its_pages() -> None:
    """``history.entries`` counts every page of a journal query."""
    answers = [
        NO_ISSUES,
        ok(search(_changelog("X-1", "1", "2"), total=2)),
        ok(search(_changelog("X-2", "3"), total=2, start=1)),
    ]
    report, steps = play("refresh", {"jql": "project = A", "history": {"jql": "project = A"}}, answers)
    assert kinds(steps).count("page history") == 2
    assert report.result["history"] == {"entries": 3}


def test_refresh_unreadable_journal_page_is_the_histories_error() -> None:
    """A journal page that cannot be read leaves the refresh done, ``history.error`` naming the search."""
    answers = [NO_ISSUES, ok({"issues": "x"})]
    report, _ = play("refresh", {"jql": "project = A", "history": {"jql": "project = A"}}, answers)
    assert report.status == "done"
    assert report.result["history"] == {
        "error": "ответ Jira по POST /rest/api/2/search: issues — ожидается список, получено: строка"
    }


def test_refresh_history_since_empty_is_no_since_and_unreadable_is_an_error() -> None:
    """An empty ``since`` asks no «updated since» query; a ``since`` that is not a time leaves the refresh
    done with «history.since: …» as the journal's error and no journal query."""
    params = {"jql": "project = A", "history": {"since": "", "jql": "project = B"}}
    report, steps = play("refresh", params, [NO_ISSUES, NO_ISSUES])
    assert [s["jql"] for s in _searches(steps)] == ["project = A", "project = B"]
    assert report.result["history"] == {"entries": 0}
    report, steps = play("refresh", {"jql": "project = A", "history": {"since": "вчера"}}, [NO_ISSUES])
    assert (report.status, len(_searches(steps))) == ("done", 1)
    assert report.result["history"] == {"error": "history.since: Invalid isoformat string: 'вчера'"}
