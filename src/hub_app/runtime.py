"""The hub's runtime: database engine, file store, clock and the claim wake-up, shared by HTTP and MCP.

A :class:`Hub` is built once per process (:func:`open_hub`). Every service call runs in a :class:`Unit` — one
database transaction with the time of the call fixed at its start — opened by ``async with hub.unit() as u``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import asyncpg  # type: ignore[import-untyped]
import attrs
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from adapters.files import FileStore
from adapters.storage.engine import is_postgres, make_engine, migrate, sqlite_url

__all__ = ["BATCH_CHANNEL", "Hub", "Unit", "Wakeup", "open_hub", "utc_now"]

log = logging.getLogger(__name__)

#: The PostgreSQL channel a new batch is announced on, so a claim waiting in another hub process wakes up.
BATCH_CHANNEL = "sdlc_hub_batches"


def utc_now() -> datetime:
    return datetime.now(UTC)


class Wakeup:
    """Wakes the claims waiting in this process when work may have appeared.

    A waiter takes :meth:`current` *before* looking at the queue and then waits on it, so a batch created
    between the look and the wait is not missed.
    """

    def __init__(self) -> None:
        self._event = anyio.Event()

    def current(self) -> anyio.Event:
        return self._event

    def notify(self) -> None:
        event, self._event = self._event, anyio.Event()
        event.set()


@attrs.define(kw_only=True)
class Unit:
    """One transaction of the hub: the session, the time of the call and after-commit actions."""

    hub: Hub
    session: AsyncSession
    now: datetime
    after_commit: list[Callable[[], None]] = attrs.field(factory=list)

    @property
    def files(self) -> FileStore:
        return self.hub.files

    @property
    def postgres(self) -> bool:
        return self.hub.postgres


@attrs.define(kw_only=True)
class Hub:
    engine: AsyncEngine
    files: FileStore
    now: Callable[[], datetime] = utc_now
    wakeup: Wakeup = attrs.field(factory=Wakeup)
    _listener: Any = None

    @property
    def postgres(self) -> bool:
        return is_postgres(self.engine)

    _sessions: async_sessionmaker[AsyncSession] | None = None

    @property
    def sessionmaker(self) -> async_sessionmaker[AsyncSession]:
        if self._sessions is None:
            self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        return self._sessions

    @contextlib.asynccontextmanager
    async def unit(self) -> AsyncIterator[Unit]:
        """A transaction: committed when the block ends normally, rolled back on an exception."""
        async with self.sessionmaker() as session:
            unit = Unit(hub=self, session=session, now=self.now())
            async with session.begin():
                yield unit
            for action in unit.after_commit:
                action()

    async def start_listening(self) -> None:
        """On PostgreSQL, ``LISTEN`` for new batches on a dedicated connection of this process."""
        if not self.postgres or self._listener is not None:
            return
        url = self.engine.url
        self._listener = await asyncpg.connect(
            host=url.host or "127.0.0.1",
            port=url.port or 5432,
            user=url.username,
            password=url.password,
            database=url.database,
        )
        await self._listener.add_listener(BATCH_CHANNEL, lambda *_: self.wakeup.notify())

    async def close(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.close()
            self._listener = None
        await self.engine.dispose()

    async def ping(self) -> bool:
        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        except Exception:
            log.exception("database does not answer")
            return False
        return True


async def open_hub(
    *,
    data_dir: Path,
    database_url: str | None = None,
    now: Callable[[], datetime] = utc_now,
    run_migrations: bool = True,
) -> Hub:
    """Open the hub's storage: SQLite in ``data_dir`` unless ``database_url`` is given; files in ``data_dir``."""
    data_dir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 — once at start
    engine = make_engine(database_url or sqlite_url(data_dir))
    if run_migrations:
        await migrate(engine)
    return Hub(engine=engine, files=FileStore(data_dir / "files"), now=now)
