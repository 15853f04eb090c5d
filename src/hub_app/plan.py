"""Plans: what a batch would write in Jira, predicted from the mirror by the same executors the agent runs."""

from __future__ import annotations

from typing import Any

from hub_app.batches import validate
from hub_app.runtime import Unit
from hub_app.views import DryRunView, PlannedCommand, PlannedNote, PredictionView
from reconcile import dryrun
from reconcile.batch import batch_keys

__all__ = ["dry_run"]


async def dry_run(unit: Unit, body: Any) -> DryRunView:
    """``POST /batches?dry_run=true``: the same validation, nothing written, each command's predicted writes."""
    valid, settings = await validate(unit, body)
    agent = await unit.db.admin.agent_status()
    predictions = dryrun.predict_batch(
        valid,
        mirror=await unit.db.mirror.issues(batch_keys(valid.commands)),
        settings=settings,
        jira_user=agent.jira_user if agent else None,
        symmetric_link_types=frozenset(agent.symmetric_link_types) if agent else frozenset(),
        now=unit.now,
    )
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
