"""A fresh mirror at a small Jira load (issue 26): the four figures, each next to its floor.

Run: ``python bench/bench_fresh.py [--only polling,bucket,edits,burst] [--size 10000]``.

- ``polling``: Jira calls an hour to keep a ``--size``-issue mirror fresh while nothing changes. The hub's own
  decision (:func:`reconcile.queue.auto_refresh.decide_auto_refresh`, default settings: ``auto_refresh_minutes`` 15,
  ``full_refresh_hours`` 24) is asked at every empty claim (every 25 s) over two simulated days; each refresh it
  creates is delivered with the parameters the hub adds (``history`` from the journal mark) and run by the agent's
  refresh executor through its driver and ``JiraHttp`` against the in-process simulator holding the generated
  issues: every call counted. The second day is the figure (one full refresh and its change-only ones). Before:
  the same full refresh every 15 minutes.
- ``bucket``: a full refresh of ``--size`` issues under Jira's token bucket (the simulator's, real time): 0 × 429
  and the wall time against the bucket's rate (one token every 1 / fill s; ``bench_bucket.py`` at issue 32's sizes).
- ``edits`` (processes: ``jira-sim``, ``sdlc-hub serve``, ``sdlc-agent run``): a person's edit until the mirror
  shows it, with the listener (latency percentiles, Jira calls of the agent meanwhile) and without it (change-only
  polling every 3 s).
- ``burst`` (processes): 1 000 signed deliveries in 10 s to the agent's listener — the simulator's own payloads of
  1 000 edits, captured in process first, so that the burst's rate is the listener's test and not the simulator's
  edit rate: how many reached the hub, the agent's memory over the burst; and the hub's ingest of events against
  its ingest of refresh pages (100 records a request, straight to the hub).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import concurrent.futures
import math
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from adapters.clock import FakeClock, SystemClock
from adapters.jira_http import JiraHttp
from agent_app.drive import Alone, drive
from jira_sim import Simulator
from jira_sim.generated import generated_seed
from loopback.stack import WEBHOOK_SECRET, Stack, checked, start_stack
from reconcile.config.settings import Settings
from reconcile.executors import Delivery, Page
from reconcile.jira.webhook_registration import registration
from reconcile.queue.auto_refresh import AutoRefresh, decide_auto_refresh
from reconcile.queue.history import JournalMark, base_jql, history_param
from reconcile.types.binding import executor_for

REFERENCE_NOW = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)
BASE = base_jql("AURORA", ["AWPCA", "STOCKS_DRRK"]) or ""
CLAIM_EVERY = timedelta(seconds=25)
HEADERS = {"Authorization": "Bearer bench"}


async def _refresh(sim: Simulator, params: dict[str, Any], clock: Any = None) -> tuple[int, float]:
    """The agent's refresh with ``params`` against ``sim``: its Jira calls and wall seconds."""
    jira = JiraHttp.connect(
        "http://jira.test", token="bench", clock=clock or FakeClock(), transport=httpx.ASGITransport(app=sim.asgi)
    )
    delivery = Delivery(id=1, type="refresh", params=params, pause_seconds=0, context=Settings().agent_context())

    async def keep_nothing(page: Page) -> None:
        return None

    try:
        executor = executor_for(delivery, await jira.exec_context())
        began = time.perf_counter()
        outcome = await drive(executor, jira, Alone(jira=jira, on_page=keep_nothing))
        wall = time.perf_counter() - began
    finally:
        await jira.aclose()
    if outcome.report.status != "done":
        raise RuntimeError(f"refresh {outcome.report.status}: {outcome.report.error}")
    return outcome.jira_calls, wall


