"""``ensure_issue`` fed values with no I/O: which hit of the duplicate search is our issue, and the search or
hit named when Jira's answer cannot be read."""

from __future__ import annotations

from typing import Any

import pytest

from .executors_support import ok, play

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
    assert report.result == {"key": "AURORA-8", "created": True}


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
