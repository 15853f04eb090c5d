"""Benchmarks of the web page: a project's slice page (``/projects/{name}``) on a big mirror.

Run: ``python bench/bench_web.py [--sizes 1000 10000] [--pg postgresql+asyncpg://postgres@127.0.0.1:5432/postgres]``.
Fills a fresh mirror (SQLite in a temporary data dir; PostgreSQL in a database made for the run and dropped
after) with N issues of the project and N/2 of another, logs in as a person and times the whole answer of the
hub's app — session, query, template — for the first page, a deep page, a text filter and a status filter.
Medians of repeated requests. Measurements, not tests.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import httpx
from sqlalchemy.engine import make_url

from hub_app import admin
from hub_app.app import create_app
from hub_app.bodies.admin import ProjectIn, TokenIn
from hub_app.runtime import Hub, open_hub
from reconcile.records import MirrorIssue, MirrorLink, SprintRef

STATUSES = ("Ожидание разработки", "Разработка", "Тестирование", "Готово")
REPEAT = 15


def _issues(count: int, label: str, start: int) -> list[MirrorIssue]:
    return [
        MirrorIssue(
            key=f"AURORA-{n}",
            summary=f"Задача {n}: сверка остатков" if n % 10 == 0 else f"Задача {n}",
            status=STATUSES[n % len(STATUSES)],
            status_category="indeterminate",
            labels=(label,),
            duedate="2026-10-23",
            sprint=SprintRef(id=7, name="Спринт 2", state="active") if n % 3 == 0 else None,
            links=(MirrorLink(id=f"L{n}", type="Связанные", source=f"AURORA-{n}", target=f"AURORA-{n + 1}"),)
            if n % 5 == 0
            else (),
        )
        for n in range(start, start + count)
    ]


async def _fill(hub: Hub, size: int) -> str:
    async with hub.unit() as unit:
        await admin.create_project(unit, ProjectIn(name="AWPCA", board_id=4216, board_type="scrum"))
        secret = (await admin.add_token(unit, TokenIn(name="bench", role="interface"))).secret
    now = datetime.now(UTC)
    for label, count, start in (("AWPCA", size, 1), ("OTHER", size // 2, size + 1)):
        issues = _issues(count, label, start)
        for i in range(0, len(issues), 500):
            async with hub.unit() as unit:
                await unit.db.mirror.upsert_issues(issues[i : i + 500], command_id=0, now=now)
    return secret


async def _median_ms(client: httpx.AsyncClient, path: str) -> float:
    await client.get(path)  # warm
    times = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        response = await client.get(path)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text[:300]
    return statistics.median(times)


@asynccontextmanager
async def _database(pg: str | None) -> AsyncIterator[str | None]:
    if pg is None:
        yield None
        return
    name = f"bench_web_{uuid.uuid4().hex[:8]}"
    parsed = make_url(pg)
    conn = await asyncpg.connect(host=parsed.host, port=parsed.port, user=parsed.username, database=parsed.database)
    await conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield parsed.set(database=name).render_as_string(hide_password=False)
    finally:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()


async def _run(size: int, pg: str | None) -> dict[str, float]:
    results: dict[str, float] = {}
    async with _database(pg) as url:
        with tempfile.TemporaryDirectory() as tmp:
            hub = await open_hub(data_dir=Path(tmp), database_url=url)
            try:
                secret = await _fill(hub, size)
                app = create_app(hub, mcp=False)
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(
                    transport=transport, base_url="http://hub.test", headers={"Accept": "text/html"}
                ) as client:
                    form = (await client.get("/login")).text
                    csrf = re.search(r'name="_csrf_token" value="([^"]+)"', form)
                    assert csrf is not None
                    login = await client.post("/login", data={"token": secret, "next": "/", "_csrf_token": csrf[1]})
                    assert login.status_code == 303
                    last = -(-size // 50)
                    for case, path in (
                        ("first page", "/projects/AWPCA"),
                        ("last page", f"/projects/AWPCA?page={last}"),
                        ("text filter", "/projects/AWPCA?q=%D0%A1%D0%92%D0%95%D0%A0%D0%9A%D0%90"),
                        ("status filter", "/projects/AWPCA?status=%D0%93%D0%BE%D1%82%D0%BE%D0%B2%D0%BE"),
                    ):
                        results[case] = await _median_ms(client, path)
            finally:
                await hub.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--pg", default=None, help="a PostgreSQL server URL (a database is made for the run)")
    args = parser.parse_args()
    backends: list[tuple[str, str | None]] = [("SQLite", None)] + ([("PostgreSQL", args.pg)] if args.pg else [])
    for backend, pg in backends:
        for size in args.sizes:
            results = asyncio.run(_run(size, pg))
            cells = ", ".join(f"{case} {ms:.1f} ms" for case, ms in results.items())
            print(f"{backend:10} {size:>6} issues: {cells}", flush=True)


if __name__ == "__main__":
    main()
