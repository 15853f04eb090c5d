"""What the storage tests share: a clean database on the hub's schema, and moving that schema to a revision."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
from alembic import command
from sqlalchemy import Connection

from adapters.storage.database import Database
from adapters.storage.engine import alembic_config, make_engine, truncate_all


@pytest.fixture
async def db(migrated_url: str) -> AsyncIterator[Database]:
    """The hub's storage on an emptied database at the newest revision (SQLite and PostgreSQL)."""
    engine = make_engine(migrated_url)
    await truncate_all(engine)
    database = Database(engine)
    yield database
    await database.close()


def to_revision(revision: str) -> Callable[[Connection], None]:
    """For ``connection.run_sync``: Alembic upgrades to ``"head"``, or downgrades to ``revision``."""

    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        if revision == "head":
            command.upgrade(config, revision)
        else:
            command.downgrade(config, revision)

    return run
