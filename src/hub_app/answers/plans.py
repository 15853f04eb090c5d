"""Answers of plans: the dry run's raw predictions and the plan a person reads (:mod:`hub_app.operations.plan`)."""

from __future__ import annotations

from typing import Any

import attrs

from hub_app.answers.batches import ApprovalView, PlanView
from reconcile.outlook import CommandPlan

__all__ = [
    "BatchPlanView",
    "CommandPlanView",
    "DryRunView",
    "PlanChangedView",
    "PlanLineView",
    "PlannedCommand",
    "PlannedNote",
    "PredictionView",
]


@attrs.frozen(kw_only=True)
class PredictionView:
    """What one command would write, computed from the mirror; ``unknown`` says what the mirror cannot know."""

    seq: int
    type: str
    writes: list[dict[str, Any]]
    status: str
    result: dict[str, Any]
    error: str | None
    pause_seconds: float
    unknown: list[str]


@attrs.frozen(kw_only=True)
class PlannedCommand:
    id: int | None
    seq: int
    type: str
    params: dict[str, Any]
    status: str
    prediction: PredictionView


@attrs.frozen(kw_only=True)
class PlannedNote:
    key: str
    text: str


@attrs.frozen(kw_only=True)
class DryRunView:
    """``POST /batches?dry_run=true``: the batch as it would be stored and each command's predicted writes."""

    id: int | None
    author: str
    title: str
    project: str | None
    estimate_seconds: float
    commands: list[PlannedCommand]
    notes: list[PlannedNote]
    dry_run: bool


@attrs.frozen(kw_only=True)
class PlanLineView:
    """``sign``: ``+`` create, ``~`` change ``old → new``, ``-`` delete, ``=`` no changes, ``!`` fails or is
    skipped, ``?`` a call the mirror cannot answer; ``unknown``: rests on something the plan cannot know yet (the
    command's ``unknown`` says what)."""

    sign: str
    text: str
    unknown: bool


@attrs.frozen(kw_only=True)
class CommandPlanView:
    command_id: int | None
    seq: int
    type: str
    status: str
    subject: str
    lines: list[PlanLineView]
    writes: list[dict[str, Any]]
    unknown: list[str]

    @classmethod
    def of(cls, plan: CommandPlan, *, command_id: int | None, status: str) -> CommandPlanView:
        return cls(
            command_id=command_id,
            seq=plan.seq,
            type=plan.type,
            status=status,
            subject=plan.subject,
            lines=[PlanLineView(sign=line.sign, text=line.text, unknown=line.unknown) for line in plan.lines],
            writes=[dict(write) for write in plan.writes],
            unknown=list(plan.unknown),
        )


@attrs.frozen(kw_only=True)
class BatchPlanView:
    """A batch's plan, computed at ``computed_at`` from the mirror as of its last full refresh
    (``mirror_refreshed_at``): per unfinished command its lines; ``totals`` counts ``+``, ``~`` and ``-``;
    ``estimate_seconds`` is the batch's estimate (:func:`reconcile.queue.pacing.estimate_seconds`)."""

    batch_id: int | None
    author: str
    title: str
    approval: ApprovalView | None
    computed_at: str
    mirror_refreshed_at: str | None
    totals: dict[str, int]
    estimate_seconds: float
    commands: list[CommandPlanView]
    #: sha256 of the plan's write lines (DESIGN.md 6.5): what ``POST /batches/{id}/approve`` names (``null``: a
    #: batch body's plan, which nobody approves).
    digest: str | None = None


@attrs.frozen(kw_only=True)
class PlanChangedView:
    """409 of ``approve``: «план изменился — посмотрите и одобрите заново» and the plan now (DESIGN.md 6.5)."""

    status_code: int
    detail: str
    plan: PlanView | None = None
