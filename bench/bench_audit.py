"""Issue 36's costs: an audit append on both databases, ``audit verify``'s speed, and the plan digest of a big batch.

Run: ``PYTHONPATH=src python bench/bench_audit.py [--pg postgresql+asyncpg://postgres@127.0.0.1:5432/postgres]``.

- **append**: the time of one ``AuditRepository.append`` of one record inside a unit of work (the advisory lock on
  PostgreSQL, the head read, the insert), over ``--appends`` units, median and p95; and a whole unit with and
  without its append, so the append's share of a hub operation shows.
- **verify**: ``sdlc-hub audit verify`` (:func:`hub_app.client_cli.audit_file.verify_file`) over an export of
``--records``
  records written to a file: records a second.
- **digest**: the plan of a ``--commands``-command batch computed from mirror records (the dry run of every
  command and its write lines, :func:`reconcile.outlook.approved_plan.snapshot`): seconds.

A measurement, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import text

from adapters.storage.database import Database
from adapters.storage.engine import make_engine, migrate, sqlite_url, truncate_all
from hub_app.client_cli.audit_file import verify_file
from reconcile.audit.chain import AuditEntry, Head, chained
from reconcile.batches.validation import NewCommand
from reconcile.config.settings import Settings
from reconcile.outlook.approved_plan import snapshot
from reconcile.outlook.dryrun import predict_commands
from reconcile.vocabulary.records import MirrorIssue

T0 = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)


def _entry(n: int) -> AuditEntry:
    data = {"method": "PUT", "path": f"/rest/api/2/issue/AURORA-{n}", "status": 204, "key": f"AURORA-{n}"}
    return AuditEntry(kind="jira_write", actor="agent:bank", door="agent", batch_id=n // 10, command_id=n, data=data)


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return f"median {statistics.median(values) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms"


async def _timed(action: Callable[[], Awaitable[None]], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await action()
        times.append(time.perf_counter() - start)
    return times


async def bench_append(url: str, name: str, appends: int) -> None:
    engine = make_engine(url)
    await migrate(engine)
    await truncate_all(engine)
    db = Database(engine)
    inside: list[float] = []
    cpu: list[float] = []
    counter = iter(range(10**9))

    async def with_append() -> None:
        async with db.unit() as unit:
            await unit.lock_queue()
            await unit.session.execute(text("SELECT 1"))  # the operation's own work began the transaction
            start, start_cpu = time.perf_counter(), time.process_time()
            await unit.audit.append([_entry(next(counter))], now=datetime.now(UTC))
            inside.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)

    async def without() -> None:
        async with db.unit() as unit:
            await unit.lock_queue()
            await unit.session.execute(text("SELECT 1"))

    await _timed(with_append, 50)  # warm the pool and the statement cache
    inside.clear()
    cpu.clear()
    whole = await _timed(with_append, appends)
    bare = await _timed(without, appends)
    print(f"{name}: append {_ms(inside)} (this process's CPU {_ms(cpu)})")
    print(f"{name}: a unit with it {_ms(whole)}, without {_ms(bare)}")
    await db.close()


def bench_verify(records: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        path = Path(tmp) / "audit.jsonl"
        head: Head | None = None
        with path.open("w", encoding="utf-8") as out:
            for n in range(records):
                record = chained(head, _entry(n), now=T0 + timedelta(milliseconds=n))
                out.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
                head = Head(seq=record.seq, hash=record.hash, at=T0 + timedelta(milliseconds=n))
        start, start_cpu = time.perf_counter(), time.process_time()
        code = verify_file(path, out=io.StringIO())
        seconds, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        size = path.stat().st_size / 1e6
    rate, cpu_rate = records / seconds, records / cpu
    print(
        f"verify: {records} records ({size:.1f} MB): {rate:,.0f} records/s, {cpu_rate:,.0f} a CPU second (exit {code})"
    )


def bench_digest(count: int) -> None:
    settings = Settings()
    mirror = {
        f"AURORA-{n}": MirrorIssue(key=f"AURORA-{n}", summary=f"Задача {n}", duedate="2026-10-23", labels=("AWPCA",))
        for n in range(1, count + 1)
    }
    commands = []
    for n in range(1, count + 1):
        if n % 3 == 0:
            params = {"key": f"AURORA-{n}", "target": ["Разработка", "Тестирование"]}
            commands.append(NewCommand(seq=n, type="ensure_status", params=params))
        else:
            params = {"key": f"AURORA-{n}", "duedate": "2026-11-01", "summary": f"Задача {n} v2", "labels_add": ["x"]}
            commands.append(NewCommand(seq=n, type="ensure_fields", params=params))
    times, cpu = [], []
    for _ in range(5):
        start, start_cpu = time.perf_counter(), time.process_time()
        predictions = predict_commands(
            commands,
            mirror=mirror,
            settings=settings,
            jira_user="bridge-user",
            symmetric_link_types=frozenset(),
            now=T0,
        )
        plan = snapshot(commands, predictions, to_be_created=(), now=T0)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    median, best = statistics.median(times), min(times)
    print(
        f"digest: {count} commands, {len(plan.lines)} lines: median {median:.3f} s, best {best:.3f} s "
        f"(CPU median {statistics.median(cpu):.3f} s)"
    )


async def _create_database(pg_url: str) -> tuple[str, str]:
    """A database of its own on the server of ``pg_url`` (nobody else's schema is emptied)."""
    name = f"sdlc_hub_bench_{uuid.uuid4().hex[:8]}"
    conn = await asyncpg.connect(pg_url.replace("postgresql+asyncpg://", "postgresql://"))
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    return name, pg_url.rsplit("/", 1)[0] + f"/{name}"


async def _drop_database(pg_url: str, name: str) -> None:
    conn = await asyncpg.connect(pg_url.replace("postgresql+asyncpg://", "postgresql://"))
    await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pg", help="a PostgreSQL URL (an emptied schema of the hub is made there)")
    parser.add_argument("--appends", type=int, default=500)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--commands", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-audit-db-") as tmp:
        asyncio.run(bench_append(sqlite_url(Path(tmp)), "SQLite", args.appends))
    if args.pg:
        name, url = asyncio.run(_create_database(args.pg))
        try:
            asyncio.run(bench_append(url, "PostgreSQL", args.appends))
        finally:
            asyncio.run(_drop_database(args.pg, name))
    bench_verify(args.records)
    bench_digest(args.commands)


if __name__ == "__main__":
    main()
