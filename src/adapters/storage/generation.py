"""The drift generation (:class:`~adapters.storage.models.DriftGenerationRow`): a number that grows with every
write of what drift is computed from — a command resolved, mirror records written or vanished — in the writing
transaction itself, under the queue lock those writes hold already (so the one row adds no wait of its own).

Read before the inputs it stands for, a value names their state or an older one: a cache keyed by it never
serves what a later write changed, in any hub process, whatever the clock says (two writes in one tick of it).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import DriftGenerationRow, table_of

__all__ = ["bump_generation", "drift_generation"]

_GENERATION = table_of(DriftGenerationRow)


async def bump_generation(session: AsyncSession) -> None:
    """One more write of drift's inputs (the row made at the first: an emptied database has none)."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = insert(_GENERATION).values(id=1, value=1)
    await session.execute(
        statement.on_conflict_do_update(index_elements=[_GENERATION.c.id], set_={"value": _GENERATION.c.value + 1})
    )


async def drift_generation(session: AsyncSession) -> int:
    """The current generation (0 before any write)."""
    return await session.scalar(select(_GENERATION.c.value).where(_GENERATION.c.id == 1)) or 0
