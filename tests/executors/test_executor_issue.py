"""``ensure_issue`` fed Jira's answers as values (no I/O): found by the duplicate search or created with its type,
epic and labels, which hit is our issue, and the search or hit named when Jira's answer cannot be read."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.executors import ExecContext, JiraCall, Operation
from tests.support import seed_result

from .executors_support import issue, kinds, ok, play, search

WHEN = "2026-10-22T12:00:00.000+0300"


def _hit(key: str | None, summary: Any = "Сверка", created: str = WHEN) -> dict[str, Any]:
    hit: dict[str, Any] = {"fields": {"summary": summary, "created": created}}
    if key is not None:
        hit["key"] = key
    return hit


def _ensure_issue(summary: str, *answers: Any) -> Any:
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": summary}, list(answers))
    return report


def test_a_search_answer_that_cannot_be_read_names_the_search() -> None:
    report = _ensure_issue("Сверка", ok({"issues": 5}))
    assert report.error == "ответ Jira по POST /rest/api/2/search: issues — ожидается список, получено: число"


def test_a_hit_whose_fields_cannot_be_read_names_its_key() -> None:
    report = _ensure_issue("Сверка", ok({"issues": [{"key": "AURORA-7", "fields": []}]}))
    assert report.error == "ответ Jira по AURORA-7: fields — ожидается объект, получено: список"


@pytest.mark.parametrize("summary", ["Сверка", "XXXX", "None"])
def test_a_hit_without_a_summary_is_never_our_issue(summary: str) -> None:
    """A found issue without a summary matches no command's summary: the issue is created."""
    report = _ensure_issue(summary, ok({"issues": [_hit("AURORA-7", None)]}), ok({"key": "AURORA-8"}, status=201))
    assert seed_result(report.result) == {"key": "AURORA-8", "created": True}


def test_our_issue_without_a_readable_key_fails_naming_it() -> None:
    """The oldest match has no key: failed, the hit named «?»; with a key of a bad character, that key."""
    report = _ensure_issue("Сверка", ok({"issues": [_hit(None)]}))
    assert report.error == "ответ Jira по ?: key — ожидается непустая строка, получено: null"
    report = _ensure_issue("Сверка", ok({"issues": [_hit("AURORA-\x007")]}))
    assert report.error == "ответ Jira по AURORA-\ufffd7: key — недопустимый символ"


def test_a_hit_without_a_number_orders_before_the_numbered_ones_of_its_time() -> None:
    """Of two matches created at once, one whose key has no number orders as 0, before ``AURORA-1``."""
    report = _ensure_issue("Сверка", ok({"issues": [_hit("AURORA-1"), _hit(None)]}))
    assert report.error == "ответ Jira по ?: key — ожидается непустая строка, получено: null"


def test_issue_found_by_duplicate_search_is_not_created_again() -> None:
    """Our issue with the same summary in the last 7 days is the result, without a POST."""
    hits = search(
        issue("AURORA-1542", summary="Шахматка: комментарии", created="2026-10-20T12:00:00.000+0300"),
        issue("AURORA-1551", summary="Другое"),
    )
    report, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "Шахматка: комментарии"}, [ok(hits)])
    assert kinds(steps) == ["POST /rest/api/2/search"]
    call = steps[0]
    assert isinstance(call, JiraCall)
    assert call.json["jql"] == "project = AURORA AND reporter = currentUser() AND created >= -7d"
    assert (report.status, seed_result(report.result)) == ("done", {"key": "AURORA-1542", "created": False})


def test_issue_search_reads_every_page() -> None:
    """The duplicate search follows startAt/total to the last page."""
    first = search(issue("A-1", summary="x"), total=2)
    second = search(issue("A-2", summary="Отчёт"), total=2, start=1)
    report, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(first), ok(second)])
    assert [s.json["startAt"] for s in steps if isinstance(s, JiraCall)] == [0, 1]
    assert seed_result(report.result) == {"key": "A-2", "created": False}


