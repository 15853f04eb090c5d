"""The hub's automatic refresh (DESIGN.md 6 and 6.2): what an empty claim creates — nothing, a full refresh, or a
change-only one read from the journal mark."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import Enum

from reconcile.queue.history import JournalMark

__all__ = ["AutoRefresh", "decide_auto_refresh"]


class AutoRefresh(Enum):
    """What an empty claim creates: nothing, the hub's full refresh, or its change-only refresh."""

    NONE = "none"
    FULL = "full"
    CHANGES = "changes"


def decide_auto_refresh(
    *,
    queue_empty: bool,
    base_jql: str | None,
    last_full_refresh_started_at: datetime | None,
    last_base_refresh_started_at: datetime | None,
    mark: JournalMark | None,
    now: datetime,
    auto_refresh_minutes: float,
    full_refresh_hours: float,
) -> AutoRefresh:
    """Which refresh batch an empty claim creates (DESIGN.md 6 and 6.2).

    Nothing while commands can be issued or without a base JQL (no projects, nothing to read). Then:

    1. a full refresh when none ever started, or the last one (``last_full_refresh_started_at``: any full run,
       a person's ``POST /refresh {}`` too) started more than ``full_refresh_hours`` before ``now``;
    2. nothing while the last refresh by the base JQL, full or change-only, started at most
       ``auto_refresh_minutes`` ago (``last_base_refresh_started_at``: the latest ``sync_run`` whose query is
       the current base JQL; a full one under an older base JQL counts through the first argument);
    3. a change-only refresh when the journal ``mark`` exists and was set by a run of the current base JQL;
       otherwise a full one — without a mark there is no ``since`` to read changes from, and after a project
       was added (the mark's query is an older base JQL) only a full read brings the new project's issues and
       its start journal («Новый проект»).

    Comparisons are strict: exactly ``auto_refresh_minutes`` after the last start is not yet.
    """
    if not queue_empty or base_jql is None:
        return AutoRefresh.NONE
    last_full = last_full_refresh_started_at
    if last_full is None or now - last_full > timedelta(hours=full_refresh_hours):
        return AutoRefresh.FULL
    last = max(last_full, last_base_refresh_started_at or last_full)
    if now - last <= timedelta(minutes=auto_refresh_minutes):
        return AutoRefresh.NONE
    if mark is None or mark.query != base_jql:
        return AutoRefresh.FULL
    return AutoRefresh.CHANGES
