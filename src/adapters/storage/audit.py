"""The audit's tables (:mod:`reconcile.audit.chain`): appends in the writing transaction, reads by filters and keyset,
retention behind a checkpoint.

One chain across hub processes: an append takes a transaction-scoped advisory lock on PostgreSQL (SQLite's
``BEGIN IMMEDIATE`` already admits one writer), reads the head and inserts the next records. The hub appends at
the end of its unit of work (:meth:`hub_app.runtime.hub.Hub.unit`), so the audit's lock is the last one a transaction
takes and is held only until its commit.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import attrs
from sqlalchemy import Row, delete, func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import AuditCheckpointRow, AuditRow, storable_id, table_of
from reconcile.audit import AuditEntry, AuditRecord, Checkpoint, Head, chained, format_at
from reconcile.vocabulary import canonical_json

__all__ = ["AUDIT_LOCK_KEY", "AuditFilter", "AuditRepository"]

#: Key of the transaction-scoped PostgreSQL advisory lock around an append.
AUDIT_LOCK_KEY = 0x5D1C_A0D1

_AUDIT = table_of(AuditRow)
_CHECKPOINT = table_of(AuditCheckpointRow)
#: The largest ``seq`` a ``BIGINT`` holds.
_SEQ_MAX = 2**63 - 1
_HEAD = select(_AUDIT.c.seq, _AUDIT.c.hash, _AUDIT.c.at).order_by(_AUDIT.c.seq.desc()).limit(1)


@attrs.frozen(kw_only=True)
class AuditFilter:
    """Which records a reader asks for; ``after``: the keyset cursor (records with a greater ``seq``)."""

    since: datetime | None = None
    until: datetime | None = None
    batch_id: int | None = None
    kind: str | None = None
    actor: str | None = None
    after: int | None = None

    @property
    def whole(self) -> bool:
        """Nothing but a cursor or a time range narrows it: the records read are one run of the chain."""
        return self.batch_id is None and self.kind is None and self.actor is None


def _record(row: Row[Any]) -> AuditRecord:
    return AuditRecord(
        seq=row.seq,
        at=format_at(row.at),
        kind=row.kind,
        actor=row.actor,
        door=row.door,
        batch_id=row.batch_id,
        command_id=row.command_id,
        data=json.loads(row.data),
        prev=row.prev,
        hash=row.hash,
    )


class AuditRepository:
    def __init__(self, session: AsyncSession, *, postgres: bool) -> None:
        self._session = session
        self._postgres = postgres

    async def head(self) -> Head | None:
        """The last record, else the checkpoint retention left, else ``None`` (an empty chain)."""
        connection = await self._session.connection()  # Core statements: no ORM session work per append
        row = (await connection.execute(_HEAD)).first()
        if row is not None:
            return Head(seq=row.seq, hash=row.hash, at=row.at)
        checkpoint = await self.checkpoint()
        return Head(seq=checkpoint.seq, hash=checkpoint.hash) if checkpoint else None

    async def append(self, entries: Sequence[AuditEntry], *, now: datetime) -> list[AuditRecord]:
        """Chain ``entries`` after the head and store them, in this transaction."""
        if not entries:
            return []
        if self._postgres:
            await self._session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": AUDIT_LOCK_KEY})
        head = await self.head()
        records: list[AuditRecord] = []
        for entry in entries:
            record = chained(head, entry, now=now)
            records.append(record)
            head = Head(seq=record.seq, hash=record.hash, at=datetime.fromisoformat(record.at))
        rows = [
            {**r.to_json(), "at": datetime.fromisoformat(r.at), "data": canonical_json(dict(r.data))} for r in records
        ]
        connection = await self._session.connection()
        await connection.execute(insert(_AUDIT), rows)
        return records

    async def records(self, where: AuditFilter, *, limit: int) -> list[AuditRecord]:
        """Up to ``limit`` records ``where`` asks for, oldest first."""
        # An id or cursor no column could hold names nothing; PostgreSQL would refuse to even compare it.
        if where.batch_id is not None and not storable_id(where.batch_id):
            return []
        if where.after is not None and where.after >= _SEQ_MAX:
            return []
        query = select(_AUDIT).order_by(_AUDIT.c.seq).limit(limit)
        if where.after is not None:
            query = query.where(_AUDIT.c.seq > max(where.after, 0))
        if where.since is not None:
            query = query.where(_AUDIT.c.at >= where.since)
        if where.until is not None:
            query = query.where(_AUDIT.c.at < where.until)
        if where.batch_id is not None:
            query = query.where(_AUDIT.c.batch_id == where.batch_id)
        if where.kind is not None:
            query = query.where(_AUDIT.c.kind == where.kind)
        if where.actor is not None:
            query = query.where(_AUDIT.c.actor == where.actor)
        return [_record(row) for row in await self._session.execute(query)]

    async def checkpoint(self) -> Checkpoint | None:
        row = (await self._session.execute(select(_CHECKPOINT).order_by(_CHECKPOINT.c.seq.desc()).limit(1))).first()
        return Checkpoint(seq=row.seq, hash=row.hash) if row is not None else None

    async def prune(self, before: datetime, *, now: datetime) -> int:
        """Remove the records older than ``before`` behind a checkpoint of the last one removed; how many."""
        oldest = (await self._session.execute(select(_AUDIT.c.at).order_by(_AUDIT.c.seq).limit(1))).first()
        if oldest is None or oldest.at >= before:
            return 0  # the usual answer, without the lock
        if self._postgres:
            await self._session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": AUDIT_LOCK_KEY})
        last = (
            await self._session.execute(
                select(_AUDIT.c.seq, _AUDIT.c.hash).where(_AUDIT.c.at < before).order_by(_AUDIT.c.seq.desc()).limit(1)
            )
        ).first()
        if last is None:
            return 0
        await self._session.execute(insert(_CHECKPOINT).values(seq=last.seq, hash=last.hash, at=now))
        removed = await self._session.execute(delete(_AUDIT).where(_AUDIT.c.seq <= last.seq))
        return int(getattr(removed, "rowcount", 0) or 0)

    async def count(self) -> int:
        return int((await self._session.execute(select(func.count()).select_from(_AUDIT))).scalar_one())
