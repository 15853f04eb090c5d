"""Approval rules: which batches wait, four eyes, what approve and reject record, and the settings' switches."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.approval import (
    Approval,
    ApprovalState,
    Door,
    approve,
    holds,
    initial_approval,
    reject,
    rejection_error,
)
from reconcile.errors import ConflictError, ForbiddenError, ValidationError
from reconcile.settings import ApprovalDoors, Settings, merge_settings, settings_from_json, settings_to_json

NOW = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)
PENDING = Approval(state=ApprovalState.PENDING)
ON = Settings(approval=ApprovalDoors(mcp=True, http=True))
TYPES = st.lists(st.sampled_from(["ensure_issue", "ensure_fields", "ensure_link", "refresh"]), min_size=1)


@given(st.sampled_from([None, Door.HTTP, Door.MCP]), TYPES)
def test_nothing_waits_with_the_defaults(door: Door | None, types: list[str]) -> None:
    """Approval off (the default) for both doors: no batch ever waits, every seed scenario as before."""
    assert initial_approval(door, types, Settings()) is None


def test_a_door_that_requires_approval_makes_writing_batches_wait() -> None:
    """Each door by its own switch; a refresh-only batch and the hub's own batches (no door) never wait."""
    only_mcp = Settings(approval=ApprovalDoors(mcp=True))
    assert initial_approval(Door.MCP, ["ensure_fields", "refresh"], only_mcp) == PENDING
    assert initial_approval(Door.HTTP, ["ensure_fields", "refresh"], only_mcp) is None
    assert initial_approval(Door.HTTP, ["refresh"], ON) is None
    assert initial_approval(None, ["ensure_fields"], ON) is None
    assert holds(PENDING) and not holds(None)
    assert not holds(Approval(state=ApprovalState.APPROVED, by="b", at=NOW))


def test_approve_takes_another_token() -> None:
    """The creator's token → 403 «нельзя одобрить свой пакет»; another records by and at."""
    with pytest.raises(ForbiddenError, match=r"^нельзя одобрить свой пакет$"):
        approve(PENDING, batch_id=7, creator="planner", approver="planner", now=NOW)
    assert approve(PENDING, batch_id=7, creator="planner", approver="boss", now=NOW) == Approval(
        state=ApprovalState.APPROVED, by="boss", at=NOW
    )


def test_only_a_pending_batch_is_approved_or_rejected() -> None:
    """Not waiting → 409 naming the batch and why."""
    approved = Approval(state=ApprovalState.APPROVED, by="boss", at=NOW)
    rejected = Approval(state=ApprovalState.REJECTED, by="boss", at=NOW, reason="нет")
    cases = [
        (None, "пакет 7 не ждёт одобрения: одобрение ему не требовалось"),
        (approved, "пакет 7 не ждёт одобрения: уже одобрен (boss)"),
        (rejected, "пакет 7 не ждёт одобрения: уже отклонён (boss)"),
    ]
    for approval, message in cases:
        with pytest.raises(ConflictError) as refused:
            approve(approval, batch_id=7, creator="planner", approver="other", now=NOW)
        assert refused.value.message == message
        with pytest.raises(ConflictError) as refused:
            reject(approval, batch_id=7, by="other", reason="x", now=NOW)
        assert refused.value.message == message


def test_reject_records_the_reason_and_words_the_error() -> None:
    """The creator may withdraw its own batch; the commands' error is «пакет отклонён: <reason>»."""
    assert reject(PENDING, batch_id=7, by="planner", reason="не тот срок", now=NOW) == Approval(
        state=ApprovalState.REJECTED, by="planner", at=NOW, reason="не тот срок"
    )
    assert rejection_error("не тот срок") == "пакет отклонён: не тот срок"


def test_approval_settings_round_trip_and_keep_the_other_door() -> None:
    """approval is off by default, survives the JSON round trip, and naming one door keeps the other."""
    assert settings_to_json(Settings())["approval"] == {"mcp": False, "http": False}
    both = settings_from_json({"approval": {"mcp": True, "http": True}})
    assert settings_from_json(settings_to_json(both)) == both
    assert merge_settings(both, {"approval": {"http": False}}).approval == ApprovalDoors(mcp=True)
    for bad, message in (
        ({"approval": True}, "настройки: approval — объект {mcp?, http?}"),
        ({"approval": {"mcp": 1}}, "настройки: approval.mcp — логическое значение true/false"),
    ):
        with pytest.raises(ValidationError) as refused:
            settings_from_json(bad)
        assert refused.value.message == message
