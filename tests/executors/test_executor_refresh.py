"""``refresh`` fed Jira's answers as values (no I/O): its searches, neighbours, boards and journal, and what it
reports when one of them cannot be read."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.config.settings import Settings
from reconcile.executors import ExecContext, JiraCall, Page
from reconcile.executors.refresh import jira_since
from reconcile.jira.model import mirror_fields

from .executors_support import BLOCKS_1538, issue, kinds, ok, play, search

NO_ISSUES = ok(search())
#: The context of a hub whose Jira project is ``A`` (the tests that read ``A-…`` neighbours).
PROJECT_A = {"jira_project": "A"}


@pytest.mark.usefixtures("moscow")
def test_since_is_read_as_the_instant_it_names_whatever_the_machines_zone() -> None:
    """``since`` without an offset is UTC, with one the instant it names; no Jira zone, or one unknown, is UTC;
    the machine's own zone never counts."""
    assert jira_since("2026-10-22T08:45:00", None) == "2026/10/22 08:45"
    assert jira_since("2026-10-22T08:45:00", "") == "2026/10/22 08:45"
    assert jira_since("2026-10-22T08:45:00+03:00", "UTC") == "2026/10/22 05:45"
    assert jira_since("2026-10-22T08:45:00Z", "Nowhere/Unknown") == "2026/10/22 08:45"
    assert jira_since("2026-10-22T08:45:59Z", "Asia/Vladivostok") == "2026/10/22 18:45"


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
    report, _ = play("refresh", {"jql": "project = A"}, answers, context=PROJECT_A)
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
    report, steps = play("refresh", {"jql": "project = A"}, answers, context=PROJECT_A)
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


def test_refresh_pages_neighbours_boards_and_journal() -> None:
    """Issues page, neighbours page, board type, journal since: the result counts them all."""
    hit = issue(
        "AURORA-1537",
        summary="Интеграция",
        status={"name": "Разработка", "statusCategory": {"key": "indeterminate"}},
        issuelinks=[BLOCKS_1538],
    )
    neighbour = issue("AURORA-1538", summary="Выгрузка")
    history = {
        "key": "AURORA-1537",
        "changelog": {
            "histories": [
                {"id": "1", "created": "2026-10-22T11:40:00.000+0300", "author": {"name": "ivanov"}, "items": []},
                {
                    "id": "2",
                    "created": "2026-10-22T11:50:00.000+0300",
                    "author": {"name": "ivanov"},
                    "items": [{"field": "status", "from": "1", "fromString": "A", "to": "2", "toString": "B"}],
                },
            ]
        },
    }
    params = {
        "keys": ["AURORA-1537"],
        "boards": [{"id": 5120, "type": None}, {"id": 4216, "type": "scrum"}],
        "history": {"since": "2026-10-22T08:45:00Z"},
    }
    answers = [ok(search(hit)), ok(search(neighbour)), ok({"id": 5120, "type": "kanban"}), ok(search(history))]
    report, steps = play("refresh", params, answers)
    assert kinds(steps) == [
        "POST /rest/api/2/search",
        "page issues",
        "POST /rest/api/2/search",
        "page neighbours",
        "GET /rest/agile/1.0/board/5120",
        "POST /rest/api/2/search",
        "page history",
    ]
    searches = [s for s in steps if isinstance(s, JiraCall) and s.method == "POST"]
    assert searches[0].json["jql"] == "key in (AURORA-1537)"
    assert searches[0].json["maxResults"] == 100
    assert searches[1].json["jql"] == "key in (AURORA-1538)"
    assert searches[2].json["jql"] == '(key in (AURORA-1537)) AND updated >= "2026/10/22 11:45"'
    assert searches[2].json["expand"] == ["changelog"]
    history_page = steps[6]
    assert [entry.id for entry in history_page.history] == ["2"]  # type: ignore[union-attr]
    assert history_page.history[0].created == "2026-10-22T08:50:00Z"  # type: ignore[union-attr]
    assert dict(report.result) == {
        "issues": 1,
        "neighbours": 1,
        "boards": {"5120": "kanban"},
        "history": {"entries": 1},
    }
    assert report.operations == ()


def test_refresh_reads_no_neighbour_outside_the_allowed_projects() -> None:
    """An issue linked to HR-1 and AURORA-1538, refreshed by an agent allowed AURORA only: the neighbours' query
    names AURORA-1538 alone, and the link to HR-1 stays on the issue's page (DESIGN.md 5.5)."""
    to_hr = {"id": "10100", "type": {"name": "Связанные"}, "outwardIssue": {"key": "HR-1"}}
    hit = issue("AURORA-1537", summary="Интеграция", issuelinks=[BLOCKS_1538, to_hr])
    aurora_only = ExecContext(allowed_projects=("AURORA",))
    report, steps = play(
        "refresh", {"keys": ["AURORA-1537"]}, [ok(search(hit)), ok(search(issue("AURORA-1538")))], ctx=aurora_only
    )
    searches = [s.json["jql"] for s in steps if isinstance(s, JiraCall)]
    assert searches == ["key in (AURORA-1537)", "key in (AURORA-1538)"]
    first_page = steps[1]
    assert isinstance(first_page, Page)
    assert sorted(link.target for link in first_page.issues[0].links) == ["AURORA-1538", "HR-1"]
    assert (report.result["issues"], report.result["neighbours"]) == (1, 1)


