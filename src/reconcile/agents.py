"""Who may claim (DESIGN.md 5.4): exactly one agent is active at a time.

The active agent is the one that claimed last; it counts as online while it was seen within
:data:`ONLINE_FACTOR` × ``claim_wait_seconds``. A claim from another ``agent_id`` while the active one is
online is refused (HTTP 409); once it has been away that long, the newcomer takes over.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from reconcile.errors import ConflictError

__all__ = ["ONLINE_FACTOR", "check_claimant", "is_online"]

#: An agent is online while seen within this many long polls.
ONLINE_FACTOR = 2


def is_online(last_seen_at: datetime, *, now: datetime, claim_wait_seconds: float) -> bool:
    """Whether the agent last seen at ``last_seen_at`` is still online at ``now``."""
    return last_seen_at >= now - timedelta(seconds=ONLINE_FACTOR * claim_wait_seconds)


def check_claimant(
    claimant: str,
    *,
    active: str | None,
    active_seen_at: datetime | None,
    now: datetime,
    claim_wait_seconds: float,
) -> None:
    """Refuse (409) a claim from ``claimant`` while another agent, ``active``, is online."""
    if active is None or active == claimant or active_seen_at is None:
        return
    if is_online(active_seen_at, now=now, claim_wait_seconds=claim_wait_seconds):
        seen = active_seen_at.astimezone(UTC).isoformat().replace("+00:00", "Z")
        raise ConflictError(f"активен другой агент {active} (последний раз {seen}); второй агент не допускается")
