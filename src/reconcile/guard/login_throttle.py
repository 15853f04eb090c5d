"""The web page's login throttle (DESIGN.md 5.7, the hub): wrong tokens are slowed down per client address and
per token prefix, and the right token works again the moment the wait is over.

Each key (an address, a token's first :data:`PREFIX_CHARS` characters) has a :class:`Throttle`. A failed login
counts for :data:`WINDOW` (a sliding window: the failures of the last minute, whenever it starts); the
:data:`MAX_FAILURES`-th failure within one blocks the key for :data:`FIRST_BLOCK`, each further block of the key
twice as long as the one before, up to :data:`MAX_BLOCK`;
a key quiet for :data:`MAX_BLOCK` after its last block starts over. While blocked, a login with the key is not
even checked: 429 with ``Retry-After`` (the seconds left) — else the answer would tell a right token from a wrong
one and the block would slow nothing. A successful login clears its keys.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import attrs

__all__ = [
    "FIRST_BLOCK",
    "MAX_BLOCK",
    "MAX_FAILURES",
    "PREFIX_CHARS",
    "WINDOW",
    "Throttle",
    "after_failure",
    "retry_after",
    "throttle_keys",
]

MAX_FAILURES = 5
WINDOW = timedelta(minutes=1)
FIRST_BLOCK = timedelta(minutes=1)
MAX_BLOCK = timedelta(minutes=15)
PREFIX_CHARS = 8
#: Doublings of the first block past which it is :data:`MAX_BLOCK` anyway (1, 2, 4, 8, 16 minutes).
_DOUBLINGS = 4


@attrs.frozen(kw_only=True)
class Throttle:
    """One key's failures of the last :data:`WINDOW` (their times, oldest first), the block's level and its end."""

    recent: tuple[datetime, ...] = ()
    level: int = 0
    blocked_until: datetime | None = None


def throttle_keys(address: str | None, token: str) -> tuple[str, ...]:
    """The keys a login attempt counts under: its client address and its token's prefix (when it has them)."""
    keys = [f"address {address}"] if address else []
    if token:
        keys.append(f"prefix {token[:PREFIX_CHARS]}")
    return tuple(keys)


def retry_after(throttle: Throttle, now: datetime) -> int | None:
    """Whole seconds until the key may try again (``None``: it may now)."""
    if throttle.blocked_until is None or throttle.blocked_until <= now:
        return None
    return math.ceil((throttle.blocked_until - now).total_seconds())


def after_failure(throttle: Throttle, now: datetime) -> Throttle:
    """The key's state after a failed login at ``now`` (one it was allowed to try)."""
    recent = (*(moment for moment in throttle.recent if now - moment < WINDOW), now)
    was_blocked = throttle.blocked_until is not None and now - throttle.blocked_until < MAX_BLOCK
    level = throttle.level if was_blocked else 0
    if len(recent) < MAX_FAILURES:
        return Throttle(recent=recent, level=level, blocked_until=throttle.blocked_until)
    block = min(FIRST_BLOCK * 2 ** min(level, _DOUBLINGS), MAX_BLOCK)
    return Throttle(level=min(level + 1, _DOUBLINGS), blocked_until=now + block)  # the block forgets the failures