def test_refresh_reads_no_neighbour_outside_the_hubs_project() -> None:
    """An agent allowed AURORA and HR, for a hub working in AURORA: the link to HR-1 stays a link end, never read
    nor sent (the hub's mirror holds only its project: DESIGN.md 5.7)."""
    to_hr = {"id": "10100", "type": {"name": "Связанные"}, "outwardIssue": {"key": "HR-1"}}
    hit = issue("AURORA-1537", summary="Интеграция", issuelinks=[BLOCKS_1538, to_hr])
    both = ExecContext(allowed_projects=("AURORA", "HR"))
    answers = [ok(search(hit)), ok(search(issue("AURORA-1538")))]
    report, steps = play("refresh", {"keys": ["AURORA-1537"]}, answers, ctx=both, context={"jira_project": "AURORA"})
    assert [s.json["jql"] for s in steps if isinstance(s, JiraCall)] == ["key in (AURORA-1537)", "key in (AURORA-1538)"]
    assert [i.key for s in steps if isinstance(s, Page) for i in s.issues] == ["AURORA-1537", "AURORA-1538"]
    assert report.result["neighbours"] == 1


def test_refresh_of_an_issue_linked_only_outside_reads_no_neighbour() -> None:
    """Every link of the issue leads to HR: no neighbours' query at all."""
    to_hr = {"id": "10100", "type": {"name": "Связанные"}, "outwardIssue": {"key": "HR-2"}}
    hit = issue("AURORA-1537", summary="Интеграция", issuelinks=[to_hr])
    aurora_only = ExecContext(allowed_projects=("AURORA",))
    report, steps = play("refresh", {"keys": ["AURORA-1537"]}, [ok(search(hit))], ctx=aurora_only)
    assert kinds(steps) == ["POST /rest/api/2/search", "page issues"]
    assert report.result["neighbours"] == 0


def test_refresh_journal_failure_keeps_the_refresh_done() -> None:
    """A failing journal query gives result.history.error, the refresh stays done."""
    params = {"jql": "project = AURORA", "history": {"jql": "project = AURORA AND sprint in openSprints()"}}
    answers = [ok(search()), ok({"errorMessages": ["Поле sprint недоступно"], "errors": {}}, status=400)]
    report, _ = play("refresh", params, answers)
    assert report.status == "done"
    assert dict(report.result) == {
        "issues": 0,
        "neighbours": 0,
        "boards": {},
        "history": {"error": "HTTP 400: Поле sprint недоступно"},
    }


def test_refresh_failure_of_the_main_query_fails() -> None:
    """An error on the issues query fails the refresh."""
    report, _ = play("refresh", {"jql": "bad"}, [ok({"errorMessages": ["Ошибка в JQL"]}, status=400)])
    assert (report.status, report.error) == ("failed", "HTTP 400: Ошибка в JQL")


def test_refresh_journal_since_and_jql_are_read_once_each_entry() -> None:
    """history with since and jql: two journal queries; an entry seen twice is sent once."""
    changelog = {
        "key": "X-1",
        "changelog": {"histories": [{"id": "5", "created": "2026-10-22T12:00:00.000+0300", "items": []}]},
    }
    params = {"jql": "project = AURORA", "history": {"since": "2026-10-22T08:45:00Z", "jql": "project = AURORA"}}
    answers = [ok(search()), ok(search(changelog)), ok(search(changelog))]
    report, steps = play("refresh", params, answers, ctx=ExecContext(jira_time_zone="Nowhere/Unknown"))
    searches = [s for s in steps if isinstance(s, JiraCall)]
    assert searches[1].json["jql"] == '(project = AURORA) AND updated >= "2026/10/22 08:45"'
    assert searches[2].json["jql"] == "project = AURORA"
    assert kinds(steps).count("page history") == 1
    assert report.result["history"] == {"entries": 1}


def test_refresh_keeps_order_by_at_the_end() -> None:
    """A JQL with ORDER BY keeps it after the added updated clause."""
    from reconcile.executors.refresh import with_updated_since

    assert with_updated_since("project = A ORDER BY key", "2026/10/22 11:45") == (
        '(project = A) AND updated >= "2026/10/22 11:45" ORDER BY key'
    )


