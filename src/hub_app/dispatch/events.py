"""Jira's webhook events relayed by the agent (``POST /agent/events``, DESIGN.md 6.2): hints, never the truth.

In one transaction under the queue lock: the events' issues go into the mirror under the upsert rule (a row is
never made older: :mod:`reconcile.jira.mirror_rule`) and the changes they announce into its journal (so drift names who
changed an aspect and when at once, DESIGN.md 6.1); once the agent is away, the commands still ``claimed`` whose
desired state the mirror now shows are confirmed by state, as after a refresh's report (while it is online the
claimed command is the one it executes now, whose own writes the events may be announcing: :func:`_agent_at_work`);
what the events could not bring is left to one refresh of the hub's
(:func:`reconcile.batches.event_refresh.decide_event_refreshes`: the keys of a deletion or of an unreadable issue added
to the queued ``refresh {keys}`` or queued as one; a change-only refresh for link events and empty bodies).
Idempotent: the same events again write the same rows and queue nothing more while the refresh they need is still
queued. Each event's outcome is counted (:mod:`reconcile.jira.freshness`). A request naming an issue outside the hub's
Jira project, or an ``updated`` far in the future, is refused whole (:mod:`reconcile.jira.agent_records`).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence

import attrs

from adapters.storage.records import AgentStatusRecord, CommandRecord
from hub_app.answers.agent import EventsAck
from hub_app.bodies.agent import EventsIn
from hub_app.dispatch.reports import confirm_claimed
from hub_app.operations.batches import create_batch
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import base_jql
from reconcile.batches import (
    AUTO_REFRESH_AUTHOR,
    EVENT_REFRESH_TITLE,
    QueuedRefresh,
    auto_refresh_body,
    decide_event_refreshes,
    event_refresh_body,
)
from reconcile.config import Settings
from reconcile.jira import EventOutcome, Need, WebhookEvent, event_outcomes, event_refusal
from reconcile.outlook import approval
from reconcile.queue import history, is_online
from reconcile.vocabulary import REFRESH_TYPE, CommandStatus, ValidationError

log = logging.getLogger(__name__)

__all__ = ["submit_events"]


async def submit_events(unit: Unit, body: EventsIn) -> EventsAck:
    """``POST /agent/events``: apply the events' issues, confirm by state, queue what they need read."""
    events = [event.hint for event in body.events]
    settings = await unit.db.admin.settings()
    for index, event in enumerate(events):
        problem = event_refusal(event, index, jira_project=settings.jira_project, now=unit.now)
        if problem is not None:
            raise ValidationError(problem)
    await unit.db.lock_queue()
    issues = [e.issue for e in events if e.need is Need.APPLY and e.issue is not None]
    stored = await unit.db.mirror.updated_of(i.key for i in issues) if issues else {}
    outcomes = event_outcomes(events, stored)
    written = await unit.db.mirror.upsert_issues(issues, command_id=None, now=unit.now, stored=stored)
    # Who changed what and when is a fact whatever the order the events came in: the journal takes every one
    # (idempotent with the refresh that reads the same changelog later, by issue and Jira's history id).
    await unit.db.mirror.upsert_history([e.history for e in events if e.history is not None])
    status = await unit.db.admin.agent_status()
    claimed = written and await unit.db.queue.with_status(CommandStatus.CLAIMED)
    if claimed and not _agent_at_work(unit, settings, status):
        await confirm_claimed(unit, settings)
    refresh_id = await _queue_refreshes(unit, events)
    if status is not None and events:
        await unit.db.admin.save_agent_status(attrs.evolve(status, last_webhook_event_at=unit.now))
    counts = Counter(outcome.value for outcome in outcomes)
    fields = {"events": len(events), **counts, "refresh_command_id": refresh_id}
    unit.db.after_commit.append(lambda: log.info("events_received", extra=fields))
    unit.after_commit(lambda metrics: metrics.events_received(o.value for o in outcomes))
    return EventsAck(
        applied=counts[EventOutcome.APPLIED.value],
        duplicate=counts[EventOutcome.DUPLICATE.value],
        stale=counts[EventOutcome.STALE.value],
        refresh_command_id=refresh_id,
    )


def _agent_at_work(unit: Unit, settings: Settings, status: AgentStatusRecord | None) -> bool:
    """Whether the agent is online: then the command ``claimed`` is the one it executes now (the claim re-delivers a
    claimed command before it issues another, so there is one), and an event of its own write comes while it is
    claimed — confirming it by state would take the outcome from its report, which is coming. Once the agent is
    away, a claimed command has lost its report, and the events confirm it as a refresh's report would."""
    return status is not None and is_online(
        status.last_seen_at, now=unit.now, claim_wait_seconds=settings.claim_wait_seconds
    )


async def _queued_refreshes(unit: Unit, base: str | None) -> tuple[CommandRecord | None, bool]:
    """The hub's queued ``refresh {keys}`` for events, if any, and whether a change-only refresh is queued."""
    queued = [c for c in await unit.db.queue.unfinished_of_type(REFRESH_TYPE) if c.status is CommandStatus.QUEUED]
    batches = await unit.db.queue.batches_by_id({c.batch_id for c in queued})
    by_events = [
        c
        for c in queued
        if (b := batches.get(c.batch_id)) is not None
        and (b.author, b.title) == (AUTO_REFRESH_AUTHOR, EVENT_REFRESH_TITLE)
        and isinstance(c.params.get("keys"), list)
    ]
    changes = any(history.is_changes_refresh(c.params, base) for c in queued)
    return (by_events[0] if by_events else None), changes


async def _queue_refreshes(unit: Unit, events: Sequence[WebhookEvent]) -> int | None:
    """Carry out :func:`reconcile.batches.event_refresh.decide_event_refreshes`; the refresh for events queued or given
    more keys (or the change-only one queued), if any."""
    if not any(e.need in (Need.TARGETED, Need.CHANGES) for e in events):
        return None
    settings = await unit.db.admin.settings()
    base = await base_jql(unit, settings)
    queued, changes_queued = await _queued_refreshes(unit, base)
    deleted = [e.key for e in events if e.event == "jira:issue_deleted" and e.key is not None]
    links = await unit.db.mirror.links_of(deleted)
    mark_run = await unit.db.queue.journal_mark_run()
    decision = decide_event_refreshes(
        events,
        linked={key: [end for link in found for end in (link.source, link.target)] for key, found in links.items()},
        queued=None if queued is None else QueuedRefresh(command_id=queued.id, keys=tuple(queued.params["keys"])),
        changes_queued=changes_queued,
        mark=history.journal_mark([mark_run] if mark_run else []),
        base_jql=base,
        jira_project=settings.jira_project,
    )
    if decision.left:
        unit.db.after_commit.append(lambda: log.info("event_keys_left", extra={"keys": list(decision.left)}))
    command_id: int | None = None
    if decision.extend is not None and queued is not None:
        await unit.db.queue.save_params(queued.id, {**queued.params, "keys": list(decision.extend.keys)})
        command_id = queued.id
    bodies = []
    if decision.queue_keys:
        bodies.append(event_refresh_body(decision.queue_keys))
    if decision.queue_changes and base is not None:
        bodies.append(auto_refresh_body(base, changes=True))
    for batch_body in bodies:
        created = await create_batch(unit, batch_body, requester=approval.HUB)
        command_id = command_id or created.commands[0].id
    return command_id
