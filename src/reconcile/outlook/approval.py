"""A person's approval of what a planning tool asks (DESIGN.md sections 3 and 6).

A batch comes through a **door** — ``mcp`` (an assistant) or ``http`` (a script, the web page) — with a
**token**. It is created ``pending`` (:func:`initial_approval`) when it writes to Jira and any of these holds:

- the door requires approval (the setting ``approval.<door>``);
- the token requires it (``sdlc-hub token add … --needs-approval``: an assistant's own token), whatever door
  it uses — so cancelling over MCP and retrying over HTTP with the same token waits again;
- it brings back (a retry, a drift reapply) a command whose batch waited for approval — pending, approved or
  rejected — whoever asks: a rejected batch cannot come back without a person's yes.

A pending batch is stored and visible, its commands ``queued`` but never issued (:func:`holds`) until a person
approves it. Approval takes four eyes: the token that created the batch may not approve it, and a token that
requires approval approves nothing. A rejection cancels the batch's queued commands with :func:`rejection_error`
(the moves themselves go through :mod:`reconcile.vocabulary.lifecycle`, ``Event.REJECT``).

Approval means the plan (DESIGN.md 6.5, :mod:`reconcile.outlook.approved_plan`): a pending batch keeps the plan it waits
with, the approver names the digest of the plan they read (:func:`approve` refuses another with
:class:`~reconcile.outlook.approved_plan.PlanChanged`), and the approval keeps the plan approved. An approved batch
waits again (:func:`back_to_pending`) with a fresh plan when the agent finds a write nobody approved (``stale``) or when
the approval lapsed before anything was delivered (``expired_at``).

A batch of ``refresh`` commands (of types whose entry says they do not write) only reads Jira and never waits
(``POST /refresh``, the auto refresh).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum

import attrs

from reconcile.config.settings import Settings
from reconcile.outlook.approved_plan import PlanChanged, PlanSnapshot, StalePlan
from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.errors import ConflictError, ForbiddenError

__all__ = [
    "HUB",
    "OWN_BATCH",
    "WAITS_FOR_ANOTHER",
    "Approval",
    "ApprovalState",
    "Door",
    "Requester",
    "approval_refusal",
    "approve",
    "approves_nothing",
    "back_to_pending",
    "holds",
    "initial_approval",
    "reject",
    "rejection_error",
]

OWN_BATCH = "нельзя одобрить свой пакет"
#: What the creator of a waiting batch reads where another person sees «Одобрить».
WAITS_FOR_ANOTHER = "ждёт одобрения другим человеком"


class Door(StrEnum):
    """How a batch reached the hub."""

    HTTP = "http"  # POST /batches, POST /commands/{id}/retry, the web page
    MCP = "mcp"


class ApprovalState(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


@attrs.frozen(kw_only=True)
class Requester:
    """Who asks: the door and the token's name (``None`` for both: the hub's own batch), and whether the token
    requires approval of everything it creates."""

    door: Door | None = None
    token_name: str | None = None
    needs_approval: bool = False

    @property
    def by_hub(self) -> bool:
        """Whether the hub itself asks (its own batch may carry the hub's parameters)."""
        return self.door is None and self.token_name is None


#: The hub itself (its automatic refresh): no door, no token.
HUB = Requester()


@attrs.frozen(kw_only=True)
class Approval:
    """A batch's approval: ``by`` is the token name of the person who approved or rejected it, ``at`` when; ``plan``
    the plan it waits with or was approved with; ``stale`` the last time the agent found the approved plan stale,
    ``expired_at`` when an approval last lapsed."""

    state: ApprovalState
    by: str | None = None
    at: datetime | None = None
    reason: str | None = None
    plan: PlanSnapshot | None = None
    stale: StalePlan | None = None
    expired_at: datetime | None = None


def initial_approval(
    requester: Requester,
    command_types: Iterable[str],
    settings: Settings,
    *,
    brings_back: Iterable[Approval | None] = (),
) -> Approval | None:
    """``pending`` when the batch writes to Jira and its door, its token or a batch it brings back (the approvals
    of the batches whose commands a retry or reapply takes) requires a person's approval; else ``None``."""
    if not any(CATALOGUE[command_type].writes for command_type in command_types):
        return None
    door = requester.door is not None and settings.approval.required(requester.door.value)
    waited = any(earlier is not None for earlier in brings_back)
    if door or requester.needs_approval or waited:
        return Approval(state=ApprovalState.PENDING)
    return None


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


def approves_nothing(token_name: str) -> str:
    """The 403 of a token that requires approval and tries to approve."""
    return f"токен {token_name} сам требует одобрения своих пакетов и одобрять пакеты не может"


def approval_refusal(
    approval: Approval | None,
    *,
    batch_id: int,
    creator: str | None,
    approver: str,
    approver_needs_approval: bool = False,
) -> ForbiddenError | ConflictError | None:
    """Why ``approver`` may not say yes (``None``: they may): 403 for a token that requires approval itself, 409
    when the batch does not wait, 403 for the creator's token. The page asks first, so it offers «Одобрить» only
    to whom the hub would not refuse."""
    if approver_needs_approval:
        return ForbiddenError(approves_nothing(approver))
    if not holds(approval):
        return _not_waiting(batch_id, approval)
    if creator is not None and approver == creator:
        return ForbiddenError(OWN_BATCH)
    return None


def approve(
    approval: Approval | None,
    *,
    batch_id: int,
    creator: str | None,
    approver: str,
    now: datetime,
    approver_needs_approval: bool = False,
    digest: str | None = None,
    current: PlanSnapshot | None = None,
) -> Approval:
    """The approval after ``approver`` said yes to the plan of ``digest``, unless :func:`approval_refusal` refuses
    it or the plan now (``current``) is another (:class:`~reconcile.outlook.approved_plan.PlanChanged`)."""
    refused = approval_refusal(
        approval, batch_id=batch_id, creator=creator, approver=approver, approver_needs_approval=approver_needs_approval
    )
    if refused is not None:
        raise refused
    if current is not None and digest != current.digest:
        raise PlanChanged(current)
    stale = approval.stale if approval is not None else None
    return Approval(state=ApprovalState.APPROVED, by=approver, at=now, plan=current, stale=stale)


def back_to_pending(
    approval: Approval, *, plan: PlanSnapshot, now: datetime, stale: StalePlan | None = None
) -> Approval:
    """An approved batch waits for a person again with ``plan``: the agent found it ``stale``, or (without
    ``stale``) the approval lapsed (:func:`reconcile.outlook.approved_plan.expired`)."""
    if stale is not None:
        return Approval(state=ApprovalState.PENDING, plan=plan, stale=stale, expired_at=approval.expired_at)
    return Approval(state=ApprovalState.PENDING, plan=plan, stale=approval.stale, expired_at=now)


def reject(approval: Approval | None, *, batch_id: int, by: str, reason: str, now: datetime) -> Approval:
    """The approval after ``by`` said no (the creator may withdraw their own batch): 409 when it does not wait."""
    if approval is None or not holds(approval):
        raise _not_waiting(batch_id, approval)
    return attrs.evolve(approval, state=ApprovalState.REJECTED, by=by, at=now, reason=reason)


def rejection_error(reason: str) -> str:
    """The ``error`` of a command cancelled by a rejection."""
    return f"пакет отклонён: {reason}"
