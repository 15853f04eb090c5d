"""A batch as it is submitted: validation and normalisation with every error, the bodies the hub
writes itself, the refreshes webhook events need, and the file store's rules.

The apps and other tools import from this face only; its modules are the inside."""

from __future__ import annotations

from reconcile.batches import file_store
from reconcile.batches.all_errors import BatchError, InvalidBatch
from reconcile.batches.bodies import retry_params
from reconcile.batches.event_refresh import (
    EVENT_REFRESH_TITLE,
    QueuedRefresh,
    decide_event_refreshes,
    event_refresh_body,
)
from reconcile.batches.issue_touch import touching
from reconcile.batches.validation import (
    AUTO_REFRESH_AUTHOR,
    BatchContext,
    BatchNeeds,
    NewCommand,
    NewNote,
    ProjectInfo,
    ValidBatch,
    auto_refresh_body,
    batch_keys,
    batch_needs,
    refresh_body,
    retry_body,
    validate_batch,
)

__all__ = [
    "AUTO_REFRESH_AUTHOR",
    "EVENT_REFRESH_TITLE",
    "BatchContext",
    "BatchError",
    "BatchNeeds",
    "InvalidBatch",
    "NewCommand",
    "NewNote",
    "ProjectInfo",
    "QueuedRefresh",
    "ValidBatch",
    "auto_refresh_body",
    "batch_keys",
    "batch_needs",
    "decide_event_refreshes",
    "event_refresh_body",
    "file_store",
    "refresh_body",
    "retry_body",
    "retry_params",
    "touching",
    "validate_batch",
]