def test_refresh_reads_no_neighbour_of_the_hubs_project_the_agent_may_not_read() -> None:
    """A hub working in HR, an agent allowed AURORA only: the link to HR-1 stays a link end, no neighbour read."""
    to_hr = {"id": "10100", "type": {"name": "Связанные"}, "outwardIssue": {"key": "HR-1"}}
    hit = issue("AURORA-1537", summary="Интеграция", issuelinks=[to_hr])
    aurora_only = ExecContext(allowed_projects=("AURORA",))
    report, steps = play(
        "refresh", {"keys": ["AURORA-1537"]}, [ok(search(hit))], ctx=aurora_only, context={"jira_project": "HR"}
    )
    assert kinds(steps) == ["POST /rest/api/2/search", "page issues"]
    assert report.result["neighbours"] == 0


def test_refresh_board_missing_in_jira_is_no_refusal_for_an_agent_of_allowed_projects() -> None:
    """A board Jira answers 404 for gets no type and is not refused, even when the agent's projects are limited
    (the error object names no project)."""
    answers = [NO_ISSUES, ok({"errorMessages": ["Board does not exist"]}, status=404)]
    params = {"jql": "project = AURORA", "boards": [{"id": 9001, "type": None}]}
    report, _ = play("refresh", params, answers, ctx=ExecContext(allowed_projects=("AURORA",)))
    assert (report.status, report.result["boards"], "refused_boards" in report.result) == (
        "done",
        {"9001": None},
        False,
    )


def test_refresh_delivered_boards_without_an_id_are_skipped() -> None:
    """A delivered board that is no object, or has no id, is skipped; the boards after it are still read."""
    boards = ["4216", {"name": "без id"}, {"id": None}, {"id": 7, "type": None}]
    report, steps = play("refresh", {"jql": "project = A", "boards": boards}, [NO_ISSUES, ok({"type": "scrum"})])
    assert [k for k in kinds(steps) if k.startswith("GET")] == ["GET /rest/agile/1.0/board/7"]
    assert report.result["boards"] == {"7": "scrum"}


SINCE = "2026-10-22T09:00:00Z"
CHANGES = {"jql": "project = AURORA", "changes": True, "history": {"since": SINCE}}


def test_changes_search_asks_the_mirror_fields_updated_since_in_the_jira_users_zone() -> None:
    """The change-only search: the JQL with ``updated >=`` since in the Jira user's zone (Moscow: 12:00), the
    mirror's fields and the changelog."""
    report, steps = play("refresh", CHANGES, [NO_ISSUES])
    [body] = _searches(steps)
    assert body["jql"] == '(project = AURORA) AND updated >= "2026/10/22 12:00"'
    assert body["expand"] == ["changelog"]
    assert body["fields"] == mirror_fields(Settings())
    assert report.result["history"] == {"entries": 0}


def test_changes_unreadable_search_page_names_the_search() -> None:
    """A change-only search page that cannot be read fails the command naming the search."""
    report, _ = play("refresh", CHANGES, [ok({"issues": 5})])
    assert (report.status, report.error) == (
        "failed",
        "ответ Jira по POST /rest/api/2/search: issues — ожидается список, получено: число",
    )


def test_changes_unreadable_changelog_is_listed() -> None:
    """A changed issue whose changelog cannot be read is listed in ``unreadable``, the refresh done."""
    bad = {"key": "X-1", "changelog": {"histories": "x"}}
    report, _ = play("refresh", CHANGES, [ok(search(bad))])
    assert report.status == "done"
    assert report.result["unreadable"][0] == {
        "key": "X-1",
        "error": "ответ Jira по X-1: changelog.histories — ожидается список, получено: строка",
    }


def test_changes_journal_entries_add_up_over_pages_and_the_history_jql() -> None:
    """``history.entries`` counts the entries of every change-only page and of the ``history.jql`` after them."""
    params = {**CHANGES, "history": {"since": SINCE, "jql": "key = X-9"}}
    answers = [
        ok(search(_changelog("X-1", "1", "2"), total=2)),
        ok(search(_changelog("X-2", "3"), total=2, start=1)),
        ok(search(_changelog("X-9", "4"))),
    ]
    report, steps = play("refresh", params, answers)
    assert kinds(steps).count("page history") == 3
    assert report.result["history"] == {"entries": 4}


def test_changes_journal_failure_keeps_the_refresh_done_with_its_error() -> None:
    """The ``history.jql`` of a change-only refresh failing: done, ``history.error`` Jira's words, the issue
    whose changelog could not be read still listed."""
    params = {**CHANGES, "history": {"since": SINCE, "jql": "key = X-9"}}
    bad = {"key": "X-1", "changelog": {"histories": "x"}}
    answers = [ok(search(bad)), ok({"errorMessages": ["Поле не существует"]}, status=400)]
    report, _ = play("refresh", params, answers)
    assert (report.status, report.result["history"]) == ("done", {"error": "HTTP 400: Поле не существует"})
    assert [u["key"] for u in report.result["unreadable"]] == ["X-1"]
