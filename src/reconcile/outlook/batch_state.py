"""Where a batch stands, in one word, and how its progress bar is split (DESIGN.md 8, «Honest progress»).

A batch's state follows from its commands' statuses and its approval; the page and the API say it in words, so
that a failed, cancelled or rejected batch never reads like a finished one. The rule, first that applies:

- the approval was rejected → ``rejected`` (its queued commands were cancelled with it);
- the approval waits for a person → ``awaiting_approval``;
- a command has not finished: ``queued`` while none has started (none claimed, none final), else ``running``;
- every command is final: ``done_with_errors`` when one ``failed`` (or was ``skipped``: its temp key was never
  created), else ``cancelled`` when one was ``cancelled``, else ``done``.

A batch both cancelled and with errors reads «завершён с ошибками»: the failure is what a person must look at
(a decision of ours; the spec is silent). The bar is split by the same statuses: done (green), failed (red),
stopped (skipped and cancelled: grey), running and queued (neutral).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from enum import StrEnum

import attrs

from reconcile.outlook.approval import ApprovalState
from reconcile.vocabulary.lifecycle import FINAL, CommandStatus

__all__ = ["BAR_ORDER", "BarPart", "BarSegment", "BatchState", "bar", "batch_state", "command_seconds"]


class BatchState(StrEnum):
    AWAITING_APPROVAL = "awaiting_approval"
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    DONE_WITH_ERRORS = "done_with_errors"
    CANCELLED = "cancelled"
    REJECTED = "rejected"


class BarPart(StrEnum):
    """A part of the progress bar: what share of the batch's commands stands where."""

    DONE = "done"
    FAILED = "failed"
    STOPPED = "stopped"
    RUNNING = "running"
    QUEUED = "queued"


_S = CommandStatus

#: Which part of the bar each command status fills.
_PART_OF: Mapping[CommandStatus, BarPart] = {
    _S.DONE: BarPart.DONE,
    _S.CONFIRMED_BY_STATE: BarPart.DONE,
    _S.FAILED: BarPart.FAILED,
    _S.SKIPPED: BarPart.STOPPED,
    _S.CANCELLED: BarPart.STOPPED,
    _S.CLAIMED: BarPart.RUNNING,
    _S.QUEUED: BarPart.QUEUED,
}

#: The parts from left to right.
BAR_ORDER: tuple[BarPart, ...] = tuple(BarPart)

_ERRORS = frozenset({_S.FAILED, _S.SKIPPED})


def batch_state(statuses: Iterable[CommandStatus | str], approval: ApprovalState | str | None) -> BatchState:
    """The batch's state from its commands' statuses and its approval (see the module docstring)."""
    if approval is not None and ApprovalState(approval) is ApprovalState.REJECTED:
        return BatchState.REJECTED
    if approval is not None and ApprovalState(approval) is ApprovalState.PENDING:
        return BatchState.AWAITING_APPROVAL
    seen = {CommandStatus(s) for s in statuses}
    if seen - FINAL:
        return BatchState.QUEUED if seen == {_S.QUEUED} else BatchState.RUNNING
    if seen & _ERRORS:
        return BatchState.DONE_WITH_ERRORS
    if _S.CANCELLED in seen:
        return BatchState.CANCELLED
    return BatchState.DONE


@attrs.frozen(kw_only=True)
class BarSegment:
    """One part of the bar: its ``count`` of commands, and where it starts and how wide it is, in percent."""

    part: BarPart
    count: int
    start: float
    width: float


def bar(by_status: Mapping[str, int]) -> list[BarSegment]:
    """The bar's non-empty parts, left to right, their widths adding up to 100 (none for an empty batch)."""
    counts = dict.fromkeys(BAR_ORDER, 0)
    for status, count in by_status.items():
        counts[_PART_OF[CommandStatus(status)]] += count
    total = sum(counts.values())
    segments: list[BarSegment] = []
    start = 0.0
    for part in BAR_ORDER:
        if counts[part] and total:
            width = round(100 * counts[part] / total, 3)
            segments.append(BarSegment(part=part, count=counts[part], start=round(start, 3), width=width))
            start += width
    return segments


def command_seconds(claimed_at: datetime | None, finished_at: datetime | None, now: datetime | None) -> float | None:
    """How long a command took since its (last) delivery: until it finished, or until ``now`` while it runs;
    ``None`` for a command never delivered (or running, with no ``now`` given)."""
    end = finished_at if finished_at is not None else now
    if claimed_at is None or end is None:
        return None
    return round(max((end - claimed_at).total_seconds(), 0.0), 3)
