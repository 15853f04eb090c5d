"""A person's approval of a batch's plan, and the ways an approval ends (DESIGN.md 6, 6.5).

``approve`` names the digest of the plan the person read: the hub computes the plan again from the mirror and
refuses another (409 with the current plan); the approval keeps the plan approved, and each delivery carries its
command's lines (:mod:`hub_app.dispatch.claims`). An approved batch waits again with a fresh plan when the agent dropped
a command before a write that plan does not hold (:func:`stale_plan`, from its report) or when nothing of it was
delivered within ``approval_ttl_hours`` (:func:`expire_approvals`, at a claim). ``reject`` cancels its queued
commands. Each decision is one audit record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from adapters.storage.records import BatchRecord, CommandRecord
from hub_app.answers.batches import BatchView
from hub_app.bodies.batches import ApproveIn, RejectIn
from hub_app.operations.batches import create_batch
from hub_app.operations.predict import stored_plan
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import base_jql, batch
from reconcile.batches import refresh_body
from reconcile.config import Settings
from reconcile.outlook import ApprovalState, Requester, StalePlan, approval, approved_plan
from reconcile.queue import reports
from reconcile.vocabulary import Event, advance, can, is_jira_key

__all__ = ["approve_batch", "expire_approvals", "pending_plan", "reject_batch", "stale_plan"]


async def _view(unit: Unit, found: BatchRecord, decided: approval.Approval | None) -> BatchView:
    commands = (await unit.db.queue.commands_of([found.id]))[found.id]
    return BatchView.of(
        attrs.evolve(found, approval=decided), commands, settings=await unit.db.admin.settings(), now=unit.now
    )


async def pending_plan(unit: Unit, found: BatchRecord, settings: Settings) -> approved_plan.PlanSnapshot:
    """The plan a batch waits with: its unfinished commands, computed now."""
    return (await stored_plan(unit, found, settings)).snapshot


async def approve_batch(unit: Unit, batch_id: int, body: ApproveIn, *, approver: Requester) -> BatchView:
    """``POST /batches/{id}/approve {"plan": "<digest>"}``: a person other than the creator says yes to the plan they
    read; 409 with the current plan when it is another; waiting claims wake. A token that requires approval
    itself approves nothing (403)."""
    await unit.db.lock_queue()
    found = await batch(unit, batch_id)
    refused = approval.approval_refusal(
        found.approval,
        batch_id=found.id,
        creator=found.token_name,
        approver=approver.token_name or "",
        approver_needs_approval=approver.needs_approval,
    )
    if refused is not None:
        raise refused
    current = await pending_plan(unit, found, await unit.db.admin.settings())
    decided = approval.approve(
        found.approval,
        batch_id=found.id,
        creator=found.token_name,
        approver=approver.token_name or "",
        now=unit.now,
        digest=body.plan,
        current=current,
    )
    await unit.db.queue.save_approval(found.id, decided)
    await unit.db.announce_batch(unit.wakeup.notify)
    unit.audit("plan_approved", batch_id=found.id, data={"digest": current.digest, "lines": list(current.lines)})
    return await _view(unit, found, decided)


async def reject_batch(unit: Unit, batch_id: int, body: RejectIn, *, token_name: str) -> BatchView:
    """``POST /batches/{id}/reject``: its queued commands are cancelled with «пакет отклонён: <reason>»."""
    await unit.db.lock_queue()
    found = await batch(unit, batch_id)
    decided = approval.reject(found.approval, batch_id=found.id, by=token_name, reason=body.reason, now=unit.now)
    await unit.db.queue.save_approval(found.id, decided)
    error = reports.trim_error(approval.rejection_error(body.reason))
    for current in (await unit.db.queue.commands_of([found.id]))[found.id]:
        if can(current.status, Event.REJECT):
            status = advance(current.status, Event.REJECT, command_id=current.id)
            await unit.db.queue.save(attrs.evolve(current, status=status, error=error, finished_at=unit.now))
    plan = found.approval.plan if found.approval else None
    unit.audit(
        "plan_rejected", batch_id=found.id, data={"reason": body.reason, "digest": plan.digest if plan else None}
    )
    return await _view(unit, found, decided)


async def stale_plan(unit: Unit, command: CommandRecord, difference: Sequence[Mapping[str, Any]]) -> CommandRecord:
    """The agent dropped ``command`` before a write its batch's approved plan does not hold: the command is queued
    again (the delivery does not count), the batch waits for a person with a fresh plan and the difference; nobody
    is woken."""
    found = await batch(unit, command.batch_id)
    requeued = attrs.evolve(
        command,
        status=advance(command.status, Event.STALE_PLAN, command_id=command.id),
        deliveries=max(command.deliveries - 1, 0),
        claimed_at=None,
    )
    await unit.db.queue.save(requeued)
    if found.approval is not None and found.approval.state is ApprovalState.APPROVED:
        plan = await pending_plan(unit, found, await unit.db.admin.settings())
        stale = StalePlan(difference=tuple(difference), at=unit.now)
        waits = approval.back_to_pending(found.approval, plan=plan, now=unit.now, stale=stale)
        await unit.db.queue.save_approval(found.id, waits)
    unit.audit("stale_plan", batch_id=found.id, command_id=command.id, data={"difference": list(difference)})
    await _refresh_what_moved(unit, difference)
    return requeued


async def _refresh_what_moved(unit: Unit, difference: Sequence[Mapping[str, Any]]) -> None:
    """Read the issues the agent found changed into the mirror, so that the plan a person approves next is Jira's
    (a hub's refresh batch: it only reads, and is issued before the batch can be approved again)."""
    keys = list(dict.fromkeys(str(d.get("key")) for d in difference if is_jira_key(d.get("key"))))
    if not keys:
        return
    settings = await unit.db.admin.settings()
    body = refresh_body(keys=keys, jql=None, base_jql=await base_jql(unit, settings), author="hub")
    await create_batch(unit, body, requester=approval.HUB)


async def expire_approvals(unit: Unit, settings: Settings) -> None:
    """Approved batches none of whose commands was delivered within ``approval_ttl_hours`` of the approval wait for
    a person again, with a fresh plan (at a claim, before anything is issued)."""
    for found in await unit.db.queue.approved_undelivered():
        if found.approval is None or not approved_plan.expired(
            found.approval.at, delivered_since=False, now=unit.now, ttl_hours=settings.approval_ttl_hours
        ):
            continue
        plan = await pending_plan(unit, found, settings)
        await unit.db.queue.save_approval(found.id, approval.back_to_pending(found.approval, plan=plan, now=unit.now))
        approved = {"by": found.approval.by, "at": found.approval.at.isoformat() if found.approval.at else None}
        unit.audit("approval_expired", batch_id=found.id, data={"approved": approved, "digest": plan.digest})
