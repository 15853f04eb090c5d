"""The agent's claim (DESIGN.md 5.4 and 6): who may claim, what is issued next, and what a delivery carries.

One look at the queue (:func:`claim_once`, one transaction under the queue lock): register the agent, let
:func:`reconcile.queue.claim.decide_claim` decide on a snapshot and carry out its actions, and when nothing is
queued maybe create the hub's auto refresh. The long poll around it lives in :mod:`hub_app.api.agent`.
"""

from __future__ import annotations

import functools
import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import attrs

from adapters.storage.records import AgentStatusRecord, CommandRecord
from hub_app.answers.agent import AgentStatusView, CommandHeld, DeliveryView, QueueOutlook
from hub_app.bodies.agent import AgentProblemIn, ClaimIn
from hub_app.operations.approvals import expire_approvals
from hub_app.operations.audit import prune_audit
from hub_app.operations.batches import create_batch
from hub_app.operations.freshness import mirror_freshness
from hub_app.operations.idempotency import prune_keys
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import base_jql, batch, command, held_batches, resolved_in_batch
from reconcile.batches import auto_refresh_body
from reconcile.config import Settings
from reconcile.jira import site_url
from reconcile.outlook import AgentPace, approval, approved_for, pace_from_wire, paced_settings
from reconcile.queue import (
    auto_refresh,
    check_claimant,
    check_instance,
    delivery,
    history,
    holds_claim,
    is_online,
    pause_seconds,
    reports,
)
from reconcile.queue import claim as queue
from reconcile.vocabulary import CATALOGUE, REFRESH_TYPE, CommandStatus, Event, advance

if TYPE_CHECKING:
    from hub_app.runtime.metrics import HubMetrics

log = logging.getLogger(__name__)

__all__ = [
    "QUEUED_HEAD",
    "agent_status",
    "claim_once",
    "command_held",
    "queue_outlook",
    "record_problem",
    "touch_agent",
]

#: The longest ``last_error`` kept (one line is meant; a longer one is cut).
LAST_ERROR_CHARS = 2000

#: How many queued commands one look at the queue reads (skipped ones make it look again).
QUEUED_HEAD = 50


async def queue_outlook(unit: Unit, settings: Settings) -> QueueOutlook:
    """What the agent can be given and its ETA at the agent's pace; what waits for approval apart
    (``/agent-status``, the page)."""
    held = await held_batches(unit)
    status = await unit.db.admin.agent_status()
    if status is not None and status.policy is not None:
        settings = paced_settings(settings, status.policy)  # the agent's floors count
    depth, eta = queue.outlook(await unit.db.queue.unfinished_by_type(held=held), settings)
    everything = await unit.db.queue.count_unfinished()
    return QueueOutlook(depth=depth, eta_seconds=eta, awaiting_approval=len(held), awaiting_commands=everything - depth)


async def agent_status(unit: Unit) -> AgentStatusView:
    status = await unit.db.admin.agent_status()
    settings = await unit.db.admin.settings()
    online = status is not None and is_online(
        status.last_seen_at,
        now=unit.now,
        claim_wait_seconds=settings.claim_wait_seconds,
        stalled=status.last_error is not None,
    )
    return AgentStatusView.of(
        status, online=online, queue=await queue_outlook(unit, settings), mirror=await mirror_freshness(unit, settings)
    )


async def touch_agent(unit: Unit) -> str | None:
    """The agent was seen now (it sent a page or a report); its id."""
    status = await unit.db.admin.agent_status()
    if status is not None:
        await unit.db.admin.save_agent_status(attrs.evolve(status, last_seen_at=unit.now))
    return status.agent_id if status is not None else None


async def command_held(unit: Unit, command_id: int, *, instance: str | None) -> CommandHeld:
    """``GET /agent/commands/{id}``: asked by the agent before it writes (DESIGN.md 5.4, 5.6); the holder is seen."""
    found = await command(unit, command_id)
    status = await unit.db.admin.agent_status()
    held = found.status is CommandStatus.CLAIMED and holds_claim(
        instance, active_instance=status.instance if status else None
    )
    if held:
        await touch_agent(unit)
    return CommandHeld(id=found.id, status=found.status, held=held, deliveries=found.deliveries)


async def _claimant(unit: Unit, agent_id: str, instance: str | None, settings: Settings) -> AgentStatusRecord:
    """The agent's row once ``agent_id``/``instance`` may act as the active agent (else 409, nothing kept)."""
    check_instance(instance)
    current = await unit.db.admin.agent_status()
    check_claimant(
        agent_id,
        instance=instance,
        active=current.agent_id if current else None,
        active_instance=current.instance if current else None,
        active_seen_at=current.last_seen_at if current else None,
        now=unit.now,
        claim_wait_seconds=settings.claim_wait_seconds,
    )
    if current is None or current.agent_id != agent_id:
        # The last webhook event is the mirror's fact, not the agent's: kept when another agent takes over.
        events_at = current.last_webhook_event_at if current else None
        current = AgentStatusRecord(agent_id=agent_id, last_seen_at=unit.now, last_webhook_event_at=events_at)
    return attrs.evolve(current, instance=instance, last_seen_at=unit.now)


