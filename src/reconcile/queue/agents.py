"""Who may claim (DESIGN.md 5.4): exactly one agent process is active at a time.

The active agent is the claimant that claimed last: its ``agent_id`` and its ``instance`` (a per-process id
the agent keeps in its journal file, so a restart on the same journal is the same instance). It counts as
online while it was seen within :data:`ONLINE_FACTOR` × ``claim_wait_seconds``. A claim from another
``agent_id`` — or from another instance of the same ``agent_id`` (a copied unit file) — while the active one is
online is refused (HTTP 409, with the seconds until it would count as away); once it has been away that long,
the newcomer takes over. A claim without an instance (an older agent) is the instance ``""``.

A **stalled** agent (it reported a ``last_error``: it cannot reach Jira) does not claim; it tells the hub again
at each of its backoff waits, which last up to :data:`BACKOFF_CAP_SECONDS`, so it counts as online while seen
within :data:`ONLINE_FACTOR` of those waits (or of long polls, whichever is longer).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from reconcile.vocabulary.errors import ConflictError, ValidationError
from reconcile.vocabulary.text import utc_text

__all__ = [
    "BACKOFF_CAP_SECONDS",
    "INSTANCE_MAX",
    "ONLINE_FACTOR",
    "AgentConflict",
    "check_claimant",
    "check_instance",
    "holds_claim",
    "is_online",
]

#: An agent is online while seen within this many long polls.
ONLINE_FACTOR = 2
#: The longest ``instance`` a claim may carry (the agent makes 32 hex digits).
INSTANCE_MAX = 64
#: The agent's longest backoff wait (DESIGN.md 5.4: a configuration mistake is not hammered).
BACKOFF_CAP_SECONDS = 60.0


class AgentConflict(ConflictError):
    """Another agent process is active (409); ``retry_after`` is how many seconds until it counts as away."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def check_instance(instance: str | None) -> None:
    """An instance is a non-empty text of at most :data:`INSTANCE_MAX` characters (422 otherwise)."""
    if instance is not None and not 0 < len(instance) <= INSTANCE_MAX:
        raise ValidationError(f"instance — ожидается непустая строка не длиннее {INSTANCE_MAX} символов")


def _window(claim_wait_seconds: float) -> timedelta:
    return timedelta(seconds=ONLINE_FACTOR * claim_wait_seconds)


def is_online(last_seen_at: datetime, *, now: datetime, claim_wait_seconds: float, stalled: bool = False) -> bool:
    """Whether the agent last seen at ``last_seen_at`` is still online at ``now`` (``stalled``: it reported a
    ``last_error`` and reports between backoff waits, not claims)."""
    waits = max(claim_wait_seconds, BACKOFF_CAP_SECONDS) if stalled else claim_wait_seconds
    return last_seen_at >= now - _window(waits)


def check_claimant(
    claimant: str,
    *,
    instance: str | None = None,
    active: str | None,
    active_instance: str | None = None,
    active_seen_at: datetime | None,
    now: datetime,
    claim_wait_seconds: float,
) -> None:
    """Refuse (409, :class:`AgentConflict`) a claim while another agent process is online."""
    if active is None or active_seen_at is None:
        return
    if active == claimant and (active_instance or "") == (instance or ""):
        return
    if not is_online(active_seen_at, now=now, claim_wait_seconds=claim_wait_seconds):
        return
    seen = utc_text(active_seen_at, "auto")
    retry_after = max(1, math.ceil((active_seen_at + _window(claim_wait_seconds) - now).total_seconds()))
    if active == claimant:
        raise AgentConflict(
            f"агент {active} уже работает в другом процессе (последний раз {seen}); "
            "второй процесс с тем же agent_id не допускается",
            retry_after=retry_after,
        )
    raise AgentConflict(
        f"активен другой агент {active} (последний раз {seen}); второй агент не допускается",
        retry_after=retry_after,
    )


def holds_claim(instance: str | None, *, active_instance: str | None) -> bool:
    """Whether the process ``instance`` is the one the claimed command was issued to (the active one).

    The hub issues one command at a time, to the active agent; a process that has been taken over must drop
    the command it still holds instead of writing it (DESIGN.md 5.4).
    """
    return instance is None or (active_instance or "") == instance
