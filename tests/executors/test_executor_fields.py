"""``ensure_fields`` fed Jira's answers as values (no I/O): one read, one PUT of the differences only, the epic
field or parent, Jira's errors, and which setting a difference needs."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.executors import JiraCall, Operation
from reconcile.executors._run import CommandFailed, Run
from reconcile.executors.fields import fields_diff
from reconcile.jira.model import issue_from_jira
from tests.support import seed_result

from .executors_support import SYMMETRIC, delivery, issue, kinds, ok, play


def _diff(params: dict[str, Any], current: dict[str, Any], context: dict[str, Any] | None = None) -> Any:
    """What an ensure_fields of ``params`` finds different on an issue X-1 holding ``current``."""
    run = Run(delivery("ensure_fields", {"key": "X-1", **params}, context=context), SYMMETRIC)
    return fields_diff(run, issue_from_jira({"key": "X-1", "fields": current}, run.settings))


def test_a_null_summary_is_the_empty_summary() -> None:
    """ensure_fields compares a summary of null as the empty text: null against an empty or null summary is no
    change; null against a real one clears it."""
    assert _diff({"summary": None}, {"summary": None}) == ([], {}, [])
    assert _diff({"summary": None}, {"summary": ""}) == ([], {}, [])
    assert _diff({"summary": None}, {"summary": "Отчёт"}) == (["summary"], {"summary": None}, [])


def test_a_planned_date_without_its_field_setting_fails_naming_the_setting() -> None:
    """A planned date that differs, with no field set up for it, fails «нет настройки fields.<name>»."""
    for name in ("planned_start", "planned_end"):
        with pytest.raises(CommandFailed) as caught:
            _diff({name: "2026-10-01"}, {}, context={"fields": {"sprint": "customfield_10104"}})
        assert str(caught.value) == f"нет настройки fields.{name}"


def test_fields_same_duedate_reads_once_and_writes_nothing() -> None:
    """A repeat of a done ensure_fields makes one GET and no PUT (seed: «Повтор уже выполненной команды»)."""
    report, steps = play(
        "ensure_fields",
        {"key": "AURORA-1533", "duedate": "2026-10-23"},
        [ok(issue("AURORA-1533", duedate="2026-10-23"))],
    )
    assert kinds(steps) == ["GET /rest/api/2/issue/AURORA-1533"]
    assert (report.status, seed_result(report.result), report.operations) == ("done", {"changed": []}, ())


def test_fields_crlf_description_is_the_same_text() -> None:
    """ "а\\nб" against Jira's "а\\r\\nб" is no change (seed: «Описание отличается только переводами строк»)."""
    report, steps = play(
        "ensure_fields", {"key": "X-1", "description": "а\nб"}, [ok(issue("X-1", description="а\r\nб"))]
    )
    assert len(steps) == 1
    assert seed_result(report.result) == {"changed": []}


def test_fields_put_carries_only_the_differences() -> None:
    """Only differing fields go into the PUT; labels change through add/remove verbs; null clears."""
    current = issue(
        "AURORA-1533",
        summary="Старое",
        duedate="2026-10-23",
        labels=["AWPCA", "old"],
        priority={"name": "High"},
        assignee={"name": "ivanov"},
    )
    params = {
        "key": "AURORA-1533",
        "summary": "Новое",
        "duedate": "2026-10-23",
        "priority": "High",
        "labels_add": ["AWPCA", "kind-dev"],
        "labels_remove": ["old", "absent"],
        "assignee": None,
        "planned_start": "2026-11-01",
        "epic_key": "AURORA-1500",
    }
    report, steps = play("ensure_fields", params, [ok(current), ok(status=204)])
    put = steps[1]
    assert isinstance(put, JiraCall)
    assert (put.method, put.path) == ("PUT", "/rest/api/2/issue/AURORA-1533")
    assert put.json == {
        "fields": {
            "summary": "Новое",
            "customfield_11200": "2026-11-01",
            "customfield_10100": "AURORA-1500",
            "assignee": None,
        },
        "update": {"labels": [{"add": "kind-dev"}, {"remove": "old"}]},
    }
    assert seed_result(report.result) == {
        "changed": ["summary", "planned_start", "labels_add", "labels_remove", "epic_key", "assignee"]
    }
    assert report.operations == (Operation(method="PUT", path="/rest/api/2/issue/AURORA-1533", status=204),)


