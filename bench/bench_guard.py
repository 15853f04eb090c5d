"""Issue 31's guard measured: what the path, board and field checks cost (DESIGN.md 5.7).

Run: ``PYTHONPATH=src python bench/bench_guard.py``. The pure checks are timed (median of repeated runs); the Jira
calls of refreshes and sprint moves are counted through the agent's real Jira client against the in-process
simulator (the boards' reads kept for the run). Nothing here asserts: the numbers go into ``bench/RESULTS.md``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
import httpx

from adapters.clock import FakeClock
from adapters.jira_http import JiraHttp
from agent_app.drive import drive
from jira_sim.simulator import Simulator
from reconcile.config.settings import Settings
from reconcile.executors import Delivery
from reconcile.guard.fields import fields_from_jira, fields_problem
from reconcile.guard.paths import issue_path, jira_path, positive_id
from reconcile.jira.webhook_registration import Listed, registration, registration_steps
from reconcile.types.binding import executor_for

SETTINGS = Settings()
T0 = datetime(2026, 10, 22, 9, tzinfo=UTC)


def measure(name: str, fn: Callable[[], Any], *, repeat: int = 7, count: int = 1, unit: str = "") -> None:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(f"{name}: median {median * 1e3:.2f} ms; {median / count * 1e6:.2f} µs per {unit}")


def pure() -> None:
    sim = Simulator()
    from jira_sim import instance  # noqa: PLC0415 — the simulator's own rendering of GET /rest/api/2/field
    from jira_sim.render import Renderer  # noqa: PLC0415

    fields = fields_from_jira(instance.fields(Renderer(sim.store, "http://jira.test")))
    params = {"key": "AURORA-1", "planned_start": "2026-12-01", "epic_key": "AURORA-2"}
    n = 10_000
    measure(
        "fields_problem, ensure_fields setting two custom fields",
        lambda: [fields_problem("ensure_fields", params, SETTINGS, fields=fields, pins={}) for _ in range(n)],
        count=n,
        unit="command",
    )
    measure(
        "fields_problem, a refresh (four roles)",
        lambda: [fields_problem("refresh", {}, SETTINGS, fields=fields, pins={}) for _ in range(n)],
        count=n,
        unit="command",
    )
    measure(
        "a path from checked parts (issue comment, sprint issue)",
        lambda: [
            (
                issue_path("AURORA-1538", "comment", positive_id("10700", "комментария")),
                jira_path("rest/agile/1.0", "sprint", positive_id(8, "спринта"), "issue"),
            )
            for _ in range(n)
        ],
        count=2 * n,
        unit="path",
    )
    wanted = registration(name="a", url="http://agent/jira/webhook", projects=["AURORA"], secret="s", jira_major=10)
    hooks = [Listed(id=i + 1, name="x", url=f"http://h{i}/") for i in range(1000)]
    measure("registration_steps among 1 000 webhooks", lambda: registration_steps(wanted, hooks), count=1, unit="run")


async def calls() -> None:
    clock = FakeClock()
    sim = Simulator(clock=lambda: T0 + timedelta(seconds=clock.monotonic()))
    jira = JiraHttp.connect("http://jira.test", token="pat", clock=clock, transport=httpx.ASGITransport(app=sim.asgi))
    ctx = attrs.evolve(await jira.exec_context(), allowed_projects=("AURORA",), jira_fields=await jira.jira_fields())
    jql = 'project = AURORA AND labels in ("AWPCA", "STOCKS_DRRK")'
    boards = [{"id": 4216, "type": None}, {"id": 5120, "type": None}, {"id": 9001, "type": None}]

    async def run(type_: str, params: dict[str, Any]) -> int:
        delivery = Delivery(id=1, type=type_, params=params, pause_seconds=0, context=SETTINGS.agent_context())
        return (await drive(executor_for(delivery, ctx), jira)).jira_calls

    bare = await run("refresh", {"jql": jql, "boards": []})
    first = await run("refresh", {"jql": jql, "boards": boards})
    again = await run("refresh", {"jql": jql, "boards": boards})
    print(f"full refresh of the sample: {bare} calls without boards; with 3 boards of unknown type: {first} the")
    print(f"  first time in the run, {again} the next (the boards' reads kept for the run)")
    moves = [
        await run("ensure_sprint", {"key": k, "sprint": "Спринт 3", "board_id": 4216})
        for k in ("AURORA-1533", "AURORA-1537", "AURORA-1538", "AURORA-1540")
    ]
    print(f"ensure_sprint into «Спринт 3» of board 4216, four issues: {moves} calls (the board read once)")
    await jira.aclose()


if __name__ == "__main__":
    pure()
    asyncio.run(calls())
