"""What ``/metrics`` reads from the database at each scrape: counts, not rows (one aggregate query each)."""

from __future__ import annotations

from datetime import datetime

import attrs
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import BatchRow, CommandRow, MirrorIssueRow, SyncRunRow

__all__ = ["Gauges", "read_gauges"]


@attrs.frozen(kw_only=True)
class Gauges:
    commands_by_status: dict[str, int]
    batches: int
    mirror_issues: int
    last_full_refresh_finished: datetime | None


async def read_gauges(session: AsyncSession) -> Gauges:
    by_status = await session.execute(select(CommandRow.status, func.count()).group_by(CommandRow.status))
    batches = await session.scalar(select(func.count()).select_from(BatchRow))
    issues = await session.scalar(
        select(func.count()).select_from(MirrorIssueRow).where(MirrorIssueRow.vanished_at.is_(None))
    )
    finished: datetime | None = await session.scalar(
        select(func.max(SyncRunRow.finished_at)).where(SyncRunRow.full.is_(True))
    )
    return Gauges(
        commands_by_status={str(status): int(count) for status, count in by_status.all()},
        batches=int(batches or 0),
        mirror_issues=int(issues or 0),
        last_full_refresh_finished=finished,
    )
