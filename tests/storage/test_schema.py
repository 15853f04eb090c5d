"""The schema the migrations build is the models' schema, and the core's text limits are the columns' lengths."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, String, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from adapters.storage.engine import alembic_config, head_revision, make_engine, migrate, schema_revision
from adapters.storage.models import (
    AgentStatusRow,
    Base,
    BatchRow,
    HistoryEntryRow,
    MirrorIssueRow,
    MirrorLinkRow,
    NoteRow,
    ProjectRow,
)
from reconcile.queue.agents import INSTANCE_MAX
from reconcile.vocabulary.project_names import PROJECT_NAME_MAX
from reconcile.vocabulary.records import HISTORY_LIMITS, ISSUE_LIMITS, LINK_LIMITS

pytestmark = pytest.mark.anyio


@pytest.fixture
async def engine(migrated_url: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(migrated_url)
    yield engine
    await engine.dispose()


async def test_migrations_build_the_models_schema(engine: AsyncEngine) -> None:
    """Alembic finds no difference between the migrated database and the models (columns, types, indexes)."""
    async with engine.connect() as conn:
        diff = await conn.run_sync(
            lambda c: compare_metadata(MigrationContext.configure(c, opts={"compare_type": True}), Base.metadata)
        )
    assert diff == []


def _length(model: type, column: str) -> int:
    kind = model.__table__.c[column].type  # type: ignore[attr-defined]
    assert isinstance(kind, String) and kind.length is not None, column
    return int(kind.length)


def test_record_limits_are_the_column_lengths() -> None:
    """What the hub refuses as too long (422) is exactly what its columns cannot hold."""
    assert {name: _length(MirrorIssueRow, name) for name in ISSUE_LIMITS} == ISSUE_LIMITS
    assert {
        "id": _length(MirrorLinkRow, "jira_id"),
        "source": _length(MirrorLinkRow, "source"),
        "target": _length(MirrorLinkRow, "target"),
    } == LINK_LIMITS
    assert {
        "key": _length(HistoryEntryRow, "issue_key"),
        "id": _length(HistoryEntryRow, "jira_id"),
        "created": _length(HistoryEntryRow, "created"),
    } == HISTORY_LIMITS
    assert _length(AgentStatusRow, "instance") == INSTANCE_MAX
    assert _length(NoteRow, "key") == 60
    assert _length(ProjectRow, "name") == _length(BatchRow, "project") == PROJECT_NAME_MAX


def test_head_revision_is_alembics() -> None:
    """The head read from the migration files without Alembic is the one Alembic computes."""
    assert head_revision() == ScriptDirectory.from_config(alembic_config()).get_current_head()


@pytest.fixture(params=["sqlite", "postgresql"])
async def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A database with no tables at all (a fresh PostgreSQL database, not the session's shared one)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    if os.environ.get("SDLC_HUB_TEST_SKIP_PG") == "1":
        pytest.skip("SDLC_HUB_TEST_SKIP_PG=1")
    base = make_url(os.environ.get("SDLC_HUB_TEST_PG_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"))
    name = f"sdlc_hub_empty_{secrets.token_hex(4)}"
    admin = make_engine(base.render_as_string(hide_password=False), isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield base.set(database=name).render_as_string(hide_password=False)
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()


async def test_schema_revision_before_and_after_migrate(empty_url: str) -> None:
    """An empty database has no revision; after ``migrate`` it is at the head, and a second run changes nothing."""
    engine = make_engine(empty_url)
    try:
        assert await schema_revision(engine) is None
        await migrate(engine)
        assert await schema_revision(engine) == head_revision()
        await migrate(engine)
        assert await schema_revision(engine) == head_revision()
    finally:
        await engine.dispose()


async def test_migrating_past_natural_order_keeps_every_batch_and_command(empty_url: str) -> None:
    """``web_sessions`` widens ``batch.project`` (SQLite copies the table): the batches, their commands and their
    foreign keys are all still there afterwards, and foreign keys are enforced again."""

    def upgrade_to(connection: Connection, revision: str) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, revision)

    engine = make_engine(empty_url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(upgrade_to, "natural_order")
            await conn.execute(
                text(
                    "INSERT INTO batch (id, author, title, project, estimate_seconds, created_at) "
                    "VALUES (1, 'a', 't', 'AWPCA', 0, '2026-10-22 09:00:00')"
                )
            )
            await conn.execute(
                text(
                    "INSERT INTO command (id, batch_id, seq, type, params, status, deliveries) "
                    "VALUES (1, 1, 1, 'refresh', '{}', 'queued', 0)"
                )
            )
        await migrate(engine)
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT id, batch_id FROM command"))).all() == [(1, 1)]
            assert (await conn.execute(text("SELECT project FROM batch"))).all() == [("AWPCA",)]
        with pytest.raises(IntegrityError):
            async with engine.begin() as conn:
                await conn.execute(
                    text(
                        "INSERT INTO command (id, batch_id, seq, type, params, status, deliveries) "
                        "VALUES (2, 99, 1, 'refresh', '{}', 'queued', 0)"
                    )
                )
    finally:
        await engine.dispose()
