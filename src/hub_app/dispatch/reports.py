"""What the agent sends back: refresh pages into the mirror, and the report of each delivery.

A report for a ``claimed`` command records its outcome; a late one records only what the seed allows
(:func:`reconcile.queue.reports.decide_report`). A refresh's facts — pages, boards, the journal mark, vanished
issues — are applied whatever became of the command, and after every refresh the commands still ``claimed``
whose desired state the mirror now shows are ``confirmed_by_state`` (:mod:`reconcile.outlook.confirm`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import attrs

from adapters.storage.models import DB_INT_MAX
from adapters.storage.records import CommandRecord
from hub_app.answers.agent import PagesAck, ReportAck
from hub_app.bodies.agent import PagesIn, ReportIn
from hub_app.dispatch.claims import touch_agent
from hub_app.operations.approvals import stale_plan
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import agent_facts, base_jql, command, resolved_in_batch
from reconcile.audit import writes as audit_writes
from reconcile.config import Settings
from reconcile.jira import page_refusal
from reconcile.outlook import confirm as confirm_rules
from reconcile.queue import delivery, history, reports
from reconcile.vocabulary import REFRESH_TYPE, CommandStatus, ConflictError, Event, ValidationError, advance

log = logging.getLogger(__name__)

__all__ = ["STALE_PLAN", "confirm_claimed", "report", "submit_pages"]

#: A report's ``outcome`` when the agent dropped the command before a write its approved plan does not hold.
STALE_PLAN = "stale_plan"

_PAGE_KINDS = ("issues", "neighbours", "history")


async def submit_pages(unit: Unit, command_id: int, body: PagesIn) -> PagesAck:
    """``POST /agent/commands/{id}/pages``: idempotent upserts of the mirror, whatever the command's status (a full
    refresh's page writes what Jira said, whatever the row's ``updated``); a record outside the hub's Jira project
    refuses the page (422, nothing written)."""
    if body.kind is not None and body.kind not in _PAGE_KINDS:
        raise ValidationError(f"kind — ожидается одно из {', '.join(_PAGE_KINDS)}")
    await unit.db.lock_queue()
    refresh = await command(unit, command_id)
    if refresh.type != REFRESH_TYPE:
        raise ConflictError(f"команда {command_id} — не {REFRESH_TYPE}")
    if refresh.status is CommandStatus.QUEUED or refresh.deliveries == 0:
        raise ConflictError(f"команда {command_id} не выдана агенту")
    issues, entries = body.issues or [], body.history or []
    problem = page_refusal(issues, entries, jira_project=(await unit.db.admin.settings()).jira_project)
    if problem is not None:
        raise ValidationError(problem)
    run = await unit.db.queue.sync_run(refresh.id)
    await unit.db.mirror.upsert_issues(issues, command_id=refresh.id, now=unit.now, full=run is not None and run.full)
    await unit.db.mirror.upsert_history(entries)
    await touch_agent(unit)
    return PagesAck(accepted=True, issues=len(issues), history=len(entries))


async def report(unit: Unit, command_id: int, body: ReportIn) -> ReportAck:
    """``POST /agent/commands/{id}/report``: record the outcome of the command's delivery (idempotent).

    For a command no longer ``claimed`` only what the seed allows is recorded: the key of a cancelled or
    limit-failed ``ensure_issue`` (and its notes move), and a refresh's facts; the status stays.
    """
    if body.status not in ("done", "failed"):
        raise ValidationError("status — ожидается done или failed")
    if body.outcome not in (None, STALE_PLAN):
        raise ValidationError(f"outcome — ожидается {STALE_PLAN} или null")
    result = body.result or {}
    await unit.db.lock_queue()
    settings = await unit.db.admin.settings()
    current = await command(unit, command_id)
    agent = await touch_agent(unit)
    unit.actor = f"agent:{agent}" if agent else unit.actor
    _audit_report(unit, current, body)
    if body.outcome == STALE_PLAN and current.status is CommandStatus.CLAIMED:
        await stale_plan(unit, current, body.difference or [])
        return ReportAck(accepted=True, status=CommandStatus.QUEUED)
    run = await unit.db.queue.sync_run(current.id) if current.type == REFRESH_TYPE else None
    decision = reports.decide_report(
        command_type=current.type,
        current_status=current.status,
        current_error=current.error,
        reported_status=body.status,
        result=result,
        refresh_finished=run is None or run.finished_at is not None,
    )
    if decision.record:
        event = Event.REPORT_DONE if body.status == "done" else Event.REPORT_FAILED
        current = attrs.evolve(
            current,
            status=advance(current.status, event, command_id=command_id),
            result=dict(result),
            error=reports.trim_error(body.error),
            jira_calls=body.jira_calls,
            operations=[attrs.asdict(op) for op in body.operations or ()],
            finished_at=unit.now,
        )
        await unit.db.queue.save(current)
    else:
        advance(current.status, Event.LATE_REPORT, command_id=command_id)
        if decision.key is not None:
            current = attrs.evolve(current, result={**(current.result or {}), **result})
            await unit.db.queue.save(current)
    if current.temp_key and decision.key:
        await unit.db.notes.move(current.batch_id, current.temp_key, decision.key)
    if decision.apply_refresh:
        await _apply_refresh_result(unit, current, result, settings)
    recorded = body if decision.record else None
    fields: dict[str, Any] = {
        **current.log_fields(),
        "status": body.status,
        "accepted": decision.accepted,
        "jira_calls": body.jira_calls,
    }
    if current.claimed_at is not None:
        fields["duration_ms"] = round((unit.now - current.claimed_at).total_seconds() * 1000)
    if body.status == "failed":
        fields["error"] = reports.trim_error(body.error)
    unit.db.after_commit.append(lambda: log.info("command_reported", extra=fields))
    unit.after_commit(lambda metrics: metrics.report_received(body.status, decision.accepted, recorded))
    return ReportAck(accepted=decision.accepted, status=decision.status)


async def _apply_refresh_result(
    unit: Unit, refresh: CommandRecord, result: Mapping[str, Any], settings: Settings
) -> None:
    """After a ``done`` refresh report (also a late one): boards, journal mark, vanished issues, confirmations."""
    for board_id, board_type in reports.board_types(result).items():
        await unit.db.admin.set_board_type(board_id, board_type)
    run = await unit.db.queue.sync_run(refresh.id)
    if run is not None:
        issues = result.get("issues")
        changes = history.is_changes_refresh(refresh.params, await base_jql(unit, settings))
        marks = history.history_at_on_report(full=run.full, changes=changes, result=result)
        await unit.db.queue.finish_sync_run(
            refresh.id,
            issues=issues if _is_count(issues) else None,
            history_at=unit.now if marks else None,
            now=unit.now,
        )
        if run.full:
            project_names = [p.name for p in await unit.db.admin.projects()]
            unreadable = reports.unreadable_keys(result)
            gone = [
                seen.key
                for seen in await unit.db.mirror.not_vanished()
                if reports.vanishes(
                    labels=seen.labels,
                    project_names=project_names,
                    returned_by_run=seen.seen_by == refresh.id or seen.key in unreadable,
                    refreshed_at=seen.refreshed_at,
                    run_started_at=run.started_at,
                )
            ]
            await unit.db.mirror.vanish(gone, now=unit.now)
        seconds = (unit.now - run.started_at).total_seconds()
        count = issues if isinstance(issues, int) and _is_count(issues) else 0
        unit.after_commit(lambda metrics: metrics.refresh_finished(seconds, count))
    await confirm_claimed(unit, settings, exclude=refresh.id)


def _audit_report(unit: Unit, current: CommandRecord, body: ReportIn) -> None:
    """A report in the audit: the report itself, and each Jira write it made."""
    operations = [attrs.asdict(op) for op in body.operations or ()]
    reported = {"status": body.status, "outcome": body.outcome, "jira_calls": body.jira_calls, "error": body.error}
    unit.audit("reported", batch_id=current.batch_id, command_id=current.id, data=reported)
    for write in audit_writes.jira_writes(current.type, current.params, operations, body.result or {}):
        unit.audit("jira_write", batch_id=current.batch_id, command_id=current.id, data=write)


def _is_count(value: Any) -> bool:
    """A count the database keeps (an ``Integer`` column); an agent's nonsense is recorded as unknown."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= DB_INT_MAX


