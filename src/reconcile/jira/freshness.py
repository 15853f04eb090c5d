"""How fresh the mirror is (DESIGN.md 6.2): its staleness, and what each webhook event the agent relayed did to it.

**Staleness** is how far behind Jira the mirror can be for certain: the seconds since the start of the latest
finished refresh that read every change of the base JQL — a full one, or a change-only one (it reads everything
updated since its journal mark − 15 minutes). Webhook events do not count: Jira delivers them at most once, so an
event proves that one issue is fresh, never that no other change was missed. With webhooks on, the mirror is
usually seconds behind; its staleness still grows to about ``auto_refresh_minutes`` between change-only refreshes,
which is what an alert should watch (``docs/operations.md``).

**An event's outcome** (``sdlc_hub_webhook_events_total{outcome}``), by :func:`event_outcomes`:

- ``applied``: its issue replaced the mirror's row with a newer state (or made a new row); an event that carries
  no issue and was taken as a hint (its refresh queued, or one already queued covers it; a comment event, which
  needs nothing) is applied too;
- ``duplicate``: its issue has the ``updated`` the mirror keeps for it — the row's, or that of the request's
  event of the issue that was written: a repeated delivery, or a state nothing tells from that one — not written
  (an event applies only when strictly newer);
- ``stale``: its issue is older than the mirror's row, or than a later event of the same issue in the request:
  the upsert rule (:mod:`reconcile.jira.mirror_rule`) kept it out;
- ``refused``: the request it came in was answered 422 (nothing of it was written).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import Enum

from reconcile.jira.mirror_rule import Arrival, applies, newest, updated_at
from reconcile.jira.webhook_events import Need, WebhookEvent

__all__ = ["EventOutcome", "event_outcomes", "staleness_seconds"]


class EventOutcome(Enum):
    """What a relayed webhook event did to the mirror (see the module docstring)."""

    APPLIED = "applied"
    STALE = "stale"
    DUPLICATE = "duplicate"
    REFUSED = "refused"


def staleness_seconds(
    *, now: datetime, last_full_refresh_at: datetime | None, last_changes_refresh_at: datetime | None
) -> float | None:
    """Seconds since the start of the latest finished full or change-only refresh (``None``: none finished yet)."""
    starts = [moment for moment in (last_full_refresh_at, last_changes_refresh_at) if moment is not None]
    if not starts:
        return None
    return max((now - max(starts)).total_seconds(), 0.0)


def _same_moment(a: str | None, b: str | None) -> bool:
    return updated_at(a) is not None and updated_at(a) == updated_at(b)


def event_outcomes(events: Sequence[WebhookEvent], stored: Mapping[str, str | None]) -> list[EventOutcome]:
    """The outcome of each event of one request, in order (``stored``: the ``updated`` of each key the mirror held
    before the request; a key it lacks is a new row)."""
    issues = [event.issue for event in events if event.need is Need.APPLY and event.issue is not None]
    winners = newest(issues, Arrival.EVENT)
    found: list[EventOutcome] = []
    for event in events:
        record = event.issue if event.need is Need.APPLY else None
        if record is None:
            found.append(EventOutcome.APPLIED)
            continue
        winner = winners[record.key]
        if winner is not record:
            same = _same_moment(record.updated, winner.updated)
            found.append(EventOutcome.DUPLICATE if same else EventOutcome.STALE)
        elif record.key not in stored:
            found.append(EventOutcome.APPLIED)
        elif _same_moment(record.updated, stored[record.key]):
            found.append(EventOutcome.DUPLICATE)
        elif not applies(record.updated, stored[record.key], Arrival.EVENT):
            found.append(EventOutcome.STALE)
        else:
            found.append(EventOutcome.APPLIED)
    return found
