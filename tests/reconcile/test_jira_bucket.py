"""Pacing from Jira DC's bucket: the headers read, the wait decided, and the simulator's own bucket driven by it."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.clock import FakeClock
from jira_sim.rate_limit import RateLimiter
from reconcile.jira.bucket import RESERVE, Bucket, BucketPacer, read_bucket


def _headers(remaining: int, *, limit: int = 10, fill: int = 5, interval: float = 1, retry: int = 0) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-FillRate": str(fill),
        "X-RateLimit-Interval-Seconds": str(interval),
        "Retry-After": str(retry),
    }


def test_the_headers_in_any_case() -> None:
    """Jira's five headers are read whatever their case; Retry-After may be absent."""
    lower = {k.lower(): v for k, v in _headers(3, retry=2).items()}
    assert read_bucket(lower) == Bucket(limit=10, remaining=3, fill_rate=5, interval=1.0, retry_after=2.0)
    without = {k: v for k, v in _headers(3).items() if k != "Retry-After"}
    assert read_bucket(without) == Bucket(limit=10, remaining=3, fill_rate=5, interval=1.0)


@pytest.mark.parametrize(
    "change",
    [
        {"X-RateLimit-Limit": None},
        {"X-RateLimit-Remaining": "-1"},
        {"X-RateLimit-Remaining": "11"},
        {"X-RateLimit-FillRate": "0"},
        {"X-RateLimit-Limit": "0", "X-RateLimit-Remaining": "0"},
        {"X-RateLimit-Interval-Seconds": "0"},
        {"X-RateLimit-Interval-Seconds": "nan"},
        {"X-RateLimit-Interval-Seconds": "100000"},
        {"X-RateLimit-FillRate": "2.5"},
    ],
)
def test_a_bucket_that_cannot_be_paces_nothing(change: dict[str, str | None]) -> None:
    """Missing or impossible values: no bucket is read (and the pacer does not wait for it)."""
    headers = {k: v for k, v in {**_headers(3), **change}.items() if v is not None}
    assert read_bucket(headers) is None


def test_an_unreadable_retry_after_is_none() -> None:
    """Retry-After that is no number of seconds counts as 0; the bucket is still read."""
    assert read_bucket({**_headers(0), "Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT"}) == Bucket(
        limit=10, remaining=0, fill_rate=5, interval=1.0
    )


@pytest.mark.parametrize(("retry", "read"), [("-5", 0.0), ("inf", 0.0), ("nan", 0.0), ("0.5", 0.5), ("0", 0.0)])
def test_a_retry_after_is_a_finite_count_of_seconds_not_below_zero(retry: str, read: float) -> None:
    """Retry-After below zero or no finite number counts as 0; a fraction of a second is kept."""
    assert read_bucket({**_headers(0), "Retry-After": retry}) == Bucket(
        limit=10, remaining=0, fill_rate=5, interval=1.0, retry_after=read
    )


def test_the_widest_bucket_that_can_be() -> None:
    """A full bucket (remaining = limit) over a whole day, refilled every half second, is read as it is."""
    headers = {**_headers(10), "X-RateLimit-Interval-Seconds": "86400"}
    assert read_bucket(headers) == Bucket(limit=10, remaining=10, fill_rate=5, interval=86400.0)
    assert read_bucket({**headers, "X-RateLimit-Interval-Seconds": "0.5"}) == Bucket(
        limit=10, remaining=10, fill_rate=5, interval=0.5
    )


def _after(remaining: int, *, at: float = 10.0, **kw: int | float) -> BucketPacer:
    return BucketPacer().answered(_headers(remaining, **kw), status=200, answered_at=at)  # type: ignore[arg-type]


def test_above_the_reserve_no_wait() -> None:
    """While the last answer left more than the reserve, the next call goes at once."""
    assert RESERVE == 2
    assert _after(3).wait_seconds(now=10.0) == 0.0
    assert BucketPacer().wait_seconds(now=0.0) == 0.0


def test_at_the_reserve_one_tokens_time_never_a_refill() -> None:
    """Remaining at the reserve, 13 tokens every 2 s: one token's time (2/13 s) after the last answer, less what
    has passed since — never the whole interval."""
    assert _after(2, fill=13, interval=2).wait_seconds(now=10.0) == pytest.approx(2 / 13)
    assert _after(2, fill=13, interval=2).wait_seconds(now=10.1) == pytest.approx(2 / 13 - 0.1)
    assert _after(2, fill=13, interval=2).wait_seconds(now=10.2) == 0.0


def test_below_the_reserve_as_many_tokens_as_the_call_needs() -> None:
    """Remaining 0 with a token every 2 s: three tokens' times, so that the call leaves two."""
    assert _after(0, fill=1, interval=2).wait_seconds(now=10.0) == 6.0


def test_a_bucket_of_one_keeps_no_reserve() -> None:
    """A limit of 1 cannot keep 2: the reserve is 0, the call waits only for an empty bucket's next token."""
    assert _after(0, limit=1, fill=1, retry=1).wait_seconds(now=10.0) == 1.0
    assert BucketPacer(bucket=Bucket(limit=1, remaining=1, fill_rate=1, interval=1)).wait_seconds(now=0) == 0.0


