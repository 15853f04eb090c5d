"""Benchmark of drift (``GET /drift``): up to a 10 000-issue project with 20 000 done commands.

Run: ``python bench/bench_drift.py [--issues 1000,5000,10000] [--pg postgresql+asyncpg://…]``. Per size (two
done commands per issue) fills a scratch database through the hub's repositories (mirror pages as a refresh
writes them, batches as ``POST /batches`` stores them, then marked ``done``), with a person's change in every
20th issue's due date, status and link; measures the first page of ``GET /drift?project=AWPCA`` through the
HTTP API in process, then its parts: the setting commands' query, the mirror read, the pure rules. Wall and CPU
time: on a shared machine other work stretches the wall, not the CPU. Measurements, not tests.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import httpx
from sqlalchemy import update

from adapters.files import FileStore
from adapters.storage.database import Database
from adapters.storage.engine import make_engine, migrate
from adapters.storage.models import CommandRow, table_of
from hub_app.app import create_app
from hub_app.bodies.admin import ProjectIn, TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import Hub
from reconcile.batches.validation import NewCommand, ValidBatch
from reconcile.config.settings import Settings
from reconcile.outlook.confirm import AgentFacts
from reconcile.outlook.drift import SETTING_TYPES, find_drift, latest_settings, mirror_reads
from reconcile.vocabulary.records import MirrorIssue, MirrorLink, SprintRef

T0 = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)
PROJECT = "AWPCA"
STATUSES = ("Разработка", "Тестирование", "Готово")


def mirror_issue(n: int, issues: int) -> MirrorIssue:
    """Issue ``n`` as the batches below left it, except every 20th aspect, which a person changed."""
    drifted = n % 20 == 0
    target = n % issues + 1
    return MirrorIssue(
        key=f"AURORA-{n}",
        summary=f"Задача {n}",
        description="строка\r\nстрока",
        status="Ожидание разработки" if drifted else STATUSES[n % 3],
        status_category="indeterminate",
        priority="High",
        duedate="2026-12-31" if drifted else "2026-10-23",
        labels=(PROJECT, f"kind-{n % 5}"),
        reporter="bridge-user",
        created="2026-10-21T09:00:00Z",
        updated="2026-10-21T09:00:00Z",
        sprint=SprintRef(id=7, name="Спринт 2", state="active"),
        links=()
        if drifted
        else (MirrorLink(id=str(n), type="Связанные", source=f"AURORA-{n}", target=f"AURORA-{target}"),),
    )


def commands_of(n: int, issues: int) -> list[dict[str, Any]]:
    """Two commands per issue: its fields and, in turn, its status, its link or its sprint."""
    key = f"AURORA-{n}"
    second: list[dict[str, Any]] = [
        {"type": "ensure_status", "params": {"key": key, "target": STATUSES[n % 3]}},
        {
            "type": "ensure_link",
            "params": {"source": key, "target": f"AURORA-{n % issues + 1}", "link_type": "связанные"},
        },
        {"type": "ensure_sprint", "params": {"key": key, "sprint": "Спринт 2", "board_id": 4216}},
    ]
    fields = {"key": key, "duedate": "2026-10-23", "priority": "High", "labels_add": [f"kind-{n % 5}"]}
    return [{"type": "ensure_fields", "params": fields}, second[n % 3]]


async def fill(hub: Hub, issues: int, commands: int) -> None:
    async with hub.unit() as unit:
        await admin.create_project(unit, ProjectIn(name=PROJECT, board_id=4216, board_type="scrum"))
        for start in range(1, issues + 1, 500):
            page = [mirror_issue(n, issues) for n in range(start, min(start + 500, issues + 1))]
            await unit.db.mirror.upsert_issues(page, command_id=0, now=T0)
        wanted = [c for n in range(1, issues + 1) for c in commands_of(n, issues)]
        wanted = (wanted * (commands // len(wanted) + 1))[:commands]
        for start in range(0, len(wanted), 100):
            chunk = wanted[start : start + 100]
            valid = ValidBatch(
                author="bench",
                title="bench",
                project=PROJECT,
                commands=tuple(NewCommand(seq=i + 1, type=c["type"], params=c["params"]) for i, c in enumerate(chunk)),
                notes=(),
                estimate_seconds=0,
            )
            await unit.db.queue.add_batch(valid, token_name="bench", retry_of=None, now=T0 + timedelta(seconds=start))
        table = table_of(CommandRow)
        await unit.db.session.execute(update(table).values(status="done", finished_at=T0))


async def timed(fn: Callable[[], Awaitable[Any]], repeat: int = 5) -> tuple[float, float]:
    """Median wall and CPU time (the process's own: other work on a shared machine stretches only the wall)."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        await fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def ms(times: tuple[float, float]) -> str:
    return f"{times[0] * 1e3:.0f} ms (CPU {times[1] * 1e3:.0f} ms)"


async def run(url: str, issues: int, commands: int) -> str:
    """One table row: the sizes, the drift found, ``GET /drift`` and its parts (wall and CPU)."""
    engine = make_engine(url)
    await migrate(engine)
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub(database=Database(engine), files=FileStore(Path(tmp)), now=lambda: T0)
        await fill(hub, issues, commands)
        async with hub.unit() as unit:
            secret = (await admin.add_token(unit, TokenIn(name="bench", role="interface"))).secret
        transport = httpx.ASGITransport(app=create_app(hub, mcp=False))
        headers = {"Authorization": f"Bearer {secret}"}
        async with httpx.AsyncClient(transport=transport, base_url="http://hub", headers=headers, timeout=60) as client:
            answers: list[dict[str, Any]] = []

            async def page() -> None:
                response = await client.get("/drift", params={"project": PROJECT})
                response.raise_for_status()
                answers.append(response.json())

            total = await timed(page)

        async with hub.unit() as unit:
            rows = await unit.db.queue.setting_commands(SETTING_TYPES)
            latest = latest_settings(rows)
            reads = mirror_reads(latest)
            entries = await unit.db.mirror.entries(reads.keys, fields=reads.fields, linked=reads.linked)

            async def query() -> None:
                await unit.db.queue.setting_commands(SETTING_TYPES)

            async def read_mirror() -> None:
                await unit.db.mirror.entries(reads.keys, fields=reads.fields, linked=reads.linked)

            async def rules() -> None:
                find_drift(
                    latest_settings(rows),
                    mirror={k: e.issue for k, e in entries.items()},
                    facts=AgentFacts(jira_user="bridge-user", symmetric_link_types=frozenset({"Связанные"})),
                    link_types=Settings().link_types,
                    project=PROJECT,
                )

            parts = [await timed(query), await timed(read_mirror), await timed(rules)]
        await hub.close()
    return (
        f"| {issues} | {len(rows)} | {answers[0]['total']} | {ms(total)} | {ms(parts[0])} | {ms(parts[1])} | "
        f"{ms(parts[2])} |"
    )


HEADER = (
    "| issues | done commands | drifted | `GET /drift` first page | commands query | mirror read | rules |\n"
    "|---|---|---|---|---|---|---|"
)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--issues", default="1000,5000,10000", help="project sizes, comma-separated")
    parser.add_argument("--pg", help="a PostgreSQL URL whose server may create a scratch database")
    args = parser.parse_args()
    sizes = [int(size) for size in args.issues.split(",")]
    print(f"SQLite\n{HEADER}")
    for issues in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            print(await run(f"sqlite+aiosqlite:///{tmp}/hub.sqlite3", issues, 2 * issues), flush=True)
    if args.pg:
        print(f"PostgreSQL\n{HEADER}")
        dsn = args.pg.replace("postgresql+asyncpg://", "postgresql://")
        for issues in sizes:
            name = f"sdlc_hub_bench_{uuid.uuid4().hex[:8]}"
            conn = await asyncpg.connect(dsn)
            await conn.execute(f'CREATE DATABASE "{name}"')
            await conn.close()
            try:
                print(await run(args.pg.rsplit("/", 1)[0] + f"/{name}", issues, 2 * issues), flush=True)
            finally:
                conn = await asyncpg.connect(dsn)
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                await conn.close()


if __name__ == "__main__":
    logging.disable(logging.INFO)
    asyncio.run(main())