def _pace(policy: dict[str, Any] | None) -> AgentPace | None:
    """The pace the agent reported (``null``: it reports none now); 422 naming what is wrong, nothing kept."""
    return None if policy is None else pace_from_wire(policy)


async def _register(unit: Unit, claim: ClaimIn, settings: Settings) -> None:
    """The claimant becomes (or stays) the active agent; what it says of Jira is kept until it says otherwise.
    Its ``last_error`` is over: the agent claims only once Jira answers it."""
    current = await _claimant(unit, claim.agent_id, claim.instance, settings)
    told: dict[str, Any] = {
        name: getattr(claim, name) for name in ("version", "jira_user", "jira_time_zone") if name in claim.given
    }
    if "symmetric_link_types" in claim.given:
        told["symmetric_link_types"] = tuple(claim.symmetric_link_types or ())
    if "jira_base_url" in claim.given:
        told["jira_base_url"] = site_url(claim.jira_base_url)
    if "policy" in claim.given:
        told["policy"] = _pace(claim.policy)
    # A claim ends whatever pause the agent was waiting out.
    await unit.db.admin.save_agent_status(
        attrs.evolve(
            current, **told, last_claim_at=unit.now, last_error=None, pause_command_id=None, pause_ends_at=None
        )
    )


async def record_problem(unit: Unit, body: AgentProblemIn) -> None:
    """``POST /agent/status``: the agent is alive — its heartbeat during a wait (DESIGN.md 5.6) — and what keeps
    it waiting, if anything (DESIGN.md 5.4); the same who-may-act rule as a claim, so a second agent cannot write
    over the active one's status."""
    settings = await unit.db.admin.settings()
    current = await _claimant(unit, body.agent_id, body.instance, settings)
    version = body.version if "version" in body.given else current.version
    pace = _pace(body.policy) if "policy" in body.given else current.policy
    last_error = body.last_error[:LAST_ERROR_CHARS] if body.last_error else None
    # The pause it is waiting out now, if it said so (a heartbeat without one: no pause is being waited out).
    pausing = body.pause_command_id is not None and body.pause_left_seconds is not None
    ends_at = unit.now + timedelta(seconds=body.pause_left_seconds or 0) if pausing else None
    await unit.db.admin.save_agent_status(
        attrs.evolve(
            current,
            version=version,
            policy=pace,
            last_error=last_error,
            pause_command_id=body.pause_command_id if pausing else None,
            pause_ends_at=ends_at,
        )
    )


async def _snapshot(unit: Unit, held: frozenset[int]) -> queue.ClaimSnapshot:
    claimed = [
        queue.ClaimedCommand(
            id=c.id,
            claimed_at=c.claimed_at or unit.now,
            deliveries=c.deliveries,
            batch_id=c.batch_id,
            temp_key=c.temp_key,
        )
        for c in await unit.db.queue.with_status(CommandStatus.CLAIMED)
    ]
    head = await unit.db.queue.queued_head(QUEUED_HEAD + 1, held=held)
    return queue.ClaimSnapshot(
        held_batches=held,
        claimed=claimed,
        queued_head=[
            queue.QueuedCommand(id=c.id, batch_id=c.batch_id, type=c.type, params=c.params, temp_key=c.temp_key)
            for c in head[:QUEUED_HEAD]
        ],
        queue_complete=len(head) <= QUEUED_HEAD,
        outcomes=await unit.db.queue.temp_key_outcomes(c.batch_id for c in head[:QUEUED_HEAD]),
    )


def _moved(current: CommandRecord, action: queue.Action, unit: Unit) -> CommandRecord:
    """The command after one action of the claim decision."""
    if isinstance(action, queue.FailCommand | queue.SkipCommand):
        event = Event.DELIVERY_LIMIT if isinstance(action, queue.FailCommand) else Event.SKIP
        status = advance(current.status, event, command_id=current.id)
        return attrs.evolve(current, status=status, error=reports.trim_error(action.error), finished_at=unit.now)
    if isinstance(action, queue.Redeliver):
        status = advance(current.status, Event.REDELIVER, command_id=current.id)
        return attrs.evolve(current, status=status, claimed_at=unit.now, deliveries=action.deliveries)
    status = advance(current.status, Event.ISSUE, command_id=current.id)
    # A command queued again after a stale plan (hub_app.operations.approvals) keeps the deliveries that counted.
    return attrs.evolve(current, status=status, claimed_at=unit.now, deliveries=current.deliveries + 1)


