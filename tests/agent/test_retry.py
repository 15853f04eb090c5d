"""The agent's one retry policy: the delay law (pure) and the loop that applies it on an injected clock."""

from __future__ import annotations

import asyncio
import logging
import math
import random

import anyio
import anyio.lowlevel
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.clock import FakeClock
from adapters.logs import fields_of
from agent_app.retry import Backoff, Retrying, Stopped, backoff_delay

SEED = 7

bases = st.floats(min_value=0.01, max_value=5)
caps = st.floats(min_value=0.01, max_value=120)


# --- the law -------------------------------------------------------------------------------------------


@given(attempt=st.integers(min_value=0, max_value=200), seed=st.integers(), base=bases, cap=caps)
def test_delay_is_between_half_and_whole_ceiling(attempt: int, seed: int, base: float, cap: float) -> None:
    """Each delay lies in [ceiling/2, ceiling] with ceiling = min(cap, base * 2**attempt)."""
    ceiling = min(cap, base * 2**attempt)
    delay = backoff_delay(Backoff(base=base, cap=cap), attempt, random.Random(seed))
    assert ceiling / 2 <= delay <= ceiling


@given(attempt=st.integers(min_value=0, max_value=10_000), seed=st.integers(), base=bases, cap=caps)
def test_delay_is_never_zero_and_never_above_the_cap(attempt: int, seed: int, base: float, cap: float) -> None:
    """Whatever the attempt and the draw, a wait is positive and at most the cap."""
    delay = backoff_delay(Backoff(base=base, cap=cap), attempt, random.Random(seed))
    assert 0 < delay <= cap


@given(data=st.data(), seeds=st.tuples(st.integers(), st.integers()), base=bases)
def test_delay_grows_until_the_cap(data: st.DataObject, seeds: tuple[int, int], base: float) -> None:
    """Below the cap the next attempt never waits less than this one, whatever either draw was."""
    policy = Backoff(base=base, cap=60.0)
    last_doubling = math.floor(math.log2(policy.cap / base)) - 1  # base * 2**(n + 1) <= cap up to here
    attempt = data.draw(st.integers(min_value=0, max_value=last_doubling))
    this = backoff_delay(policy, attempt, random.Random(seeds[0]))
    following = backoff_delay(policy, attempt + 1, random.Random(seeds[1]))
    assert following >= this


def test_delays_grow_until_the_cap() -> None:
    """Without jitter's upper half the ceilings double: 0.5, 1, 2, 4 … then stay at the cap."""
    policy = Backoff(base=0.5, cap=4.0)
    lows = [backoff_delay(policy, n, random.Random(0)) for n in range(6)]
    assert [round(min(policy.cap, 0.5 * 2**n) / 2, 3) for n in range(6)] == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    assert all(low <= policy.cap for low in lows)
    assert lows[5] >= 2.0


def test_the_agent_backs_off_up_to_a_minute() -> None:
    """DESIGN 5.4: the default policy starts under a second and never waits more than 60 s between tries."""
    rng = random.Random(SEED)
    delays = [backoff_delay(Backoff(), n, rng) for n in range(40)]
    assert 0.25 <= delays[0] <= 0.5
    assert max(delays) <= 60.0
    assert min(delays[10:]) >= 30.0


def test_jitter_spreads_agents() -> None:
    """Two random sources give different delays for the same attempt (agents do not retry in lockstep)."""
    policy = Backoff()
    assert backoff_delay(policy, 3, random.Random(1)) != backoff_delay(policy, 3, random.Random(2))


# --- the loop ------------------------------------------------------------------------------------------

anyio_test = pytest.mark.anyio


