"""Benchmarks of a real hub process: batch creation, claim → report round trips, refresh pages.

Run: ``python bench/bench_hub.py [--pg postgresql+asyncpg://postgres@127.0.0.1:5432/postgres]``. Starts
``sdlc-hub serve`` on loopback (SQLite in a temporary data dir, and PostgreSQL in a fresh database when
``--pg`` is given), measures with a real httpx client, prints one line per case. Measurements, not tests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from loopback.processes import free_port, script


def _sdlc_hub(data_dir: Path, database_url: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SDLC_HUB_DATA_DIR=str(data_dir))
    env.pop("SDLC_HUB_DATABASE_URL", None)
    if database_url:
        env["SDLC_HUB_DATABASE_URL"] = database_url
    return subprocess.run([*script("sdlc-hub"), *args], env=env, capture_output=True, text=True, check=True)


@contextmanager
def hub(database_url: str | None) -> Iterator[tuple[str, dict[str, str]]]:
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        tokens = {
            role: _sdlc_hub(data_dir, database_url, "token", "add", f"bench-{role}", "--role", role)
            .stdout.strip()
            .splitlines()[-1]
            for role in ("admin", "agent")
        }
        port = free_port()
        env = dict(os.environ, SDLC_HUB_DATA_DIR=str(data_dir))
        env.pop("SDLC_HUB_DATABASE_URL", None)
        if database_url:
            env["SDLC_HUB_DATABASE_URL"] = database_url
        proc = subprocess.Popen(
            [*script("sdlc-hub"), "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("hub did not start")
                time.sleep(0.1)
            yield url, tokens
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def _batch(n: int) -> dict[str, Any]:
    commands = [
        {"type": "ensure_fields", "params": {"key": f"AURORA-{i + 1}", "duedate": "2026-10-23"}} for i in range(n)
    ]
    return {"author": "bench", "title": "bench", "commands": commands}


def _issue(n: int) -> dict[str, Any]:
    return {
        "key": f"AURORA-{n}",
        "summary": f"Задача {n}",
        "description": "строка\r\nстрока",
        "status": "Разработка",
        "status_category": "indeterminate",
        "labels": ["AWPCA"],
        "reporter": "bridge-user",
        "created": "2026-10-21T09:00:00Z",
        "updated": "2026-10-21T09:00:00Z",
        "links": [{"id": str(n), "type": "Связанные", "source": f"AURORA-{n}", "target": f"AURORA-{n + 1}"}],
    }


def run_cases(label: str, url: str, tokens: dict[str, str]) -> None:
    admin = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {tokens['admin']}"}, timeout=60)
    agent = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {tokens['agent']}"}, timeout=60)
    admin.patch("/settings", json={"auto_refresh_minutes": 100000}).raise_for_status()

    times = []
    for _ in range(5):
        start = time.perf_counter()
        admin.post("/batches", json=_batch(100)).raise_for_status()
        times.append(time.perf_counter() - start)
    print(f"[{label}] POST /batches, 100 commands: median {statistics.median(times) * 1e3:.1f} ms")

    claim_body = {"agent_id": "bench", "version": "bench", "jira_user": "bridge-user", "wait": 0}
    round_trips = []
    for _ in range(1000):
        start = time.perf_counter()
        response = agent.post("/agent/claim", json=claim_body)
        if response.status_code == 204:
            break
        command = response.json()
        result: dict[str, Any] = {"changed": []} if command["type"] == "ensure_fields" else {"issues": 0}
        agent.post(
            f"/agent/commands/{command['id']}/report",
            json={"status": "done", "result": result, "jira_calls": 1, "operations": []},
        ).raise_for_status()
        round_trips.append(time.perf_counter() - start)
    ms = sorted(t * 1e3 for t in round_trips)
    print(
        f"[{label}] claim + report round trip: {len(ms)} commands, median {statistics.median(ms):.1f} ms, "
        f"p95 {ms[int(len(ms) * 0.95)]:.1f} ms, {len(ms) / sum(round_trips):.0f} commands/s"
    )

    admin.post("/refresh", json={"keys": [f"AURORA-{n}" for n in range(1, 101)]}).raise_for_status()
    command = agent.post("/agent/claim", json=claim_body).json()
    page_times = []
    for page in range(1, 6):
        issues = [_issue(n) for n in range((page - 1) * 100 + 1, page * 100 + 1)]
        start = time.perf_counter()
        agent.post(
            f"/agent/commands/{command['id']}/pages",
            json={"page": page, "kind": "issues", "issues": issues, "history": []},
        ).raise_for_status()
        page_times.append(time.perf_counter() - start)
    print(f"[{label}] refresh page of 100 issues (upsert): median {statistics.median(page_times) * 1e3:.1f} ms")


async def _create_database(pg_url: str) -> tuple[str, str]:
    name = f"sdlc_hub_bench_{uuid.uuid4().hex[:8]}"
    dsn = pg_url.replace("postgresql+asyncpg://", "postgresql://")
    conn = await asyncpg.connect(dsn)
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    return name, pg_url.rsplit("/", 1)[0] + f"/{name}"


async def _drop_database(pg_url: str, name: str) -> None:
    conn = await asyncpg.connect(pg_url.replace("postgresql+asyncpg://", "postgresql://"))
    await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pg", help="a PostgreSQL URL whose server may create a scratch database")
    args = parser.parse_args()
    with hub(None) as (url, tokens):
        run_cases("sqlite", url, tokens)
    if args.pg:
        name, db_url = asyncio.run(_create_database(args.pg))
        try:
            with hub(db_url) as (url, tokens):
                run_cases("postgresql", url, tokens)
        finally:
            asyncio.run(_drop_database(args.pg, name))


if __name__ == "__main__":
    main()
