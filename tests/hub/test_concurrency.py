"""Two real hub processes on one PostgreSQL database under concurrent claims and batch creations.

Never two commands in flight, no command delivered anew after it was finished, every command delivered,
and the queue's order kept.
"""

from __future__ import annotations

import os
import random
import secrets
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url

from .test_cli import SDLC_HUB, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

FIRST_WAVE = 12
SECOND_WAVE = 12
WORKERS = 4


def _run_admin(url: str, sql: str) -> None:
    """Run one statement from a worker thread with its own event loop (the fixture is synchronous)."""
    box: list[BaseException] = []

    def target() -> None:
        try:
            anyio.run(_admin, url, sql)
        except BaseException as exc:
            box.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if box:
        raise box[0]


async def _admin(url: str, sql: str) -> None:
    parsed = make_url(url)
    conn = await asyncpg.connect(
        host=parsed.host, port=parsed.port, user=parsed.username, password=parsed.password, database=parsed.database
    )
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture
def two_hubs(pg_url: str, tmp_path: Path) -> Iterator[tuple[list[str], str, str, str]]:
    """Two ``sdlc-hub serve`` processes on a database of their own; tokens for the interface and the agent."""
    name = f"sdlc_hub_conc_{secrets.token_hex(4)}"
    _run_admin(pg_url, f'CREATE DATABASE "{name}"')
    url = make_url(pg_url).set(database=name).render_as_string(hide_password=False)
    env = {**os.environ, "SDLC_HUB_DATABASE_URL": url, "SDLC_HUB_DATA_DIR": str(tmp_path / "data")}
    tokens = []
    for token, role in (("planner", "interface"), ("agent", "agent")):
        out = subprocess.run(
            [*SDLC_HUB, "token", "add", token, "--role", role], env=env, capture_output=True, text=True, check=True
        )
        tokens.append(out.stdout.splitlines()[-1])
    ports = [free_port(), free_port()]
    processes = [
        subprocess.Popen(
            [*SDLC_HUB, "serve", "--port", str(p)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        for p in ports
    ]
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    try:
        deadline = time.monotonic() + 30
        for base, process in zip(bases, processes, strict=True):
            while True:
                try:
                    if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert process.poll() is None, "sdlc-hub serve exited"
                if time.monotonic() >= deadline:  # a hang guard, not a measure of speed
                    pytest.fail("sdlc-hub serve did not start")
                time.sleep(0.1)
        yield bases, tokens[0], tokens[1], url
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=10)
        _run_admin(pg_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _batch(n: int) -> dict[str, Any]:
    return {
        "author": "planner",
        "title": f"пакет {n}",
        "commands": [
            {"type": "ensure_fields", "params": {"key": f"AURORA-{n + 1}", "duedate": "2026-10-23"}},
            {"type": "ensure_comment", "params": {"key": f"AURORA-{n + 1}", "marker": "[m]", "body": str(n)}},
        ],
    }


async def test_two_hubs_one_command_in_flight(two_hubs: tuple[list[str], str, str, str]) -> None:
    """Concurrent claims through both hubs and concurrent batch creations keep the queue's rules."""
    bases, interface, agent, url = two_hubs
    clients = [httpx.AsyncClient(base_url=b, timeout=30) for b in bases]
    iface = {"Authorization": f"Bearer {interface}"}
    auth = {"Authorization": f"Bearer {agent}"}
    parsed = make_url(url)
    monitor_conn = await asyncpg.connect(
        host=parsed.host, port=parsed.port, user=parsed.username, database=parsed.database
    )
    rng = random.Random(7)
    deliveries: list[tuple[int, int]] = []
    finished: set[int] = set()
    late: list[int] = []
    max_in_flight = 0
    stop = anyio.Event()

    async def create(n: int) -> int:
        response = await clients[n % 2].post("/batches", json=_batch(n), headers=iface)
        assert response.status_code == 201, response.text
        batch_id: int = response.json()["id"]
        return batch_id

    try:
        async with anyio.create_task_group() as tg:
            for n in range(FIRST_WAVE):
                tg.start_soon(create, n)

        async def monitor() -> None:
            nonlocal max_in_flight
            while not stop.is_set():
                count = await monitor_conn.fetchval("SELECT count(*) FROM command WHERE status = 'claimed'")
                max_in_flight = max(max_in_flight, count)
                await anyio.sleep(0.005)

        async def worker(w: int) -> None:
            idle = 0
            while idle < 3:
                client = clients[rng.randrange(2)]
                # Only a command finished before this claim was sent must never come back; one finished while
                # the claim's answer was on its way is a legitimate re-delivery of the same claimed command.
                finished_before = set(finished)
                response = await client.post(
                    "/agent/claim", json={"agent_id": "agent-1", "version": "1", "wait": 0.5}, headers=auth
                )
                assert response.status_code in (200, 204), response.text
                if response.status_code == 204:
                    idle += 1
                    continue
                idle = 0
                delivery = response.json()
                if delivery["id"] in finished_before:
                    late.append(delivery["id"])
                deliveries.append((delivery["id"], delivery["deliveries"]))
                report = await clients[w % 2].post(
                    f"/agent/commands/{delivery['id']}/report",
                    json={"status": "done", "result": {}, "jira_calls": 1, "operations": []},
                    headers=auth,
                )
                assert report.status_code == 200, report.text
                if report.json()["accepted"]:
                    finished.add(delivery["id"])

        async def second_wave() -> None:
            for n in range(FIRST_WAVE, FIRST_WAVE + SECOND_WAVE):
                await create(n)

        async with anyio.create_task_group() as outer:
            outer.start_soon(monitor)
            async with anyio.create_task_group() as tg:
                for w in range(WORKERS):
                    tg.start_soon(worker, w)
                tg.start_soon(second_wave)
            stop.set()

        rows = await monitor_conn.fetch(
            "SELECT c.id, c.status, c.deliveries, c.error, c.finished_at"
            " FROM command c JOIN batch b ON b.id = c.batch_id ORDER BY b.created_at, b.id, c.seq"
        )
    finally:
        await monitor_conn.close()
        for client in clients:
            await client.aclose()

    assert max_in_flight <= 1
    assert late == []
    assert len(rows) == (FIRST_WAVE + SECOND_WAVE) * 3
    # Workers share one agent_id and claim while another holds a delivery: the hub re-delivers that command,
    # and fails it at the delivery limit — never a second command in flight.
    assert {r["status"] for r in rows} <= {"done", "failed"}
    assert all(r["deliveries"] <= 3 for r in rows)
    first = [command_id for command_id, n in deliveries if n == 1]
    assert len(first) == len(set(first)) == len(rows)
    # Every command finished before the next one in queue order was first delivered.
    by_finish = sorted(rows, key=lambda r: r["finished_at"])
    assert [r["id"] for r in by_finish] == [r["id"] for r in rows]


async def test_two_hubs_one_key_one_batch(two_hubs: tuple[list[str], str, str, str]) -> None:
    """Sixteen requests with one Idempotency-Key, at once through both hub processes: one batch, every answer its
    id (one 201, the rest 200 replayed); the same key with another body through either hub: 422."""
    bases, interface, _, url = two_hubs
    headers = {"Authorization": f"Bearer {interface}", "Idempotency-Key": "one-plan"}
    answers: list[httpx.Response] = []
    clients = [httpx.AsyncClient(base_url=b, timeout=30) for b in bases]
    try:

        async def send(n: int) -> None:
            answers.append(await clients[n % 2].post("/batches", json=_batch(0), headers=headers))

        async with anyio.create_task_group() as tg:
            for n in range(16):
                tg.start_soon(send, n)
        refused = [await client.post("/batches", json=_batch(1), headers=headers) for client in clients]
    finally:
        for client in clients:
            await client.aclose()
    assert sorted(a.status_code for a in answers) == [200] * 15 + [201]
    assert {a.headers.get("Idempotent-Replayed") for a in answers if a.status_code == 200} == {"true"}
    [batch_id] = {a.json()["id"] for a in answers}
    detail = f"ключ идемпотентности уже использован для другого пакета: {batch_id}"
    assert [(r.status_code, r.json()["detail"]) for r in refused] == [(422, detail)] * 2
    parsed = make_url(url)
    conn = await asyncpg.connect(host=parsed.host, port=parsed.port, user=parsed.username, database=parsed.database)
    try:
        assert await conn.fetchval("SELECT count(*) FROM batch") == 1
    finally:
        await conn.close()
