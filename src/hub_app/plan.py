"""Plans: what a batch would write in Jira, predicted from the mirror by the same executors the agent runs.

``POST /batches?dry_run=true`` answers the raw predictions of a batch body; :func:`body_plan` (MCP
``batch_plan``, the web page's «Проверить») and :func:`batch_plan` (``GET /batches/{id}/plan``: the unfinished
commands of a stored batch, computed now) answer them as a person reads them (:mod:`reconcile.plan_lines`).
Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hub_app.answers.batches import ApprovalView
from hub_app.answers.plans import (
    BatchPlanView,
    CommandPlanView,
    DryRunView,
    PlannedCommand,
    PlannedNote,
    PredictionView,
)
from hub_app.answers.wire import iso
from hub_app.batches import validate
from hub_app.lookups import batch
from hub_app.runtime import Unit
from reconcile import dryrun, plan_lines
from reconcile.batch import NewCommand, ValidBatch, batch_keys
from reconcile.catalogue import CATALOGUE
from reconcile.dryrun import Prediction
from reconcile.lifecycle import PENDING, CommandStatus
from reconcile.records import MirrorIssue
from reconcile.settings import Settings
from reconcile.tempkeys import Skip, resolved_keys, settle, substitute

__all__ = ["batch_plan", "body_plan", "dry_run", "plan_view"]


async def _mirror(unit: Unit, commands: Sequence[NewCommand]) -> dict[str, MirrorIssue]:
    """The mirror records the commands need: the issues they name and, for the duplicate search of each
    ``ensure_issue``, the issues with its summary."""
    mirror = await unit.db.mirror.issues(batch_keys(tuple(commands)))
    summaries = [c.params.get("summary") for c in commands if CATALOGUE[c.type].creates_issue]
    mirror.update(await unit.db.mirror.issues_with_summary(*(s.strip() for s in summaries if isinstance(s, str))))
    return mirror


async def _predict(
    unit: Unit, commands: Sequence[NewCommand], settings: Settings
) -> tuple[tuple[Prediction, ...], dict[str, MirrorIssue]]:
    """The predictions of ``commands`` and the records they were made against (issues to be created included)."""
    agent = await unit.db.admin.agent_status()
    jira_user = agent.jira_user if agent else None
    mirror = await _mirror(unit, commands)
    predictions = dryrun.predict_commands(
        commands,
        mirror=mirror,
        settings=settings,
        jira_user=jira_user,
        symmetric_link_types=frozenset(agent.symmetric_link_types) if agent else frozenset(),
        now=unit.now,
    )
    return predictions, dryrun.with_issues_to_be_created(commands, mirror, jira_user=jira_user, now=unit.now)


async def dry_run(unit: Unit, body: Any) -> DryRunView:
    """``POST /batches?dry_run=true``: the same validation, nothing written, each command's predicted writes."""
    valid, settings = await validate(unit, body)
    predictions, _ = await _predict(unit, valid.commands, settings)
    return DryRunView(
        id=None,
        author=valid.author,
        title=valid.title,
        project=valid.project,
        estimate_seconds=valid.estimate_seconds,
        commands=[
            PlannedCommand(
                id=None,
                seq=c.seq,
                type=c.type,
                params=dict(c.params),
                status="queued",
                prediction=PredictionView(**p.to_json()),
            )
            for c, p in zip(valid.commands, predictions, strict=True)
        ],
        notes=[PlannedNote(key=n.key, text=n.text) for n in valid.notes],
        dry_run=True,
    )


async def _plan(
    unit: Unit,
    commands: Sequence[NewCommand],
    settings: Settings,
    *,
    skips: dict[int, str],
) -> tuple[plan_lines.CommandPlan, ...]:
    predicted = [c for c in commands if c.seq not in skips]
    predictions, issues = await _predict(unit, predicted, settings)
    by_seq = {c.seq: p for c, p in zip(predicted, predictions, strict=True)}
    return plan_lines.plan_commands(
        commands, [by_seq.get(c.seq) for c in commands], issues=issues, settings=settings, skips=skips
    )


async def body_plan(unit: Unit, body: Any) -> BatchPlanView:
    """A batch body's plan (MCP ``batch_plan``): validated as for creation, nothing written."""
    valid, settings = await validate(unit, body)
    return await plan_view(unit, valid, settings)


async def plan_view(unit: Unit, valid: ValidBatch, settings: Settings) -> BatchPlanView:
    """The plan of a validated batch body, nothing written."""
    plans = await _plan(unit, valid.commands, settings, skips={})
    return BatchPlanView(
        batch_id=None,
        author=valid.author,
        title=valid.title,
        approval=None,
        computed_at=iso(unit.now) or "",
        mirror_refreshed_at=iso(await unit.db.queue.last_full_refresh_start()),
        totals=plan_lines.totals(plans),
        estimate_seconds=valid.estimate_seconds,
        commands=[CommandPlanView.of(p, command_id=None, status=CommandStatus.QUEUED.value) for p in plans],
    )


async def batch_plan(unit: Unit, batch_id: int) -> BatchPlanView:
    """``GET /batches/{id}/plan``: its unfinished commands computed now from the mirror, with the temp keys already
    created substituted; a command whose temp key will never exist is planned as skipped."""
    found = await batch(unit, batch_id)
    settings = await unit.db.admin.settings()
    unfinished = [c for c in (await unit.db.queue.commands_of([found.id]))[found.id] if c.status in PENDING]
    outcomes = (await unit.db.queue.temp_key_outcomes([found.id]))[found.id]
    resolved = resolved_keys(outcomes)
    commands: list[NewCommand] = []
    skips: dict[int, str] = {}
    for command in unfinished:
        verdict = settle(command.type, command.params, outcomes)
        if isinstance(verdict, Skip) and command.status is CommandStatus.QUEUED:
            skips[command.seq] = verdict.error
        params = substitute(command.type, command.params, resolved)
        if command.type == "refresh" and isinstance(keys := command.params.get("keys"), list):
            # A tail refresh names the keys still to be created too: it reads them once they exist.
            params["keys"] = [resolved.get(key, key) for key in keys]
        commands.append(NewCommand(seq=command.seq, type=command.type, params=params, temp_key=command.temp_key))
    plans = await _plan(unit, commands, settings, skips=skips)
    return BatchPlanView(
        batch_id=found.id,
        author=found.author,
        title=found.title,
        approval=ApprovalView.of(found.approval),
        computed_at=iso(unit.now) or "",
        mirror_refreshed_at=iso(await unit.db.queue.last_full_refresh_start()),
        totals=plan_lines.totals(plans),
        estimate_seconds=found.estimate_seconds,
        commands=[
            CommandPlanView.of(p, command_id=c.id, status=c.status.value)
            for p, c in zip(plans, unfinished, strict=True)
        ],
    )