async def confirm_claimed(unit: Unit, settings: Settings, *, exclude: int | None = None) -> None:
    """The commands still ``claimed`` (but ``exclude``, the refresh just reported) whose desired state the mirror
    now shows become ``confirmed_by_state`` (after a refresh's report, or webhook events)."""
    claimed = [c for c in await unit.db.queue.with_status(CommandStatus.CLAIMED) if c.id != exclude]
    if not claimed:
        return
    facts = await agent_facts(unit)
    for current in claimed:
        params = delivery.complete_params(
            current.type, current.params, resolved_temp_keys=await resolved_in_batch(unit, current.batch_id)
        )
        needs = confirm_rules.mirror_needs(current.type, params)
        if needs.keys:
            mirror = await unit.db.mirror.issues(needs.keys)
        elif needs.summary is not None:
            mirror = await unit.db.mirror.issues_with_summary(needs.summary)
        else:
            continue
        found = confirm_rules.confirm(
            current.type, params, mirror=mirror, facts=facts, link_types=settings.link_types, now=unit.now
        )
        if found is None:
            continue
        confirmed = attrs.evolve(
            current,
            status=advance(current.status, Event.CONFIRM_BY_STATE, command_id=current.id),
            finished_at=unit.now,
        )
        if found.key is not None:
            confirmed = attrs.evolve(confirmed, result={**(current.result or {}), "key": found.key, "created": False})
            if current.temp_key:
                await unit.db.notes.move(current.batch_id, current.temp_key, found.key)
        await unit.db.queue.save(confirmed)
