"""What the hub records of a report: the outcome of a claimed command, and only the seed's facts of a late one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from reconcile.queue.claim import DELIVERY_LIMIT_ERROR
from reconcile.queue.reports import board_types, decide_report, trim_error, vanishes
from tests.support import T0


def test_claimed_command_records_the_report() -> None:
    """A report for a claimed command records its outcome and the created key."""
    decision = decide_report(
        command_type="ensure_issue",
        current_status="claimed",
        current_error=None,
        reported_status="done",
        result={"key": "AURORA-1590", "created": True},
        refresh_finished=False,
    )
    assert (decision.record, decision.key, decision.accepted, decision.status) == (True, "AURORA-1590", True, "done")


@pytest.mark.parametrize(
    ("status", "error", "key"),
    [
        ("cancelled", None, "AURORA-1590"),
        ("failed", DELIVERY_LIMIT_ERROR, "AURORA-1590"),
        ("failed", "HTTP 400: summary", None),
        ("done", None, None),
    ],
)
def test_late_ensure_issue_report_keeps_only_the_key_after_cancel_or_limit(
    status: str, error: str | None, key: str | None
) -> None:
    """A late done ensure_issue records its key only after a cancel or the delivery limit; the status stays."""
    decision = decide_report(
        command_type="ensure_issue",
        current_status=status,
        current_error=error,
        reported_status="done",
        result={"key": "AURORA-1590"},
        refresh_finished=False,
    )
    assert (decision.record, decision.key, decision.status) == (False, key, status)
    assert decision.accepted is (status == "done")


def test_late_refresh_report_applies_its_facts_once() -> None:
    """A late done refresh applies its facts unless its sync run already took a report."""
    late = decide_report(
        command_type="refresh",
        current_status="failed",
        current_error=DELIVERY_LIMIT_ERROR,
        reported_status="done",
        result={},
        refresh_finished=False,
    )
    repeat = decide_report(
        command_type="refresh",
        current_status="done",
        current_error=None,
        reported_status="done",
        result={},
        refresh_finished=True,
    )
    assert (late.apply_refresh, late.record) == (True, False)
    assert (repeat.apply_refresh, repeat.accepted) == (False, True)


def test_error_is_kept_to_1500_characters() -> None:
    """The hub keeps at most 1500 characters of error."""
    assert trim_error("х" * 2000) == "х" * 1500
    assert trim_error(None) is None


def test_board_types_ignore_null_and_garbage() -> None:
    """Seed «Тип доски определён»: scrum and kanban are recorded, null changes nothing."""
    assert board_types({"boards": {"5120": "kanban", "4216": None, "x": "scrum", "7": "board"}}) == {5120: "kanban"}
    assert board_types({}) == {}


def test_vanishing_needs_a_project_label_and_no_newer_refresh() -> None:
    """Only project issues not returned, and not refreshed since the run began, vanish."""
    start = datetime(2026, 10, 22, 9, tzinfo=UTC)
    before, after = start - timedelta(minutes=1), start + timedelta(minutes=1)
    common = {"project_names": {"AWPCA"}, "run_started_at": start}
    assert vanishes(labels=["AWPCA"], returned_by_run=False, refreshed_at=before, **common)
    assert not vanishes(labels=["AWPCA"], returned_by_run=True, refreshed_at=before, **common)
    assert not vanishes(labels=["AWPCA"], returned_by_run=False, refreshed_at=after, **common)
    assert not vanishes(labels=["other"], returned_by_run=False, refreshed_at=before, **common)


@pytest.mark.parametrize(
    ("command_type", "status", "result"),
    [
        ("ensure_issue", "failed", {"key": "A-9"}),
        ("ensure_comment", "done", {"key": "A-9"}),
        ("ensure_issue", "done", {"key": ""}),
        ("ensure_issue", "done", {"key": 9}),
    ],
)
def test_only_a_done_ensure_issue_names_a_created_key(command_type: str, status: str, result: dict[str, Any]) -> None:
    """The key a report records is a done ensure_issue's non-empty text key, and nothing else's."""
    decision = decide_report(
        command_type=command_type,
        current_status="claimed",
        current_error=None,
        reported_status=status,
        result=result,
        refresh_finished=False,
    )
    assert decision.key is None
    done = decide_report(
        command_type="ensure_issue",
        current_status="claimed",
        current_error=None,
        reported_status="done",
        result={"key": "A-9"},
        refresh_finished=False,
    )
    assert done.key == "A-9"


def test_only_a_done_refresh_applies_its_result() -> None:
    """A claimed refresh reported done applies its facts; a done ensure_issue or a failed refresh does not."""

    def apply(command_type: str, status: str) -> bool:
        return decide_report(
            command_type=command_type,
            current_status="claimed",
            current_error=None,
            reported_status=status,
            result={},
            refresh_finished=False,
        ).apply_refresh

    assert apply("refresh", "done") is True
    assert apply("ensure_issue", "done") is False
    assert apply("refresh", "failed") is False


def test_an_issue_refreshed_at_the_instant_the_run_began_stays() -> None:
    """«Refreshed since the run began» includes the very instant it began: such an issue has not vanished."""

    def gone(refreshed_at: datetime) -> bool:
        return vanishes(
            labels=["AWPCA"],
            project_names=["AWPCA"],
            returned_by_run=False,
            refreshed_at=refreshed_at,
            run_started_at=T0,
        )

    assert gone(T0) is False
    assert gone(T0 - timedelta(microseconds=1)) is True
