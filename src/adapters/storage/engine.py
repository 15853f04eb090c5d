"""Engines for SQLite (embedded default) and PostgreSQL, and the Alembic migration runner.

SQLite: every transaction starts with ``BEGIN IMMEDIATE`` (the driver's own implicit transactions are turned
off), so a transaction holds the single writer lock from its first statement. Read-then-write sequences such
as the claim can then never interleave with another writer, in this process or another; WAL keeps readers
of committed data unblocked. PostgreSQL relies on explicit locks where it matters
(:meth:`~adapters.storage.database.UnitOfWork.lock_queue` and ``lock_files``).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from adapters.storage.audit_guard import APPEND_ONLY, DROP
from adapters.storage.models import Base

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = [
    "MIGRATIONS",
    "SCHEMES",
    "SQLITE_FILE",
    "DatabaseUrlError",
    "alembic_config",
    "check_url",
    "create_private_file",
    "head_revision",
    "is_postgres",
    "make_engine",
    "migrate",
    "revisions_after",
    "schema_revision",
    "sqlite_url",
    "truncate_all",
]

MIGRATIONS = Path(__file__).parent / "migrations"
#: The embedded database's file in the data dir.
SQLITE_FILE = "hub.sqlite3"


def sqlite_url(data_dir: Path) -> str:
    """The embedded default: ``<data_dir>/hub.sqlite3``."""
    return f"sqlite+aiosqlite:///{(data_dir / SQLITE_FILE).resolve()}"


def is_postgres(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "postgresql"


def _unicode_lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


class DatabaseUrlError(ValueError):
    """A database URL the hub cannot use; the message says what to write instead."""


#: The drivers the hub ships with (``pip install sdlc-hub`` brings both).
SCHEMES = ("sqlite+aiosqlite", "postgresql+asyncpg")


def check_url(url: str) -> URL:
    """``url`` parsed, or :class:`DatabaseUrlError` naming the accepted forms."""
    accepted = "postgresql+asyncpg://USER@HOST:5432/DATABASE or sqlite+aiosqlite:///PATH"
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseUrlError(f"the database URL is not a URL; write {accepted}") from None
    if parsed.drivername not in SCHEMES:
        raise DatabaseUrlError(f"the database URL scheme {parsed.drivername}:// is not supported; write {accepted}")
    return parsed


def make_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """An async engine for ``url`` (``sqlite+aiosqlite://…`` or ``postgresql+asyncpg://…``)."""
    parsed = check_url(url)
    # An error's text never carries the statement's parameters (token digests, notes): it may reach a log.
    kwargs.setdefault("hide_parameters", True)
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
    from alembic.config import Config  # noqa: PLC0415 - Alembic is loaded only when the schema must change

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@functools.cache
def head_revision() -> str:
    """The newest migration's revision, read from the migration files without loading Alembic.

    Admin commands and ``/readyz`` compare it with the database's; Alembic itself (a fifth of a second to
    import) is loaded only when they differ.
    """
    revisions = _revisions()
    heads = set(revisions) - set(revisions.values())
    if len(heads) != 1:
        raise RuntimeError(f"the migrations have {len(heads)} heads: {sorted(heads)}")
    return heads.pop()


def revisions_after(revision: str | None) -> list[str]:
    """The migrations a database at ``revision`` (``None``: empty) lacks, oldest first."""
    down = _revisions()
    chain: list[str] = []
    current: str | None = head_revision()
    while current is not None and current != revision:
        chain.append(current)
        current = down.get(current)
    return chain[::-1]


@functools.cache
def _revisions() -> dict[str, str | None]:
    """Each migration's revision and the one it follows, from the files."""
    revisions: dict[str, str | None] = {}
    for path in (MIGRATIONS / "versions").glob("*.py"):
        values: dict[str, object] = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            match node:
                case ast.Assign(
                    targets=[ast.Name(id="revision" | "down_revision" as name)], value=ast.Constant(value=value)
                ):
                    values[name] = value
        revision, down = values.get("revision"), values.get("down_revision")
        if isinstance(revision, str):
            revisions[revision] = down if isinstance(down, str) else None
    return revisions


async def schema_revision(engine: AsyncEngine) -> str | None:
    """The database's schema revision, ``None`` before the first migration."""
    async with engine.connect() as conn:
        try:
            row = (await conn.execute(text("SELECT version_num FROM alembic_version"))).first()
        except DBAPIError:  # no such table yet: an empty database
            return None
        finally:
            await conn.rollback()
    return None if row is None else str(row[0])


def _current_revision(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext  # noqa: PLC0415

    revision: str | None = MigrationContext.configure(connection).get_current_revision()
    return revision


def create_private_file(path: Path) -> None:
    """Create ``path`` (and its directory) readable by the hub's user alone (0600), unless it exists: the
    database holds token digests, notes and Jira's data. SQLite gives its -wal and -shm files the same mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _upgrade(connection: Connection) -> None:
    from alembic import command  # noqa: PLC0415

    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _upgrade_sqlite(connection: Connection) -> None:
    """SQLite changes a column's type by copying the table: foreign keys stay off meanwhile (else dropping the
    old ``batch`` would cascade to its commands), are checked once the schema is new, and are turned back on.

    ``PRAGMA foreign_keys`` is ignored inside a transaction, so it is set on the driver's connection (in
    autocommit mode, see :func:`make_engine`) before the migration's transaction begins.
    """
    raw = connection.connection.dbapi_connection
    assert raw is not None
    pragma = raw.cursor()
    pragma.execute("PRAGMA foreign_keys=OFF")
    try:
        with connection.begin():
            _upgrade(connection)
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise RuntimeError(f"the migration left rows whose foreign keys point nowhere: {broken[:5]}")
    finally:
        pragma.execute("PRAGMA foreign_keys=ON")
        pragma.close()


async def migrate(engine: AsyncEngine) -> list[str]:
    """Bring the schema to the latest revision; the revisions applied, oldest first (idempotent: a database
    already there costs one query and applies nothing)."""
    if engine.dialect.name == "sqlite":
        database = engine.url.database
        if database and database != ":memory:":
            create_private_file(Path(database))
    current = await schema_revision(engine)
    if current == head_revision():
        return []
    if engine.dialect.name == "sqlite":
        async with engine.connect() as conn:
            await conn.run_sync(_upgrade_sqlite)
        return revisions_after(current)
    async with engine.begin() as conn:
        if is_postgres(engine):
            # Two hub processes starting together must not both create the tables.
            await conn.execute(text("SELECT pg_advisory_xact_lock(7263511)"))
        current = await conn.run_sync(_current_revision)  # read again under the lock: another hub may have won
        await conn.run_sync(_upgrade)
    return revisions_after(current)


async def truncate_all(engine: AsyncEngine) -> None:
    """Empty every table of the hub (tests reuse one schema per session)."""
    tables = [t.name for t in Base.metadata.sorted_tables]
    async with engine.begin() as conn:
        if is_postgres(engine):
            await conn.execute(text(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE"))
        else:
            # The audit refuses a DELETE (adapters.storage.audit_guard): lifted for this one transaction.
            for statement in DROP["sqlite"]:
                await conn.execute(text(statement))
            for name in reversed(tables):
                await conn.execute(text(f"DELETE FROM {name}"))
            for statement in APPEND_ONLY["sqlite"]:
                await conn.execute(text(statement))
            has_seq = await conn.execute(
                text("SELECT name FROM sqlite_master WHERE type='table' AND name='sqlite_sequence'")
            )
            if has_seq.first() is not None:
                await conn.execute(text("DELETE FROM sqlite_sequence"))