def test_fields_epic_by_parent_mode() -> None:
    """With epic_link.mode = parent the epic goes into fields.parent."""
    context = {"epic_link": {"mode": "parent", "field_id": None}}
    report, steps = play(
        "ensure_fields",
        {"key": "X-1", "epic_key": "X-9"},
        [ok(issue("X-1", parent={"key": "X-8"})), ok(status=204)],
        context=context,
    )
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json == {"fields": {"parent": {"key": "X-9"}}}
    assert seed_result(report.result) == {"changed": ["epic_key"]}


def test_fields_jira_error_fails_with_its_messages() -> None:
    """A 400 from the PUT fails the command with «HTTP 400: …» and the write in operations."""
    body = {"errorMessages": ["Плохо"], "errors": {"duedate": "Неверная дата"}}
    report, _ = play("ensure_fields", {"key": "X-1", "duedate": "2026-13-01"}, [ok(issue("X-1")), ok(body, status=400)])
    assert report.status == "failed"
    assert report.error == "HTTP 400: Плохо; duedate: Неверная дата"
    assert report.operations == (Operation(method="PUT", path="/rest/api/2/issue/X-1", status=400),)


def test_fields_missing_issue_fails_on_the_read() -> None:
    """A 404 on the read fails the command without writes."""
    report, _ = play(
        "ensure_fields",
        {"key": "X-404", "summary": "a"},
        [ok({"errorMessages": ["Issue Does Not Exist"], "errors": {}}, status=404)],
    )
    assert (report.status, report.error, report.operations) == ("failed", "HTTP 404: Issue Does Not Exist", ())


def _put(params: dict[str, Any], current: dict[str, Any], context: dict[str, Any] | None = None) -> Any:
    """The body of the PUT an ensure_fields makes against ``current`` (None when it writes nothing)."""
    changed, fields, verbs = _diff(params, current, context)
    body = ({"fields": fields} if fields else {}) | ({"update": {"labels": verbs}} if verbs else {})
    assert bool(changed) == bool(body)
    return body or None


def test_fields_summary_differing_only_by_spaces_around_it_is_no_change() -> None:
    """Jira stores the summary trimmed: spaces around the wanted one are no difference; a real difference is
    written as given."""
    assert _put({"summary": "  Отчёт "}, {"summary": "Отчёт"}) is None
    assert _put({"summary": "Отчёт"}, {"summary": " Отчёт  "}) is None
    assert _put({"summary": " Отчёт 2 "}, {"summary": "Отчёт"}) == {"fields": {"summary": " Отчёт 2 "}}


def test_fields_named_values_and_clearing() -> None:
    """Priority and assignee are written as {name}; null or "" clears a field (Jira's null), and a cleared
    field that is already empty is no change."""
    assert _put({"assignee": "petrov"}, {"assignee": {"name": "ivanov"}}) == {
        "fields": {"assignee": {"name": "petrov"}}
    }
    assert _put({"priority": "Low"}, {}) == {"fields": {"priority": {"name": "Low"}}}
    assert _put({"priority": ""}, {"priority": {"name": "High"}}) == {"fields": {"priority": None}}
    assert _put({"duedate": None}, {"duedate": "2026-10-23"}) == {"fields": {"duedate": None}}
    assert _put({"duedate": ""}, {"duedate": "2026-10-23"}) == {"fields": {"duedate": None}}
    assert _put({"planned_end": None}, {"customfield_11201": "2026-10-29"}) == {"fields": {"customfield_11201": None}}
    assert _put({"epic_key": None}, {"customfield_10100": "X-9"}) == {"fields": {"customfield_10100": None}}
    assert _put({"description": None}, {"description": "текст"}) == {"fields": {"description": None}}
    assert _put({"duedate": None, "description": ""}, {}) is None


