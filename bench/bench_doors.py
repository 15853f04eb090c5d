"""Issue 34's costs on a real ``sdlc-hub serve`` process: what an ``Idempotency-Key`` adds to ``POST /batches``
(a 1 000-command batch), and the hub's other answers while 100 clients follow a batch with one long poll each.

Run: ``PYTHONPATH=src python bench/bench_doors.py [--pg URL] [--samples 15]``. SQLite in a temporary data dir
unless ``--pg`` names a PostgreSQL server (a database of its own is made there and dropped). Prints one line per
case. Measurements, not tests.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy.engine import make_url

from loopback.stack import add_token, start_hub
from tests.pg_admin import admin_sql

COMMANDS = 1000
FOLLOWERS = 100


def _big_batch(n: int) -> dict[str, Any]:
    commands = [
        {"type": "ensure_fields", "params": {"key": f"AURORA-{i}", "duedate": "2026-10-23", "summary": f"s{n}"}}
        for i in range(1, COMMANDS + 1)
    ]
    return {"author": "bench", "title": f"bench {n}", "commands": commands}


def _p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def _creation(url: str, auth: dict[str, str], samples: int) -> None:
    """``POST /batches`` of 1 000 commands without and with a key, interleaved."""
    plain: list[float] = []
    keyed: list[float] = []
    with httpx.Client(base_url=url, headers=auth, timeout=120) as client:
        for n in range(samples):
            for times, headers in ((plain, {}), (keyed, {"Idempotency-Key": secrets.token_hex(16)})):
                body = _big_batch(len(plain) + len(keyed) + 1000 * n)
                started = time.perf_counter()
                response = client.post("/batches", json=body, headers=headers)
                times.append(time.perf_counter() - started)
                assert response.status_code == 201, response.text
            replay = client.post("/batches", json=body, headers=headers)
            assert replay.status_code == 200
    a, b = statistics.median(plain), statistics.median(keyed)
    print(
        f"POST /batches, {COMMANDS} commands: median {a * 1000:.1f} ms without a key, {b * 1000:.1f} ms with one "
        f"(+{(b - a) * 1000:.1f} ms); p95 {_p95(plain) * 1000:.1f} / {_p95(keyed) * 1000:.1f} ms; n={samples}"
    )


async def _key_check_alone(samples: int) -> None:
    """What the key adds inside a request, in process: the body's fingerprint, and taking and binding the key in the
    transaction that stores the batch (the statements only: the commit is the batch's)."""
    from hub_app.runtime.hub import open_hub  # noqa: PLC0415
    from reconcile.queue import idempotency  # noqa: PLC0415

    body = _big_batch(0)
    prints = []
    for _ in range(samples):
        started = time.perf_counter()
        idempotency.fingerprint("batch", body)
        prints.append(time.perf_counter() - started)
    with tempfile.TemporaryDirectory() as work:
        hub = await open_hub(data_dir=Path(work))
        takes = []
        try:
            async with hub.unit() as unit:
                for n in range(samples):
                    started = time.perf_counter()
                    await unit.db.idempotency.take(
                        token_name="bench",
                        key=f"k{n}",
                        fingerprint="0" * 64,
                        now=unit.now,
                        expired_before=idempotency.expired_before(unit.now),
                    )
                    takes.append(time.perf_counter() - started)
        finally:
            await hub.close()
    print(
        f"the key alone ({COMMANDS} commands): fingerprint median {statistics.median(prints) * 1000:.2f} ms, "
        f"taking the key median {statistics.median(takes) * 1000:.2f} ms (SQLite); n={samples}"
    )


async def _reads(client: httpx.AsyncClient, batch_id: int, count: int) -> list[float]:
    seconds = []
    for n in range(count):
        started = time.perf_counter()
        path = f"/batches/{batch_id}" if n % 2 else "/agent-status"
        response = await client.get(path)
        seconds.append(time.perf_counter() - started)
        assert response.status_code == 200, response.text
    return seconds


async def _followers(url: str, auth: dict[str, str], reads: int) -> None:
    """Other answers with no follower, then with :data:`FOLLOWERS` long polls waiting on one batch."""
    limits = httpx.Limits(max_connections=FOLLOWERS + 10, max_keepalive_connections=FOLLOWERS + 10)
    async with httpx.AsyncClient(base_url=url, headers=auth, timeout=120, limits=limits) as client:
        body = {"author": "bench", "title": "followed", "commands": [_big_batch(0)["commands"][0]]}
        batch_id = (await client.post("/batches", json=body)).json()["id"]
        stamp = (await client.get(f"/batches/{batch_id}")).headers["Batch-State"]
        alone = await _reads(client, batch_id, reads)
        waits = [
            asyncio.create_task(client.get(f"/batches/{batch_id}", params={"wait": 55, "since": stamp}))
            for _ in range(FOLLOWERS)
        ]
        await asyncio.sleep(2)  # every follower is in its wait
        crowded = await _reads(client, batch_id, reads)
        started = time.perf_counter()
        await client.post(f"/batches/{batch_id}/cancel", json={})
        answered = await asyncio.gather(*waits)
        woke = time.perf_counter() - started
        assert {r.status_code for r in answered} == {200}
    print(
        f"GET /batches/{{id}} and /agent-status: p95 {_p95(alone) * 1000:.1f} ms alone, "
        f"{_p95(crowded) * 1000:.1f} ms with {FOLLOWERS} followers waiting "
        f"(median {statistics.median(crowded) * 1000:.1f} ms, n={reads}); "
        f"a cancel answered all {FOLLOWERS} followers in {woke * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pg", help="a PostgreSQL server's URL (postgresql+asyncpg://…)")
    parser.add_argument("--samples", type=int, default=15)
    parser.add_argument("--reads", type=int, default=200)
    args = parser.parse_args()
    url = None
    if args.pg:
        name = f"sdlc_hub_bench_{secrets.token_hex(4)}"
        asyncio.run(admin_sql(args.pg, f'CREATE DATABASE "{name}"'))
        url = make_url(args.pg).set(database=name).render_as_string(hide_password=False)
    with tempfile.TemporaryDirectory() as work:
        data = Path(work) / "data"
        token = add_token(data, "bench", "interface", database_url=url)
        proc, hub = start_hub(data, Path(work), database_url=url)
        try:
            asyncio.run(_key_check_alone(50))
            print(f"hub on {'PostgreSQL' if url else 'SQLite'}")
            auth = {"Authorization": f"Bearer {token}"}
            _creation(hub, auth, args.samples)
            asyncio.run(_followers(hub, auth, args.reads))
        finally:
            proc.stop()
            if args.pg:
                asyncio.run(admin_sql(args.pg, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


if __name__ == "__main__":
    main()
