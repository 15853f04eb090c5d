"""Issue 11's table at 1k / 5k / 10k, each row next to its floor measured in the same run.

Run: ``python bench/bench_scale.py [--sizes 1000 5000 10000] [--pg postgresql+asyncpg://postgres@127.0.0.1:5432/postgres]``
(``nox -s bench`` runs it with the simulator's bench). Prints Markdown tables for ``bench/RESULTS.md``:

- mirror ingest: refresh pages of 100 issues with links through ``MirrorRepository.upsert_issues`` (one
  transaction a page, as the hub applies them), next to a plain ``INSERT`` of the same rows into the same table;
- ``GET /issues?project=AWPCA`` first page (100 issues) through the hub's app in process, at 100 issues and at N;
- ``POST /batches`` and its dry run, N commands (temp keys, links, sprints; at most 5 000, the batch limit),
  per command;
- the agent's held state at the last issue page of a refresh of N simulated issues (tracemalloc, the core's
  allocations only), next to the bytes of the issues themselves as parsed.

The collector is tuned as ``sdlc-hub serve`` tunes it (``hub_app.runtime.hub.tune_gc``). Wall time and the process's
CPU time: on a loaded machine the CPU time is the comparable one. Medians.
Measurements, not tests.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.storage.engine import truncate_all
from adapters.storage.models import MirrorIssueRow, table_of
from bench.bench_core import big_batch
from bench.bench_sim import drive_refresh
from bench.bench_web import _database, _issues
from hub_app.app import create_app
from hub_app.bodies.admin import ProjectIn, TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import Hub, open_hub, tune_gc
from jira_sim import Simulator
from jira_sim.generated import generated_seed
from reconcile.executors import Page
from reconcile.vocabulary.records import ISSUE_TEXT_FIELDS, MirrorIssue, converter, natural_key

PAGE = 100
BATCH_MAX = 5000  # max_batch_commands: a bigger batch is 422
REFERENCE_NOW = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)


async def _timed(action: Callable[[], Awaitable[Any]], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        await action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def _row(issue: MirrorIssue, now: datetime) -> dict[str, Any]:
    return {
        "key": issue.key,
        **{name: getattr(issue, name) for name in ISSUE_TEXT_FIELDS},
        "labels": list(issue.labels),
        "sprint": converter.unstructure(issue.sprint) if issue.sprint is not None else None,
        "refreshed_at": now,
        "seen_by": 1,
        "sort_key": natural_key(issue.key),
    }


async def ingest(hub: Hub, size: int) -> dict[str, float]:
    """Issues a second through the mirror's upsert, and through a plain INSERT of the same rows."""
    issues = _issues(size, "AWPCA", 1)
    now = datetime.now(UTC)
    rates: dict[str, float] = {}
    for name in ("upsert", "upsert again", "plain INSERT"):
        if name != "upsert again":
            await truncate_all(hub.database.engine)
        started = time.perf_counter()
        for offset in range(0, size, PAGE):
            page = issues[offset : offset + PAGE]
            async with hub.unit() as unit:
                if name == "plain INSERT":
                    await unit.db.session.execute(insert(table_of(MirrorIssueRow)), [_row(i, now) for i in page])
                else:
                    await unit.db.mirror.upsert_issues(page, command_id=1, now=now)
        rates[name] = size / (time.perf_counter() - started)
    return rates


async def _client(hub: Hub, secret: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(hub, mcp=False)),
        base_url="http://hub.test",
        headers={"Authorization": f"Bearer {secret}"},
        timeout=600,
    )


