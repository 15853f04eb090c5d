"""A person's approval of what a planning tool asks (DESIGN.md sections 3 and 6).

A batch comes through a **door**: ``mcp`` (an assistant) or ``http`` (a script, the web page). When the
setting ``approval.<door>`` is on, a batch that writes to Jira is created ``pending``: stored and visible, its
commands ``queued`` but never issued (:func:`holds`) until a person approves it. Approval takes four eyes: the
token that created the batch may not approve it. A rejection cancels the batch's queued commands with
:func:`rejection_error` (the moves themselves go through :mod:`reconcile.lifecycle`, ``Event.REJECT``).

A batch of ``refresh`` commands only reads Jira and never waits (``POST /refresh``, the auto refresh). A retry
(``POST /commands/{id}/retry``, ``command_retry``) is a new batch through its door like any other, so a
rejected command cannot come back without a person's yes.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum

import attrs

from reconcile.errors import ConflictError, ForbiddenError
from reconcile.settings import Settings

__all__ = [
    "OWN_BATCH",
    "Approval",
    "ApprovalState",
    "Door",
    "approve",
    "holds",
    "initial_approval",
    "reject",
    "rejection_error",
]

OWN_BATCH = "нельзя одобрить свой пакет"


class Door(StrEnum):
    """How a batch reached the hub."""

    HTTP = "http"  # POST /batches, POST /commands/{id}/retry, the web page
    MCP = "mcp"


class ApprovalState(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


@attrs.frozen(kw_only=True)
class Approval:
    """A batch's approval: ``by`` is the token name of the person who approved or rejected it, ``at`` when."""

    state: ApprovalState
    by: str | None = None
    at: datetime | None = None
    reason: str | None = None


def initial_approval(door: Door | None, command_types: Iterable[str], settings: Settings) -> Approval | None:
    """``pending`` when the door requires approval and the batch writes to Jira; else ``None`` (no approval)."""
    if door is None or not settings.approval.required(door.value):
        return None
    if all(command_type == "refresh" for command_type in command_types):
        return None
    return Approval(state=ApprovalState.PENDING)


def holds(approval: Approval | None) -> bool:
    """Whether the batch's commands must not be issued: it waits for a person."""
    return approval is not None and approval.state is ApprovalState.PENDING


def _not_waiting(batch_id: int, approval: Approval | None) -> ConflictError:
    if approval is None:
        why = "одобрение ему не требовалось"
    elif approval.state is ApprovalState.APPROVED:
        why = f"уже одобрен ({approval.by})"
    else:
        why = f"уже отклонён ({approval.by})"
    return ConflictError(f"пакет {batch_id} не ждёт одобрения: {why}")


def approve(approval: Approval | None, *, batch_id: int, creator: str | None, approver: str, now: datetime) -> Approval:
    """The approval after ``approver`` said yes: 409 when the batch does not wait, 403 for the creator's token."""
    if not holds(approval):
        raise _not_waiting(batch_id, approval)
    if creator is not None and approver == creator:
        raise ForbiddenError(OWN_BATCH)
    return Approval(state=ApprovalState.APPROVED, by=approver, at=now)


def reject(approval: Approval | None, *, batch_id: int, by: str, reason: str, now: datetime) -> Approval:
    """The approval after ``by`` said no (the creator may withdraw their own batch): 409 when it does not wait."""
    if not holds(approval):
        raise _not_waiting(batch_id, approval)
    return Approval(state=ApprovalState.REJECTED, by=by, at=now, reason=reason)


def rejection_error(reason: str) -> str:
    """The ``error`` of a command cancelled by a rejection."""
    return f"пакет отклонён: {reason}"
