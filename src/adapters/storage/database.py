"""The hub's database: one transaction per operation (a unit of work holding the repositories).

``async with database.unit() as db:`` opens a transaction, committed when the block ends normally and rolled
back on an exception (so a refused request writes nothing); callbacks in ``db.after_commit`` run after the
commit. Changes of the queue's state take :meth:`UnitOfWork.lock_queue` first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Collection

import asyncpg  # type: ignore[import-untyped]
import attrs
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from adapters.storage.admin import AdminRepository
from adapters.storage.audit import AuditRepository
from adapters.storage.engine import is_postgres
from adapters.storage.generation import drift_generations
from adapters.storage.idempotency import IdempotencyRepository
from adapters.storage.mirror import MirrorRepository
from adapters.storage.notes import NotesRepository
from adapters.storage.outage import outage_reason
from adapters.storage.queue import QueueRepository
from adapters.storage.web_sessions import WebSessionRepository

__all__ = ["BATCH_CHANNEL", "CHANGES_CHANNEL", "FILES_LOCK_KEY", "QUEUE_LOCK_KEY", "Database", "UnitOfWork"]

log = logging.getLogger(__name__)

#: The PostgreSQL channel a new batch is announced on, so a claim waiting in another hub process wakes up.
BATCH_CHANNEL = "sdlc_hub_batches"
#: The PostgreSQL channel a transaction that changed commands names their batches on (ids, comma-separated; empty:
#: any batch), so a client following a batch through another hub process wakes up.
CHANGES_CHANNEL = "sdlc_hub_batch_changes"
#: The longest payload PostgreSQL carries is 8000 bytes; more ids than fit are announced as "any batch".
_PAYLOAD_MAX = 7900
#: Key of the transaction-scoped PostgreSQL advisory lock that serialises changes of the queue.
QUEUE_LOCK_KEY = 0x5D1C_4B0B
#: Key of the transaction-scoped advisory lock around the file store's contents (:meth:`UnitOfWork.lock_files`).
FILES_LOCK_KEY = 0x5D1C_F11E
#: The LISTEN connection: how long one attempt to make it may take, the first and the longest wait between
#: attempts while the server is away, and how often a quiet connection is checked.
LISTEN_CONNECT_TIMEOUT = 5.0
LISTEN_RETRY_FIRST = 0.05
LISTEN_RETRY_CAP = 1.0
LISTEN_CHECK_SECONDS = 15.0


@attrs.define(kw_only=True)
class UnitOfWork:
    """One transaction: the session, the repositories over it, and what to do after the commit."""

    session: AsyncSession
    postgres: bool
    queue: QueueRepository
    mirror: MirrorRepository
    admin: AdminRepository
    notes: NotesRepository
    web_sessions: WebSessionRepository
    idempotency: IdempotencyRepository
    audit: AuditRepository
    after_commit: list[Callable[[], None]] = attrs.field(factory=list)

    async def lock_queue(self) -> None:
        """Serialise every change of the queue's state across hub processes.

        The claim reads the ``claimed`` and ``queued`` commands and then writes its decision. Under PostgreSQL's
        READ COMMITTED two hub processes could both see "nothing in flight" and issue two commands, or
        redeliver a command another transaction is finishing. A transaction-scoped advisory lock taken as the
        first statement makes such transactions run one after another; it is released at commit or rollback,
        also when a process dies. SQLite needs nothing here: every transaction begins with ``BEGIN IMMEDIATE``
        (see :mod:`adapters.storage.engine`), which already admits a single writer.
        """
        if self.postgres:
            await self.session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": QUEUE_LOCK_KEY})

    async def drift_generations(self) -> tuple[int, int]:
        """The drift generations of the resolved commands and of the mirror (:mod:`adapters.storage.generation`):
        read them before the inputs they stand for."""
        return await drift_generations(self.session)

    async def lock_files(self) -> None:
        """Serialise what adds or removes files across hub processes: an upload (the store's room), the pruning of
        old files, and a batch naming files (so a file it found stored is not pruned before it commits).
        SQLite: nothing, as for :meth:`lock_queue`."""
        if self.postgres:
            await self.session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": FILES_LOCK_KEY})

    async def announce_batch(self, wake: Callable[[], None]) -> None:
        """After the commit, wake the claims waiting here (``wake``) and, on PostgreSQL, in every hub process."""
        if self.postgres:
            await self.session.execute(text(f"NOTIFY {BATCH_CHANNEL}"))
        self.after_commit.append(wake)


BatchesChanged = Callable[[Collection[int] | None], None]


def _changed_ids(payload: str) -> list[int] | None:
    """The batch ids a notification names; ``None`` (any batch) for an empty or unreadable payload."""
    try:
        return [int(part) for part in payload.split(",")] if payload else None
    except ValueError:
        return None


class Database:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.postgres = is_postgres(engine)
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._listening: asyncio.Task[None] | None = None
        #: Told, after a commit here and on every notification from another process, which batches changed.
        self.on_batches_changed: BatchesChanged | None = None

    @contextlib.asynccontextmanager
    async def unit(self) -> AsyncIterator[UnitOfWork]:
        async with self._sessions() as session:
            unit = UnitOfWork(
                session=session,
                postgres=self.postgres,
                queue=QueueRepository(session),
                mirror=MirrorRepository(session),
                admin=AdminRepository(session),
                notes=NotesRepository(session),
                web_sessions=WebSessionRepository(session),
                idempotency=IdempotencyRepository(session, postgres=self.postgres),
                audit=AuditRepository(session, postgres=self.postgres),
            )
            async with session.begin():
                yield unit
                changed = unit.queue.changed
                if changed and self.postgres:
                    payload = ",".join(str(batch_id) for batch_id in sorted(changed))
                    payload = payload if len(payload) <= _PAYLOAD_MAX else ""
                    await session.execute(
                        text("SELECT pg_notify(:channel, :ids)"), {"channel": CHANGES_CHANNEL, "ids": payload}
                    )
        for action in unit.after_commit:
            action()
        if changed and self.on_batches_changed is not None:
            self.on_batches_changed(frozenset(changed))

    async def listen(self, callback: Callable[[], None]) -> None:
        """On PostgreSQL, call ``callback`` whenever any hub process announces a batch (a dedicated connection).

        The first connection is made now (a hub that cannot reach its database fails at start). When it is
        lost later (a PostgreSQL restart, a dropped socket), it is made again in the background until the
        server answers, and ``callback`` is called once then: a batch announced meanwhile is not missed.
        """
        if not self.postgres or self._listening is not None:
            return
        connection = await self._listen_once(callback)
        self._listening = asyncio.create_task(self._keep_listening(connection, callback), name="hub-listen")

    async def _listen_once(self, callback: Callable[[], None]) -> asyncpg.Connection:
        url = self.engine.url
        connection = await asyncpg.connect(
            host=url.host or "127.0.0.1",
            port=url.port or 5432,
            user=url.username,
            password=url.password,
            database=url.database,
            timeout=LISTEN_CONNECT_TIMEOUT,
        )
        await connection.add_listener(BATCH_CHANNEL, lambda *_: callback())
        await connection.add_listener(CHANGES_CHANNEL, lambda *args: self._batches_changed(_changed_ids(args[-1])))
        return connection

    def _batches_changed(self, batch_ids: Collection[int] | None) -> None:
        if self.on_batches_changed is not None:
            self.on_batches_changed(batch_ids)

    async def _keep_listening(self, connection: asyncpg.Connection, callback: Callable[[], None]) -> None:
        delay = LISTEN_RETRY_FIRST
        while True:
            try:
                await _until_lost(connection)
                log.warning("listen_lost", extra={"channel": BATCH_CHANNEL})
                with contextlib.suppress(Exception):
                    await connection.close(timeout=1)
                while True:
                    try:
                        connection = await self._listen_once(callback)
                        break
                    except Exception as exc:  # whatever the driver raises while the server is away: try again
                        log.debug("listen_retry", extra={"error": outage_reason(exc), "delay_s": delay})
                        await asyncio.sleep(delay)
                        delay = min(delay * 2, LISTEN_RETRY_CAP)
                delay = LISTEN_RETRY_FIRST
                log.info("listen_restored", extra={"channel": BATCH_CHANNEL})
                callback()
                self._batches_changed(None)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await connection.close(timeout=1)
                raise

    async def ping(self) -> bool:
        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        except Exception as exc:  # whatever the driver raises, readiness is «no»; the reason goes to the log
            log.warning("database_unavailable", extra={"error": outage_reason(exc)})
            return False
        return True

    async def close(self) -> None:
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listening
            self._listening = None
        await self.engine.dispose()


async def _until_lost(connection: asyncpg.Connection) -> None:
    """Until the LISTEN connection closes: its termination callback, or a periodic look at a socket that died
    without telling (no FIN from a vanished server)."""
    lost = asyncio.Event()
    connection.add_termination_listener(lambda _: lost.set())
    while not lost.is_set() and not connection.is_closed():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(lost.wait(), LISTEN_CHECK_SECONDS)
        if not lost.is_set() and not connection.is_closed():
            try:
                await connection.execute("SELECT 1", timeout=LISTEN_CONNECT_TIMEOUT)
            except Exception:  # a dead socket: the same as a lost connection
                return