def test_the_burst_then_one_tokens_time_before_each_call() -> None:
    """The wait sequence on a fake clock against the simulator's bucket at 6.5/s, burst 10: eight calls at once
    (down to the reserve), then every call one token's time (2/13 s) after the last — 0 × 429."""
    clock = FakeClock()
    limiter = RateLimiter(clock)
    limiter.configure(6.5, 10)
    pacer = BucketPacer()
    waits, remaining = [], []
    for _ in range(20):
        wait = pacer.wait_seconds(now=clock.monotonic())
        waits.append(round(wait, 6))
        clock.advance(wait)
        admission = limiter.admit("bridge-user")
        assert admission is not None and admission.allowed
        remaining.append(admission.remaining)
        headers = {k.decode(): v.decode() for k, v in admission.headers()}
        pacer = pacer.answered(headers, status=200, answered_at=clock.monotonic())
    assert waits == [0.0] * 8 + [round(2 / 13, 6)] * 12
    assert remaining == [9, 8, 7, 6, 5, 4, 3, 2] + [2] * 12


def test_a_new_reading_replaces_the_old_and_no_headers_forget_the_bucket() -> None:
    """Each answer's reading is the bucket now. A success without headers: no limit; a 503 without: no news."""
    learnt = _after(0, retry=1, interval=10)
    assert learnt.answered(_headers(8, interval=2), status=200, answered_at=11.0).bucket == Bucket(
        limit=10, remaining=8, fill_rate=5, interval=2.0
    )
    assert learnt.answered({}, status=200, answered_at=11.0) == BucketPacer()
    assert learnt.answered({}, status=503, answered_at=11.0) == learnt
    assert learnt.answered({}, status=299, answered_at=11.0) == BucketPacer()
    assert learnt.answered({}, status=300, answered_at=11.0) == learnt  # a redirect is no success


# --- the simulator's bucket driven by the pacer -------------------------------------------------------------


@attrs.define
class Drive:
    """The simulator's own token bucket behind calls that take ``up`` seconds to reach Jira and ``down`` to answer."""

    clock: FakeClock
    limiter: RateLimiter
    pacer: BucketPacer = attrs.field(factory=BucketPacer)
    remaining: list[int] = attrs.field(factory=list)
    waits: list[float] = attrs.field(factory=list)

    def call(self, up: float, down: float, think: float) -> bool:
        wait = self.pacer.wait_seconds(now=self.clock.monotonic())
        self.waits.append(wait)
        self.clock.advance(wait + up)
        admission = self.limiter.admit("bridge-user")
        assert admission is not None
        self.clock.advance(down)
        headers = {k.decode(): v.decode() for k, v in admission.headers()}
        status = 200 if admission.allowed else 429
        self.pacer = self.pacer.answered(headers, status=status, answered_at=self.clock.monotonic())
        self.remaining.append(admission.remaining)
        self.clock.advance(think)
        return admission.allowed


@settings(max_examples=150, deadline=None)
@given(
    fill=st.floats(0.2, 50),
    limit=st.integers(1, 40),
    calls=st.lists(st.tuples(st.floats(0, 0.05), st.floats(0, 0.05), st.floats(0, 0.3)), min_size=1, max_size=120),
)
def test_the_bucket_never_empties_and_no_wait_is_longer_than_a_token_per_call(
    fill: float, limit: int, calls: list[tuple[float, float, float]]
) -> None:
    """Law: driven by the pacer alone, the simulator's bucket never answers 429 and never falls below the
    reserve; and no wait is longer than the tokens the next call needs (one token's time at the reserve), never
    a refill of the bucket."""
    clock = FakeClock()
    limiter = RateLimiter(clock)
    policy = limiter.configure(fill, limit)
    drive = Drive(clock=clock, limiter=limiter)
    for up, down, think in calls:
        assert drive.call(up, down, think)
    reserve = min(RESERVE, limit - 1)
    assert min(drive.remaining) >= reserve
    token = policy.interval / policy.fill_rate
    assert all(wait <= (reserve + 1) * token + 1e-9 for wait in drive.waits)


@settings(max_examples=60, deadline=None)
@given(fill=st.floats(0.5, 40), limit=st.integers(3, 30), latency=st.floats(0.0, 0.02))
def test_a_long_run_goes_at_the_bucket_pace(fill: float, limit: int, latency: float) -> None:
    """Law: 400 calls of a refresh without pause spend the burst down to the reserve and then take no more than
    one token's time and one call's latency per call, never a refill's wait; two tokens' times of slack. (With
    room above the reserve a late call even leaves its token to the next: tests/agent/test_bucket_pacing.py's
    runs take exactly one token's time per call.)"""
    clock = FakeClock()
    limiter = RateLimiter(clock)
    policy = limiter.configure(fill, limit)
    drive = Drive(clock=clock, limiter=limiter)
    for _ in range(400):
        assert drive.call(latency / 2, latency / 2, 0)
    token = policy.interval / policy.fill_rate
    spendable = policy.max - min(RESERVE, policy.max - 1)
    assert clock.monotonic() <= (400 - spendable) * (token + latency) + 2 * token + 1e-6