def polling(size: int) -> None:
    now = [REFERENCE_NOW]
    sim = Simulator(generated_seed(size), clock=lambda: now[0])
    settings = Settings()
    last_full: datetime | None = None
    last_base: datetime | None = None
    mark: JournalMark | None = None
    by_day: list[dict[str, list[int]]] = [{"full": [], "changes": []}, {"full": [], "changes": []}]
    moment = REFERENCE_NOW
    while moment < REFERENCE_NOW + timedelta(days=2):
        kind = decide_auto_refresh(
            queue_empty=True,
            base_jql=BASE,
            last_full_refresh_started_at=last_full,
            last_base_refresh_started_at=last_base,
            mark=mark,
            now=moment,
            auto_refresh_minutes=settings.auto_refresh_minutes,
            full_refresh_hours=settings.full_refresh_hours,
        )
        if kind is not AutoRefresh.NONE:
            full = kind is AutoRefresh.FULL
            params: dict[str, Any] = {"jql": BASE} if full else {"jql": BASE, "changes": True}
            history = history_param(full=full, has_base_jql=True, mark=mark, base_jql=BASE)
            now[0] = moment
            calls, _ = asyncio.run(_refresh(sim, {**params, "boards": [], "history": history}))
            day = by_day[(moment - REFERENCE_NOW) // timedelta(days=1)]
            day["full" if full else "changes"].append(calls)
            last_full = moment if full else last_full
            last_base, mark = moment, JournalMark(started_at=moment, query=BASE)
        moment += CLAIM_EVERY
    steady = by_day[1]
    total = sum(steady["full"]) + sum(steady["changes"])
    full_calls = steady["full"][0]
    floor = math.ceil(size / 100)
    print(
        f"polling, {size} issues, nothing changing, default settings: day 2 = {len(steady['full'])} full refresh "
        f"({full_calls} calls: floor ⌈N/100⌉ = {floor} search pages + neighbours + journal) and "
        f"{len(steady['changes'])} change-only ({sorted(set(steady['changes']))} calls each): "
        f"{total} calls = {total / 24:.2f} calls/h (goal ≤ 10); before: a full refresh every 15 min = "
        f"{full_calls * 4} calls/h"
    )


def bucket(size: int, fill: int, most: int) -> None:
    sim = Simulator(generated_seed(size), clock=lambda: REFERENCE_NOW)
    _, unlimited = asyncio.run(_refresh(sim, {"jql": BASE}, clock=SystemClock()))
    sim.set_rate_limit(fill, most)
    sim.clear_calls()
    calls, wall = asyncio.run(_refresh(sim, {"jql": BASE}, clock=SystemClock()))
    refused = sum(1 for c in sim.calls if c["status"] == 429)
    rate = fill  # per second: Jira's tokens come one at a time, every 1 / fill s
    floor = max(len(sim.calls) - most, 0) / rate
    print(
        f"bucket fill {fill}/s max {most}: full refresh of {size} issues, {calls} calls ({len(sim.calls)} with the"
        f" agent's own reads), {refused} × 429, wall {wall:.2f} s (without a limit {unlimited:.2f} s); floor"
        f" (calls − the full bucket) / {rate} a second = {floor:.2f} s; ratio {wall / floor:.2f}"
    )


def _edit(stack: Stack, key: str, summary: str) -> None:
    person = base64.b64encode(b"ivanov:pw").decode()
    with httpx.Client(base_url=stack.sim_url, timeout=30) as jira:
        fields = {"fields": {"summary": summary}}
        answer = jira.put(f"/rest/api/2/issue/{key}", json=fields, headers={"Authorization": f"Basic {person}"})
    answer.raise_for_status()


def _shows(hub: httpx.Client, key: str, summary: str, timeout: float) -> float:
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        answer = hub.get(f"/issues/{key}")
        if answer.status_code == 200 and answer.json()["summary"] == summary:
            return time.monotonic() - began
        time.sleep(0.01)
    raise RuntimeError(f"{key} did not show {summary!r} within {timeout} s")


def _ready(stack: Stack) -> None:
    with stack.client() as hub:
        began = time.monotonic()
        while hub.get("/issues/AURORA-1533").status_code != 200:
            if time.monotonic() - began > 120:
                raise RuntimeError("the first refresh did not come")
            time.sleep(0.1)
        time.sleep(1.0)  # the first refresh's report and journal mark after its pages


def _keys(stack: Stack) -> list[str]:
    with stack.client() as hub:
        return [i["key"] for i in checked(hub.get("/issues", params={"limit": 100}))["items"]]


def edits(work: Path, count: int) -> None:
    stack = start_stack(work / "with", claim_wait_seconds=1.0)
    stack.webhooks = True
    try:
        stack.start_agent()
        _ready(stack)
        keys = [k for k in _keys(stack) if k.startswith("AURORA-")]
        with stack.sim() as sim:
            checked(sim.delete("/_sim/calls"))
        latencies = []
        with stack.client() as hub:
            for n in range(count):
                key, summary = keys[n % len(keys)], f"Правка {n}"
                began = time.monotonic()
                _edit(stack, key, summary)
                latencies.append(time.monotonic() - began + _shows(hub, key, summary, 30))
        with stack.sim() as sim:
            agent_calls = [c for c in checked(sim.get("/_sim/calls")) if c["method"] != "PUT"]
        latencies.sort()
        p99 = latencies[min(len(latencies) - 1, math.ceil(0.99 * len(latencies)) - 1)]
        print(
            f"edits with webhooks: {count} edits, edit → mirror p50 {statistics.median(latencies) * 1e3:.0f} ms, "
            f"p99 {p99 * 1e3:.0f} ms, max {latencies[-1] * 1e3:.0f} ms (goal p99 ≤ 5 s); "
            f"Jira calls of the agent meanwhile: {len(agent_calls)}"
        )
    finally:
        stack.stop()
    stack = start_stack(work / "without", claim_wait_seconds=1.0)
    try:
        stack.start_agent()
        _ready(stack)
        with stack.client("admin") as admin:
            checked(admin.patch("/settings", json={"auto_refresh_minutes": 0.05}))
        keys = [k for k in _keys(stack) if k.startswith("AURORA-")]
        latencies = []
        with stack.client() as hub:
            for n in range(count // 10):
                time.sleep(0.37 * (n % 7))  # edits at different phases of the polling interval
                key, summary = keys[n % len(keys)], f"Без событий {n}"
                began = time.monotonic()
                _edit(stack, key, summary)
                latencies.append(time.monotonic() - began + _shows(hub, key, summary, 60))
        print(
            f"edits without webhooks (auto_refresh_minutes 0.05 = 3 s): {len(latencies)} edits, edit → mirror "
            f"median {statistics.median(latencies):.2f} s, max {max(latencies):.2f} s = "
            f"{max(latencies) / 3:.2f} × the interval (goal: within one interval plus the refresh's run)"
        )
    finally:
        stack.stop()


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _counted(stack: Stack) -> int:
    text = httpx.get(f"{stack.hub_url}/metrics", timeout=30).text
    return sum(
        int(float(line.rsplit(" ", 1)[1]))
        for line in text.splitlines()
        if line.startswith("sdlc_hub_webhook_events_total{")
    )


def _captured(count: int) -> list[tuple[bytes, str]]:
    """The simulator's own deliveries of ``count`` edits of the sample's AURORA issues (Jira 10's webhook, signed
    with the stack's secret): their bodies and signatures, captured in process."""
    captured: list[tuple[bytes, str]] = []

    def receive(request: httpx.Request) -> httpx.Response:
        captured.append((request.content, request.headers["x-hub-signature"]))
        return httpx.Response(204)

    sim = Simulator(webhook_transport=httpx.MockTransport(receive))
    found = registration(name="bench", url="http://agent/jira/webhook", projects=["AURORA"], secret=WEBHOOK_SECRET,
                         jira_major=10)  # fmt: skip

    async def edit_all() -> None:
        transport = httpx.ASGITransport(app=sim.asgi)
        async with httpx.AsyncClient(transport=transport, base_url="http://jira.test", headers=HEADERS) as jira:
            (await jira.post(found.path, json=found.body)).raise_for_status()
            keys = sim.store.search("project = AURORA", "bridge-user").keys
            for n in range(count):
                fields = {"fields": {"summary": f"Всплеск {n}"}}
                (await jira.put(f"/rest/api/2/issue/{keys[n % len(keys)]}", json=fields)).raise_for_status()
            await sim.settle_webhooks()
        await sim.aclose()

    asyncio.run(edit_all())
    return captured


def burst(work: Path, count: int, seconds: float) -> None:
    deliveries = _captured(count)
    stack = start_stack(work / "burst", claim_wait_seconds=1.0)
    stack.webhooks = True
    try:
        agent = stack.start_agent()
        _ready(stack)
        url = stack.listeners["sdlc-agent"]
        pid = agent.popen.pid
        rss = [_rss_kib(pid)]
        sampling = threading.Event()

        def sample() -> None:
            while not sampling.wait(0.2):
                rss.append(_rss_kib(pid))

        clients = threading.local()

        def deliver(body: bytes, signature: str) -> int:
            if not hasattr(clients, "http"):
                clients.http = httpx.Client(timeout=60)  # one connection a sender, as Jira's pool keeps them
            headers = {"X-Hub-Signature": signature, "Content-Type": "application/json; charset=UTF-8"}
            return int(clients.http.post(url, content=body, headers=headers).status_code)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        began = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
            futures = []
            for n, (body, signature) in enumerate(deliveries):
                time.sleep(max(began + n * seconds / count - time.monotonic(), 0))
                futures.append(pool.submit(deliver, body, signature))
            statuses = [future.result() for future in futures]
        sent = time.monotonic() - began
        while _counted(stack) < count and time.monotonic() - began < 120:
            time.sleep(0.05)
        relayed = time.monotonic() - began
        sampling.set()
        sampler.join()
        print(
            f"burst: {count} signed in-policy deliveries (the simulator's own payloads) posted in {sent:.1f} s, "
            f"{statuses.count(204)} answered 204; {_counted(stack)} events reached the hub by {relayed:.1f} s "
            f"(none lost: {_counted(stack) == count}); agent RSS {rss[0] // 1024} MiB before, peak "
            f"{max(rss) // 1024} MiB, {rss[-1] // 1024} MiB after"
        )
    finally:
        stack.stop()
    _ingest(work / "ingest")


def _record(n: int) -> dict[str, Any]:
    return {
        "key": f"AURORA-{n}",
        "summary": f"Задача {n}",
        "description": None,
        "status": "Разработка",
        "status_category": "indeterminate",
        "priority": "Major",
        "duedate": None,
        "planned_start": None,
        "planned_end": None,
        "labels": ["AWPCA"],
        "epic_key": None,
        "assignee": None,
        "reporter": "ivanov",
        "created": "2026-10-20T09:00:00Z",
        "updated": f"2026-10-2{1 + n % 2}T09:00:00Z",
        "sprint": None,
        "links": [],
    }


def _ingest(work: Path, requests: int = 20) -> None:
    """The hub's ingest: 100 events a ``POST /agent/events`` against 100 issues a refresh page."""
    stack = start_stack(work, claim_wait_seconds=1.0)
    try:
        with stack.client("agent") as agent, stack.client() as interface:
            refresh = checked(interface.post("/refresh", json={"keys": ["AURORA-1"]}))
            command = checked(agent.post("/agent/claim", json={"agent_id": "bench", "wait": 0}))
            assert command["id"] == refresh["commands"][0]["id"]
            rates = {}
            for what in ("pages", "events"):
                began = time.perf_counter()
                for r in range(requests):
                    records = [_record(r * 100 + i + 1) for i in range(100)]
                    if what == "pages":
                        body = {"page": r + 1, "kind": "issues", "issues": records, "history": []}
                        checked(agent.post(f"/agent/commands/{command['id']}/pages", json=body))
                    else:
                        events = [
                            {"event": "jira:issue_updated", "key": i["key"], "at": i["updated"], "issue": i}
                            for i in records
                        ]
                        checked(agent.post("/agent/events", json={"events": events}))
                rates[what] = requests * 100 / (time.perf_counter() - began)
        print(
            f"hub ingest, 100 records a request: events {rates['events']:.0f}/s, refresh pages "
            f"{rates['pages']:.0f} issues/s (events / pages = {rates['events'] / rates['pages']:.2f}; goal ≥ 1)"
        )
    finally:
        stack.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default="polling,bucket,edits,burst")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--edits", type=int, default=100)
    args = parser.parse_args()
    only = set(args.only.split(","))
    if "polling" in only:
        polling(args.size)
    if "bucket" in only:
        bucket(args.size, 20, 10)
        bucket(args.size, 20, 30)
    with tempfile.TemporaryDirectory() as work:
        if "edits" in only:
            edits(Path(work), args.edits)
        if "burst" in only:
            burst(Path(work), 1000, 10.0)


if __name__ == "__main__":
    main()
