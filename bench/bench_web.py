"""Benchmark of the web page: every page's time to first byte on a big hub (issue 27: under 100 ms on SQLite).

Run: ``python3 bench/bench_web.py`` (10 000 mirror issues, 5 000 batches, 30 requests a page; a few minutes, most of
it filling the database), ``--quick`` (1 000 issues, 500 batches, 10 requests), ``--pg postgresql+asyncpg://…`` for
PostgreSQL too (a database made for the run and dropped after).

Fills a fresh hub through its own operations — the mirror (``upsert_issues``, one transaction a page of 500), an
issue's journal and notes, batches through ``create_batch`` (two commands each and their tail refresh; one in a
hundred by an assistant's token that needs approval, so it waits with its plan) — then moves the batches' commands
to where a long-lived hub has them (most done, some failed or cancelled, the newest queued) with one ``UPDATE``
each. Then serves it with ``sdlc-hub serve`` in its own process on loopback, logs in as a person and times, for
each page, from sending the request to the answer's head (uvicorn sends the head once the page is rendered):
medians and p95 of N requests, one at a time, after three to warm up. Measurements, not tests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import attrs
import httpx
from sqlalchemy import update
from sqlalchemy.engine import make_url

import hub_app
from adapters.storage.models import BatchRow, CommandRow, table_of
from hub_app.bodies.admin import ProjectIn, TokenIn
from hub_app.bodies.mirror import NoteIn
from hub_app.operations import admin, batches, mirror
from hub_app.runtime.hub import Hub, open_hub
from reconcile.outlook.approval import Door, Requester
from reconcile.vocabulary.records import HistoryEntry, HistoryItem, MirrorIssue, MirrorLink, SprintRef, converter

STATUSES = ("Ожидание разработки", "Разработка", "Тестирование", "Готово")
BUDGET_MS = 100.0
PROJECT = "AWPCA"


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


@attrs.frozen(kw_only=True)
class Seeded:
    """What the pages are asked about: the person's secret, a done and a waiting batch, a command, an issue."""

    secret: str
    agent: str
    done_batch: int
    waiting_batch: int
    command: int
    issue: str


def _batch(n: int, issues: int) -> dict[str, object]:
    key = f"AURORA-{n % issues + 1}"
    # Half the batches set the due date the mirror shows, half another one: the drift page has thousands of rows.
    due = "2026-10-23" if n % 2 else f"2026-11-{n % 28 + 1:02d}"
    return {
        "author": "bench",
        "title": f"Пакет {n}: сроки и комментарий",
        "project": PROJECT,
        "commands": [
            {"type": "ensure_fields", "params": {"key": key, "duedate": due}},
            {"type": "ensure_comment", "params": {"key": key, "marker": f"[план {n}]", "body": "срок сверен"}},
        ],
    }


async def _fill_mirror(hub: Hub, issues: int, now: datetime) -> str:
    rows = _issues(issues, PROJECT, 1)
    for i in range(0, len(rows), 500):
        async with hub.unit() as unit:
            await unit.db.mirror.upsert_issues(rows[i : i + 500], command_id=0, now=now)
    key = "AURORA-10"
    history = [
        HistoryEntry(
            key=key,
            id=str(h),
            created=f"2026-10-{h % 28 + 1:02d}T10:00:00.000+0300",
            author="ivanov",
            items=(HistoryItem(field="duedate", from_="2026-10-01", to="2026-10-23"),),
        )
        for h in range(1, 61)
    ]
    async with hub.unit() as unit:
        await unit.db.mirror.upsert_history(history)
        for n in range(20):
            await mirror.add_note(unit, NoteIn(key=key, text=f"заметка {n}"), author="bench")
    return key


async def _fill_batches(hub: Hub, count: int, issues: int) -> tuple[int, int]:
    """``count`` batches through the operation; the first and the last waiting one's ids."""
    person = Requester(door=Door.HTTP, token_name="bench")
    assistant = Requester(door=Door.MCP, token_name="claude", needs_approval=True)
    first = waiting = 0
    for start in range(0, count, 100):
        async with hub.unit() as unit:
            for n in range(start, min(start + 100, count)):
                by = assistant if n % 100 == 99 else person
                created = await batches.create_batch(unit, _batch(n, issues), requester=by)
                first = first or created.id
                waiting = created.id if by is assistant else waiting
    return first, waiting