def test_bug_is_created_with_the_issue_type_name() -> None:
    """issue_types.bug = {name: "Ошибка"} gives issuetype {name}, labels and the key in the result."""
    params = {"temp_key": "new:1", "issue_type": "bug", "summary": "ОСВ 60 не распознана", "labels": ["AWPCA"]}
    report, steps = play("ensure_issue", params, [ok(search()), ok({"id": "20000", "key": "AURORA-1590"}, status=201)])
    post = steps[1]
    assert isinstance(post, JiraCall)
    assert (post.method, post.path) == ("POST", "/rest/api/2/issue")
    assert post.json == {
        "fields": {
            "project": {"key": "AURORA"},
            "summary": "ОСВ 60 не распознана",
            "issuetype": {"name": "Ошибка"},
            "labels": ["AWPCA"],
        }
    }
    assert (report.status, seed_result(report.result)) == ("done", {"key": "AURORA-1590", "created": True})
    assert report.operations == (Operation(method="POST", path="/rest/api/2/issue", status=201),)


def test_epic_gets_its_name_field_and_type_id() -> None:
    """An epic carries the epic name field = summary; an issue type with an id is sent by id."""
    context = {"issue_types": {"task": {"name": "Задача"}, "epic": {"id": "10000", "name": "Эпик"}}}
    params = {
        "temp_key": "new:2",
        "issue_type": "epic",
        "summary": "Сверка",
        "description": "a\nb",
        "priority": "High",
        "duedate": "2026-10-30",
        "planned_end": "2026-10-29",
        "assignee": "ivanov",
    }
    _, steps = play("ensure_issue", params, [ok(search()), ok({"key": "AURORA-1591"}, status=201)], context=context)
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json["fields"] == {
        "project": {"key": "AURORA"},
        "summary": "Сверка",
        "issuetype": {"id": "10000"},
        "description": "a\nb",
        "duedate": "2026-10-30",
        "priority": {"name": "High"},
        "customfield_11201": "2026-10-29",
        "assignee": {"name": "ivanov"},
        "customfield_10102": "Сверка",
    }


def test_issue_without_type_setting_fails_before_any_call() -> None:
    """A bug without issue_types.bug fails with the seed's words and no call."""
    context = {"issue_types": {"task": {"name": "Задача"}}}
    report, steps = play(
        "ensure_issue", {"temp_key": "new:1", "issue_type": "bug", "summary": "x"}, [], context=context
    )
    assert (report.status, report.error, steps) == ("failed", "нет настройки issue_types.bug", [])


def test_issue_duplicate_search_keeps_the_oldest_then_the_lowest_number() -> None:
    """Of several of our issues with the summary, the oldest by ``created`` wins; on a tie, the lower issue
    number (9 before 10, as numbers)."""
    hits = search(
        issue("A-12", summary="Отчёт", created="2026-10-21T10:00:00.000+0300"),
        issue("A-11", summary="Отчёт", created="2026-10-20T10:00:00.000+0300"),
        issue("A-10", summary="Отчёт", created="2026-10-22T10:00:00.000+0300"),
    )
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(hits)])
    assert seed_result(report.result) == {"key": "A-11", "created": False}
    tie = search(
        issue("A-10", summary=" Отчёт", created="2026-10-20T10:00:00.000+0300"),
        issue("A-9", summary="Отчёт ", created="2026-10-20T10:00:00.000+0300"),
        issue("A-8", summary="Отчёт 2", created="2026-10-19T10:00:00.000+0300"),
    )
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(tie)])
    assert seed_result(report.result) == {"key": "A-9", "created": False}


def test_issue_epic_goes_into_the_epic_field_or_parent() -> None:
    """epic_key is the epic link field by default and fields.parent = {key} in parent mode."""
    params = {"temp_key": "new:1", "summary": "Отчёт", "epic_key": "X-9", "planned_start": "2026-11-01"}
    answers = [ok(search()), ok({"key": "X-10"}, status=201)]
    _, steps = play("ensure_issue", params, answers)
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json["fields"] == {
        "project": {"key": "AURORA"},
        "summary": "Отчёт",
        "issuetype": {"name": "Задача"},
        "customfield_11200": "2026-11-01",
        "customfield_10100": "X-9",
    }
    _, steps = play("ensure_issue", params, answers, context={"epic_link": {"mode": "parent", "field_id": None}})
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json["fields"]["parent"] == {"key": "X-9"}
    assert "customfield_10100" not in steps[1].json["fields"]


