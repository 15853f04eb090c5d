"""Who changed a drifted aspect: the latest journal entry that touched it, read from the right issues, with
each kind of aspect recognised by the journal item that changes it."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.outlook.drift import Drift, attribute, journal_keys
from reconcile.vocabulary.records import HistoryEntry, HistoryItem


def drifted(aspect: str, *, key: str = "A-1", now: Any = None, **params: Any) -> Drift:
    return Drift(
        command_id=1, batch_id=1, key=key, type="ensure_fields", aspect=aspect, wanted=None, now=now, params=params
    )


def entry(key: str, created: str, author: str, *items: HistoryItem, id_: str = "1") -> HistoryEntry:
    return HistoryEntry(key=key, id=id_, created=created, author=author, items=items)


def who(drift: Drift, *entries: HistoryEntry) -> tuple[str | None, str | None]:
    journal: dict[str, list[HistoryEntry]] = {}
    for found in entries:
        journal.setdefault(found.key, []).append(found)
    [answered] = attribute([drift], journal)
    return answered.changed_by, answered.changed_at


T1, T2 = "2026-10-22T09:00:00Z", "2026-10-22T10:00:00Z"


@pytest.mark.parametrize(
    ("aspect", "field"),
    [
        ("summary", "summary"),
        ("description", "Description"),
        ("priority", "priority"),
        ("duedate", "duedate"),
        ("assignee", "assignee"),
        ("epic_key", "Epic Link"),
        ("epic_key", "Parent"),
        ("epic_key", "Parent Link"),
        ("status", "status"),
        ("sprint", "Sprint"),
    ],
)
def test_a_field_aspect_is_touched_by_its_journal_field_whatever_its_case(aspect: str, field: str) -> None:
    assert who(drifted(aspect), entry("A-1", T1, "petrov", HistoryItem(field=field))) == ("petrov", T1)
    assert who(drifted(aspect), entry("A-1", T1, "petrov", HistoryItem(field="labels"))) == (None, None)


def test_a_label_is_touched_only_by_a_change_that_adds_or_removes_it() -> None:
    removed = entry("A-1", T1, "petrov", HistoryItem(field="labels", from_string="AWPCA x", to_string="AWPCA"))
    added = entry("A-1", T1, "sidorov", HistoryItem(field="labels", from_string="AWPCA", to_string="AWPCA x"))
    other = entry("A-1", T2, "ivanov", HistoryItem(field="labels", from_string="AWPCA x", to_string="AWPCA x y"))
    not_labels = entry("A-1", T2, "ivanov", HistoryItem(field="summary", from_string="x", to_string=""))
    assert who(drifted("label:x"), removed, other, not_labels) == ("petrov", T1)
    assert who(drifted("label:x"), added) == ("sidorov", T1)
    assert who(drifted("label:x"), other) == (None, None)
    assert who(drifted("label:x"), entry("A-1", T1, "p", HistoryItem(field="labels"))) == (None, None)


def test_a_link_is_touched_on_either_end_by_an_item_naming_the_other() -> None:
    """In the source's journal the item names the target; in the target's, the source."""
    link = drifted("link", key="A-1", target="A-2")
    on_source = entry("A-1", T1, "petrov", HistoryItem(field="Link", from_="A-2"))
    on_target = entry("A-2", T2, "sidorov", HistoryItem(field="link", to="A-1"))
    elsewhere = entry("A-1", T2, "ivanov", HistoryItem(field="Link", to="A-3"))
    assert who(link, on_source) == ("petrov", T1)
    assert who(link, on_source, on_target, elsewhere) == ("sidorov", T2)
    assert who(link, entry("A-2", T2, "x", HistoryItem(field="link", to="A-2"))) == (None, None)
    assert who(link, entry("A-1", T2, "x", HistoryItem(field="summary", to="A-2"))) == (None, None)


def test_a_planned_date_is_touched_by_a_custom_field_moved_to_the_date_now_shown() -> None:
    """Planned dates live in custom fields named per site: an item of a non-system field whose new date is the
    date the mirror shows now."""
    start = drifted("planned_start", now="2026-11-05")
    moved = entry(
        "A-1", T1, "petrov", HistoryItem(field="Начало (план)", from_string="2026-11-01", to_string="2026-11-05")
    )
    moved_raw = entry("A-1", T1, "petrov", HistoryItem(field="cf", from_="2026-11-01", to="2026-11-05T00:00:00"))
    elsewhere = entry("A-1", T2, "ivanov", HistoryItem(field="Конец (план)", to_string="2026-12-01"))
    system = entry("A-1", T2, "ivanov", HistoryItem(field="duedate", to_string="2026-11-05"))
    no_date = entry("A-1", T2, "ivanov", HistoryItem(field="Метка", from_string="a", to_string="b"))
    assert who(start, moved, elsewhere, system, no_date) == ("petrov", T1)
    assert who(start, moved_raw) == ("petrov", T1)
    cleared = drifted("planned_end", now=None)
    assert who(cleared, entry("A-1", T1, "p", HistoryItem(field="cf", from_string="2026-11-01"))) == ("p", T1)


def test_the_latest_touching_entry_wins_by_time_then_id() -> None:
    first = entry("A-1", T1, "petrov", HistoryItem(field="summary"), id_="9")
    later = entry("A-1", T2, "sidorov", HistoryItem(field="summary"), id_="2")
    same_time_higher_id = entry("A-1", T2, "ivanov", HistoryItem(field="summary"), id_="3")
    assert who(drifted("summary"), later, first) == ("sidorov", T2)
    assert who(drifted("summary"), same_time_higher_id, later, first) == ("ivanov", T2)


def test_a_vanished_issue_is_not_attributed() -> None:
    """The issue's existence is not a journal change."""
    assert who(drifted("issue"), entry("A-1", T2, "petrov", HistoryItem(field="summary"))) == (None, None)


