"""``ensure_fields`` fed values with no I/O: what differs from the issue and which setting a difference needs."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.executors._run import CommandFailed, Run
from reconcile.executors.fields import fields_diff
from reconcile.jira_model import issue_from_jira

from .executors_support import SYMMETRIC, delivery


def _diff(params: dict[str, Any], current: dict[str, Any], context: dict[str, Any] | None = None) -> Any:
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