async def _age_commands(hub: Hub, first: int, count: int, now: datetime) -> None:
    """Most batches done, one in ten with a failed comment, one in fifty cancelled, the newest 2 % queued (the
    assistant's among them waiting for approval, the older ones approved)."""
    command, batch = table_of(CommandRow), table_of(BatchRow)
    queued_from = first + count - max(1, count // 50)
    done = {"claimed_at": now - timedelta(hours=1), "finished_at": now - timedelta(minutes=59), "deliveries": 1}
    async with hub.unit() as unit:
        conn = unit.db.session
        old = command.c.batch_id < queued_from
        await conn.execute(update(command).where(old).values(status="done", result={"changed": ["duedate"]}, **done))
        failed = old & (command.c.batch_id % 10 == 3) & (command.c.type == "ensure_comment")
        await conn.execute(update(command).where(failed).values(status="failed", error="HTTP 503: Service Unavailable"))
        cancelled = old & (command.c.batch_id % 50 == 7)
        await conn.execute(update(command).where(cancelled).values(status="cancelled", result=None, deliveries=0))
        # The assistant's older batches were approved by the person; the newest one still waits.
        approved = {"approval_state": "approved", "approval_by": "bench", "approval_at": now - timedelta(hours=2)}
        waiting = (batch.c.id < queued_from) & (batch.c.approval_state == "pending")
        await conn.execute(update(batch).where(waiting).values(**approved))


async def _seed(url: str | None, data_dir: Path, issues: int, count: int) -> Seeded:
    hub = await open_hub(data_dir=data_dir, database_url=url)
    now = datetime.now(UTC)
    try:
        async with hub.unit() as unit:
            await admin.create_project(unit, ProjectIn(name=PROJECT, board_id=4216, board_type="scrum"))
            secret = (await admin.add_token(unit, TokenIn(name="bench", role="interface"))).secret
            await admin.add_token(unit, TokenIn(name="claude", role="interface", needs_approval=True))
            agent = (await admin.add_token(unit, TokenIn(name="agent", role="agent"))).secret
        key = await _fill_mirror(hub, issues, now)
        first, waiting = await _fill_batches(hub, count, issues)
        await _age_commands(hub, first, count, now)
        async with hub.unit() as unit:
            middle = await batches.get_batch(unit, first + count // 2)
    finally:
        await hub.close()
    return Seeded(
        secret=secret,
        agent=agent,
        done_batch=middle.id,
        waiting_batch=waiting,
        command=middle.commands[0].id,
        issue=key,
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def _served(data_dir: Path, url: str | None) -> Iterator[tuple[str, int]]:
    """``sdlc-hub serve`` of this checkout on a free loopback port; its base URL and process id."""
    port = _free_port()
    src = str(Path(hub_app.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    env.pop("SDLC_HUB_DATABASE_URL", None)
    if url is not None:
        env["SDLC_HUB_DATABASE_URL"] = url
    argv = [sys.executable, "-m", "hub_app.cli", "serve", "--data-dir", str(data_dir), "--port", str(port)]
    process = subprocess.Popen([*argv, "--log-level", "WARNING"], env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("sdlc-hub serve did not start")
            time.sleep(0.1)
        yield base, process.pid
    finally:
        process.terminate()
        process.wait(timeout=10)


def _login(client: httpx.Client, secret: str) -> None:
    form = client.get("/login").text
    csrf = re.search(r'name="_csrf_token" value="([^"]+)"', form)
    assert csrf is not None
    login = client.post("/login", data={"token": secret, "next": "/", "_csrf_token": csrf[1]})
    assert login.status_code == 303, login.text[:300]


def _cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user and system), from ``/proc``; 0 where there is none."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _ttfb_ms(client: httpx.Client, path: str, repeat: int, before: Callable[[int], None] | None = None) -> list[float]:
    times = []
    for i in range(repeat + 3):
        if before is not None:
            before(i)
        started = time.perf_counter()
        with client.stream("GET", path) as response:
            head = (time.perf_counter() - started) * 1000
            response.read()
        assert response.status_code == 200, f"{path}: {response.status_code} {response.text[:300]}"
        if i >= 3:  # the first three warm up
            times.append(head)
    return times


def pages(seeded: Seeded) -> list[tuple[str, str]]:
    """Every page of the hub, by the name the table gives it, and the path asked."""
    return [
        ("queue", "/"),
        ("queue, filtered by state", "/?status=done_with_errors"),
        ("queue, filtered by text", "/?q=%D1%81%D1%80%D0%BE%D0%BA%D0%B8"),
        ("queue, the hub's refreshes shown", "/?auto=1"),
        ("batch (done)", f"/batches/{seeded.done_batch}"),
        ("batch (waiting, its plan)", f"/batches/{seeded.waiting_batch}"),
        ("command", f"/commands/{seeded.command}"),
        ("issue (links, 20 notes, 60 journal entries)", f"/issues/{seeded.issue}"),
        ("projects", "/projects"),
        ("project (first page)", f"/projects/{PROJECT}"),
        ("project (text filter)", f"/projects/{PROJECT}?q=%D1%81%D0%B2%D0%B5%D1%80%D0%BA%D0%B0"),
        ("drift", "/drift"),
        # The hub keeps the drift it computed until a write changes what it is computed from: here, every time.
        ("drift, after a webhook event each time", "/drift"),
        ("settings", "/settings"),
        ("new", "/new"),
        ("schema", "/schema"),
    ]


def _run(backend: str, pg: str | None, issues: int, count: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:

        async def seed() -> Seeded:
            async with _database(pg) as url:
                started = time.perf_counter()
                seeded = await _seed(url, Path(tmp), issues, count)
                print(f"{backend}: filled in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
                with _served(Path(tmp), url) as (base, pid), httpx.Client(base_url=base, timeout=30) as client:
                    client.headers["Accept"] = "text/html"
                    _login(client, seeded.secret)
                    title = f"{backend}, {issues} mirror issues, {count} batches"
                    _table(client, pid, title=title, repeat=repeat, seeded=seeded)
            return seeded

        asyncio.run(seed())


@attrs.define
class _Events:
    """Before the ``i``-th request: a webhook event with a newer record of an issue drift reads (its due date moved
    one way or the other), so the mirror has changed since the drift the hub kept; ``cpu``: the served process's
    CPU seconds spent meanwhile (taken off the page's)."""

    client: httpx.Client
    agent: str
    pid: int
    cpu: float = 0.0

    def __call__(self, i: int) -> None:
        at = (datetime(2026, 12, 1, tzinfo=UTC) + timedelta(seconds=i)).isoformat().replace("+00:00", "Z")
        issue = attrs.evolve(_issues(1, PROJECT, 2)[0], updated=at, duedate="2026-10-23" if i % 2 else "2026-10-24")
        event = {"event": "jira:issue_updated", "key": issue.key, "at": at, "issue": converter.unstructure(issue)}
        started = _cpu_seconds(self.pid)
        response = self.client.post(
            "/agent/events", json={"events": [event]}, headers={"Authorization": f"Bearer {self.agent}"}
        )
        self.cpu += _cpu_seconds(self.pid) - started
        assert response.status_code == 200 and response.json()["applied"] == 1, response.text[:300]


def _table(client: httpx.Client, pid: int, *, title: str, repeat: int, seeded: Seeded) -> None:
    print(f"\n{title}, {repeat} requests a page (time to first byte):\n")
    print("| page | path | median ms | p95 ms | server CPU ms a request | under 100 ms |")
    print("|---|---|---:|---:|---:|---|")
    for name, path in pages(seeded):
        events = _Events(client=client, agent=seeded.agent, pid=pid)
        cpu = _cpu_seconds(pid)
        times = _ttfb_ms(client, path, repeat, before=events if name.startswith("drift, after") else None)
        cpu_ms = (_cpu_seconds(pid) - cpu - events.cpu) * 1000 / (repeat + 3)
        median, p95 = statistics.median(times), statistics.quantiles(times, n=20, method="inclusive")[18]
        verdict = "yes" if p95 < BUDGET_MS else "**no**"
        print(f"| {name} | `{path}` | {median:.1f} | {p95:.1f} | {cpu_ms:.1f} | {verdict} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=10_000, help="mirror issues (default 10 000)")
    parser.add_argument("--batches", type=int, default=5_000, help="batches (default 5 000)")
    parser.add_argument("--repeat", type=int, default=30, help="requests a page (default 30)")
    parser.add_argument("--quick", action="store_true", help="1 000 issues, 500 batches, 10 requests a page")
    parser.add_argument("--pg", default=None, help="a PostgreSQL server URL: measure PostgreSQL after SQLite")
    args = parser.parse_args()
    if args.quick:
        args.issues, args.batches, args.repeat = 1_000, 500, 10
    backends: list[tuple[str, str | None]] = [("SQLite", None)] + ([("PostgreSQL", args.pg)] if args.pg else [])
    for backend, pg in backends:
        _run(backend, pg, args.issues, args.batches, args.repeat)


if __name__ == "__main__":
    main()
