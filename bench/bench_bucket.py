"""A full refresh under Jira's token bucket at the bucket's pace (issue 32 item 10, DESIGN.md 5.6).

Run: ``python bench/bench_bucket.py [--size 5000] [--runs 3] [--rates 6.5,20] [--burst 10]``. The agent's refresh
executor driven by :func:`agent_app.drive.drive` over ``JiraHttp`` on the real clock (real sleeps) against the
in-process simulator holding ``--size`` generated issues (5 000: 50 search pages and a neighbours' read, 54 calls
with the agent's three own reads), first without a limit, then under the simulator's bucket at each rate with a
burst of ``--burst``. Each line: the calls, the 429s, the wall time and the part of it the agent slept waiting for
the bucket (medians of ``--runs``), and the two figures the issue names — the bucket's own floor
``(calls − burst) / rate`` and the bound ``1.25 × calls / rate``. Measurements, not tests
(tests/agent/test_bucket_pacing.py checks the same run on a fake clock).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import httpx

from adapters.clock import SystemClock
from adapters.jira_http import JiraHttp
from agent_app.drive import Alone, drive
from jira_sim import Simulator
from jira_sim.generated import generated_seed
from reconcile.config.settings import Settings
from reconcile.executors import Delivery, Page
from reconcile.types.binding import executor_for

JQL = 'project = AURORA AND labels in ("AWPCA", "STOCKS_DRRK")'


class CountingClock(SystemClock):
    """The real clock, adding up what the agent slept (its waits for the bucket)."""

    def __init__(self) -> None:
        self.slept = 0.0

    async def sleep(self, seconds: float) -> None:
        self.slept += max(seconds, 0.0)
        await super().sleep(seconds)


async def _refresh(sim: Simulator) -> tuple[float, float]:
    """Wall seconds of one full refresh, the agent's own reads included (a fresh client: a fresh pacer), and the
    seconds of it the agent slept."""
    clock = CountingClock()
    jira = JiraHttp.connect("http://jira.test", token="bench", clock=clock, transport=httpx.ASGITransport(app=sim.asgi))
    delivery = Delivery(id=1, type="refresh", params={"jql": JQL}, pause_seconds=0, context=Settings().agent_context())

    async def keep_nothing(page: Page) -> None:
        return None

    began = time.perf_counter()
    try:
        outcome = await drive(
            executor_for(delivery, await jira.exec_context()), jira, Alone(jira=jira, on_page=keep_nothing)
        )
    finally:
        await jira.aclose()
    if outcome.report.status != "done":
        raise RuntimeError(f"refresh {outcome.report.status}: {outcome.report.error}")
    return time.perf_counter() - began, clock.slept


def one(sim: Simulator, rate: float | None, burst: int, runs: int) -> tuple[int, int, float, float]:
    """(calls, 429s, median wall seconds, median seconds slept) of ``runs`` refreshes, each on a full bucket."""
    walls, slept, calls, refused = [], [], 0, 0
    for _ in range(runs):
        if rate is None:
            sim.clear_rate_limit()
        else:
            sim.set_rate_limit(rate, burst)  # every bucket full again
        sim.clear_calls()
        wall, waits = asyncio.run(_refresh(sim))
        walls.append(wall)
        slept.append(waits)
        calls, refused = len(sim.calls), refused + sum(1 for c in sim.calls if c["status"] == 429)
    return calls, refused, statistics.median(walls), statistics.median(slept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rates", default="6.5,20")
    parser.add_argument("--burst", type=int, default=10)
    args = parser.parse_args()
    sim = Simulator(generated_seed(args.size))
    calls, _, unlimited, _ = one(sim, None, args.burst, args.runs)
    print(f"full refresh of {args.size} issues, no limit: {calls} calls, wall {unlimited:.2f} s")
    for rate in (float(r) for r in args.rates.split(",")):
        calls, refused, wall, slept = one(sim, rate, args.burst, args.runs)
        floor = max(calls - args.burst, 0) / rate
        bound = 1.25 * calls / rate
        print(
            f"bucket {rate:g}/s burst {args.burst}: {calls} calls, {refused} × 429, wall {wall:.2f} s "
            f"(slept {slept:.2f} s); "
            f"floor (calls − burst) / rate = {floor:.2f} s (ratio {wall / floor:.2f}); "
            f"bound 1.25 × calls / rate = {bound:.2f} s ({'met' if wall <= bound else 'NOT met'})"
        )


if __name__ == "__main__":
    main()