def test_the_journals_read_are_both_ends_of_links_once() -> None:
    items = [
        drifted("summary", key="A-1"),
        drifted("link", key="A-1", target="A-2"),
        drifted("issue", key="A-9"),
        drifted("status", key="A-3"),
        drifted("link", key="A-3", target="A-1"),
        drifted("duedate", key="A-4", target="A-5"),
    ]
    assert journal_keys(items) == ["A-1", "A-2", "A-3", "A-4"]


def _planned(now: str | None) -> Drift:
    return Drift(
        command_id=1,
        batch_id=1,
        key="A-1",
        type="ensure_fields",
        aspect="planned_start",
        wanted="2026-11-01",
        now=now,
        params={"key": "A-1", "planned_start": "2026-11-01"},
    )


@pytest.mark.parametrize(
    ("now", "item"),
    [
        (None, HistoryItem(field="cf", from_="2026-11-01")),
        ("2026-11-05", HistoryItem(field="cf", to="2026-11-05")),
        ("2026-11-05", HistoryItem(field="cf", to_string="2026-11-05")),
        (None, HistoryItem(field="cf", from_string="2026-11-01")),
    ],
)
def test_a_planned_date_is_touched_by_a_date_in_any_one_of_the_four_values(now: str | None, item: HistoryItem) -> None:
    """A custom field moved from or to a date — in its raw or its shown value, any one of them alone — touches
    a planned date when it now shows the mirror's value (none when the date was cleared)."""
    assert who(_planned(now), entry("A-1", T1, "p", item)) == ("p", T1)


def test_a_custom_field_without_dates_never_touches_a_cleared_planned_date() -> None:
    """A later change of a custom field that holds no date (story points cleared) is not the change of the
    cleared planned date: the entry that cleared the date is."""
    cleared = entry("A-1", T1, "ivanov", HistoryItem(field="Начало (план)", from_string="2026-11-01"))
    points = entry("A-1", T2, "petrov", HistoryItem(field="Story Points", from_string="3"), id_="2")
    assert who(_planned(None), cleared, points) == ("ivanov", T1)