async def _deliver(unit: Unit, issued: CommandRecord, settings: Settings) -> DeliveryView:
    """The delivery of a command: params completed at delivery (never stored), pause and context."""
    projects = await unit.db.admin.projects()
    file_param = CATALOGUE[issued.type].file_param
    file_size = None if file_param is None else unit.files.size(str(issued.params.get(file_param, "")))
    history_param = None
    full = False
    if issued.type == REFRESH_TYPE:
        base = history.base_jql(settings.jira_project, [p.name for p in projects])
        full = history.is_full_refresh(issued.params, base)
        mark = history.journal_mark([run] if (run := await unit.db.queue.journal_mark_run()) else [])
        history_param = history.history_param(full=full, has_base_jql=base is not None, mark=mark, base_jql=base)
    params = delivery.complete_params(
        issued.type,
        issued.params,
        resolved_temp_keys=await resolved_in_batch(unit, issued.batch_id),
        file_size=file_size,
        boards=delivery.boards_param((p.board_id, p.board_type) for p in projects),
        history=history_param,
    )
    if issued.type == REFRESH_TYPE:
        await unit.db.queue.start_sync_run(issued.id, query=history.sync_query(params), full=full, now=unit.now)
    context = settings.agent_context()
    approved = (await batch(unit, issued.batch_id)).approval
    if approved is not None and approved.plan is not None and CATALOGUE[issued.type].writes:
        # DESIGN.md 6.5: the agent writes nothing but these lines (the temp keys created since substituted).
        resolved = await resolved_in_batch(unit, issued.batch_id)
        context["approved"] = approved_for(approved.plan, issued.seq, resolved_temp_keys=resolved)
    unit.audit(
        "delivered",
        batch_id=issued.batch_id,
        command_id=issued.id,
        data={"type": issued.type, "deliveries": issued.deliveries, "approved": "approved" in context},
    )
    return DeliveryView(
        id=issued.id,
        type=issued.type,
        params=params,
        pause_seconds=pause_seconds(issued.type, settings),
        deliveries=issued.deliveries,
        context=context,
    )


async def _auto_refresh(unit: Unit, settings: Settings, held: frozenset[int]) -> bool:
    """Create the hub's full or change-only refresh when nothing can be issued and the last one is too old
    (:func:`reconcile.queue.auto_refresh.decide_auto_refresh`); whether it did.

    Batches waiting for approval do not count: the mirror stays fresh while they wait (their plan reads it).
    """
    base = await base_jql(unit, settings)
    mark_run = await unit.db.queue.journal_mark_run()
    kind = auto_refresh.decide_auto_refresh(
        queue_empty=not await unit.db.queue.count_unfinished(held=held),
        base_jql=base,
        last_full_refresh_started_at=await unit.db.queue.last_full_refresh_start(),
        last_base_refresh_started_at=await unit.db.queue.last_refresh_start(base) if base else None,
        mark=history.journal_mark([mark_run] if mark_run else []),
        now=unit.now,
        auto_refresh_minutes=settings.auto_refresh_minutes,
        full_refresh_hours=settings.full_refresh_hours,
    )
    if kind is auto_refresh.AutoRefresh.NONE or base is None:
        return False
    body = auto_refresh_body(base, changes=kind is auto_refresh.AutoRefresh.CHANGES)
    await create_batch(unit, body, requester=approval.HUB)
    return True


def _count_claim(outcome: str, metrics: HubMetrics) -> None:
    metrics.claims.labels(outcome=outcome).inc()


async def claim_once(unit: Unit, claim: ClaimIn) -> DeliveryView | None:
    """``POST /agent/claim`` once (no waiting): the delivery, or ``None`` when there is nothing to issue.

    409 when another agent was seen within 2 × ``claim_wait_seconds``. Creates the auto refresh batch (full or
    change-only) when the queue is empty and the last refresh is older than ``auto_refresh_minutes``.
    """
    await unit.db.lock_queue()
    settings = await unit.db.admin.settings()
    await _register(unit, claim, settings)
    unit.actor = f"agent:{claim.agent_id}"
    await expire_approvals(unit, settings)
    held = await held_batches(unit)
    auto_done = False
    while True:
        decision = queue.decide_claim(await _snapshot(unit, held))
        for action in decision.actions:
            await unit.db.queue.save(_moved(await command(unit, action.id), action, unit))
        if decision.needs_more:
            continue
        if decision.delivery is not None:
            record = await command(unit, decision.delivery.id)
            issued = await _deliver(unit, record, settings)
            unit.after_commit(functools.partial(_count_claim, "issued" if issued.deliveries <= 1 else "redelivered"))
            fields = {**record.log_fields(), "deliveries": issued.deliveries, "agent_id": claim.agent_id}
            unit.db.after_commit.append(functools.partial(log.info, "command_issued", extra=fields))
            return issued
        if auto_done or not await _auto_refresh(unit, settings, held):
            unit.after_commit(functools.partial(_count_claim, "empty"))
            await prune_audit(unit, settings)
            await prune_keys(unit)
            return None
        auto_done = True
