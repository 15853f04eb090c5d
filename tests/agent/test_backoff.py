"""Backoff with jitter used for the hub and Jira retries."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from agent_app.loop import Backoff, backoff_delay


@given(
    attempt=st.integers(min_value=0, max_value=200),
    seed=st.integers(),
    base=st.floats(min_value=0.01, max_value=5),
    cap=st.floats(min_value=0.01, max_value=120),
)
def test_delay_is_between_half_and_whole_ceiling(attempt: int, seed: int, base: float, cap: float) -> None:
    """Each delay lies in [ceiling/2, ceiling] with ceiling = min(cap, base * 2**attempt)."""
    ceiling = min(cap, base * 2**attempt)
    delay = backoff_delay(Backoff(base=base, cap=cap), attempt, random.Random(seed))
    assert ceiling / 2 <= delay <= ceiling


def test_delays_grow_until_the_cap() -> None:
    """Without jitter's upper half the ceilings double: 0.5, 1, 2, 4 … then stay at the cap."""
    policy = Backoff(base=0.5, cap=4.0)
    lows = [backoff_delay(policy, n, random.Random(0)) for n in range(6)]
    assert [round(min(policy.cap, 0.5 * 2**n) / 2, 3) for n in range(6)] == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    assert all(low <= policy.cap for low in lows)
    assert lows[5] >= 2.0


def test_jitter_spreads_agents() -> None:
    """Two random sources give different delays for the same attempt (agents do not retry in lockstep)."""
    policy = Backoff()
    assert backoff_delay(policy, 3, random.Random(1)) != backoff_delay(policy, 3, random.Random(2))
