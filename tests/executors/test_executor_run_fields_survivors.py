"""Rules of the run's helpers and of ensure_fields that the mutation run found no test for."""

from __future__ import annotations

from typing import Any

import pytest
from executors_support import SYMMETRIC, delivery, play

from reconcile.executors._run import CommandFailed, Run, context_settings
from reconcile.executors.fields import fields_diff
from reconcile.jira_model import issue_from_jira


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


def test_a_required_text_parameter_missing_or_empty_fails_naming_it() -> None:
    """The executor fails a delivery whose required text is missing or empty, naming it, before any call."""
    for params in ({"key": "X-1"}, {"key": "X-1", "marker": ""}):
        report, steps = play("ensure_comment", {**params, "body": "текст"}, [])
        assert (report.status, report.error, steps) == ("failed", "нет параметра marker", [])


def test_the_first_run_of_a_process_reads_its_settings() -> None:
    """With nothing read before (a fresh agent), a run reads the settings of its delivery's context, and the
    next run with another context reads that one."""
    first = Run(delivery("ensure_fields", {"key": "X-1"}, context={"jira_project": "ONE"}), SYMMETRIC)
    second = Run(delivery("ensure_fields", {"key": "X-1"}, context={"jira_project": "TWO"}), SYMMETRIC)
    assert (first.settings.jira_project, second.settings.jira_project) == ("ONE", "TWO")


def test_a_run_given_its_settings_does_not_read_the_context_again() -> None:
    """Settings read once for a batch (the dry run) are the run's settings: the context is not read again, so
    even a context that would fail the command does not."""
    read = context_settings({"jira_project": "ONE", "unknown_key": 1})
    run = Run(delivery("ensure_fields", {"key": "X-1"}, context={"jira_project": 5}), SYMMETRIC, read)
    assert (run.settings.jira_project, run.settings) == ("ONE", read)
    with pytest.raises(CommandFailed) as caught:
        Run(delivery("ensure_fields", {"key": "X-1"}, context={"jira_project": 5}), SYMMETRIC)
    assert caught.value.message == "настройки: jira_project — непустая строка"
