"""A batch's state in words and its bar split by status: a failed, cancelled or rejected batch never reads like a
finished one, and never shows a full green bar."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.outlook.approval import ApprovalState
from reconcile.outlook.batch_state import BarPart, BatchState, bar, batch_state, command_seconds
from reconcile.vocabulary.lifecycle import FINAL, RESOLVED, CommandStatus

S = CommandStatus
statuses = st.lists(st.sampled_from(list(CommandStatus)), max_size=12)
approvals = st.sampled_from([None, *ApprovalState])


@pytest.mark.parametrize(
    ("commands", "approval", "state"),
    [
        ([S.QUEUED, S.QUEUED], None, BatchState.QUEUED),
        ([S.CLAIMED, S.QUEUED], None, BatchState.RUNNING),
        ([S.DONE, S.QUEUED], None, BatchState.RUNNING),
        ([S.FAILED, S.QUEUED], ApprovalState.APPROVED, BatchState.RUNNING),
        ([S.DONE, S.CONFIRMED_BY_STATE], None, BatchState.DONE),
        ([S.DONE, S.FAILED, S.DONE], None, BatchState.DONE_WITH_ERRORS),
        ([S.SKIPPED, S.DONE], None, BatchState.DONE_WITH_ERRORS),
        ([S.FAILED, S.CANCELLED], None, BatchState.DONE_WITH_ERRORS),
        ([S.DONE, S.CANCELLED], None, BatchState.CANCELLED),
        ([S.CANCELLED, S.CANCELLED], None, BatchState.CANCELLED),
        ([S.CANCELLED, S.CANCELLED], ApprovalState.REJECTED, BatchState.REJECTED),
        ([S.QUEUED, S.QUEUED], ApprovalState.PENDING, BatchState.AWAITING_APPROVAL),
        ([S.DONE], ApprovalState.APPROVED, BatchState.DONE),
        ([], None, BatchState.DONE),
    ],
)
def test_the_table(commands: list[CommandStatus], approval: ApprovalState | None, state: BatchState) -> None:
    """The rule, case by case (the module docstring's order)."""
    assert batch_state(commands, approval) is state
    assert batch_state([c.value for c in commands], approval.value if approval else None) is state


@given(statuses, approvals)
def test_done_only_when_every_command_reached_its_state(commands: list[CommandStatus], approval: object) -> None:
    """«завершён» means every command done or confirmed by state, and nobody rejected the batch."""
    state = batch_state(commands, approval)  # type: ignore[arg-type]
    if state is BatchState.DONE:
        assert set(commands) <= RESOLVED
        assert approval not in (ApprovalState.REJECTED, ApprovalState.PENDING)


@given(statuses)
def test_the_order_of_commands_does_not_matter(commands: list[CommandStatus]) -> None:
    assert batch_state(commands, None) is batch_state(list(reversed(commands)), None)


@given(statuses)
def test_a_batch_with_an_unfinished_command_is_not_over(commands: list[CommandStatus]) -> None:
    """Queued or running while a command is not final; one of the final words once all are."""
    state = batch_state(commands, None)
    over = {BatchState.DONE, BatchState.DONE_WITH_ERRORS, BatchState.CANCELLED}
    assert (state in over) == (set(commands) <= FINAL)


@given(statuses)
def test_the_bar_adds_up_and_is_green_only_for_what_is_done(commands: list[CommandStatus]) -> None:
    """The parts count every command once, their widths add up to 100, and the green part is exactly the done
    and confirmed commands: a failed, cancelled or skipped command is never green."""
    counts: dict[str, int] = {}
    for c in commands:
        counts[c.value] = counts.get(c.value, 0) + 1
    parts = bar(counts)
    assert sum(p.count for p in parts) == len(commands)
    if commands:
        assert sum(p.width for p in parts) == pytest.approx(100, abs=0.01)
    green = sum(p.count for p in parts if p.part is BarPart.DONE)
    assert green == sum(1 for c in commands if c in RESOLVED)
    for left, right in itertools.pairwise(parts):
        assert right.start == pytest.approx(left.start + left.width, abs=0.01)


def test_a_failed_batch_is_partly_red() -> None:
    """Two done, one failed: two thirds green then one third red."""
    parts = bar({"done": 2, "failed": 1})
    assert [(p.part, p.count, p.start, p.width) for p in parts] == [
        (BarPart.DONE, 2, 0.0, 66.667),
        (BarPart.FAILED, 1, 66.667, 33.333),
    ]
    assert bar({"cancelled": 3}) == [bar({"skipped": 3})[0]]
    assert bar({}) == []


def test_a_commands_duration_runs_from_its_delivery() -> None:
    """Until it finished, or until now while it runs; none for a command never delivered."""
    t0 = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)
    assert command_seconds(t0, t0 + timedelta(seconds=4.5), t0 + timedelta(hours=1)) == 4.5
    assert command_seconds(t0, None, t0 + timedelta(seconds=12)) == 12
    assert command_seconds(t0, None, None) is None
    assert command_seconds(None, t0, t0) is None
    assert command_seconds(t0, t0 + timedelta(microseconds=1500), None) == 0.002  # to the millisecond
    assert command_seconds(t0 + timedelta(seconds=1), t0, None) == 0  # a clock that went back: never negative
