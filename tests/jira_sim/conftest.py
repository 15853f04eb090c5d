"""Fixtures for the simulator's tests: a settable clock, a simulator on the built-in sample, an httpx client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from jira_sim import Simulator

SAMPLE_NOW = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)  # the sample's reference_now


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock(SAMPLE_NOW)


@pytest.fixture
def sim(clock: Clock) -> Simulator:
    return Simulator(clock=clock)


def client_for(sim: Simulator, **headers: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=sim.asgi), base_url="http://jira.test", headers=headers)


@pytest.fixture
def make_client(sim: Simulator) -> Callable[..., httpx.AsyncClient]:
    """``make_client(Authorization=...)``: another client on the same simulator."""
    return lambda **headers: client_for(sim, **headers)


@pytest.fixture
async def jira(sim: Simulator) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(sim, Authorization="Bearer secret-token") as client:
        yield client
