"""Malformed Jira answers raise the project's own error naming the issue key and the field, never a Python error."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.config.settings import Settings
from reconcile.jira.answers import jira_id, jira_int, jira_time
from reconcile.jira.model import histories_from_jira, issue_from_jira
from reconcile.vocabulary.errors import JiraAnswerError


def _issue(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "summary": "Сверка",
        "status": {"name": "Разработка", "statusCategory": {"key": "indeterminate"}},
        "labels": ["AWPCA"],
        "created": "2026-10-22T12:00:00.000+0300",
        "updated": "2026-10-22T12:00:00.000+0300",
        "issuelinks": [],
    }
    return {"key": "AURORA-1537", "fields": {**base, **fields}}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"key": "AURORA-1537", "fields": "x"},
            "ответ Jira по AURORA-1537: fields — ожидается объект, получено: строка",
        ),
        (_issue(labels="AWPCA"), "ответ Jira по AURORA-1537: labels — ожидается список, получено: строка"),
        (_issue(labels=[1]), "ответ Jira по AURORA-1537: labels[0] — ожидается непустая строка, получено: число"),
        (_issue(issuelinks={"a": 1}), "ответ Jira по AURORA-1537: issuelinks — ожидается список, получено: объект"),
        (
            _issue(issuelinks=[{"id": "1", "type": "Связанные", "outwardIssue": {"key": "AURORA-1"}}]),
            "ответ Jira по AURORA-1537: issuelinks[0].type — ожидается объект, получено: строка",
        ),
        (
            _issue(issuelinks=[{"id": "1", "type": {"name": "Связанные"}}]),
            "ответ Jira по AURORA-1537: issuelinks[0] — нет ни outwardIssue, ни inwardIssue",
        ),
        (
            _issue(created="0001-01-01T00:00:00.000+0100"),
            "ответ Jira по AURORA-1537: created — не дата-время: '0001-01-01T00:00:00.000+0100'",
        ),
        (_issue(updated="вчера"), "ответ Jira по AURORA-1537: updated — не дата-время: 'вчера'"),
        (_issue(status="Готово"), "ответ Jira по AURORA-1537: status — ожидается объект, получено: строка"),
        (_issue(summary=5), "ответ Jira по AURORA-1537: summary — ожидается строка или null, получено: число"),
        (
            _issue(assignee={"name": []}),
            "ответ Jira по AURORA-1537: assignee.name — ожидается строка или null, получено: список",
        ),
        (_issue(duedate="9" * 41), "ответ Jira по AURORA-1537: duedate — не дата: '" + "9" * 40 + "'"),
        (
            _issue(issuelinks=[{"id": "1" * 61, "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1"}}]),
            "ответ Jira по AURORA-1537: links[0].id — длиннее 60 символов",
        ),
        ({"fields": {}}, "ответ Jira по ?: key — ожидается непустая строка, получено: null"),
        (["AURORA-1537"], "ответ Jira по ?: ответ — ожидается объект, получено: список"),
    ],
)
def test_a_malformed_issue_names_its_key_and_field(raw: Any, message: str) -> None:
    """Each malformed shape found by mutating real payloads raises JiraAnswerError with the key and the field."""
    with pytest.raises(JiraAnswerError) as caught:
        issue_from_jira(raw, Settings())
    assert caught.value.message == message


def test_custom_fields_are_read_leniently() -> None:
    """A sprint, planned date or epic field of an unexpected shape reads as nothing, not as an error."""
    issue = issue_from_jira(
        _issue(customfield_10104=5, customfield_11200={"a": 1}, customfield_10100=[1], duedate=None), Settings()
    )
    assert (issue.sprint, issue.planned_start, issue.epic_key, issue.duedate) == (None, None, None, None)


@pytest.mark.parametrize(
    ("changelog", "message"),
    [
        ({"histories": 5}, "ответ Jira по X-1: changelog.histories — ожидается список, получено: число"),
        (
            {"histories": [{"id": "1", "created": "2026-10-22T12:00:00.000+0300", "items": "status"}]},
            "ответ Jira по X-1: changelog.histories[0].items — ожидается список, получено: строка",
        ),
        (
            {"histories": [{"id": "1", "items": []}]},
            "ответ Jira по X-1: changelog.histories[0].created — нет значения",
        ),
        (
            {"histories": [{"id": None, "created": "2026-10-22T12:00:00.000+0300", "items": []}]},
            "ответ Jira по X-1: changelog.histories[0].id — ожидается идентификатор Jira, получено: null",
        ),
        ("changelog", "ответ Jira по X-1: changelog — ожидается объект, получено: строка"),
    ],
)
def test_a_malformed_changelog_names_its_key_and_field(changelog: Any, message: str) -> None:
    """The changelog is read as strictly as the issue."""
    with pytest.raises(JiraAnswerError) as caught:
        histories_from_jira("X-1", changelog)
    assert caught.value.message == message


@pytest.mark.parametrize("value", [None, True, -1, 10**18, "10 400", "", "1" * 65, 1.5, "a\x00"])
def test_ids_are_bounded_strings_or_numbers(value: Any) -> None:
    """Only an id Jira could give is one: a number within int64 or a short word."""
    with pytest.raises(JiraAnswerError):
        jira_id(value, "K-1", "id")


def test_good_ids_and_times() -> None:
    """Numbers and strings of digits are ids; a sprint id must be digits; times become UTC with Z."""
    assert (jira_id(10400, "K", "id"), jira_id("10400", "K", "id"), jira_int("7", "K", "id")) == ("10400", "10400", 7)
    with pytest.raises(JiraAnswerError, match="ожидается число"):
        jira_int("abc", "K", "id")
    assert jira_time("2026-10-22T00:30:00.000+0300", "K", "created") == "2026-10-21T21:30:00Z"
    assert jira_time(None, "K", "created") is None
