"""A project's slice paged by the database, on SQLite and PostgreSQL: natural key order, label exact match,
vanished issues left out, text and status filters, counts; and the migration that brought it to old mirrors."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import text

from adapters.storage.database import Database
from adapters.storage.engine import make_engine, truncate_all
from reconcile.vocabulary.records import ISSUE_LIMITS, NATURAL_KEY_MAX, MirrorIssue, natural_key
from tests.support import T0

from .conftest import to_revision

pytestmark = pytest.mark.anyio

PREFIXES = ("AURORA", "AB", "A", "B2B")
STATUSES = ("Открыт", "В работе", "Готово")


def mirror() -> list[MirrorIssue]:
    """Keys of several prefixes and lengths stored out of order; labels that contain each other's text."""
    issues = []
    for n in (1, 2, 3, 9, 10, 11, 19, 20, 99, 100, 101, 1000, 1538):
        for p, prefix in enumerate(PREFIXES):
            labels = ("AWPCA",) if (n + p) % 3 else ("AWPCA_OLD", "awpca")
            if (n + p) % 4 == 0:
                labels += ("STOCKS",)
            summary = f"Сверка остатков {n}" if n % 2 else f"Отчёт {n}"
            issues.append(
                MirrorIssue(key=f"{prefix}-{n}", summary=summary, status=STATUSES[(n + p) % 3], labels=labels)
            )
    return sorted(issues, key=lambda issue: hash(issue.key) % 97)


async def stored(db: Database, issues: list[MirrorIssue], *, vanished: tuple[str, ...] = ()) -> None:
    async with db.unit() as unit:
        for start in range(0, len(issues), 17):
            await unit.mirror.upsert_issues(issues[start : start + 17], command_id=1, now=T0)
        await unit.mirror.vanish(list(vanished), now=T0 + timedelta(minutes=1))


async def walk(db: Database, project: str | None, size: int, **filters: str) -> tuple[list[str], set[int]]:
    """Every page of the slice, concatenated, and the totals the pages said."""
    keys: list[str] = []
    totals: set[int] = set()
    offset = 0
    while True:
        async with db.unit() as unit:
            page, total = await unit.mirror.slice(project, limit=size, offset=offset, **filters)
        totals.add(total)
        keys += [entry.issue.key for entry in page]
        if len(page) < size:
            return keys, totals
        offset += size


def expected(issues: list[MirrorIssue], project: str | None, vanished: tuple[str, ...] = ()) -> list[str]:
    chosen = [i for i in issues if project is None or (project in i.labels and i.key not in vanished)]
    return sorted((i.key for i in chosen), key=natural_key)


async def test_the_slice_comes_in_natural_key_order_page_by_page(db: Database) -> None:
    """Pages of any size concatenate to the whole slice in natural order; every page says the same total."""
    issues = mirror()
    gone = ("AURORA-10", "A-2", "B2B-1538")
    await stored(db, issues, vanished=gone)
    want = expected(issues, "AWPCA", gone)
    assert want[:5] == ["A-3", "A-9", "A-11", "A-20", "A-99"]
    for size in (1, 7, 50, 200):
        assert await walk(db, "AWPCA", size) == (want, {len(want)})
    assert await walk(db, None, 10) == (expected(issues, None), {len(issues)})


async def test_the_label_matches_exactly(db: Database) -> None:
    """``AWPCA`` does not find ``AWPCA_OLD`` or ``awpca``; a label nobody has is an empty slice."""
    issues = mirror()
    await stored(db, issues)
    for label in ("AWPCA_OLD", "awpca", "STOCKS"):
        assert await walk(db, label, 20) == (expected(issues, label), {len(expected(issues, label))})
    assert await walk(db, "AWPC", 20) == ([], {0})


async def test_a_new_page_replaces_an_issues_labels(db: Database) -> None:
    """An issue that lost the project's label leaves its slice; one that gained it joins, in its place; a vanished
    one leaves until a page returns it."""
    await stored(db, [MirrorIssue(key="A-1", labels=("AWPCA",)), MirrorIssue(key="A-10", labels=("AWPCA",))])
    await stored(db, [MirrorIssue(key="A-1", labels=("X",)), MirrorIssue(key="A-2", labels=("AWPCA", "X"))])
    assert await walk(db, "AWPCA", 5) == (["A-2", "A-10"], {2})
    assert await walk(db, "X", 5) == (["A-1", "A-2"], {2})
    await stored(db, [], vanished=("A-2",))
    assert await walk(db, "AWPCA", 5) == (["A-10"], {1})
    await stored(db, [MirrorIssue(key="A-2", labels=("AWPCA",))])
    assert await walk(db, "AWPCA", 5) == (["A-2", "A-10"], {2})


