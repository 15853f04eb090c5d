"""The agent's clock: monotonic time and sleeping, injected so tests never sleep for real."""

from __future__ import annotations

import time
from typing import Protocol

import anyio
import anyio.lowlevel

__all__ = ["Clock", "FakeClock", "SystemClock"]


class Clock(Protocol):
    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """``time.monotonic`` and ``anyio.sleep``."""

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep(max(seconds, 0.0))


class FakeClock:
    """Time that moves only when someone sleeps (or :meth:`advance` is called); every sleep is recorded."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += max(seconds, 0.0)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self._now += max(seconds, 0.0)
        await anyio.lowlevel.checkpoint()
