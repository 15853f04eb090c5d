"""One sans-I/O executor per command type (DESIGN.md 5.1–5.3) and :func:`executor_for` to pick it."""

from __future__ import annotations

from collections.abc import Callable

from reconcile.plans._run import Body, Run, plan
from reconcile.plans.attachment import ensure_attachment
from reconcile.plans.base import (
    Delivery,
    Dropped,
    ExecContext,
    Executor,
    FetchFile,
    JiraCall,
    JiraResponse,
    Operation,
    Page,
    Pause,
    Report,
    Step,
    Upload,
)
from reconcile.plans.comment import ensure_comment
from reconcile.plans.fields import ensure_fields
from reconcile.plans.issue import ensure_issue
from reconcile.plans.link import ensure_link
from reconcile.plans.refresh import refresh
from reconcile.plans.sprint import ensure_sprint
from reconcile.plans.status import ensure_status
from reconcile.settings import Settings

__all__ = [
    "EXECUTORS",
    "Delivery",
    "Dropped",
    "ExecContext",
    "Executor",
    "FetchFile",
    "JiraCall",
    "JiraResponse",
    "Operation",
    "Page",
    "Pause",
    "Report",
    "Step",
    "Upload",
    "executor_for",
]

EXECUTORS: dict[str, Callable[[Run], Body]] = {
    "ensure_issue": ensure_issue,
    "ensure_fields": ensure_fields,
    "ensure_comment": ensure_comment,
    "ensure_status": ensure_status,
    "ensure_link": ensure_link,
    "ensure_sprint": ensure_sprint,
    "ensure_attachment": ensure_attachment,
    "refresh": refresh,
}


def _unknown(delivery: Delivery) -> Executor:
    return Report(status="failed", error=f"неизвестный тип команды {delivery.type}")
    yield  # pragma: no cover - makes this a generator


def executor_for(delivery: Delivery, ctx: ExecContext, settings: Settings | None = None) -> Executor:
    """The executor of the delivered command; drive it with ``send`` until it returns its :class:`Report`.
    ``settings``: those of the delivery's context, when already read (a dry run reads them once a batch)."""
    body = EXECUTORS.get(delivery.type)
    if body is None:
        return _unknown(delivery)
    return plan(body, delivery, ctx, settings)