async def test_filters_narrow_the_slice_in_the_database(db: Database) -> None:
    """Text in the key or summary (any case, ``%`` and ``_`` literal) and the exact status, counted and paged."""
    issues = [*mirror(), MirrorIssue(key="A-5000", summary="100% готово_", labels=("AWPCA",), status="Готово")]
    await stored(db, issues)
    in_slice = [i for i in issues if "AWPCA" in i.labels]

    def keys(keep: Callable[[MirrorIssue], bool]) -> list[str]:
        return sorted((i.key for i in in_slice if keep(i)), key=natural_key)

    by_text = keys(lambda i: "сверка" in (i.summary or "").lower() or "сверка" in i.key.lower())
    assert by_text and await walk(db, "AWPCA", 4, text="Сверка") == (by_text, {len(by_text)})
    by_key = keys(lambda i: "B-1" in i.key)
    assert await walk(db, "AWPCA", 4, text="b-1") == (by_key, {len(by_key)})
    assert await walk(db, "AWPCA", 4, text="0%") == (["A-5000"], {1})
    assert await walk(db, "AWPCA", 4, text="о_") == (["A-5000"], {1})
    done = keys(lambda i: i.status == "Готово")
    assert await walk(db, "AWPCA", 3, status="Готово") == (done, {len(done)})
    both = [key for key in done if key in by_text]
    assert await walk(db, "AWPCA", 3, status="Готово", text="Сверка") == (both, {len(both)})


async def test_statuses_are_those_of_the_slice(db: Database) -> None:
    """Distinct statuses of the project's issues not vanished, alphabetical."""
    await stored(
        db,
        [
            MirrorIssue(key="A-1", labels=("AWPCA",), status="Открыт"),
            MirrorIssue(key="A-2", labels=("AWPCA",), status="Готово"),
            MirrorIssue(key="A-3", labels=("AWPCA",), status="Открыт"),
            MirrorIssue(key="A-4", labels=("AWPCA",), status="Отменён"),
            MirrorIssue(key="A-5", labels=("AWPCA",)),
            MirrorIssue(key="A-6", labels=("OTHER",), status="В работе"),
        ],
        vanished=("A-4",),
    )
    async with db.unit() as unit:
        assert await unit.mirror.statuses("AWPCA") == ["Готово", "Открыт"]
        assert await unit.mirror.statuses("NONE") == []


async def test_the_migration_orders_and_labels_an_existing_mirror(migrated_url: str) -> None:
    """Issues stored before the natural order revision get their sort key and label rows from it."""
    engine = make_engine(migrated_url)
    await truncate_all(engine)

    insert = text(
        "INSERT INTO mirror_issue (key, labels, refreshed_at) VALUES "
        """('A-10', '["AWPCA"]', :at), ('A-2', '["AWPCA", "X"]', :at), ('A-3', '[]', :at), ('A-1', '["Y"]', :at)"""
    )
    try:
        async with engine.begin() as conn:
            await conn.run_sync(to_revision("instance"))
            await conn.execute(insert, {"at": T0.replace(tzinfo=None)})
    finally:
        async with engine.begin() as conn:
            await conn.run_sync(to_revision("head"))
    database = Database(engine)
    try:
        assert await walk(database, "AWPCA", 1) == (["A-2", "A-10"], {2})
        assert await walk(database, None, 3) == (["A-1", "A-2", "A-3", "A-10"], {4})
    finally:
        await database.close()


@given(st.lists(st.tuples(st.sampled_from(PREFIXES), st.integers(0, 10**12)), min_size=2, max_size=30))
def test_natural_key_orders_by_project_then_number(keys: list[tuple[str, int]]) -> None:
    """Sorting by the stored text is sorting by (prefix, number) for Jira keys; it fits its column."""
    named = [f"{prefix}-{number}" for prefix, number in keys]
    assert sorted(named, key=natural_key) == [f"{p}-{n}" for p, n in sorted(keys, key=lambda k: (k[0] + "-", k[1]))]
    longest = "1-" * (ISSUE_LIMITS["key"] // 2)
    assert len(natural_key(longest)) == NATURAL_KEY_MAX
