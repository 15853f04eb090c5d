"""The audit's tables (DESIGN.md 6.6) on both databases: one gapless chain, also under two hub processes appending
at once, rows the database refuses to change or delete, and retention behind a checkpoint that still verifies."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from adapters.storage.audit import AuditFilter
from adapters.storage.database import Database
from adapters.storage.engine import make_engine
from reconcile.audit.chain import AuditEntry, verify
from tests.support import T0

pytestmark = pytest.mark.anyio


def entry(n: int) -> AuditEntry:
    return AuditEntry(kind="delivered", actor="agent:a", door="agent", batch_id=n, data={"n": n, "text": "Сверка"})


async def append(db: Database, n: int, *, minutes: float = 0) -> None:
    async with db.unit() as unit:
        await unit.audit.append([entry(n)], now=T0 + timedelta(minutes=minutes))


async def everything(db: Database) -> list:  # type: ignore[type-arg]
    async with db.unit() as unit:
        return await unit.audit.records(AuditFilter(), limit=10_000)


async def test_appends_make_one_chain_that_reads_back_as_written(db: Database) -> None:
    """Records read back hash as they were written; filters and the keyset cursor narrow them."""
    for n in range(5):
        await append(db, n, minutes=n)
    records = await everything(db)
    assert [r.seq for r in records] == [1, 2, 3, 4, 5]
    assert verify(r.to_json() for r in records).broken is None
    async with db.unit() as unit:
        after = await unit.audit.records(AuditFilter(after=3), limit=10)
        one = await unit.audit.records(AuditFilter(batch_id=2), limit=10)
        timed = await unit.audit.records(
            AuditFilter(since=T0 + timedelta(minutes=1), until=T0 + timedelta(minutes=3)), limit=10
        )
    assert ([r.seq for r in after], [r.seq for r in one], [r.seq for r in timed]) == ([4, 5], [3], [2, 3])


async def test_the_database_refuses_to_change_a_record(db: Database) -> None:
    """UPDATE and DELETE of a record fail in the database itself (a trigger), whoever runs them."""
    await append(db, 1)
    for statement in ("UPDATE audit SET actor = 'someone' WHERE seq = 1", "DELETE FROM audit WHERE seq = 1"):
        with pytest.raises(DBAPIError, match="audit is append-only"):
            async with db.unit() as unit:
                await unit.session.execute(text(statement))
    assert [r.actor for r in await everything(db)] == ["agent:a"]


async def test_retention_leaves_a_checkpoint_and_what_remains_verifies(db: Database) -> None:
    """Records before the cutoff go behind a checkpoint {seq, hash}: the rest verifies from it; the checkpoint
    itself cannot be changed."""
    for n in range(6):
        await append(db, n, minutes=n)
    async with db.unit() as unit:
        removed = await unit.audit.prune(T0 + timedelta(minutes=3), now=T0 + timedelta(days=1))
    assert removed == 3
    async with db.unit() as unit:
        checkpoint = await unit.audit.checkpoint()
        head = await unit.audit.head()
    remaining = await everything(db)
    assert checkpoint is not None and (checkpoint.seq, [r.seq for r in remaining]) == (3, [4, 5, 6])
    assert verify((r.to_json() for r in remaining), checkpoint=checkpoint).broken is None
    assert head is not None and head.seq == 6
    await append(db, 7, minutes=7)
    assert [r.seq for r in await everything(db)] == [4, 5, 6, 7]
    with pytest.raises(DBAPIError, match="audit is append-only"):
        async with db.unit() as unit:
            await unit.session.execute(text("UPDATE audit_checkpoint SET hash = 'x'"))


async def test_two_hub_processes_appending_at_once_keep_one_gapless_chain(db: Database, migrated_url: str) -> None:
    """Two hubs (each its own engine and connections, as two processes have) append 40 records each at once: one
    chain, seq 1…80 without a gap, every link intact."""
    other = Database(make_engine(migrated_url))
    try:

        async def writer(database: Database, offset: int) -> None:
            for n in range(40):
                await append(database, offset + n)

        await asyncio.gather(writer(db, 0), writer(other, 1000))
    finally:
        await other.close()
    records = await everything(db)
    assert [r.seq for r in records] == list(range(1, 81))
    assert sorted(r.batch_id for r in records) == [*range(40), *range(1000, 1040)]
    assert verify(r.to_json() for r in records).broken is None
