"""The Jira simulator alone serving every search page of a full refresh, at 1k / 5k / 10k issues.

Run: ``python bench/bench_sim.py [--sizes 1000,5000,10000] [--runs 5]``. For each size the simulator holds a
generated seed (``jira_sim.generated``) and answers the refresh's query (``project = AURORA AND labels in
("AWPCA", "STOCKS_DRRK")``, the mirror's fields, 100 a page) page by page:

- ``in-process``: through ``httpx.ASGITransport`` (no sockets): the simulator's own cost;
- ``http``: over loopback HTTP (uvicorn in a thread) with an httpx client, as the agent reads it;
- ``jira package``: the ``jira`` package's ``search_issues(maxResults=False)`` reading the same issues over the
  same server, a third-party floor;
- ``agent's refresh``: the agent's own refresh of the same query (the refresh executor driven by
  :func:`agent_app.drive.drive` over ``JiraHttp``, in process, pages handed to a callback that keeps nothing),
  and its ratio to the in-process walk: what our code adds on top of the simulator. It reads the neighbours of
  linked issues outside the query too (counted).

Prints the median of ``--runs`` walks per case (each walk on a fresh store version, so its first page evaluates
the query). Measurements, not tests.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import httpx
from jira import JIRA

from adapters.clock import FakeClock
from adapters.jira_http import JiraHttp
from agent_app.drive import Alone, drive
from jira_sim import Simulator
from jira_sim.generated import generated_seed
from jira_sim.serving import serve_in_thread
from reconcile.config.settings import Settings
from reconcile.executors import Delivery, Page
from reconcile.jira.model import mirror_fields
from reconcile.queue.history import base_jql
from reconcile.types.binding import executor_for

REFERENCE_NOW = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)
JQL = base_jql("AURORA", ["AWPCA", "STOCKS_DRRK"]) or ""
FIELDS = mirror_fields(Settings())
PAGE = 100
HEADERS = {"Authorization": "Bearer bench"}


def _fresh_version(sim: Simulator) -> None:
    """A change no search reads (a comment), so the next walk evaluates its query again, as after a write."""
    sim.store.add_comment("AURORA-1", {"body": "bench"}, "bridge-user")


async def _walk_in_process(sim: Simulator) -> int:
    transport = httpx.ASGITransport(app=sim.asgi)
    async with httpx.AsyncClient(transport=transport, base_url="http://jira.test", headers=HEADERS) as client:
        return await _walk_async(client)


async def _walk_async(client: httpx.AsyncClient) -> int:
    start, read = 0, 0
    while True:
        body = {"jql": JQL, "startAt": start, "maxResults": PAGE, "fields": FIELDS}
        page = (await client.post("/rest/api/2/search", json=body)).raise_for_status().json()
        read += len(page["issues"])
        start += PAGE
        if start >= page["total"]:
            return read


def _walk_http(client: httpx.Client) -> int:
    start, read = 0, 0
    while True:
        body = {"jql": JQL, "startAt": start, "maxResults": PAGE, "fields": FIELDS}
        page = client.post("/rest/api/2/search", json=body).raise_for_status().json()
        read += len(page["issues"])
        start += PAGE
        if start >= page["total"]:
            return read


async def drive_refresh(sim: Simulator, jql: str, on_page: Callable[[Page], Awaitable[None]]) -> None:
    """The agent's refresh of ``jql`` against ``sim`` in process: the refresh executor driven by the agent's driver
    over ``JiraHttp``, each page handed to ``on_page``."""
    jira = JiraHttp.connect(
        "http://jira.test", token="bench", clock=FakeClock(), transport=httpx.ASGITransport(app=sim.asgi)
    )
    delivery = Delivery(id=1, type="refresh", params={"jql": jql}, pause_seconds=0, context=Settings().agent_context())

    try:
        executor = executor_for(delivery, await jira.exec_context())
        outcome = await drive(executor, jira, Alone(jira=jira, on_page=on_page))
    finally:
        await jira.aclose()
    if outcome.report.status != "done":
        raise RuntimeError(f"the refresh ended {outcome.report.status}: {outcome.report.error}")


async def _agent_refresh(sim: Simulator) -> tuple[int, int]:
    """The agent's refresh of the same query: the issues of its query pages, and the neighbours it read."""
    read = {"issues": 0, "neighbours": 0, "history": 0}

    async def on_page(page: Page) -> None:
        read[page.kind] += len(page.issues)

    await drive_refresh(sim, JQL, on_page)
    return read["issues"], read["neighbours"]


def _median(runs: int, sim: Simulator, walk: Callable[[], int], expected: int) -> float:
    times = []
    for _ in range(runs):
        _fresh_version(sim)
        began = time.perf_counter()
        read = walk()
        times.append(time.perf_counter() - began)
        if read != expected:
            raise RuntimeError(f"read {read} issues, expected {expected}")
    return statistics.median(times)


def bench(size: int, runs: int) -> None:
    sim = Simulator(generated_seed(size), clock=lambda: REFERENCE_NOW)
    gc.freeze()  # as jira-sim does after loading its seed: the full GC passes would otherwise grow with the heap
    expected = len(sim.store.search(JQL, "bridge-user").keys)
    pages = -(-expected // PAGE)
    in_process = _median(runs, sim, lambda: asyncio.run(_walk_in_process(sim)), expected)
    with serve_in_thread(sim) as url:
        with httpx.Client(base_url=url, headers=HEADERS, timeout=60) as client:
            over_http = _median(runs, sim, lambda: _walk_http(client), expected)
        jira = JIRA(server=url, token_auth="bench")
        try:
            package = _median(
                runs,
                sim,
                lambda: len(jira.search_issues(JQL, maxResults=False, fields=",".join(FIELDS))),
                expected,
            )
        finally:
            jira.close()
    neighbours = asyncio.run(_agent_refresh(sim))[1]
    agent = _median(runs, sim, lambda: asyncio.run(_agent_refresh(sim))[0], expected)
    print(
        f"{size:>6} issues, {expected} matched, {pages} pages: in-process {in_process:.2f} s "
        f"({in_process / pages * 1e3:.1f} ms a page), http {over_http:.2f} s, jira package {package:.2f} s, "
        f"agent's refresh {agent:.2f} s = {agent / in_process:.2f} × in-process ({neighbours} neighbours read too)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,10000", help="issue counts, comma-separated")
    parser.add_argument("--runs", type=int, default=5, help="walks per case; the median is printed")
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        bench(size, args.runs)


if __name__ == "__main__":
    main()
