"""Pacing from Jira DC's bucket: the headers read, the wait decided, and the simulator's own bucket driven by it."""

from __future__ import annotations

import math

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.clock import FakeClock
from jira_sim.rate_limit import RateLimiter
from reconcile.jira_bucket import RESERVE, Bucket, BucketPacer, RefillWindow, read_bucket


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


def _after(remaining: int, *, at: float = 10.0, **kw: int | float) -> BucketPacer:
    return BucketPacer().answered(_headers(remaining, **kw), status=200, sent_at=at, answered_at=at)  # type: ignore[arg-type]


def test_above_the_reserve_no_wait() -> None:
    """While the last answer left more than the reserve, the next call goes at once."""
    assert RESERVE == 2
    assert _after(3).wait_seconds(now=10.0) == 0.0
    assert BucketPacer().wait_seconds(now=0.0) == 0.0


def test_at_the_reserve_a_whole_interval_when_the_phase_is_unknown() -> None:
    """Remaining at the reserve, Jira's intervals unknown: one interval after the last answer (one batch surely
    came), less what has passed since."""
    assert _after(2, interval=4).wait_seconds(now=10.0) == 4.0
    assert _after(2, interval=4).wait_seconds(now=13.0) == 1.0
    assert _after(2, interval=4).wait_seconds(now=15.0) == 0.0


def test_a_burst_without_a_batch_costs_no_extra_interval() -> None:
    """Calls answered at 0.1 … 0.8 each took one token and saw no batch: the next batch comes by 1.1, one interval
    after the run's first answer, not one interval after the last."""
    pacer = BucketPacer()
    for n, at in enumerate((0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)):
        pacer = pacer.answered(_headers(9 - n), status=200, sent_at=at, answered_at=at)
    assert (pacer.bucket and pacer.bucket.remaining, pacer.quiet_since) == (2, 0.1)
    assert pacer.wait_seconds(now=0.8) == pytest.approx(0.3)


def test_a_full_bucket_may_hide_a_batch() -> None:
    """From a full bucket one token less may still hide a batch (capped): the quiet run starts afresh."""
    full = BucketPacer().answered(_headers(10, retry=0), status=404, sent_at=0.1, answered_at=0.1)
    after = full.answered(_headers(9), status=200, sent_at=0.2, answered_at=0.2)
    assert after.quiet_since == 0.2


def test_as_many_batches_as_the_reserve_needs() -> None:
    """Remaining 0 with a fill rate of 1: three batches are needed to call and keep two."""
    assert _after(0, fill=1, interval=2).wait_seconds(now=10.0) == 6.0


def test_a_bucket_of_one_keeps_no_reserve() -> None:
    """A limit of 1 cannot keep 2: the reserve is 0, the call waits only for an empty bucket to refill."""
    assert _after(0, limit=1, fill=1, retry=1).wait_seconds(now=10.0) == 1.0
    assert BucketPacer(bucket=Bucket(limit=1, remaining=1, fill_rate=1, interval=1)).wait_seconds(now=0) == 0.0


def test_retry_after_tells_when_the_next_batch_comes() -> None:
    """An answer leaving nothing says when the next batch comes: the pacer waits until then, not an interval."""
    pacer = BucketPacer().answered(
        _headers(0, fill=5, interval=10, retry=3), status=200, sent_at=20.0, answered_at=20.0
    )
    assert pacer.refill == RefillWindow(after=22.0, by=23.0)
    assert pacer.wait_seconds(now=20.0) == 3.0


def test_a_batch_seen_between_two_calls_is_the_phase() -> None:
    """Remaining rose between calls at 0.3 and 0.4: batches come at (0.3, 0.4] + whole intervals, so the wait at
    the reserve ends by 1.4, not a whole interval after the last answer."""
    pacer = BucketPacer()
    for at, remaining in ((0.1, 4), (0.2, 3), (0.3, 2), (0.4, 6), (0.5, 5), (0.6, 4), (0.7, 3), (0.8, 2)):
        pacer = pacer.answered(_headers(remaining), status=200, sent_at=at, answered_at=at)
    assert pacer.refill == RefillWindow(after=0.3, by=0.4)
    assert pacer.wait_seconds(now=0.8) == pytest.approx(0.6)


def test_a_429_takes_no_token_and_invents_no_batch() -> None:
    """Two 429s in a row leave Remaining at 0: no batch is read into that."""
    first = BucketPacer().answered(_headers(0, retry=1, interval=10), status=429, sent_at=5.0, answered_at=5.0)
    second = first.answered(_headers(0, retry=1, interval=10), status=429, sent_at=5.5, answered_at=5.5)
    assert second.refill == RefillWindow(after=5.5, by=6.0)  # the two Retry-After windows met; no third one


def test_retry_after_says_nothing_within_a_one_second_interval() -> None:
    """Whole seconds of Retry-After cannot place a one-second interval's batch: no phase is taken from it."""
    assert _after(0, retry=1, interval=1).refill is None


