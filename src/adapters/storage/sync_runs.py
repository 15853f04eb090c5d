"""The refreshes' sync runs (DESIGN.md 4): when each refresh started and finished, what it read, and the journal
mark — named queries the queue's repository offers beside batches and commands."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Row, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import SyncRunRow, table_of
from adapters.storage.records import SyncRunRecord
from reconcile.queue import SyncRunMark

__all__ = ["SyncRuns"]

_RUN = table_of(SyncRunRow)


def _run(row: Row[Any]) -> SyncRunRecord:
    return SyncRunRecord(
        command_id=row.command_id,
        query=row.query,
        full=row.full,
        started_at=row.started_at,
        finished_at=row.finished_at,
        issues=row.issues,
        history_at=row.history_at,
    )


class SyncRuns:
    """The sync-run queries of :class:`adapters.storage.queue.QueueRepository`."""

    _session: AsyncSession

    async def sync_run(self, command_id: int) -> SyncRunRecord | None:
        row = (await self._session.execute(select(_RUN).where(_RUN.c.command_id == command_id))).first()
        return _run(row) if row is not None else None

    async def start_sync_run(self, command_id: int, *, query: str, full: bool, now: datetime) -> None:
        """A refresh's delivery: its run (re)starts now with the query it reads."""
        values = {"query": query, "full": full, "started_at": now}
        changed = await self._session.execute(update(_RUN).where(_RUN.c.command_id == command_id).values(**values))
        if not changed.rowcount:  # type: ignore[attr-defined]
            await self._session.execute(insert(_RUN).values(command_id=command_id, **values))

    async def finish_sync_run(
        self, command_id: int, *, issues: int | None, history_at: datetime | None, now: datetime
    ) -> None:
        values: dict[str, Any] = {"finished_at": now, "issues": issues}
        if history_at is not None:
            values["history_at"] = history_at
        await self._session.execute(update(_RUN).where(_RUN.c.command_id == command_id).values(**values))

    async def last_full_refresh_start(self) -> datetime | None:
        started: datetime | None = await self._session.scalar(
            select(func.max(_RUN.c.started_at)).where(_RUN.c.full.is_(True))
        )
        return started

    async def last_refresh_start(self, query: str) -> datetime | None:
        """When the latest run of ``query`` started (the base JQL: the last full or change-only refresh)."""
        started: datetime | None = await self._session.scalar(
            select(func.max(_RUN.c.started_at)).where(_RUN.c.query == query)
        )
        return started

    async def last_full_refresh(self) -> datetime | None:
        """When the latest finished full refresh started: the mirror is at least as fresh as that."""
        started: datetime | None = await self._session.scalar(
            select(func.max(_RUN.c.started_at)).where(_RUN.c.full.is_(True), _RUN.c.finished_at.is_not(None))
        )
        return started

    async def last_changes_refresh(self, query: str) -> datetime | None:
        """When the latest finished change-only run of ``query`` (the base JQL) started."""
        started: datetime | None = await self._session.scalar(
            select(func.max(_RUN.c.started_at)).where(
                _RUN.c.full.is_(False), _RUN.c.query == query, _RUN.c.finished_at.is_not(None)
            )
        )
        return started

    async def journal_mark_run(self) -> SyncRunMark | None:
        """The latest run with ``history_at`` set, whatever its query (the journal mark's candidate)."""
        query = (
            select(_RUN)
            .where(_RUN.c.history_at.is_not(None))
            .order_by(_RUN.c.started_at.desc(), _RUN.c.id.desc())
            .limit(1)
        )
        row = (await self._session.execute(query)).first()
        if row is None:
            return None
        return SyncRunMark(started_at=row.started_at, query=row.query, history_at=row.history_at)
