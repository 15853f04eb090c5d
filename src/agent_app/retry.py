"""The agent's one retry policy, in stamina's shape: a pure delay law and one loop that applies it.

- :func:`backoff_delay` is the law: attempt ``n`` waits between half and all of ``min(cap, base * 2**n)``
  ("equal jitter"), so a delay is never zero, never above the cap, and agents restarted together spread out.
  The cap is a minute (DESIGN.md 5.4: a configuration mistake is not hammered).
- :class:`Retrying` is the loop: it calls again on the errors it is told are transient, sleeping through the
  agent's injected clock, and gives up at once when the stop event is set during a wait (:class:`Stopped`).
  ``on`` is an exception type, a tuple of them, or a predicate that returns ``True`` (back off), ``False``
  (give up: the error propagates) or a number of seconds to wait instead of the backoff (the hub's "another
  agent is active" asks for a fixed wait).

Why not the ``stamina`` library itself: its waits go through ``asyncio.sleep`` and its jitter through the
global random source, so tests could only switch the waits off, not watch them on a fake clock; and nothing
could cut a wait short when the agent is told to stop. The law and the loop are small enough to own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import attrs

from adapters.clock import Clock
from reconcile.queue import BACKOFF_CAP_SECONDS

__all__ = ["Backoff", "Retrying", "Stopped", "Transient", "backoff_delay", "decide", "race"]

log = logging.getLogger(__name__)

T = TypeVar("T")

Transient = type[Exception] | tuple[type[Exception], ...] | Callable[[Exception], bool | float]


class Stopped(Exception):
    """A stop request interrupted a wait or a call."""


@attrs.frozen(kw_only=True)
class Backoff:
    """Exponential backoff with equal jitter: attempt n waits in ``[c/2, c]``, ``c = min(cap, base * 2**n)``."""

    base: float = 0.5
    cap: float = BACKOFF_CAP_SECONDS


def backoff_delay(policy: Backoff, attempt: int, rng: random.Random) -> float:
    """Half fixed, half random: never zero, never above the cap, spread across agents."""
    ceiling = min(policy.cap, policy.base * float(2 ** min(attempt, 32)))
    return ceiling / 2 + rng.uniform(0, ceiling / 2)


def decide(on: Transient, error: Exception) -> bool | float:
    """Whether ``error`` is worth another try: ``True`` back off, ``False`` give up, seconds = wait that long."""
    if isinstance(on, type | tuple):
        return isinstance(error, on)
    return on(error)


async def race(coro: Coroutine[Any, Any, T], interrupt: asyncio.Event) -> T:
    """Await ``coro`` unless ``interrupt`` is set first; then cancel it and raise :class:`Stopped`."""
    if interrupt.is_set():
        coro.close()
        raise Stopped
    task = asyncio.ensure_future(coro)
    waiter = asyncio.ensure_future(interrupt.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        waiter.cancel()
        raise
    if task.done():
        waiter.cancel()
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    raise Stopped


@attrs.frozen(kw_only=True)
class Retrying:
    """Calls with retries on the agent's clock; one instance per agent (its random source spreads agents)."""

    clock: Clock
    rng: random.Random
    policy: Backoff = Backoff()

    async def __call__(
        self,
        call: Callable[[], Awaitable[T]],
        *,
        on: Transient,
        what: str,
        interrupt: asyncio.Event,
        after: Exception | None = None,
        observe: Callable[[Exception], Coroutine[Any, Any, None]] | None = None,
    ) -> T:
        """``await call()`` until it returns or raises an error ``on`` does not retry.

        ``after``: the call has just failed with this error elsewhere, so back off before the first try.
        ``observe`` is told of every error about to be waited out (the agent reports what stalls it).
        A wait is abandoned with :class:`Stopped` as soon as ``interrupt`` is set.
        """
        backoffs = 0  # the exponent counts only the waits the law chose
        retries = 0
        error: Exception | None = after
        wait: bool | float = True
        while True:
            if error is not None:
                if wait is True:
                    delay = backoff_delay(self.policy, backoffs, self.rng)
                    backoffs += 1
                else:
                    delay = max(float(wait), 0.0)
                retries += 1
                fields = {
                    "what": what,
                    "attempt": retries,
                    "delay": round(delay, 3),
                    "error": f"{type(error).__name__}: {error}",
                }
                if observe is not None:
                    await race(observe(error), interrupt)
                log.info("retry", extra=fields)
                await race(self.clock.sleep(delay), interrupt)
            try:
                return await call()
            except Exception as exc:
                decision = decide(on, exc)
                if decision is False:
                    raise
                error, wait = exc, decision