def test_a_new_policy_forgets_the_phase_and_no_headers_forget_the_bucket() -> None:
    """Another limit, fill rate or interval: the old phase says nothing. A success without headers: no limit."""
    learnt = _after(0, retry=1, interval=10)
    assert learnt.refill is not None
    changed = learnt.answered(_headers(8, interval=2), status=200, sent_at=11.0, answered_at=11.0)
    assert changed.refill is None
    assert learnt.answered({}, status=200, sent_at=11.0, answered_at=11.0) == BucketPacer()
    assert learnt.answered({}, status=503, sent_at=11.0, answered_at=11.0) == learnt


def test_windows_that_disagree_keep_the_newer() -> None:
    """Two batch windows that cannot be the same batches (Jira restarted): the newer one is kept."""
    pacer = BucketPacer().answered(_headers(0, retry=1, interval=10), status=200, sent_at=0.0, answered_at=0.0)
    assert pacer.refill == RefillWindow(after=0.0, by=1.0)
    later = pacer.answered(_headers(0, retry=5, interval=10), status=200, sent_at=2.0, answered_at=2.0)
    assert later.refill == RefillWindow(after=6.0, by=7.0)


# --- the simulator's bucket driven by the pacer -------------------------------------------------------------


@attrs.define
class Drive:
    """The simulator's own token bucket behind calls that take ``up`` seconds to reach Jira and ``down`` to answer."""

    clock: FakeClock
    limiter: RateLimiter
    pacer: BucketPacer = attrs.field(factory=BucketPacer)
    remaining: list[int] = attrs.field(factory=list)
    late: list[float] = attrs.field(factory=list)  # per wait: how much later than needed the call went

    def call(self, up: float, down: float, think: float) -> bool:
        now = self.clock.monotonic()
        wait = self.pacer.wait_seconds(now=now)
        needed = self._needed(now, up)
        self.clock.advance(wait)
        if wait > 0:
            self.late.append(self.clock.monotonic() - needed)
        sent = self.clock.monotonic()
        self.clock.advance(up)
        admission = self.limiter.admit("bridge-user")
        assert admission is not None
        self.clock.advance(down)
        headers = {k.decode(): v.decode() for k, v in admission.headers()}
        status = 200 if admission.allowed else 429
        self.pacer = self.pacer.answered(headers, status=status, sent_at=sent, answered_at=self.clock.monotonic())
        self.remaining.append(admission.remaining)
        self.clock.advance(think)
        return admission.allowed

    def _needed(self, now: float, up: float) -> float:
        """The earliest moment from ``now`` at which a call would leave the reserve in the bucket (the truth the
        pacer cannot see: the simulator's own phase)."""
        bucket = self.pacer.bucket
        if bucket is None or bucket.remaining > bucket.reserve:
            return now
        policy = self.limiter.policy
        assert policy is not None
        state = next(iter(self.limiter._buckets.values()))  # the truth behind Jira, which the pacer cannot read
        tokens, boundary = state.tokens, state.refilled_at + policy.interval
        while tokens < bucket.reserve + 1:
            tokens = min(policy.max, tokens + policy.fill_rate)
            needed = boundary
            boundary += policy.interval
        return max(now, needed - up)


@settings(max_examples=150, deadline=None)
@given(
    fill=st.floats(0.2, 50),
    limit=st.integers(1, 40),
    calls=st.lists(st.tuples(st.floats(0, 0.05), st.floats(0, 0.05), st.floats(0, 0.3)), min_size=1, max_size=120),
)
def test_the_bucket_never_empties_and_no_wait_is_longer_than_needed(
    fill: float, limit: int, calls: list[tuple[float, float, float]]
) -> None:
    """Law: driven by the pacer alone, the simulator's bucket never answers 429 and never falls below the
    reserve; and each wait ends at most one interval and the call's own latency after the moment the reserve
    allowed the call (the most Jira's silence about its intervals can cost)."""
    clock = FakeClock()
    limiter = RateLimiter(clock)
    policy = limiter.configure(fill, limit)
    drive = Drive(clock=clock, limiter=limiter)
    for up, down, think in calls:
        assert drive.call(up, down, think)
    reserve = min(RESERVE, limit - 1)
    assert min(drive.remaining) >= reserve
    assert all(late <= policy.interval + 0.1 + 1e-9 for late in drive.late)


@settings(max_examples=60, deadline=None)
@given(fill=st.integers(1, 20), limit=st.integers(3, 30), latency=st.floats(0.005, 0.05))
def test_a_long_run_goes_at_the_bucket_rate(fill: int, limit: int, latency: float) -> None:
    """Law: 400 calls of a refresh without pause take at most the bucket's own time for them (above the reserve),
    two intervals more and a call's latency per wake: once the pacer has seen a batch between two calls it waits
    for each batch, not a whole interval after each wake (which would add a burst's length per interval)."""
    clock = FakeClock()
    limiter = RateLimiter(clock)
    policy = limiter.configure(fill, limit)
    drive = Drive(clock=clock, limiter=limiter)
    for _ in range(400):
        assert drive.call(latency / 2, latency / 2, 0)
    spendable = policy.max - min(RESERVE, policy.max - 1)
    per_interval = min(policy.fill_rate, spendable)  # a batch cannot fill the bucket above its limit
    bucket_time = math.ceil((400 - spendable) / per_interval) * policy.interval
    wakes = math.ceil(400 / per_interval)
    assert clock.monotonic() <= bucket_time + 2 * policy.interval + 2 * latency * wakes
