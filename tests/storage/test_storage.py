"""Storage: the migration, UTC times on both databases, and the content-addressed file store."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from adapters.files import FileStore, FileTooLargeError, is_sha256
from adapters.storage.engine import alembic_config, make_engine, migrate, truncate_all
from adapters.storage.models import Base, BatchRow
from adapters.storage.queue import QueueRepository

from .conftest import to_revision

pytestmark = pytest.mark.anyio


@pytest.fixture
async def engine(migrated_url: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(migrated_url)
    await truncate_all(engine)
    yield engine
    await engine.dispose()


async def test_migration_creates_every_table_and_is_idempotent(engine: AsyncEngine) -> None:
    """After migrate (run twice) the database has exactly the models' tables at head."""
    await migrate(engine)
    async with engine.connect() as conn:
        tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
        version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one()
    assert tables == {t.name for t in Base.metadata.sorted_tables} | {"alembic_version"}
    assert version == ScriptDirectory.from_config(alembic_config()).get_current_head()


async def test_approval_migration_keeps_existing_batches(engine: AsyncEngine) -> None:
    """Batches stored before the approval revision read back with no door and no approval (nothing waits)."""
    at = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)

    try:
        async with engine.begin() as conn:
            await conn.run_sync(to_revision("0001"))
            await conn.execute(
                text("INSERT INTO batch (author, title, estimate_seconds, created_at) VALUES ('a', 't', 0, :at)"),
                {"at": at.replace(tzinfo=None)},
            )
    finally:
        async with engine.begin() as conn:
            await conn.run_sync(to_revision("head"))
    async with AsyncSession(engine) as session:
        [stored], total = await QueueRepository(session).batches(limit=10, offset=0)
    assert (total, stored.author, stored.door, stored.approval) == (1, "a", None, None)


async def test_times_come_back_as_aware_utc(engine: AsyncEngine) -> None:
    """A time stored in any zone is read back as the same instant in UTC, on both databases."""
    moscow = timezone(timedelta(hours=3))
    at = datetime(2026, 10, 22, 12, 0, 0, 123456, tzinfo=moscow)
    async with engine.begin() as conn:
        await conn.execute(BatchRow.__table__.insert().values(author="a", title="t", estimate_seconds=0, created_at=at))
    async with engine.connect() as conn:
        got = (await conn.execute(select(BatchRow.created_at))).scalar_one()
    assert got == datetime(2026, 10, 22, 9, 0, 0, 123456, tzinfo=UTC)
    assert got.tzinfo == UTC


async def test_naive_times_are_refused(engine: AsyncEngine) -> None:
    """A naive datetime never reaches the database."""
    with pytest.raises(Exception, match="naive datetime"):
        async with engine.begin() as conn:
            await conn.execute(
                BatchRow.__table__.insert().values(
                    author="a", title="t", estimate_seconds=0, created_at=datetime(2026, 1, 1)
                )
            )


def test_file_store_is_content_addressed(tmp_path: Path) -> None:
    """Bytes are stored once under their sha256; size is None once the file is gone."""
    store = FileStore(tmp_path)
    content = b"a" * 1000
    stored = store.put_bytes([content[:400], content[400:]], limit=1000)
    assert stored.sha256 == hashlib.sha256(content).hexdigest()
    assert stored.size == 1000
    assert store.put_bytes(content, limit=1000) == stored
    assert store.read(stored.sha256) == content
    assert store.size(stored.sha256) == 1000
    store.delete(stored.sha256)
    assert store.size(stored.sha256) is None
    assert store.read(stored.sha256) is None
    assert store.size("not-a-sha") is None


def test_file_over_limit_leaves_nothing(tmp_path: Path) -> None:
    """Past the limit the upload is refused and no file (nor temporary) is left."""
    store = FileStore(tmp_path)
    with pytest.raises(FileTooLargeError):
        store.put_bytes([b"x" * 6, b"x" * 6], limit=10)
    assert list(tmp_path.rglob("*")) == []


async def test_streamed_upload(tmp_path: Path) -> None:
    """put_stream stores an async stream of chunks the same way."""

    async def chunks() -> AsyncIterator[bytes]:
        for part in (b"abc", b"def"):
            yield part

    stored = await FileStore(tmp_path).put_stream(chunks(), limit=6)
    assert stored.sha256 == hashlib.sha256(b"abcdef").hexdigest()
    assert is_sha256(stored.sha256)
