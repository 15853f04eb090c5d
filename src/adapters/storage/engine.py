"""Engines for SQLite (embedded default) and PostgreSQL, and the Alembic migration runner.

SQLite: every transaction starts with ``BEGIN IMMEDIATE`` (the driver's own implicit transactions are turned
off), so a transaction holds the single writer lock from its first statement. Read-then-write sequences such
as the claim can then never interleave with another writer, in this process or another; WAL keeps readers
of committed data unblocked. PostgreSQL relies on explicit locks where it matters (see ``hub_app.services``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from adapters.storage.models import Base

__all__ = ["MIGRATIONS", "alembic_config", "is_postgres", "make_engine", "migrate", "sqlite_url", "truncate_all"]

MIGRATIONS = Path(__file__).parent / "migrations"


def sqlite_url(data_dir: Path) -> str:
    """The embedded default: ``<data_dir>/hub.sqlite3``."""
    return f"sqlite+aiosqlite:///{(data_dir / 'hub.sqlite3').resolve()}"


def is_postgres(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "postgresql"


def _unicode_lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


def make_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """An async engine for ``url`` (``sqlite+aiosqlite://…`` or ``postgresql+asyncpg://…``)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = create_async_engine(url, connect_args={"timeout": 60}, **kwargs)

        @event.listens_for(engine.sync_engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=60000")
            cursor.close()
            # SQLite's own lower() knows only ASCII; ILIKE (lower … LIKE lower …) must match «Сверка» by «сВЕРКА».
            dbapi_connection.create_function("lower", 1, _unicode_lower, deterministic=True)

        @event.listens_for(engine.sync_engine, "begin")
        def _on_begin(conn: Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_async_engine(url, **kwargs)


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def _upgrade(connection: Connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


async def migrate(engine: AsyncEngine) -> None:
    """Bring the schema to the latest revision (idempotent)."""
    if engine.dialect.name == "sqlite":
        database = engine.url.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
    async with engine.begin() as conn:
        if is_postgres(engine):
            # Two hub processes starting together must not both create the tables.
            await conn.execute(text("SELECT pg_advisory_xact_lock(7263511)"))
        await conn.run_sync(_upgrade)


async def truncate_all(engine: AsyncEngine) -> None:
    """Empty every table of the hub (tests reuse one schema per session)."""
    tables = [t.name for t in Base.metadata.sorted_tables]
    async with engine.begin() as conn:
        if is_postgres(engine):
            await conn.execute(text(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE"))
        else:
            for name in reversed(tables):
                await conn.execute(text(f"DELETE FROM {name}"))
            has_seq = await conn.execute(
                text("SELECT name FROM sqlite_master WHERE type='table' AND name='sqlite_sequence'")
            )
            if has_seq.first() is not None:
                await conn.execute(text("DELETE FROM sqlite_sequence"))
