"""The hash-chained audit: records, their chain and its verification, a Jira write's before and after.

The apps and other tools import from this face only; its modules are the inside."""

from __future__ import annotations

from reconcile.audit import writes
from reconcile.audit.chain import (
    COLUMNS,
    KINDS,
    AuditEntry,
    AuditRecord,
    Checkpoint,
    Head,
    chained,
    format_at,
    parse_record,
    retention_cutoff,
    verify,
)

__all__ = [
    "COLUMNS",
    "KINDS",
    "AuditEntry",
    "AuditRecord",
    "Checkpoint",
    "Head",
    "chained",
    "format_at",
    "parse_record",
    "retention_cutoff",
    "verify",
    "writes",
]
