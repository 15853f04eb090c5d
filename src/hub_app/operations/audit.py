"""The audit as its readers get it (DESIGN.md 6.6): ``GET /audit`` and the page's export, streamed page by page,
as JSON lines or CSV; and retention.

An export without filters but a time range or a cursor is one run of the chain: when it starts right after the
checkpoint retention left, its first line is ``{"checkpoint": {seq, hash}}``, so ``sdlc-hub audit verify`` checks
the first record's ``prev`` too. CSV has the record's columns (``data`` as its canonical JSON).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any

from adapters.storage.audit import AuditFilter
from hub_app.runtime.hub import Unit
from reconcile.audit import COLUMNS, KINDS, AuditRecord, retention_cutoff
from reconcile.config import Settings
from reconcile.vocabulary import ValidationError, canonical_json

__all__ = ["FORMATS", "PAGE", "audit_filter", "export_lines", "prune_audit"]

#: Records read per transaction of an export.
PAGE = 1000
FORMATS = ("jsonl", "csv")


def _time(value: str | None, name: str) -> datetime | None:
    if value is None or value == "":
        return None
    try:
        found = datetime.fromisoformat(value)
    except ValueError:
        raise ValidationError(f"{name} — ожидается время ISO-8601, например 2026-10-22T09:00:00Z") from None
    if found.tzinfo is None:
        raise ValidationError(f"{name} — время с часовым поясом (Z или +03:00)")
    return found


def audit_filter(
    *,
    since: str | None = None,
    until: str | None = None,
    batch: int | None = None,
    kind: str | None = None,
    actor: str | None = None,
    cursor: int | None = None,
) -> AuditFilter:
    """The filters of ``GET /audit`` and of the page, checked (422 naming the parameter)."""
    if kind not in (None, "") and kind not in KINDS:
        raise ValidationError(f"kind — ожидается одно из {', '.join(KINDS)}")
    return AuditFilter(
        since=_time(since, "since"),
        until=_time(until, "until"),
        batch_id=batch,
        kind=kind or None,
        actor=actor or None,
        after=cursor,
    )


def _csv_row(record: AuditRecord) -> str:
    out = io.StringIO()
    values = record.to_json()
    values["data"] = canonical_json(dict(record.data))
    csv.writer(out, lineterminator="\n").writerow(["" if values[c] is None else values[c] for c in COLUMNS])
    return out.getvalue()


def _lines(records: Iterable[AuditRecord], form: str) -> str:
    if form == "csv":
        return "".join(_csv_row(r) for r in records)
    return "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records)


async def export_lines(
    units: Callable[[], AbstractAsyncContextManager[Unit]], where: AuditFilter, form: str
) -> AsyncIterator[str]:
    """The records ``where`` asks for, oldest first, as text chunks of ``form`` (a transaction per page)."""
    after = where.after
    first = True
    while True:
        async with units() as unit:
            if first:
                head = await _header(unit, where, form)
                if head:
                    yield head
            records = await unit.db.audit.records(AuditFilter(**{**_fields(where), "after": after}), limit=PAGE)
        first = False
        if not records:
            return
        yield _lines(records, form)
        after = records[-1].seq
        if len(records) < PAGE:
            return


def _fields(where: AuditFilter) -> dict[str, Any]:
    return {
        "since": where.since,
        "until": where.until,
        "batch_id": where.batch_id,
        "kind": where.kind,
        "actor": where.actor,
        "after": where.after,
    }


async def _header(unit: Unit, where: AuditFilter, form: str) -> str:
    """CSV's column names; for JSON lines, the checkpoint when the export starts right after it."""
    if form == "csv":
        return ",".join(COLUMNS) + "\n"
    checkpoint = await unit.db.audit.checkpoint()
    starts_after_it = where.after is None or where.after <= checkpoint.seq if checkpoint else False
    if checkpoint is None or not where.whole or where.since is not None or not starts_after_it:
        return ""
    return json.dumps({"checkpoint": checkpoint.to_json()}) + "\n"


async def prune_audit(unit: Unit, settings: Settings) -> int:
    """Remove the records older than ``audit_retention_days`` behind a checkpoint (at an idle claim); how many."""
    return await unit.db.audit.prune(retention_cutoff(unit.now, settings.audit_retention_days), now=unit.now)
