"""Long polls on PostgreSQL: the wake-up across two hub processes before and after a PostgreSQL restart, and an
interface read under a crowd of concurrent claims.

Run: ``python bench/bench_longpoll.py [--claims 2000] [--samples 10]``. Makes a private PostgreSQL server
(:mod:`loopback.postgres`, never the shared one), starts two ``sdlc-hub serve`` processes on it and measures
with real httpx clients; prints one line per case. ``--hub-src`` runs the hubs from another checkout's ``src``
(the A/B in bench/RESULTS.md). Measurements, not tests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from loopback.postgres import Cluster, private_cluster
from loopback.stack import add_token, start_hub

BATCH = {
    "author": "bench",
    "title": "wake-up",
    "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1", "duedate": "2026-10-23"}}],
}


async def _wake_once(one: str, other: str, tokens: dict[str, str], agent: str) -> float:
    """Seconds from a batch's 201 on ``one`` to the delivery of a claim waiting on ``other``."""
    agent_auth = {"Authorization": f"Bearer {tokens['agent']}"}
    interface = {"Authorization": f"Bearer {tokens['interface']}"}
    async with httpx.AsyncClient(timeout=60) as client:
        claim = asyncio.create_task(
            client.post(
                f"{other}/agent/claim", json={"agent_id": agent, "version": "1", "wait": 20}, headers=agent_auth
            )
        )
        while True:  # its first look has committed: only a wake-up answers it before its 5 s re-poll
            status = (await client.get(f"{one}/agent-status", headers=interface)).json()
            if status.get("agent_id") == agent and status.get("last_claim_at"):
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        created = await client.post(f"{one}/batches", json=BATCH, headers=interface)
        at = time.perf_counter()
        delivery = await claim
        woke = time.perf_counter() - at
        assert created.status_code == 201 and delivery.status_code == 200, (created.text, delivery.status_code)
        await _finish(client, one, agent_auth, agent, delivery.json())
        return woke


async def _finish(client: httpx.AsyncClient, url: str, auth: dict[str, str], agent: str, first: dict[str, Any]) -> None:
    """Report the delivered command done, then claim and report its tail refresh: the queue is empty again."""
    report: dict[str, Any] = {"status": "done", "result": {"changed": []}, "jira_calls": 1, "operations": []}
    await client.post(f"{url}/agent/commands/{first['id']}/report", json=report, headers=auth)
    tail = (await client.post(f"{url}/agent/claim", json={"agent_id": agent, "wait": 0}, headers=auth)).json()
    report["result"] = {"issues": 0, "neighbours": 0, "boards": {}}
    await client.post(f"{url}/agent/commands/{tail['id']}/report", json=report, headers=auth)


def _wakeups(one: str, other: str, tokens: dict[str, str], samples: int) -> list[float]:
    return [asyncio.run(_wake_once(one, other, tokens, "bench-agent")) for _ in range(samples)]


def _reads(url: str, interface: dict[str, str], count: int) -> tuple[list[float], list[int]]:
    """``GET /batches`` ``count`` times on a client of its own (a thread), as the page or a script would."""
    seconds, codes = [], []
    with httpx.Client(timeout=120, headers=interface) as client:
        for _ in range(count):
            started = time.perf_counter()
            codes.append(client.get(f"{url}/batches").status_code)
            seconds.append(time.perf_counter() - started)
            time.sleep(0.2)
    return seconds, codes


async def _crowd(url: str, tokens: dict[str, str], claims: int) -> tuple[list[float], dict[int, int]]:
    """``claims`` concurrent long polls of one agent token; the interface's reads meanwhile, and every answer."""
    agent_auth = {"Authorization": f"Bearer {tokens['agent']}"}
    interface = {"Authorization": f"Bearer {tokens['interface']}"}
    codes: dict[int, int] = {}
    limits = httpx.Limits(max_connections=claims, max_keepalive_connections=claims)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:

        async def claim(n: int) -> None:
            body = {"agent_id": "crowd", "instance": "i" if n % 2 else f"copy-{n}", "wait": 10}
            try:
                status = (await client.post(f"{url}/agent/claim", json=body, headers=agent_auth)).status_code
            except httpx.TransportError:
                status = 0
            codes[status] = codes.get(status, 0) + 1

        tasks = [asyncio.create_task(claim(n)) for n in range(claims)]
        await asyncio.sleep(0.5)
        reads, read_codes = await asyncio.to_thread(_reads, url, interface, 10)
        await asyncio.gather(*tasks)
    for code in read_codes:
        codes[code] = codes.get(code, 0) + 1
    return reads, codes


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    return f"median {statistics.median(ordered) * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms"


def _until_listening(log: Path, count: int, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and log.read_text(encoding="utf-8").count("listen_restored") >= count:
            return True
        time.sleep(0.05)
    return False


def run(cluster: Cluster, work: Path, *, claims: int, samples: int) -> None:
    data = work / "data"
    tokens = {role: add_token(data, f"bench-{role}", role, database_url=cluster.url) for role in ("agent", "interface")}
    first, one = start_hub(data, work, database_url=cluster.url, name="hub-1", extra=["--log-format", "json"])
    second, other = start_hub(data, work, database_url=cluster.url, name="hub-2", extra=["--log-format", "json"])
    try:
        print(f"wake-up across two hubs, before a restart: {_ms(_wakeups(one, other, tokens, samples))}")
        cluster.restart()
        for url in (one, other):
            deadline = time.monotonic() + 30
            while httpx.get(f"{url}/readyz", timeout=5).status_code != 200 and time.monotonic() < deadline:
                time.sleep(0.05)
        # This branch logs listen_restored; older code never listens again (the wait then gives up after 5 s).
        restored = _until_listening(second.log_path, 1, timeout=5)
        print(f"  LISTEN restored on the waiting hub: {restored}")
        print(f"wake-up across two hubs, after a restart: {_ms(_wakeups(one, other, tokens, samples))}")
        reads, codes = asyncio.run(_crowd(one, tokens, claims))
        print(
            f"{claims} concurrent claims: interface reads {_ms(reads)}; answers by status {dict(sorted(codes.items()))}"
        )
        print("  reads (s):", " ".join(f"{r:.2f}" for r in reads))
    finally:
        first.stop()
        second.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--hub-src", type=Path, help="the src directory the hub processes import (default: this one)")
    args = parser.parse_args()
    if args.hub_src is not None:
        os.environ["PYTHONPATH"] = str(args.hub_src.resolve())
    with private_cluster() as cluster, tempfile.TemporaryDirectory() as tmp:
        run(cluster, Path(tmp), claims=args.claims, samples=args.samples)


if __name__ == "__main__":
    main()
