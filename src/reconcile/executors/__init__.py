"""One sans-I/O executor per command type (DESIGN.md 5.1–5.3); :func:`reconcile.command_types.executor_for` picks
a delivery's, as its type's entry names it."""

from __future__ import annotations

from reconcile.executors.base import (
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

__all__ = [
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
]
