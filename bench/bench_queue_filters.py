"""Benchmark of the queue's filters in SQL at 5 000 batches, on SQLite and PostgreSQL.

Run: ``python bench/bench_queue_filters.py [--count 5000] [--repeat 7] [--pg postgresql+asyncpg://…]``. Fills an
empty database as ``tests/storage/test_queue_filters.py`` does (four in five batches the hub's refreshes), then
times each filter's first page and total: the median of ``--repeat`` runs after one warming run. The page asks
the same at each request of the queue; the floor recorded in bench/RESULTS.md is 100 ms. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.storage.database import Database
from adapters.storage.engine import make_engine, migrate
from bench.bench_web import _database
from reconcile.outlook.queue_filter import QueueFilter
from tests.storage.test_queue_filters import _titles, fill_queue, queue_filters


def _said(only: QueueFilter) -> str:
    """The filter as the page's query string would name it."""
    given = {name: value for name, value in attrs.asdict(only).items() if value not in (None, "", False)}
    return ", ".join(f"{name}={getattr(value, 'value', value)}" for name, value in given.items()) or "(none)"


async def run(kind: str, pg: str | None, count: int, repeat: int) -> None:
    async with _database(pg) as made:
        with tempfile.TemporaryDirectory() as tmp:
            engine = make_engine(made or f"sqlite+aiosqlite:///{tmp}/hub.db")
            await migrate(engine)
            db = Database(engine)
            try:
                await fill_queue(db, count)
                print(f"\n### {kind}, {count} batches\n\n| filter | median ms | matched |\n|---|---:|---:|")
                for only in queue_filters(count):
                    await _titles(db, only)
                    times = []
                    for _ in range(repeat):
                        started = time.perf_counter()
                        _, total = await _titles(db, only)
                        times.append(time.perf_counter() - started)
                    print(f"| {_said(only)} | {1000 * statistics.median(times):.1f} | {total} |", flush=True)
            finally:
                await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--pg", default=None, help="a PostgreSQL server URL (a database is made for the run)")
    args = parser.parse_args()
    asyncio.run(run("SQLite", None, args.count, args.repeat))
    if args.pg:
        asyncio.run(run("PostgreSQL", args.pg, args.count, args.repeat))


if __name__ == "__main__":
    main()
