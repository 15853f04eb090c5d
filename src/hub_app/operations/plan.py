"""Plans: what a batch would write in Jira, predicted from the mirror by the same executors the agent runs.

``POST /batches?dry_run=true`` answers the raw predictions of a batch body; :func:`body_plan` (MCP
``batch_plan``, the web page's «Проверить») and :func:`batch_plan` (``GET /batches/{id}/plan``: the unfinished
commands of a stored batch, computed now) answer them as a person reads them (:mod:`reconcile.outlook.plan_lines`).
Nothing here writes.
"""

from __future__ import annotations

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
from hub_app.operations.batches import validate
from hub_app.operations.predict import plan_commands, predict, stored_plan
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import batch
from reconcile.batches import ValidBatch
from reconcile.config import Settings
from reconcile.outlook import plan_lines
from reconcile.vocabulary import CommandStatus

__all__ = ["batch_plan", "body_plan", "dry_run", "plan_view"]


async def dry_run(unit: Unit, body: Any) -> DryRunView:
    """``POST /batches?dry_run=true``: the same validation, nothing written, each command's predicted writes."""
    valid, settings = await validate(unit, body)
    predictions, _ = await predict(unit, valid.commands, settings)
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


async def body_plan(unit: Unit, body: Any) -> BatchPlanView:
    """A batch body's plan (MCP ``batch_plan``): validated as for creation, nothing written."""
    valid, settings = await validate(unit, body)
    return await plan_view(unit, valid, settings)


async def plan_view(unit: Unit, valid: ValidBatch, settings: Settings) -> BatchPlanView:
    """The plan of a validated batch body, nothing written."""
    plans, _ = await plan_commands(unit, valid.commands, settings, skips={})
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
    created substituted; a command whose temp key will never exist is planned as skipped. ``digest`` is what an
    approval of this plan names (DESIGN.md 6.5)."""
    found = await batch(unit, batch_id)
    computed = await stored_plan(unit, found, await unit.db.admin.settings())
    return BatchPlanView(
        batch_id=found.id,
        author=found.author,
        title=found.title,
        approval=ApprovalView.of(found.approval),
        computed_at=iso(unit.now) or "",
        mirror_refreshed_at=iso(await unit.db.queue.last_full_refresh_start()),
        totals=plan_lines.totals(computed.plans),
        estimate_seconds=found.estimate_seconds,
        commands=[
            CommandPlanView.of(p, command_id=c.id, status=c.status.value)
            for p, c in zip(computed.plans, computed.unfinished, strict=True)
        ],
        digest=computed.snapshot.digest,
    )
