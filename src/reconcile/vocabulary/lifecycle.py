"""The command lifecycle: every status a command can have and every move between them, as one table.

Everything that changes a command's status goes through :func:`advance`; nothing else may write a status.
The table follows the seed (001: «Пакет и порядок выполнения», «Повторная выдача», «Подтверждение по
состоянию», «Временные ключи»; DESIGN.md section 6):

- ``queued`` → ``claimed`` when a claim issues it; → ``skipped`` when the ``ensure_issue`` its temp key needs
  ended without a key; → ``cancelled`` by a cancel (with or without ``force``) or a rejected approval.
- ``claimed`` → ``claimed`` again on a re-delivery; → ``queued`` when the agent dropped it before a write its
  batch's approved plan does not hold (DESIGN.md 6.5: the delivery does not count, the batch waits again);
  → ``done``/``failed`` by the agent's report; → ``failed`` at the delivery limit; → ``confirmed_by_state`` when a
  refresh shows its desired state; → ``cancelled`` only by a cancel with ``force`` (a ``claimed`` command MUST NOT
  be cancelled otherwise).
- A final status never changes again. A late report (after a cancel or the delivery limit) leaves it as it is,
  and cancelling a cancelled command again changes nothing.

An illegal move raises :class:`IllegalTransition`, a :class:`~reconcile.vocabulary.errors.ConflictError` (HTTP 409)
whose message names the command, its status and what was asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from reconcile.vocabulary.errors import ConflictError

__all__ = [
    "FINAL",
    "PENDING",
    "RESOLVED",
    "RETRYABLE",
    "TRANSITIONS",
    "CommandStatus",
    "Event",
    "IllegalTransition",
    "advance",
    "can",
]


class CommandStatus(StrEnum):
    QUEUED = "queued"
    CLAIMED = "claimed"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"
    CANCELLED = "cancelled"
    CONFIRMED_BY_STATE = "confirmed_by_state"


class Event(StrEnum):
    """What happens to a command."""

    ISSUE = "issue"  # a claim hands the queued command to the agent
    REDELIVER = "redeliver"  # a claim hands the claimed command out again
    REPORT_DONE = "report_done"
    REPORT_FAILED = "report_failed"
    DELIVERY_LIMIT = "delivery_limit"  # «агент не отчитался после 3 выдач»
    SKIP = "skip"  # its temp key's ensure_issue ended without a key
    CANCEL = "cancel"
    FORCE_CANCEL = "force_cancel"
    REJECT = "reject"  # a person rejected the batch waiting for approval
    CONFIRM_BY_STATE = "confirm_by_state"
    LATE_REPORT = "late_report"  # a report for a command that is no longer claimed
    STALE_PLAN = "stale_plan"  # the agent dropped it before a write the approved plan does not hold


_S = CommandStatus
_E = Event

#: Statuses a command never leaves.
FINAL: frozenset[CommandStatus] = frozenset({_S.DONE, _S.FAILED, _S.SKIPPED, _S.CANCELLED, _S.CONFIRMED_BY_STATE})
#: Statuses of an ``ensure_issue`` after which the issue exists and its key is known.
RESOLVED: frozenset[CommandStatus] = frozenset({_S.DONE, _S.CONFIRMED_BY_STATE})
#: Statuses of a command that has not finished: dependents of an ``ensure_issue`` wait.
PENDING: frozenset[CommandStatus] = frozenset({_S.QUEUED, _S.CLAIMED})
#: Statuses after which a person may ask for the command again (a new batch, ``POST /commands/{id}/retry``).
RETRYABLE: frozenset[CommandStatus] = frozenset({_S.FAILED, _S.SKIPPED, _S.CANCELLED})

TRANSITIONS: Mapping[CommandStatus, Mapping[Event, CommandStatus]] = {
    _S.QUEUED: {
        _E.ISSUE: _S.CLAIMED,
        _E.SKIP: _S.SKIPPED,
        _E.CANCEL: _S.CANCELLED,
        _E.FORCE_CANCEL: _S.CANCELLED,
        _E.REJECT: _S.CANCELLED,
    },
    _S.CLAIMED: {
        _E.REDELIVER: _S.CLAIMED,
        _E.REPORT_DONE: _S.DONE,
        _E.REPORT_FAILED: _S.FAILED,
        _E.DELIVERY_LIMIT: _S.FAILED,
        _E.CONFIRM_BY_STATE: _S.CONFIRMED_BY_STATE,
        _E.FORCE_CANCEL: _S.CANCELLED,
        _E.STALE_PLAN: _S.QUEUED,
    },
    **{status: {_E.LATE_REPORT: status} for status in (_S.DONE, _S.FAILED, _S.SKIPPED, _S.CONFIRMED_BY_STATE)},
    _S.CANCELLED: {_E.LATE_REPORT: _S.CANCELLED, _E.CANCEL: _S.CANCELLED, _E.FORCE_CANCEL: _S.CANCELLED},
}

# Why a move is refused, in words a person reads; the rest get the generic reason.
_REASONS: Mapping[tuple[CommandStatus, Event], str] = {
    (_S.CLAIMED, _E.CANCEL): "выдана агенту — отмена только с force: true",
    (_S.QUEUED, _E.REPORT_DONE): "не выдана агенту",
    (_S.QUEUED, _E.REPORT_FAILED): "не выдана агенту",
    (_S.QUEUED, _E.LATE_REPORT): "не выдана агенту",
}


class IllegalTransition(ConflictError):
    """``event`` is not allowed for a command in ``status`` (HTTP 409)."""

    def __init__(self, status: CommandStatus, event: Event, command_id: int | None = None) -> None:
        reason = _REASONS.get((status, event))
        if reason is None:
            reason = f"уже завершена ({status})" if status in FINAL else f"в статусе {status}: «{event}» недопустимо"
        who = "команда" if command_id is None else f"команда {command_id}"
        super().__init__(f"{who} {reason}")
        self.status = status
        self.event = event
        self.command_id = command_id


def can(status: CommandStatus, event: Event) -> bool:
    """Whether ``event`` is allowed for a command in ``status``."""
    return event in TRANSITIONS[status]


def advance(status: CommandStatus | str, event: Event, *, command_id: int | None = None) -> CommandStatus:
    """The status after ``event``; :class:`IllegalTransition` when the table has no such move."""
    current = CommandStatus(status)
    after = TRANSITIONS[current].get(event)
    if after is None:
        raise IllegalTransition(current, event, command_id)
    return after
