"""The login throttle's rule: 5 failures within any minute block a key for a minute, each further block twice the last
up to 15 minutes, a quiet quarter hour starts over; the keys are the client address and the token's prefix."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from reconcile.guard.login_throttle import MAX_BLOCK, Throttle, after_failure, retry_after, throttle_keys
from tests.support import T0


def _failures(throttle: Throttle, times: int, *, every: timedelta = timedelta(seconds=1)) -> Throttle:
    moment = T0
    for _ in range(times):
        throttle = after_failure(throttle, moment)
        moment += every
    return throttle


def test_the_keys_of_an_attempt() -> None:
    """The address and the first 8 characters of the token; neither when there is none."""
    assert throttle_keys("10.0.0.7", "abcdefghijk") == ("address 10.0.0.7", "prefix abcdefgh")
    assert throttle_keys(None, "abc") == ("prefix abc",)
    assert throttle_keys("10.0.0.7", "") == ("address 10.0.0.7",)


def test_the_fifth_failure_in_a_minute_blocks_for_a_minute() -> None:
    """Four failures leave the key free; the fifth blocks it 60 s (seconds rounded up), then it is free again."""
    four = _failures(Throttle(), 4)
    assert (len(four.recent), retry_after(four, T0 + timedelta(seconds=4))) == (4, None)
    five = after_failure(four, T0 + timedelta(seconds=4))
    assert retry_after(five, T0 + timedelta(seconds=4)) == 60
    assert retry_after(five, T0 + timedelta(seconds=63, milliseconds=500)) == 1
    assert retry_after(five, T0 + timedelta(seconds=64)) is None


def test_failures_a_minute_apart_never_block() -> None:
    """A failure every 15 s: never five within a minute, no block ever."""
    slow = _failures(Throttle(), 40, every=timedelta(seconds=15))
    assert slow.blocked_until is None


def test_blocks_double_to_15_minutes_and_a_quiet_quarter_hour_starts_over() -> None:
    """Blocks of 1, 2, 4, 8, 15, 15 minutes when failures resume right after each; 15 quiet minutes after a block,
    the next is a minute again."""
    throttle, moment, blocks = Throttle(), T0, []
    for _ in range(6):
        for _ in range(5):
            throttle = after_failure(throttle, moment)
        blocks.append(retry_after(throttle, moment))
        assert throttle.blocked_until is not None
        moment = throttle.blocked_until
    assert blocks == [60, 120, 240, 480, 900, 900]
    later = moment + MAX_BLOCK
    assert retry_after(_failures_at(throttle, later), later) == 60


def _failures_at(throttle: Throttle, moment: datetime) -> Throttle:
    for _ in range(5):
        throttle = after_failure(throttle, moment)
    return throttle


@given(st.lists(st.integers(0, 120_000), min_size=1, max_size=60))
def test_at_most_five_failures_are_checked_in_any_minute(gaps: list[int]) -> None:
    """Law: attempts at any times, each checked only while the key is free, counted failed: no minute holds more
    than five checked failures, and no wait is ever over 15 minutes."""
    throttle, moment, checked = Throttle(), T0, []
    for gap in gaps:
        moment += timedelta(milliseconds=gap)
        wait = retry_after(throttle, moment)
        assert wait is None or wait <= MAX_BLOCK.total_seconds()
        if wait is None:
            checked.append(moment)
            throttle = after_failure(throttle, moment)
    for start in checked:
        assert sum(1 for at in checked if start <= at < start + timedelta(minutes=1)) <= 5
