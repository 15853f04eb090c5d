"""The schema the migrations build is the models' schema, and the core's text limits are the columns' lengths."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import String
from sqlalchemy.ext.asyncio import AsyncEngine

from adapters.storage.engine import make_engine
from adapters.storage.models import AgentStatusRow, Base, HistoryEntryRow, MirrorIssueRow, MirrorLinkRow, NoteRow
from reconcile.agents import INSTANCE_MAX
from reconcile.records import HISTORY_LIMITS, ISSUE_LIMITS, LINK_LIMITS

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
