"""The mirror's upsert rule carried out by the storage, on SQLite and PostgreSQL: an older record (a late page, a
late or repeated webhook event) leaves the row, its labels and its links as they were; events and pages in any
order with repeats leave the newest state of each issue; an event of the row's own ``updated`` is not written, a
full refresh's page always is."""

from __future__ import annotations

from datetime import timedelta

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.storage.database import Database
from adapters.storage.engine import truncate_all
from reconcile.vocabulary.records import MirrorIssue, MirrorLink
from tests.support import T0

pytestmark = pytest.mark.anyio


def _at(minutes: int) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _state(key: str, minute: int, label: str = "AWPCA") -> MirrorIssue:
    link = MirrorLink(id=f"{key}-{minute}", type="Связанные", source=key, target="AURORA-900")
    return MirrorIssue(key=key, summary=f"{key} в {minute}", labels=(label,), updated=_at(minute), links=(link,))


async def test_an_older_record_changes_nothing(db: Database) -> None:
    """A page older than the row (an event brought a newer state meanwhile): no field, label, link or
    bookkeeping of the row changes, and no key is reported written."""
    newer = _state("AURORA-1", 10, label="STOCKS_DRRK")
    async with db.unit() as unit:
        assert await unit.mirror.upsert_issues([newer], command_id=None, now=T0 + timedelta(minutes=11)) == ["AURORA-1"]
    async with db.unit() as unit:
        written = await unit.mirror.upsert_issues([_state("AURORA-1", 5)], command_id=7, now=T0 + timedelta(minutes=12))
    assert written == []
    async with db.unit() as unit:
        entry = await unit.mirror.entry("AURORA-1")
        stocks = (await unit.mirror.slice("STOCKS_DRRK", limit=10, offset=0))[1]
        awpca = (await unit.mirror.slice("AWPCA", limit=10, offset=0))[1]
        sighting = {s.key: s for s in await unit.mirror.not_vanished()}["AURORA-1"]
    assert entry is not None and entry.issue == newer
    assert entry.refreshed_at == T0 + timedelta(minutes=11)
    assert (stocks, awpca) == (1, 0)
    assert sighting.seen_by is None  # applied from an event: no refresh returned it


async def test_equal_and_newer_records_are_written(db: Database) -> None:
    """The same updated again (a page confirming an event) and a newer one are written; the page's own
    bookkeeping with them."""
    async with db.unit() as unit:
        await unit.mirror.upsert_issues([_state("AURORA-1", 5)], command_id=None, now=T0)
    same = MirrorIssue(key="AURORA-1", summary="тот же час", labels=("AWPCA",), updated=_at(5))
    async with db.unit() as unit:
        assert await unit.mirror.upsert_issues([same], command_id=3, now=T0 + timedelta(minutes=1)) == ["AURORA-1"]
        sighting = {s.key: s for s in await unit.mirror.not_vanished()}["AURORA-1"]
        assert (sighting.seen_by, sighting.refreshed_at) == (3, T0 + timedelta(minutes=1))
        assert await unit.mirror.upsert_issues([_state("AURORA-1", 6)], command_id=4, now=T0) == ["AURORA-1"]
    async with db.unit() as unit:
        assert (await unit.mirror.issues(["AURORA-1"]))["AURORA-1"] == _state("AURORA-1", 6)


async def test_a_page_writes_only_what_is_not_older(db: Database) -> None:
    """A page of three: a new issue, one newer than its row, one older; the older one's row and links stay."""
    async with db.unit() as unit:
        await unit.mirror.upsert_issues([_state("AURORA-2", 3), _state("AURORA-3", 9)], command_id=None, now=T0)
    page = [_state("AURORA-1", 1), _state("AURORA-2", 4), _state("AURORA-3", 8)]
    async with db.unit() as unit:
        assert await unit.mirror.upsert_issues(page, command_id=1, now=T0) == ["AURORA-1", "AURORA-2"]
    async with db.unit() as unit:
        issues = await unit.mirror.issues(["AURORA-1", "AURORA-2", "AURORA-3"])
    assert issues == {"AURORA-1": page[0], "AURORA-2": page[1], "AURORA-3": _state("AURORA-3", 9)}


