"""Jira Data Center's REST rate limit: a token bucket per authenticated user (Jira DC 8.6+).

As Jira DC documents it (https://confluence.atlassian.com/adminjiraserver/adjusting-your-code-for-rate-limiting-987143384.html):
a user gets ``FillRate`` new tokens every ``Interval-Seconds``, up to ``Limit`` tokens; each request takes one;
every limited answer carries ``X-RateLimit-Limit``, ``X-RateLimit-Remaining``, ``X-RateLimit-FillRate``,
``X-RateLimit-Interval-Seconds`` and ``Retry-After`` (whole seconds until the next token, ``0`` while tokens
remain). An empty bucket answers 429. The tokens come one at a time, one every ``Interval / FillRate`` seconds
from the bucket's first request — not a batch at the end of each interval: Atlassian's knowledge base
(«Jira Rate Limiting is not working as configured», Jira 8 and 9) shows 5 every 60 s with a limit of 15 letting a
16th request through 12 s after the first.

The bucket's time is the injected clock's monotonic time (:class:`adapters.clock.Clock`), so a test moves it
by hand (or lets a :class:`adapters.clock.FakeClock` advance as the client sleeps) instead of sleeping.
"""

from __future__ import annotations

import math
from fractions import Fraction

import attrs

from adapters.clock import Clock

__all__ = ["Admission", "RateLimitPolicy", "RateLimiter"]

_LONGEST_INTERVAL = 3600  # Jira's form takes intervals up to hours; a fill rate is expressed within one


@attrs.frozen(kw_only=True)
class RateLimitPolicy:
    """``fill_rate`` tokens every ``interval`` seconds, at most ``max`` banked."""

    fill_rate: int
    interval: int
    max: int

    @classmethod
    def per_second(cls, fill_per_second: float, max_tokens: int) -> RateLimitPolicy:
        """Jira's whole-number form of a rate: 20/s → 20 every 1 s, 0.5/s → 1 every 2 s, 2.5/s → 5 every 2 s.

        ``ValueError`` names a bad argument.
        """
        if isinstance(fill_per_second, bool) or not isinstance(fill_per_second, int | float):
            raise ValueError(f"fill_per_second must be a number, not {fill_per_second!r}")
        if not math.isfinite(fill_per_second) or fill_per_second <= 0:
            raise ValueError(f"fill_per_second must be positive, not {fill_per_second!r}")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max must be a positive integer, not {max_tokens!r}")
        rate = Fraction(fill_per_second).limit_denominator(_LONGEST_INTERVAL)
        if rate == 0:
            raise ValueError(f"fill_per_second {fill_per_second!r} is below one token an hour")
        return cls(fill_rate=rate.numerator, interval=rate.denominator, max=max_tokens)


@attrs.frozen(kw_only=True)
class Admission:
    """The bucket's answer to one request: allowed or not, and the headers that say how full it is."""

    allowed: bool
    policy: RateLimitPolicy
    remaining: int
    retry_after: int

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [
            (b"x-ratelimit-limit", str(self.policy.max).encode()),
            (b"x-ratelimit-remaining", str(self.remaining).encode()),
            (b"x-ratelimit-fillrate", str(self.policy.fill_rate).encode()),
            (b"x-ratelimit-interval-seconds", str(self.policy.interval).encode()),
            (b"retry-after", str(self.retry_after).encode()),
        ]


@attrs.define
class _Bucket:
    tokens: int
    started_at: float  # the bucket's first request: its tokens come every ``interval / fill_rate`` from it
    ticks: int = 0  # the tokens' times counted so far (a full bucket drops what they bring)


class RateLimiter:
    """Off until :meth:`configure`; then one bucket per user, each starting full."""

    def __init__(self, timer: Clock) -> None:
        self.timer = timer
        self.policy: RateLimitPolicy | None = None
        self._buckets: dict[str, _Bucket] = {}

    def configure(self, fill_per_second: float, max_tokens: int) -> RateLimitPolicy:
        """Turn the limit on (or change it): every bucket starts full again."""
        self.policy = RateLimitPolicy.per_second(fill_per_second, max_tokens)
        self._buckets.clear()
        return self.policy

    def off(self) -> None:
        self.policy = None
        self._buckets.clear()

    def admit(self, user: str) -> Admission | None:
        """Take a token of ``user``'s bucket; ``None`` while the limit is off."""
        policy = self.policy
        if policy is None:
            return None
        now = self.timer.monotonic()
        bucket = self._buckets.get(user)
        if bucket is None:
            bucket = self._buckets[user] = _Bucket(tokens=policy.max, started_at=now)
        # A hair of slack: sums of float seconds must not leave a token's time a rounding error away.
        ticks = math.floor((now - bucket.started_at) * policy.fill_rate / policy.interval + 1e-9)
        if ticks > bucket.ticks:
            bucket.tokens = min(policy.max, bucket.tokens + ticks - bucket.ticks)
            bucket.ticks = ticks
        allowed = bucket.tokens > 0
        if allowed:
            bucket.tokens -= 1
        next_token = bucket.started_at + (bucket.ticks + 1) * policy.interval / policy.fill_rate
        # At least 1 when empty: the next token can be a hair away (or at) ``now``.
        retry_after = 0 if bucket.tokens > 0 else max(1, math.ceil(next_token - now))
        return Admission(allowed=allowed, policy=policy, remaining=bucket.tokens, retry_after=retry_after)
