"""Fixtures for the simulator's tests: a settable clock, a simulator on the built-in sample, an httpx client, a
fake monotonic clock and an in-process webhook receiver."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from typing import Any

import attrs
import httpx
import pytest

from adapters.clock import FakeClock
from jira_sim import Simulator
from tests.support import T0


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
    return Clock(T0)


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


@attrs.frozen
class Received:
    """One webhook delivery as the receiver saw it."""

    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    """An in-process webhook receiver (an ASGI app): records every POST and answers ``status``.

    While ``gate`` is set to an unset event the receiver waits for it before answering.
    """

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.status = 200
        self.gate: asyncio.Event | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        if self.gate is not None:
            await self.gate.wait()
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.received.append(Received(path=scope["path"], headers=headers, body=b"".join(chunks)))
        await send({"type": "http.response.start", "status": self.status, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    def events(self) -> list[str]:
        return sorted(r.json()["webhookEvent"] for r in self.received)


@pytest.fixture
def receiver() -> Receiver:
    return Receiver()


@pytest.fixture
def timer() -> FakeClock:
    """Monotonic time for rate-limit buckets and webhook delays: moves only when told (or slept on)."""
    return FakeClock()


@pytest.fixture
def hooked(clock: Clock, timer: FakeClock, receiver: Receiver) -> Simulator:
    """The sample with its webhooks delivered to ``receiver`` and its timer the fake clock."""
    return Simulator(clock=clock, timer=timer, webhook_transport=httpx.ASGITransport(app=receiver))
