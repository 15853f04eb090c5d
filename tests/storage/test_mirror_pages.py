"""A refresh page written to the mirror and read back, on SQLite and PostgreSQL: every field as it came (text
that JSON and SQL both treat specially included), the last record of a key winning, links replaced, the
bookkeeping of the refresh, and a vanished issue brought back by a later page."""

from __future__ import annotations

from datetime import timedelta

import pytest

from adapters.storage.database import Database
from reconcile.vocabulary.records import MirrorIssue, MirrorLink, SprintRef
from tests.support import T0

pytestmark = pytest.mark.anyio

AWKWARD = "кавычки \" и \\ обратная черта, ' апостроф, %_ шаблоны, $.key, 😀 и\nперевод строки\t"


def full(key: str, **changes: object) -> MirrorIssue:
    fields: dict[str, object] = {
        "summary": f"{AWKWARD} {key}",
        "description": AWKWARD * 3,
        "status": "В работе",
        "status_category": "indeterminate",
        "priority": "High",
        "duedate": "2026-10-23",
        "planned_start": "2026-10-01",
        "planned_end": "2026-10-31",
        "labels": ("AWPCA", "метка с пробелом", '"null"'),
        "epic_key": "AURORA-1",
        "assignee": "ivanov",
        "reporter": "petrov",
        "created": "2026-10-01T10:00:00.000+0300",
        "updated": "2026-10-02T10:00:00.000+0300",
        "sprint": SprintRef(id=7, name=AWKWARD, state="active"),
        "links": (MirrorLink(id="101", type="Блокирует", source=key, target="AURORA-9"),),
    }
    fields.update(changes)
    return MirrorIssue(key=key, **fields)  # type: ignore[arg-type]


async def test_every_field_reads_back_as_written(db: Database) -> None:
    written = [
        full("AURORA-2"),
        MirrorIssue(key="AURORA-3"),  # every field empty: None stays None, no labels, no sprint
        full("AURORA-4", summary="", description=None, labels=(), sprint=None, links=()),
    ]
    async with db.unit() as unit:
        await unit.mirror.upsert_issues(written, command_id=5, now=T0)
    async with db.unit() as unit:
        entries = await unit.mirror.entries([issue.key for issue in written])
        sightings = {s.key: s for s in await unit.mirror.not_vanished()}
    assert [entries[issue.key].issue for issue in written] == written
    assert {key: (s.seen_by, s.refreshed_at, s.labels) for key, s in sightings.items()} == {
        issue.key: (5, T0, issue.labels) for issue in written
    }
    assert all(entry.refreshed_at == T0 and entry.vanished_at is None for entry in entries.values())


async def test_the_last_record_of_a_key_in_a_page_wins_and_a_later_page_replaces_it(db: Database) -> None:
    async with db.unit() as unit:
        await unit.mirror.upsert_issues(
            [full("AURORA-2", status="Открыт"), full("AURORA-2", status="Готово", labels=("AWPCA", "AWPCA"))],
            command_id=1,
            now=T0,
        )
    async with db.unit() as unit:
        first = await unit.mirror.entry("AURORA-2")
        awpca, total = await unit.mirror.slice("AWPCA", limit=10, offset=0)
    assert first is not None and first.issue.status == "Готово" and first.issue.labels == ("AWPCA", "AWPCA")
    assert ([e.issue.key for e in awpca], total) == (["AURORA-2"], 1)  # one label row for a repeated label

    later = T0 + timedelta(hours=1)
    async with db.unit() as unit:
        await unit.mirror.upsert_issues(
            [full("AURORA-2", summary="Новое", labels=("STOCKS",), sprint=None)], command_id=2, now=later
        )
    async with db.unit() as unit:
        second = await unit.mirror.entry("AURORA-2")
        awpca_after = await unit.mirror.slice("AWPCA", limit=10, offset=0)
        stocks = await unit.mirror.slice("STOCKS", limit=10, offset=0)
    assert second is not None
    assert (second.issue.summary, second.issue.labels, second.issue.sprint, second.refreshed_at) == (
        "Новое",
        ("STOCKS",),
        None,
        later,
    )
    assert (awpca_after[1], stocks[1]) == (0, 1)


async def test_links_jira_no_longer_shows_go_and_others_stay(db: Database) -> None:
    kept = MirrorLink(id="1", type="Блокирует", source="AURORA-2", target="AURORA-3")
    dropped = MirrorLink(id="2", type="Связанные", source="AURORA-3", target="AURORA-2")
    elsewhere = MirrorLink(id="3", type="Связанные", source="AURORA-7", target="AURORA-8")
    async with db.unit() as unit:
        await unit.mirror.upsert_issues(
            [full("AURORA-2", links=(kept, dropped)), full("AURORA-7", links=(elsewhere,))], command_id=1, now=T0
        )
    retyped = MirrorLink(id="1", type="Дублирует", source="AURORA-2", target="AURORA-3")
    async with db.unit() as unit:
        await unit.mirror.upsert_issues([full("AURORA-3", links=(retyped,))], command_id=2, now=T0)
    async with db.unit() as unit:
        links = await unit.mirror.links_of(["AURORA-2", "AURORA-3", "AURORA-7"])
    assert links == {"AURORA-2": [retyped], "AURORA-3": [retyped], "AURORA-7": [elsewhere]}

    async with db.unit() as unit:  # a page showing no link of its issue drops them all
        await unit.mirror.upsert_issues([full("AURORA-3", links=())], command_id=3, now=T0)
        assert (await unit.mirror.links_of(["AURORA-2"])) == {"AURORA-2": []}


async def test_a_vanished_issue_comes_back_with_a_later_page(db: Database) -> None:
    async with db.unit() as unit:
        await unit.mirror.upsert_issues([full("AURORA-2")], command_id=1, now=T0)
        await unit.mirror.vanish(["AURORA-2"], now=T0 + timedelta(minutes=1))
    async with db.unit() as unit:
        gone = await unit.mirror.entry("AURORA-2")
        assert (await unit.mirror.slice("AWPCA", limit=10, offset=0))[1] == 0
        await unit.mirror.upsert_issues([full("AURORA-2")], command_id=2, now=T0 + timedelta(minutes=2))
    async with db.unit() as unit:
        back = await unit.mirror.entry("AURORA-2")
        assert (await unit.mirror.slice("AWPCA", limit=10, offset=0))[1] == 1
    assert gone is not None and gone.vanished_at == T0 + timedelta(minutes=1)
    assert back is not None and back.vanished_at is None
