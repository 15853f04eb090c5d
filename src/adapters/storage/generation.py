"""The drift generations (:class:`~adapters.storage.models.DriftGenerationRow`): two numbers that grow with every
write of what drift is computed from — one with each command resolved, one with each write of mirror records
(written or vanished) — in the writing transaction itself, under the queue lock those writes hold already (so the
rows add no wait of their own).

Read before the inputs they stand for, values name their state or an older one: a cache keyed by them never serves
what a later write changed, in any hub process, whatever the clock says (two writes in one tick of it).
"""

from __future__ import annotations

from enum import IntEnum

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import DriftGenerationRow, table_of

__all__ = ["Generation", "bump_generation", "drift_generations"]

_GENERATION = table_of(DriftGenerationRow)


class Generation(IntEnum):
    """The row of each generation."""

    COMMANDS = 1
    MIRROR = 2


async def bump_generation(session: AsyncSession, generation: Generation) -> None:
    """One more write of drift's inputs (the row made at the first: an emptied database has none)."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = insert(_GENERATION).values(id=generation.value, value=1)
    await session.execute(
        statement.on_conflict_do_update(index_elements=[_GENERATION.c.id], set_={"value": _GENERATION.c.value + 1})
    )


async def drift_generations(session: AsyncSession) -> tuple[int, int]:
    """The current generations of the resolved commands and of the mirror, in one statement (0 before any write)."""
    found = dict((await session.execute(select(_GENERATION.c.id, _GENERATION.c.value))).all())
    return found.get(Generation.COMMANDS.value, 0), found.get(Generation.MIRROR.value, 0)
