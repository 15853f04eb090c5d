"""The mirror's upsert rule (DESIGN.md 6.2): whether an issue record replaces the mirror's row, by its ``updated``
(kept to Jira's millisecond) and by how it came (:class:`Arrival`), so a late or repeated delivery never puts a
row back.

- A **webhook event** applies only when its ``updated`` is strictly newer than the row's. Jira delivers events
  at most once and unordered: a delayed event of an earlier state may arrive after the state it preceded, and
  with an equal ``updated`` nothing tells which of two states is Jira's last — so the row that is there stays
  (an equal event is a repeat at best).
- A **read** (a refresh page) applies when not older: it is what Jira said when asked, so an equal ``updated``
  applies (two changes within one millisecond: the read after them shows the last). A page can be late too (read,
  then posted while a webhook of an edit made meanwhile was applied), hence not older.
- A **full refresh**'s page always applies: a full refresh writes what Jira says whatever the row's ``updated``
  (a row made newer than Jira by a bad event, one with an ``updated`` in the future, is corrected by it).

So events and reads of one issue, interleaved in any order and with repeats, end at Jira's last state once a
read after it or its own event has arrived (``tests/reconcile/test_mirror_rule.py``).

A row without a readable ``updated`` takes any record; a record without one never replaces a row that has one
(it cannot be shown not to be older), except from a full refresh. Within one batch of records the newest of each
key is the one offered, a tie resolved the way the rule resolves it against a row (the later record of a read,
the earlier event). An event's ``updated`` more than :data:`FUTURE_LIMIT` ahead of the hub's clock is refused
(:func:`too_far_ahead`): it would hold the row against every event until a full refresh.

Storage carries it out in one transaction under the queue lock (``MirrorRepository.upsert_issues``): the rows'
``updated`` read, :func:`to_apply` decides, only those records written (their labels and links with them).
The confirmation by state runs after applied records, whichever way they came.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from enum import Enum

from reconcile.vocabulary.records import MirrorIssue

__all__ = ["FUTURE_LIMIT", "Arrival", "applies", "newest", "to_apply", "too_far_ahead", "updated_at"]

#: How far ahead of the hub's clock an event's ``updated`` may be (Jira's clock and the hub's differ a little).
FUTURE_LIMIT = timedelta(seconds=300)


class Arrival(Enum):
    """How a record came to the hub (see the module docstring)."""

    EVENT = "event"
    READ = "read"
    FULL_READ = "full_read"


def updated_at(value: str | None) -> datetime | None:
    """A record's ``updated`` as a moment (``2026-10-22T09:00:00.123Z``, Jira's own ``…+0300`` too); ``None``
    when it is missing or no time."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def applies(incoming: str | None, stored: str | None, arrival: Arrival) -> bool:
    """Whether a record whose ``updated`` is ``incoming`` replaces a row whose ``updated`` is ``stored``."""
    if arrival is Arrival.FULL_READ:
        return True
    row = updated_at(stored)
    if row is None:
        return True
    record = updated_at(incoming)
    if record is None:
        return False
    return record > row if arrival is Arrival.EVENT else record >= row


def too_far_ahead(updated: str | None, now: datetime) -> bool:
    """Whether ``updated`` lies more than :data:`FUTURE_LIMIT` after ``now``."""
    moment = updated_at(updated)
    return moment is not None and moment > now + FUTURE_LIMIT


def newest(records: Iterable[MirrorIssue], arrival: Arrival) -> dict[str, MirrorIssue]:
    """The record of each key among ``records`` that the rule keeps when they come one after another, in
    first-seen order."""
    found: dict[str, MirrorIssue] = {}
    for record in records:
        kept = found.get(record.key)
        if kept is None or applies(record.updated, kept.updated, arrival):
            found[record.key] = record
    return found


def to_apply(
    records: Iterable[MirrorIssue], stored: Mapping[str, str | None], arrival: Arrival
) -> dict[str, MirrorIssue]:
    """The records to write, by key: the one of each key the rule keeps, when it replaces its row (``stored``:
    the ``updated`` of each key the mirror holds; a key it lacks is a new row)."""
    return {
        key: record
        for key, record in newest(records, arrival).items()
        if key not in stored or applies(record.updated, stored[key], arrival)
    }
