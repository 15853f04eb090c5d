"""Pacing from Jira Data Center's own rate limit (DESIGN.md 5.6): the token bucket as Jira's answers announce
it, and how long the agent waits before its next call so that the bucket keeps :data:`RESERVE` tokens.

Jira DC (8.6+) gives each user ``X-RateLimit-FillRate`` tokens every ``X-RateLimit-Interval-Seconds`` — a batch at
the end of each interval, not a trickle — up to ``X-RateLimit-Limit``; every request takes one; every answer of
a limited user carries the four ``X-RateLimit-*`` headers (``Remaining``: tokens left after this request) and
``Retry-After`` (whole seconds until the next batch, ``0`` while tokens remain); an empty bucket answers 429.

The rule (:meth:`BucketPacer.wait_seconds`): while the last answer left more than the reserve, no wait. At the
reserve, wait until enough batches have certainly come since that call for the next one to leave the reserve
intact: ``k = ⌈(reserve + 1 − Remaining) / FillRate⌉`` batches. Jira does not say when its intervals end while
tokens remain, but the answers do: a ``Remaining`` one lower than the last (the token taken) means no batch came
between the two calls, a higher one that one did; ``Retry-After`` says when the next one comes. Any
interval-long stretch holds a batch, so the first batch after the last call comes at the latest one interval
after the first answer of the run of calls that saw none (``quiet_since``) — a burst of calls that spent the
tokens costs no extra interval — or, once the pacer has placed a batch between two calls (``refill``), at that
batch's time plus whole intervals. A long refresh therefore runs at the bucket's own rate.

Why a reserve of **2** (never less than 0, never the whole bucket: ``min(2, Limit − 1)``): the bucket is per Jira
user, and other clients of the agent's user (``sdlc-agent check`` run by an operator beside a running agent, the
webhook registration, a person's browser session) spend from it unseen; and the phase learnt from answers can be
off when latencies vary. Two tokens absorb one such foreign call and one early wake without a 429, and cost the
steady rate nothing while ``Limit ≥ FillRate + 2`` (a bucket sized to absorb bursts): each
batch still brings ``FillRate`` calls; a smaller bucket gives ``Limit − 2`` calls an interval. More would cost
small buckets their rate; fewer would meet the first foreign call with a 429. Jira's ``Retry-After`` counts whole
seconds, so it places no batch of a one-second interval: the phase then comes from the calls' own ``Remaining``.

How the agent's Jira adapter uses it (``now``: its monotonic clock, seconds; no clock here)::

    pacer = BucketPacer()
    for every Jira call:
        wait = pacer.wait_seconds(now=clock.monotonic())   # with the pacing's own wait: sleep until the later of
        ...                                                 # both deadlines, never their sum
        sent_at = clock.monotonic(); response = await send(call)
        pacer = pacer.answered(response.headers, status=response.status, sent_at=sent_at, answered_at=clock.monotonic())

One pacer per Jira user, kept across commands (the bucket is the user's, not the command's). Its wait is a wait
like the pause: the agent heartbeats through it (DESIGN.md 5.6). A 429 is still honoured by the retry policy
(``Retry-After``): its wait is ``max(Retry-After, wait_seconds)``, the two say the same thing. A 2xx answer
without the headers means the limit is off: the pacer forgets the bucket.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import attrs

__all__ = ["RESERVE", "Bucket", "BucketPacer", "RefillWindow", "read_bucket"]

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

    def same_policy(self, other: Bucket) -> bool:
        return (self.limit, self.fill_rate, self.interval) == (other.limit, other.fill_rate, other.interval)

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
class RefillWindow:
    """A batch of tokens came strictly after ``after`` and at or before ``by``; the others every interval from it."""

    after: float
    by: float

    def shifted(self, intervals: int, interval: float) -> RefillWindow:
        return RefillWindow(after=self.after + intervals * interval, by=self.by + intervals * interval)

    def meet(self, other: RefillWindow) -> RefillWindow | None:
        after, by = max(self.after, other.after), min(self.by, other.by)
        return RefillWindow(after=after, by=by) if after < by else None


def _narrowed(known: RefillWindow | None, seen: RefillWindow, interval: float) -> RefillWindow | None:
    """``seen`` narrowed by what was known (both are windows of the same batches, ``interval`` apart); a window as
    wide as an interval says nothing. When the two do not agree on one batch, only the newer is kept."""
    if seen.by - seen.after >= interval:
        return known
    if known is None:
        return seen
    offset = (seen.after - known.after) / interval
    meets = [
        window
        for shift in {math.floor(offset), math.ceil(offset)}
        if (window := known.shifted(shift, interval).meet(seen)) is not None
    ]
    return meets[0] if len(meets) == 1 else seen


@attrs.frozen(kw_only=True)
class BucketPacer:
    """What the agent knows of its Jira user's bucket: the last answer's reading (``bucket``), when that call was
    sent and answered (the agent's monotonic seconds), since when no batch came (``quiet_since``: the answer of the
    first call of the run that saw none), and when Jira's batches come (``refill``), if learnt."""

    bucket: Bucket | None = None
    sent_at: float = 0.0
    answered_at: float = 0.0
    quiet_since: float = 0.0
    refill: RefillWindow | None = None

    def answered(self, headers: Mapping[str, str], *, status: int, sent_at: float, answered_at: float) -> BucketPacer:
        """The pacer after one more answer (any status; the call was sent at ``sent_at``)."""
        reading = read_bucket(headers)
        if reading is None:
            # A success without the headers: Jira no longer limits this user. Anything else (a proxy's 503, a
            # refused token) says nothing about the bucket.
            return BucketPacer() if 200 <= status < 300 else self
        last = self.bucket if self.bucket is not None and self.bucket.same_policy(reading) else None
        refill = self.refill if last is not None else None
        quiet_since = answered_at  # a run of calls without a batch starts at any answer
        if last is not None:
            if reading.remaining == last.remaining - 1 and last.remaining < last.limit:
                quiet_since = self.quiet_since  # one token less: no batch came (a full bucket could hide one)
            # Only a success surely took a token: counting none for the rest can miss a batch, never invent one.
            elif reading.remaining > last.remaining - (1 if 200 <= status < 300 else 0):
                refill = _narrowed(refill, RefillWindow(after=self.sent_at, by=answered_at), reading.interval)
        if reading.retry_after > 0:
            # Jira counted the whole seconds to the next batch from the moment it took the call, within the call.
            seen = RefillWindow(after=sent_at + reading.retry_after - 1, by=answered_at + reading.retry_after)
            refill = _narrowed(refill, seen, reading.interval)
        return BucketPacer(
            bucket=reading, sent_at=sent_at, answered_at=answered_at, quiet_since=quiet_since, refill=refill
        )

    def wait_seconds(self, *, now: float) -> float:
        """Seconds to wait from ``now`` before the next Jira call (``0``: call now)."""
        bucket = self.bucket
        if bucket is None or bucket.remaining > bucket.reserve:
            return 0.0
        batches = math.ceil((bucket.reserve + 1 - bucket.remaining) / bucket.fill_rate)
        interval = bucket.interval
        # No batch came between the calls answered since ``quiet_since``: the next one is within an interval of it.
        deadline = self.quiet_since + batches * interval
        if self.refill is not None:
            # The first batch surely after the last call (which Jira took by ``answered_at``): the learnt one shifted
            # by whole intervals until it cannot have come before that.
            first = math.ceil((self.answered_at - self.refill.after) / interval)
            deadline = min(deadline, self.refill.by + (first + batches - 1) * interval)
        return max(deadline - now, 0.0)