class Flaky:
    """A call that raises the given errors in order, then answers ``"ok"``; counts the tries."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.tries = 0

    async def __call__(self) -> str:
        self.tries += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


class StuckClock:
    """Time that never passes: a sleep lasts until someone cancels it."""

    def monotonic(self) -> float:
        return 0.0

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep_forever()


def law(count: int, first: int = 0) -> list[float]:
    rng = random.Random(SEED)
    return [backoff_delay(Backoff(), n, rng) for n in range(first, first + count)]


@anyio_test
async def test_transient_errors_are_retried_on_the_clock() -> None:
    """Two connection errors, then an answer: two waits of the law on the fake clock, three tries."""
    clock = FakeClock()
    call = Flaky(ConnectionError("down"), ConnectionError("down"))
    retrying = Retrying(clock=clock, rng=random.Random(SEED))
    assert await retrying(call, on=ConnectionError, what="claim", interrupt=asyncio.Event()) == "ok"
    assert (call.tries, clock.sleeps) == (3, law(2))


@anyio_test
async def test_other_errors_propagate_at_once() -> None:
    """An error `on` does not name is raised on the first try, without waiting."""
    clock = FakeClock()
    call = Flaky(ValueError("bad"))
    with pytest.raises(ValueError, match="bad"):
        await Retrying(clock=clock, rng=random.Random(SEED))(
            call, on=(ConnectionError, TimeoutError), what="x", interrupt=asyncio.Event()
        )
    assert (call.tries, clock.sleeps) == (1, [])


@anyio_test
async def test_a_predicate_can_give_up_or_ask_for_a_fixed_wait() -> None:
    """Seconds from the predicate are waited as they are and do not grow the backoff; False gives up."""
    clock = FakeClock()
    call = Flaky(TimeoutError("busy"), ConnectionError("down"), TimeoutError("busy"), KeyError("x"))

    def transient(error: Exception) -> bool | float:
        if isinstance(error, TimeoutError):
            return 25.0
        return isinstance(error, ConnectionError)

    with pytest.raises(KeyError):
        await Retrying(clock=clock, rng=random.Random(SEED))(
            call, on=transient, what="claim", interrupt=asyncio.Event()
        )
    assert (call.tries, clock.sleeps) == (4, [25.0, law(1)[0], 25.0])


@anyio_test
async def test_after_backs_off_before_the_first_try() -> None:
    """A call that just failed elsewhere is tried again only after the first wait of the law."""
    clock = FakeClock()
    call = Flaky()
    retrying = Retrying(clock=clock, rng=random.Random(SEED))
    await retrying(call, on=ConnectionError, what="jira", interrupt=asyncio.Event(), after=ConnectionError("x"))
    assert (call.tries, clock.sleeps) == (1, law(1))


@anyio_test
async def test_a_stop_request_ends_a_wait_at_once() -> None:
    """The stop event set during a wait of a clock that never advances: Stopped, no further try."""
    stop = asyncio.Event()
    call = Flaky(ConnectionError("down"))
    retrying = Retrying(clock=StuckClock(), rng=random.Random(SEED))

    async def stop_soon() -> None:
        await anyio.lowlevel.checkpoint()
        stop.set()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(stop_soon)
            with pytest.raises(Stopped):
                await retrying(call, on=ConnectionError, what="claim", interrupt=stop)
    assert call.tries == 1


@anyio_test
async def test_a_stop_already_requested_skips_the_wait() -> None:
    """With the stop event already set, a transient error ends in Stopped without sleeping."""
    stop = asyncio.Event()
    stop.set()
    clock = FakeClock()
    with pytest.raises(Stopped):
        await Retrying(clock=clock, rng=random.Random(SEED))(
            Flaky(ConnectionError("down")), on=ConnectionError, what="claim", interrupt=stop
        )
    assert clock.sleeps == []


@anyio_test
async def test_each_wait_is_one_retry_event_with_fields(caplog: pytest.LogCaptureFixture) -> None:
    """Every wait logs `retry` with what, attempt, delay and the error with its type."""
    caplog.set_level(logging.INFO, logger="agent_app")
    retrying = Retrying(clock=FakeClock(), rng=random.Random(SEED))
    await retrying(Flaky(ConnectionError("down"), OSError("gone")), on=OSError, what="page", interrupt=asyncio.Event())
    delays = law(2)
    assert [(r.getMessage(), fields_of(r)) for r in caplog.records] == [
        ("retry", {"what": "page", "attempt": 1, "delay": round(delays[0], 3), "error": "ConnectionError: down"}),
        ("retry", {"what": "page", "attempt": 2, "delay": round(delays[1], 3), "error": "OSError: gone"}),
    ]
