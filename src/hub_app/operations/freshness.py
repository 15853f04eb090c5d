"""How fresh the mirror is, as ``/agent-status``, the queue page and ``/metrics`` show it (DESIGN.md 6.2;
the rule: :mod:`reconcile.jira.freshness`)."""

from __future__ import annotations

from hub_app.answers.agent import MirrorFreshness
from hub_app.answers.wire import iso
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import base_jql
from reconcile.config import Settings
from reconcile.jira import staleness_seconds

__all__ = ["mirror_freshness"]


async def mirror_freshness(unit: Unit, settings: Settings) -> MirrorFreshness:
    """The latest finished full and change-only refreshes (by the current base JQL), the last webhook event, and
    the staleness now."""
    full = await unit.db.queue.last_full_refresh()
    base = await base_jql(unit, settings)
    changes = await unit.db.queue.last_changes_refresh(base) if base is not None else None
    status = await unit.db.admin.agent_status()
    staleness = staleness_seconds(now=unit.now, last_full_refresh_at=full, last_changes_refresh_at=changes)
    return MirrorFreshness(
        last_full_refresh_at=iso(full),
        last_changes_refresh_at=iso(changes),
        last_webhook_event_at=iso(status.last_webhook_event_at if status else None),
        staleness_seconds=None if staleness is None else round(staleness, 3),
    )
