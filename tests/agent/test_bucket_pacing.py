"""Pacing from Jira's own rate limit (DESIGN.md 5.6): the agent's refresh driven through ``JiraHttp`` against the
simulator's token bucket on one fake clock — it waits for the refill instead of meeting a 429."""

from __future__ import annotations

import httpx
import pytest

from adapters.clock import FakeClock
from adapters.jira_http import JiraHttp
from agent_app.drive import Alone, drive
from jira_sim import Simulator
from jira_sim.generated import generated_seed
from reconcile.config.settings import Settings
from reconcile.executors import Delivery
from reconcile.types.binding import executor_for
from tests.support import T0

pytestmark = pytest.mark.anyio

JQL = 'project = AURORA AND labels in ("AWPCA", "STOCKS_DRRK")'


async def _refresh(sim: Simulator, clock: FakeClock) -> int:
    jira = JiraHttp.connect("http://jira.test", token="pat", clock=clock, transport=httpx.ASGITransport(app=sim.asgi))
    delivery = Delivery(id=1, type="refresh", params={"jql": JQL}, pause_seconds=0, context=Settings().agent_context())
    try:
        outcome = await drive(executor_for(delivery, await jira.exec_context()), jira, Alone(jira=jira))
    finally:
        await jira.aclose()
    assert outcome.report.status == "done"
    return outcome.jira_calls


async def test_a_long_refresh_under_a_bucket_meets_no_429() -> None:
    """31 calls (30 search pages and a neighbours' read, plus the agent's three own reads) under a bucket of 5 a
    second (max 5): every call answered 200; the burst down to the reserve of 2 at once, then one token's time
    (0.2 s) before each of the 31 other calls — never a full refill."""
    clock = FakeClock()
    sim = Simulator(generated_seed(3000), clock=lambda: T0, timer=clock)
    sim.set_rate_limit(5, 5)
    calls = await _refresh(sim, clock)
    assert {c["status"] for c in sim.calls} == {200}
    assert calls == len(sim.calls) - 3 == 31
    assert [round(s, 9) for s in clock.sleeps if s > 0] == [0.2] * 31
    assert clock.monotonic() == pytest.approx(31 * 0.2)


async def test_a_full_refresh_at_the_buckets_pace() -> None:
    """Issue 32's case: 54 calls under Jira's bucket at 6.5/s with a burst of 10 take (54 − 8) tokens' times,
    within 1.25 × 54 / 6.5 s, with 0 × 429 (the fake clock; bench/bench_bucket.py measures the wall time)."""
    clock = FakeClock()
    sim = Simulator(generated_seed(5000), clock=lambda: T0, timer=clock)
    sim.set_rate_limit(6.5, 10)
    await _refresh(sim, clock)
    assert (len(sim.calls), sum(c["status"] == 429 for c in sim.calls)) == (54, 0)
    assert clock.monotonic() == pytest.approx((54 - 8) / 6.5)
    assert clock.monotonic() <= 1.25 * 54 / 6.5


async def test_without_a_limit_the_agent_never_waits() -> None:
    """No ``X-RateLimit-*`` headers: no wait at all."""
    clock = FakeClock()
    sim = Simulator(generated_seed(3000), clock=lambda: T0, timer=clock)
    assert await _refresh(sim, clock) == 31
    assert clock.sleeps == []
