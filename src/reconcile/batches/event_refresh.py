"""What the hub queues for the webhook events it cannot apply (DESIGN.md 6.2; the events' needs are
:class:`reconcile.jira.webhook_events.Need`).

- ``TARGETED`` events become one ``refresh {keys}`` of the hub's (:func:`event_refresh_body`): the key of an issue
  whose body could not be read; for a deletion, the keys the mirror links to the deleted issue (their rows still
  show the links Jira deleted with it; the deleted issue itself is left to the full refresh, which alone judges
  vanished issues, and reading it would cost a refused query and its lenient repeat for nothing).
- ``CHANGES`` events (links, empty bodies) become one change-only refresh
(``reconcile.batches.validation.auto_refresh_body``
  with ``changes``): one search finds what they touched. Only with a journal mark by the current base JQL, as
  for the automatic one; without it the automatic refresh is a full one and is due anyway.

Batched, at most one waiting of each: while the hub's refresh of either kind is still **queued** it has not read
Jira yet, so it covers every later event too — new keys are added to the queued ``refresh {keys}``, a queued
change-only refresh is enough as it is. One already delivered may have read before the event, so it covers
nothing new: the next one is queued behind it. A burst of events therefore costs at most one refresh in flight
and one queued of each kind, whatever its size. A queued ``refresh {keys}`` holds at most :data:`MAX_KEYS` keys
(one search page, one call); keys beyond are left to the next change-only or full refresh (``left``).

How the hub's ``POST /agent/events`` uses it, in the claim's transaction (under the queue lock)::

    events = [wire_event(e, f"events[{i}]") for i, e in enumerate(body.events)]
    apply the APPLY events' issues (the mirror's upsert rule), then run the confirmation by state
    decision = decide_event_refreshes(events, linked=<mirror link ends of each deleted key>,
                                      queued=<the hub's queued refresh {keys}, if any>,
                                      changes_queued=<a queued change-only refresh exists>,
                                      mark=..., base_jql=..., jira_project=settings.jira_project)
    decision.extend → save that command's params {"keys": decision.extend.keys}
    decision.queue_keys → store event_refresh_body(decision.queue_keys) (validated with by_hub=False: plain keys)
    decision.queue_changes → store auto_refresh_body(base, changes=True) (validated with by_hub=True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from reconcile.batches.validation import AUTO_REFRESH_AUTHOR
from reconcile.guard.policy import key_project
from reconcile.jira.webhook_events import Need, WebhookEvent
from reconcile.queue.history import JournalMark
from reconcile.vocabulary.catalogue import REFRESH_TYPE

__all__ = [
    "EVENT_REFRESH_TITLE",
    "MAX_KEYS",
    "EventRefreshes",
    "QueuedRefresh",
    "decide_event_refreshes",
    "event_refresh_body",
    "targets",
]

#: The title of the hub's refresh for webhook events (its author is the hub's, as the automatic refresh's).
EVENT_REFRESH_TITLE = "обновление по событиям Jira"
#: The most keys one queued refresh for events reads: one search page.
MAX_KEYS = 100


@attrs.frozen(kw_only=True)
class QueuedRefresh:
    """The hub's queued ``refresh {keys}`` for events: its command and its keys."""

    command_id: int
    keys: tuple[str, ...]


@attrs.frozen(kw_only=True)
class EventRefreshes:
    """What to do for a set of events: ``extend`` the queued refresh (its keys after adding), or queue a new one
    of ``queue_keys``; queue a change-only refresh; ``left``: keys no refresh took (over :data:`MAX_KEYS`)."""

    extend: QueuedRefresh | None = None
    queue_keys: tuple[str, ...] = ()
    queue_changes: bool = False
    left: tuple[str, ...] = ()


def targets(events: Iterable[WebhookEvent], *, linked: Mapping[str, Iterable[str]]) -> list[str]:
    """The keys the ``TARGETED`` events need read, in the order first named (``linked``: the keys the mirror links
    to each deleted issue)."""
    found: list[str] = []
    for event in events:
        if event.need is not Need.TARGETED or event.key is None:
            continue
        if event.event == "jira:issue_deleted":
            found.extend(other for other in linked.get(event.key, ()) if other != event.key)
        else:
            found.append(event.key)
    return list(dict.fromkeys(found))


def decide_event_refreshes(
    events: Sequence[WebhookEvent],
    *,
    linked: Mapping[str, Iterable[str]],
    queued: QueuedRefresh | None,
    changes_queued: bool,
    mark: JournalMark | None,
    base_jql: str | None,
    jira_project: str,
) -> EventRefreshes:
    """The refreshes ``events`` need, given the hub's queued ones (see the module docstring)."""
    have = set(queued.keys) if queued is not None else set()
    wanted = [
        key
        for key in targets(events, linked=linked)
        if key not in have and key_project(key) == jira_project  # the hub's scope: a batch names no other key
    ]
    room = MAX_KEYS - len(have)
    taken, left = tuple(wanted[: max(room, 0)]), tuple(wanted[max(room, 0) :])
    extend = None
    queue_keys: tuple[str, ...] = ()
    if taken and queued is not None:
        extend = QueuedRefresh(command_id=queued.command_id, keys=(*queued.keys, *taken))
    elif taken:
        queue_keys = taken
    changes = any(event.need is Need.CHANGES for event in events)
    can_read_changes = base_jql is not None and mark is not None and mark.query == base_jql
    return EventRefreshes(
        extend=extend,
        queue_keys=queue_keys,
        queue_changes=changes and not changes_queued and can_read_changes,
        left=left,
    )


def event_refresh_body(keys: Sequence[str]) -> dict[str, Any]:
    """The hub's ``refresh {keys}`` batch for events."""
    return {
        "author": AUTO_REFRESH_AUTHOR,
        "title": EVENT_REFRESH_TITLE,
        "commands": [{"type": REFRESH_TYPE, "params": {"keys": list(keys)}}],
    }