async def hub_requests(hub: Hub, size: int) -> dict[str, tuple[float, float]]:
    """``GET /issues`` first page at 100 issues and at ``size``; ``POST /batches`` and its dry run of ``size``."""
    found: dict[str, tuple[float, float]] = {}
    for count in (100, size):
        await truncate_all(hub.database.engine)
        async with hub.unit() as unit:
            await admin.create_project(unit, ProjectIn(name="AWPCA", board_id=4216, board_type="scrum"))
            secret = (await admin.add_token(unit, TokenIn(name="bench", role="interface"))).secret
        await ingest_only(hub, count)
        async with await _client(hub, secret) as client:

            async def first_page(client: httpx.AsyncClient = client) -> None:
                response = await client.get("/issues?project=AWPCA&limit=100")
                assert response.status_code == 200, response.text[:300]

            await first_page()
            found[f"first page {count}"] = await _timed(first_page, 15)
            if count != size:
                continue
            body = big_batch(min(size, BATCH_MAX))
            for name, path in (("dry run", "/batches?dry_run=true"), ("POST /batches", "/batches")):

                async def post(path: str = path, client: httpx.AsyncClient = client, body: Any = body) -> None:
                    response = await client.post(path, json=body)
                    assert response.status_code in (200, 201), response.text[:300]

                found[name] = await _timed(post, 3)
    return found


async def ingest_only(hub: Hub, count: int) -> None:
    issues = _issues(count, "AWPCA", 1) + _issues(count // 2, "OTHER", count + 1)
    now = datetime.now(UTC)
    for offset in range(0, len(issues), 500):
        async with hub.unit() as unit:
            await unit.db.mirror.upsert_issues(issues[offset : offset + 500], command_id=1, now=now)


async def agent_memory(count: int) -> int:
    """The core's bytes alive at the last issue page of a refresh of ``count`` simulated issues."""
    sim = Simulator(generated_seed(count), clock=lambda: REFERENCE_NOW)
    held: list[int] = []
    last = -(-count // PAGE)
    pages = 0

    async def on_page(page: Page) -> None:
        nonlocal pages
        if page.kind == "issues":
            pages += 1
            if pages == last:
                gc.collect()
                snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, "*/reconcile/*")])
                held.append(sum(stat.size for stat in snapshot.statistics("filename")))

    tracemalloc.start(1)
    try:
        await drive_refresh(sim, "project = AURORA", on_page)
    finally:
        tracemalloc.stop()
    return held[0]


def _ms(value: tuple[float, float], per: int = 1) -> str:
    wall, cpu = value
    return (
        f"{wall / per * 1e3:.2f} ms (CPU {cpu / per * 1e3:.2f})"
        if per == 1
        else (f"{wall / per * 1e6:.0f} µs (CPU {cpu / per * 1e6:.0f})")
    )


async def run_database(name: str, url: str | None, sizes: list[int]) -> None:
    print(f"\n### {name}\n")
    print(
        "| N | ingest upsert (issues/s) | upsert again | plain INSERT (floor) | GET /issues first page at 100 | "
        "at N | POST /batches per command (min(N, 5000) commands) | dry run per command |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for size in sizes:
        async with _database(url) as database_url:
            with tempfile.TemporaryDirectory() as tmp:
                hub = await open_hub(data_dir=Path(tmp), database_url=database_url)
                try:
                    rates = await ingest(hub, size)
                    requests = await hub_requests(hub, size)
                finally:
                    await hub.close()
        commands = min(size, BATCH_MAX)
        print(
            f"| {size} | {rates['upsert']:,.0f} | {rates['upsert again']:,.0f} | {rates['plain INSERT']:,.0f} | "
            f"{_ms(requests['first page 100'])} | {_ms(requests[f'first page {size}'])} | "
            f"{_ms(requests['POST /batches'], commands)} | {_ms(requests['dry run'], commands)} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 10000])
    parser.add_argument("--pg", default=None, help="a PostgreSQL server URL (a database is made for each size)")
    args = parser.parse_args()
    logging.disable(logging.INFO)
    tune_gc()  # as `sdlc-hub serve` runs
    asyncio.run(run_database("SQLite", None, args.sizes))
    if args.pg:
        asyncio.run(run_database("PostgreSQL", args.pg, args.sizes))
    print("\n### The agent's held state at the last issue page of a refresh\n")
    print("| N | held by the core | growth from the first size |")
    print("|---|---|---|")
    first: int | None = None
    for size in args.sizes:
        held = asyncio.run(agent_memory(size))
        first = held if first is None else first
        print(f"| {size} | {held / 1024:.0f} KiB | {(held - first) / 1024:+.0f} KiB |", flush=True)


if __name__ == "__main__":
    main()
