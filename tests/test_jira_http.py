"""The httpx Jira driver: pacing from the last call, retries after Retry-After, call counting, files."""

from __future__ import annotations

import httpx
import pytest

from adapters.clock import FakeClock
from adapters.jira_http import JiraHttp

pytestmark = pytest.mark.anyio


async def test_fake_clock_moves_only_by_sleeping() -> None:
    """FakeClock's time advances by exactly the sleeps, each one recorded."""
    clock = FakeClock(start=100.0)
    await clock.sleep(2.5)
    await clock.sleep(0)
    assert (clock.monotonic(), clock.sleeps) == (102.5, [2.5, 0])


async def test_wait_gap_before_any_call_counts_from_construction() -> None:
    """With no Jira call yet, the gap runs from the driver's start (DESIGN 5.4: after a restart, since it)."""
    clock = FakeClock()
    jira = JiraHttp(httpx.AsyncClient(), clock=clock)
    clock.advance(10)
    await jira.wait_gap(30)
    assert (jira.last_call_at, clock.sleeps, clock.monotonic()) == (None, [20], 30)
    await jira.wait_gap(5)
    assert clock.sleeps == [20]
    await jira.aclose()
