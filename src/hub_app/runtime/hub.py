"""The hub's runtime: database, file store, clock and the claim wake-up, shared by the HTTP API and MCP.

A :class:`Hub` is built once per process (:func:`open_hub`). Every operation runs in a :class:`Unit` — one
database transaction (its repositories in ``unit.db``) with the time of the call fixed at its start — opened
by ``async with hub.unit() as unit``. A unit knows who acts through which door (``actor``, ``door``: a token's
name and ``http``/``web``/``mcp``/``cli``, ``agent:<id>`` and ``agent``, or ``hub``); what it records for the audit
(:meth:`Unit.audit`) is chained at its end, in its transaction (:mod:`adapters.storage.audit`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator, Callable, Hashable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import attrs

from adapters.files import FileStore
from adapters.storage.database import Database, UnitOfWork
from adapters.storage.engine import make_engine, migrate, sqlite_url
from hub_app.runtime.longpoll import Wakeup
from reconcile.audit import AuditEntry
from reconcile.outlook import Drift, MirrorReads, Setting

if TYPE_CHECKING:
    from hub_app.runtime.metrics import HubMetrics

__all__ = ["GC_FIRST_THRESHOLD", "Hub", "KeptDrift", "Memo", "Unit", "Wakeup", "open_hub", "tune_gc", "utc_now"]


def utc_now() -> datetime:
    return datetime.now(UTC)


#: The cyclic collector's first threshold in the served hub (Python's default: 700 allocations). A batch of
#: thousands of commands, its dry run or a refresh page builds hundreds of thousands of objects that all live
#: until the answer is sent; at 700 the collector walks them again and again for nothing (a third of a 5 000-
#: command dry run's CPU, bench/RESULTS.md). Reference counting still frees everything at once; only garbage in
#: cycles waits a little longer.
GC_FIRST_THRESHOLD = 10_000


def tune_gc() -> None:
    """Raise the collector's first threshold to :data:`GC_FIRST_THRESHOLD` (the served hub's process, once)."""
    _, second, third = gc.get_threshold()
    gc.set_threshold(GC_FIRST_THRESHOLD, second, third)


V = TypeVar("V")


@attrs.define
class Memo(Generic[V]):
    """Answers computed from the database, each kept with the stamp of the state it was computed from (a number
    the database bumps with every write of the inputs, read before them, and whatever else it was computed from);
    served again only while that stamp is the current one. Per process: every hub process keeps its own."""

    _kept: dict[Hashable, tuple[object, V]] = attrs.field(factory=dict)

    def get(self, key: Hashable, stamp: object) -> V | None:
        kept = self._kept.get(key)
        return kept[1] if kept is not None and kept[0] == stamp else None

    def keep(self, key: Hashable, stamp: object, value: V) -> None:
        """Keep ``value`` for ``key``, dropping whatever was kept under another stamp (the state has moved on)."""
        self._kept = {k: kept for k, kept in self._kept.items() if kept[0] == stamp}
        self._kept[key] = (stamp, value)


@attrs.define
class KeptDrift:
    """What ``hub_app.operations.drift`` keeps across this process's requests: the settings of the resolved commands and
    what the mirror must show for them (stamped with the commands' generation), and the drift found (stamped with both
    generations, the link types and the agent's facts), of the whole mirror and of each project asked about."""

    settings: Memo[tuple[list[Setting], MirrorReads]] = attrs.field(factory=Memo)
    found: Memo[list[Drift]] = attrs.field(factory=Memo)


@attrs.define(kw_only=True)
class Unit:
    """One operation of the hub: its transaction, the time of the call, the file store and the wake-up."""

    db: UnitOfWork
    now: datetime
    files: FileStore
    wakeup: Wakeup
    metrics: Callable[[], HubMetrics]
    drift: KeptDrift = attrs.field(factory=KeptDrift)
    actor: str = "hub"
    door: str = "hub"
    audited: list[AuditEntry] = attrs.field(factory=list)

    def audit(
        self,
        kind: str,
        *,
        batch_id: int | None = None,
        command_id: int | None = None,
        data: Mapping[str, Any] | None = None,
        actor: str | None = None,
        door: str | None = None,
    ) -> None:
        """Record ``kind`` in the audit with this unit's actor and door (or those given), when the unit commits."""
        self.audited.append(
            AuditEntry(
                kind=kind,
                actor=actor or self.actor,
                door=door or self.door,
                batch_id=batch_id,
                command_id=command_id,
                data=data or {},
            )
        )

    def amend_audit(self, kind: str, batch_id: int, **more: Any) -> None:
        """Add ``more`` to the data of what this unit recorded as ``kind`` of batch ``batch_id`` (the idempotency key
        of the request that created it, known to the door, not to the operation)."""
        self.audited[:] = [
            attrs.evolve(e, data={**e.data, **more}) if (e.kind, e.batch_id) == (kind, batch_id) else e
            for e in self.audited
        ]

    def after_commit(self, action: Callable[[HubMetrics], None]) -> None:
        """Count ``action`` in the metrics once this unit's transaction commits (never for a rolled-back one)."""
        self.db.after_commit.append(lambda: action(self.metrics()))


@attrs.define(kw_only=True)
class Hub:
    database: Database
    files: FileStore
    now: Callable[[], datetime] = utc_now
    wakeup: Wakeup = attrs.field(factory=Wakeup)
    #: The migrations :func:`open_hub` applied, oldest first (``sdlc-hub migrate`` names them).
    migrated: tuple[str, ...] = ()
    drift: KeptDrift = attrs.field(factory=KeptDrift)
    _metrics: HubMetrics | None = attrs.field(default=None, init=False)

    def __attrs_post_init__(self) -> None:
        # Clients following a batch wake when a transaction here, or in another hub process, changed it.
        self.database.on_batches_changed = self.wakeup.batches_changed

    @property
    def metrics(self) -> HubMetrics:
        """The process's counters, made at first use: an admin command never loads ``prometheus_client``."""
        if self._metrics is None:
            from hub_app.runtime.metrics import HubMetrics  # noqa: PLC0415

            self._metrics = HubMetrics()
        return self._metrics

    @contextlib.asynccontextmanager
    async def unit(self, *, actor: str = "hub", door: str = "hub") -> AsyncIterator[Unit]:
        """A transaction: committed when the block ends normally (with what it recorded for the audit), rolled back
        on an exception."""
        async with self.database.unit() as db:
            unit = Unit(
                db=db,
                now=self.now(),
                files=self.files,
                wakeup=self.wakeup,
                metrics=lambda: self.metrics,
                drift=self.drift,
                actor=actor,
                door=door,
            )
            yield unit
            await db.audit.append(unit.audited, now=unit.now)

    async def start_listening(self) -> None:
        """Wake this process's claims when another hub process announces a batch (PostgreSQL)."""
        await self.database.listen(self.wakeup.notify)

    def begin_shutdown(self) -> None:
        """The server stops: waiting claims end now with 204 (before the server waits for open requests)."""
        self.wakeup.close()

    async def ping(self) -> bool:
        return await self.database.ping()

    async def close(self) -> None:
        await self.database.close()


async def open_hub(
    *,
    data_dir: Path,
    database_url: str | None = None,
    now: Callable[[], datetime] = utc_now,
    run_migrations: bool = True,
) -> Hub:
    """Open the hub's storage: SQLite in ``data_dir`` unless ``database_url`` is given; files in ``data_dir``."""
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)  # noqa: ASYNC240 — once at start
    engine = make_engine(database_url or sqlite_url(data_dir))
    migrated = tuple(await migrate(engine)) if run_migrations else ()
    return Hub(database=Database(engine), files=FileStore(data_dir / "files"), now=now, migrated=migrated)
