"""The mirror's upsert rule (DESIGN.md 6.2): an issue record replaces the mirror's row only when its ``updated``
is not older than the row's, so a late or repeated delivery never makes a row older.

One rule for both ways a record comes. A **webhook event** is delivered at most once, unordered, and may arrive
long after a newer state was read. A **refresh page** may be just as late: it is read, then posted, and a
webhook for an edit made meanwhile may be applied before it; a redelivered refresh sends its pages again, and
the first delivery's may come after the second's. With the rule on both paths, applying events and pages in
any order, with repeats, leaves each row at the newest state seen (``tests/reconcile/test_mirror_rule.py``).

- Equal ``updated`` applies: the same state again (a repeat, a page confirming what an event brought) is
  harmless, and Jira keeps ``updated`` to the millisecond but the mirror to the second, so two states of one
  second cannot be told apart anyway — the later arrival wins until the next read.
- A row without a readable ``updated`` takes any record; a record without one never replaces a row that has
  one (it cannot be shown not to be older).
- Within one batch of records the newest of each key is the one offered (the later one on a tie), as a page
  that names a key twice always did.

Storage carries it out in one transaction under the queue lock (``MirrorRepository.upsert_issues``): the rows'
``updated`` read, :func:`to_apply` decides, only those records written (their labels and links with them).
The confirmation by state runs after applied records, whichever way they came.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from reconcile.records import MirrorIssue

__all__ = ["applies", "newest", "to_apply", "updated_at"]


def updated_at(value: str | None) -> datetime | None:
    """A record's ``updated`` as a moment (``2026-10-22T09:00:00Z``, Jira's own ``…+0300`` too); ``None`` when
    it is missing or no time."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def applies(incoming: str | None, stored: str | None) -> bool:
    """Whether a record whose ``updated`` is ``incoming`` replaces a row whose ``updated`` is ``stored``."""
    row = updated_at(stored)
    if row is None:
        return True
    record = updated_at(incoming)
    return record is not None and record >= row


def newest(records: Iterable[MirrorIssue]) -> dict[str, MirrorIssue]:
    """The newest record of each key among ``records`` (by the rule; the later one on a tie), in first-seen order."""
    found: dict[str, MirrorIssue] = {}
    for record in records:
        kept = found.get(record.key)
        if kept is None or applies(record.updated, kept.updated):
            found[record.key] = record
    return found


def to_apply(records: Iterable[MirrorIssue], stored: Mapping[str, str | None]) -> dict[str, MirrorIssue]:
    """The records to write, by key: the newest of each key, when not older than its row (``stored``: the
    ``updated`` of each key the mirror holds; a key it lacks is a new row)."""
    return {
        key: record
        for key, record in newest(records).items()
        if key not in stored or applies(record.updated, stored[key])
    }
