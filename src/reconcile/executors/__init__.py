"""One sans-I/O executor per command type and the synchronous driver.

The apps and other tools import from this face only; its modules are the inside."""

from __future__ import annotations

from reconcile.executors._run import Body, Run, context_settings, run_body
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
from reconcile.executors.drive import Ended, drive

__all__ = [
    "Body",
    "Delivery",
    "Dropped",
    "Ended",
    "ExecContext",
    "Executor",
    "FetchFile",
    "JiraCall",
    "JiraResponse",
    "Operation",
    "Page",
    "Pause",
    "Report",
    "Run",
    "Step",
    "Upload",
    "context_settings",
    "drive",
    "run_body",
]