def test_fields_epic_in_parent_mode_is_set_and_cleared_through_parent() -> None:
    """With epic_link.mode = parent the epic is fields.parent = {key}, cleared with null."""
    context = {"epic_link": {"mode": "parent", "field_id": None}}
    assert _put({"epic_key": "X-9"}, {}, context) == {"fields": {"parent": {"key": "X-9"}}}
    assert _put({"epic_key": None}, {"parent": {"key": "X-8"}}, context) == {"fields": {"parent": None}}
    assert _put({"epic_key": "X-8"}, {"parent": {"key": "X-8"}}, context) is None


def test_fields_labels_named_twice_are_written_once() -> None:
    """A label repeated in labels_add or labels_remove makes one verb."""
    body = _put({"labels_add": ["a", "a", "b"], "labels_remove": ["c", "c"]}, {"labels": ["b", "c"]})
    assert body == {"update": {"labels": [{"add": "a"}, {"remove": "c"}]}}


def test_a_delivery_whose_settings_cannot_be_read_fails_without_a_call() -> None:
    """The delivery's settings are checked first: a bad one is the command's error, with nothing called."""
    report, steps = play(
        "ensure_fields", {"key": "X-1", "duedate": "2026-10-01"}, [], context={"epic_link": {"mode": "epic"}}
    )
    assert (report.status, report.error, seed_result(report.result), report.operations, steps) == (
        "failed",
        "настройки: epic_link.mode — field или parent",
        {},
        (),
        [],
    )


def test_fields_undo_names_the_value_each_write_replaced() -> None:
    """The ``undo`` of a changed summary holds the summary Jira had before the PUT and the one written."""
    answers = [ok(issue("X-1", summary="Старое")), ok(status=204)]
    report, _ = play("ensure_fields", {"key": "X-1", "summary": "Новое"}, answers)
    assert report.result["undo"]["changed"] == {"summary": {"from": "Старое", "to": "Новое"}}


def test_fields_only_if_unchanged_conflict_names_the_value_found() -> None:
    """A summary Jira holds that is neither the expected nor the wanted one: left, the conflict names all three."""
    params = {"key": "X-1", "summary": "Новое", "if_unchanged": {"summary": "Прежнее"}}
    report, steps = play("ensure_fields", params, [ok(issue("X-1", summary="Чужое"))])
    assert (len(steps), seed_result(report.result)) == (
        1,
        {"conflicts": [{"field": "summary", "expected": "Прежнее", "found": "Чужое"}], "changed": []},
    )


def test_fields_only_if_unchanged_compares_the_summary_without_spaces_around_it() -> None:
    """Spaces around a summary make no difference to the only-if-unchanged check: Jira's «Отчёт» is the wanted
    « Отчёт » (nothing written, no conflict), and the expected « Отчёт » (the new summary written)."""
    params = {"key": "X-1", "summary": " Отчёт ", "if_unchanged": {"summary": "Прежнее"}}
    report, steps = play("ensure_fields", params, [ok(issue("X-1", summary="Отчёт"))])
    assert (len(steps), seed_result(report.result)) == (1, {"changed": []})
    params = {"key": "X-1", "summary": "Новое", "if_unchanged": {"summary": " Отчёт "}}
    report, steps = play("ensure_fields", params, [ok(issue("X-1", summary="Отчёт")), ok(status=204)])
    assert kinds(steps) == ["GET /rest/api/2/issue/X-1", "PUT /rest/api/2/issue/X-1"]
    assert seed_result(report.result) == {"changed": ["summary"]}


def test_fields_only_if_unchanged_naming_no_field_of_the_issue_is_ignored() -> None:
    """The agent does not trust a delivery to be valid: an only-if-unchanged that names no field of the issue
    (and no parameter) is no conflict and no crash; the summary is written."""
    params = {"key": "X-1", "summary": "Новое", "if_unchanged": {"срок": "2026-01-01"}}
    report, steps = play("ensure_fields", params, [ok(issue("X-1", summary="Старое")), ok(status=204)])
    assert kinds(steps) == ["GET /rest/api/2/issue/X-1", "PUT /rest/api/2/issue/X-1"]
    assert (report.status, seed_result(report.result)) == ("done", {"changed": ["summary"]})