async def test_by_the_millisecond_and_by_how_a_record_came(db: Database) -> None:
    """``updated`` kept to Jira's millisecond: an event of the row's own ``updated`` is not written, a page of it
    is; an event a millisecond newer is; a full refresh's page is written though older."""
    first = MirrorIssue(key="AURORA-1", summary="первое", updated="2026-10-22T09:00:00.870Z")
    same = attrs.evolve(first, summary="того же мгновения")
    async with db.unit() as unit:
        assert await unit.mirror.upsert_issues([first], command_id=None, now=T0) == ["AURORA-1"]
        assert await unit.mirror.upsert_issues([same], command_id=None, now=T0) == []
        assert (await unit.mirror.issues(["AURORA-1"]))["AURORA-1"] == first
        assert await unit.mirror.upsert_issues([same], command_id=2, now=T0) == ["AURORA-1"]
        newer = attrs.evolve(first, summary="на миллисекунду позже", updated="2026-10-22T09:00:00.871Z")
        assert await unit.mirror.upsert_issues([newer], command_id=None, now=T0) == ["AURORA-1"]
        older = attrs.evolve(first, summary="как в Jira", updated="2026-10-22T08:00:00Z")
        assert await unit.mirror.upsert_issues([older], command_id=3, now=T0) == []
        assert await unit.mirror.upsert_issues([older], command_id=3, now=T0, full=True) == ["AURORA-1"]
    async with db.unit() as unit:
        assert (await unit.mirror.issues(["AURORA-1"]))["AURORA-1"] == older


KEYS = ("AURORA-1", "AURORA-2", "AURORA-3")


@st.composite
def deliveries(draw: st.DrawFn) -> tuple[dict[str, MirrorIssue], list[tuple[bool, list[MirrorIssue]]]]:
    """Each issue's states, delivered in any order with repeats as events (one record) and pages (several)."""
    states = {
        key: [_state(key, m, draw(st.sampled_from(["AWPCA", "STOCKS_DRRK"]))) for m in sorted(minutes)]
        for key in draw(st.sets(st.sampled_from(KEYS), min_size=1))
        for minutes in [draw(st.sets(st.integers(0, 30), min_size=1, max_size=3))]
    }
    every = [state for versions in states.values() for state in versions]
    order = draw(st.permutations(every + draw(st.lists(st.sampled_from(every), max_size=4))))
    steps: list[tuple[bool, list[MirrorIssue]]] = []
    while order:
        page = draw(st.booleans())
        size = draw(st.integers(1, 3)) if page else 1
        steps.append((page, list(order[:size])))
        order = order[size:]
    return {key: versions[-1] for key, versions in states.items()}, steps


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=deliveries())
async def test_any_order_with_repeats_leaves_the_newest_state(
    db: Database, case: tuple[dict[str, MirrorIssue], list[tuple[bool, list[MirrorIssue]]]]
) -> None:
    """Law, in the database: events and pages in any order and with repeats leave each issue (fields, labels,
    links, slice) as its newest state written once; no event ever makes a row older."""
    await truncate_all(db.engine)
    newest, steps = case
    for number, (page, records) in enumerate(steps, start=1):
        async with db.unit() as unit:
            before = await unit.mirror.issues(KEYS)
            await unit.mirror.upsert_issues(records, command_id=number if page else None, now=T0)
            after = await unit.mirror.issues(KEYS)
        if not page:
            assert all((after[key].updated or "") >= (row.updated or "") for key, row in before.items())
    async with db.unit() as unit:
        assert await unit.mirror.issues(KEYS) == newest
        for label in ("AWPCA", "STOCKS_DRRK"):
            entries, _ = await unit.mirror.slice(label, limit=10, offset=0)
            assert [e.issue.key for e in entries] == sorted(k for k, s in newest.items() if label in s.labels)