def test_issue_creation_rules_without_settings_labels_or_an_epic_name() -> None:
    """A planned date without its field setting fails before any call; empty labels are left out, others sent
    as strings; an epic gets no name field when none is configured; a bug gets none at all."""
    report, steps = play(
        "ensure_issue",
        {"temp_key": "new:1", "summary": "x", "planned_end": "2026-10-01"},
        [],
        context={"fields": {"sprint": "customfield_10104"}},
    )
    assert (report.status, report.error, steps) == ("failed", "нет настройки fields.planned_end", [])
    answers = [ok(search()), ok({"key": "X-2"}, status=201)]
    _, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "x", "labels": []}, answers)
    assert isinstance(steps[1], JiraCall)
    assert "labels" not in steps[1].json["fields"]
    _, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "x", "labels": ["a", 5]}, answers)
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json["fields"]["labels"] == ["a", "5"]
    epic = {"temp_key": "new:1", "summary": "Э", "issue_type": "epic"}
    _, steps = play("ensure_issue", epic, answers, context={"epic_name_field_id": None})
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json["fields"] == {"project": {"key": "AURORA"}, "summary": "Э", "issuetype": {"name": "Эпик"}}
    _, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "Б", "issue_type": "bug"}, answers)
    assert isinstance(steps[1], JiraCall)
    assert "customfield_10102" not in steps[1].json["fields"]


def test_issue_answers_that_cannot_be_read() -> None:
    """A created issue without a key, an answer that is no object, a hit whose summary is no text: failed,
    naming the call or the issue, with the POST among the operations when it was made."""
    created = [Operation(method="POST", path="/rest/api/2/issue", status=201)]
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "x"}, [ok(search()), ok({"id": "1"}, status=201)])
    assert (report.error, list(report.operations)) == (
        "ответ Jira по POST /rest/api/2/issue: key — ожидается непустая строка, получено: null",
        created,
    )
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "x"}, [ok(search()), ok([], status=201)])
    assert report.error == "ответ Jira по POST /rest/api/2/issue: ответ — ожидается объект, получено: список"
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "x"}, [ok(search(issue("A-1", summary=5)))])
    assert (report.error, report.operations) == (
        "ответ Jira по A-1: summary — ожидается строка или null, получено: число",
        (),
    )


def test_issue_hits_without_a_number_or_a_created_time_still_order() -> None:
    """A key without an issue number counts as number 0, a hit without ``created`` as the oldest: ordering
    never fails on an odd hit."""
    same = "2026-10-20T10:00:00.000+0300"
    hits = search(issue("A-3", summary="Отчёт", created=same), issue("ODD", summary="Отчёт", created=same))
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(hits)])
    assert seed_result(report.result) == {"key": "ODD", "created": False}
    hits = search(issue("A-3", summary="Отчёт", created=same), issue("A-4", summary="Отчёт"))
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(hits)])
    assert seed_result(report.result) == {"key": "A-4", "created": False}


def test_issue_in_a_project_the_agent_may_not_touch_fails_before_any_call() -> None:
    """The settings' Jira project outside the agent's allowed projects: failed, the project named, no call."""
    ctx = ExecContext(allowed_projects=("DEV",))
    report, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [], ctx=ctx)
    assert (report.status, report.error, steps) == ("failed", 'проект "AURORA" не в разрешённых проектах', [])


def test_issue_created_is_remembered_as_created() -> None:
    """A created issue's ``undo`` is ``{created: key}``; one found by the duplicate search has none."""
    report, _ = play(
        "ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(search()), ok({"key": "AURORA-8"}, status=201)]
    )
    assert report.result["undo"] == {"created": "AURORA-8"}
    report, _ = play(
        "ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(search(issue("A-7", summary="Отчёт")))]
    )
    assert "undo" not in report.result


def test_issue_tie_orders_by_the_number_after_the_keys_last_hyphen() -> None:
    """Of two matches created at once, the lower number after the key's last hyphen wins, whatever Jira's key
    holds before it."""
    hits = search(issue("AB-C-10", summary="Отчёт", created=WHEN), issue("AB-C-9", summary="Отчёт", created=WHEN))
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(hits)])
    assert seed_result(report.result) == {"key": "AB-C-9", "created": False}
