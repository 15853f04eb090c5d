"""Pacing from Jira Data Center's own rate limit (DESIGN.md 5.6): the token bucket as Jira's answers announce
it, and how long the agent waits before its next call so that the bucket keeps :data:`RESERVE` tokens.

Jira DC (8.6+) gives each user ``X-RateLimit-FillRate`` tokens every ``X-RateLimit-Interval-Seconds`` — one at a
time, a token every ``Interval / FillRate`` seconds (Atlassian's knowledge base: «the user is receiving a new token
in constant interval»), not a batch at the interval's end — up to ``X-RateLimit-Limit``; every request takes one;
every answer of a limited user carries the four ``X-RateLimit-*`` headers (``Remaining``: tokens left after this
request) and ``Retry-After`` (whole seconds until the next token, ``0`` while tokens remain); an empty bucket
answers 429.

The rule (:meth:`BucketPacer.wait_seconds`): while the last answer left more than the reserve, no wait — the
burst is spent at once. At the reserve (or below it), wait one token's time for each token the next call needs
to leave the reserve intact, ``k = reserve + 1 − Remaining``, counted from the last answer: Jira took the last
call's token by then, so ``k`` tokens' times later at least ``k`` tokens have come since. Never a full refill: at
the bucket's pace a long refresh sends one call per token. The waits lose no token either: a call that goes a
little later than the token (its latency) finds one more token the time after, and goes at once.

Why a reserve of **2** (never less than 0, never the whole bucket: ``min(2, Limit − 1)``): the bucket is per Jira
user, and other clients of the agent's user (``sdlc-agent check`` run by an operator beside a running agent, the
webhook registration, a person's browser session) spend from it unseen. Two tokens absorb such a foreign call
without a 429, and cost a long refresh two calls of its burst, nothing of its pace.

How the agent's Jira adapter uses it (``now``: its monotonic clock, seconds; no clock here)::

    pacer = BucketPacer()
    for every Jira call:
        wait = pacer.wait_seconds(now=clock.monotonic())   # with the pacing's own wait: sleep until the later of
        ...                                                 # both deadlines, never their sum
        response = await send(call)
        pacer = pacer.answered(response.headers, status=response.status, answered_at=clock.monotonic())

One pacer per Jira user, kept across commands (the bucket is the user's, not the command's). Its wait is a wait
like the pause: the agent heartbeats through it (DESIGN.md 5.6). A 429 is still honoured by the retry policy
(``Retry-After``): its wait is ``max(Retry-After, wait_seconds)``, the two say the same thing. A 2xx answer
without the headers means the limit is off: the pacer forgets the bucket.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import attrs

__all__ = ["RESERVE", "Bucket", "BucketPacer", "read_bucket"]

#: The tokens the agent leaves in Jira's bucket (see the module docstring for why two).
RESERVE = 2

_LONGEST_INTERVAL = 86400.0  # a longer interval in a header is no interval Jira's form can set: ignored


@attrs.frozen(kw_only=True)
class Bucket:
    """What one answer says of the user's bucket."""

    limit: int
    remaining: int
    fill_rate: int
    interval: float
    retry_after: float = 0.0

    @property
    def token_seconds(self) -> float:
        """The time between two of Jira's tokens."""
        return self.interval / self.fill_rate

    @property
    def reserve(self) -> int:
        """The reserve kept in this bucket: :data:`RESERVE`, but never the whole bucket."""
        return min(RESERVE, self.limit - 1)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value.strip()
    return None


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _seconds(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def read_bucket(headers: Mapping[str, str]) -> Bucket | None:
    """The bucket an answer announces (header names in any case), or ``None`` when it announces none or one that
    cannot be (a zero limit, fill rate or interval, remaining above the limit): such an answer paces nothing."""
    limit = _int(_header(headers, "x-ratelimit-limit"))
    remaining = _int(_header(headers, "x-ratelimit-remaining"))
    fill_rate = _int(_header(headers, "x-ratelimit-fillrate"))
    interval = _seconds(_header(headers, "x-ratelimit-interval-seconds"))
    if limit is None or remaining is None or fill_rate is None or interval is None:
        return None
    if limit < 1 or fill_rate < 1 or not 0 < interval <= _LONGEST_INTERVAL or remaining > limit:
        return None
    retry_after = _seconds(_header(headers, "retry-after")) or 0.0
    return Bucket(limit=limit, remaining=remaining, fill_rate=fill_rate, interval=interval, retry_after=retry_after)


@attrs.frozen(kw_only=True)
class BucketPacer:
    """What the agent knows of its Jira user's bucket: the last answer's reading (``bucket``) and when that answer
    came (the agent's monotonic seconds)."""

    bucket: Bucket | None = None
    answered_at: float = 0.0

    def answered(self, headers: Mapping[str, str], *, status: int, answered_at: float) -> BucketPacer:
        """The pacer after one more answer (any status)."""
        reading = read_bucket(headers)
        if reading is None:
            # A success without the headers: Jira no longer limits this user. Anything else (a proxy's 503, a
            # refused token) says nothing about the bucket.
            return BucketPacer() if 200 <= status < 300 else self
        return BucketPacer(bucket=reading, answered_at=answered_at)

    def wait_seconds(self, *, now: float) -> float:
        """Seconds to wait from ``now`` before the next Jira call (``0``: call now)."""
        bucket = self.bucket
        if bucket is None or bucket.remaining > bucket.reserve:
            return 0.0
        needed = bucket.reserve + 1 - bucket.remaining
        return max(self.answered_at + needed * bucket.token_seconds - now, 0.0)
