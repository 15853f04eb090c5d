"""``ensure_link`` fed values with no I/O: link types, conflicts and the read-back, in the messages a person
reads."""

from __future__ import annotations

from typing import Any

from reconcile.executors import ExecContext

from .executors_support import issue, ok, play

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
