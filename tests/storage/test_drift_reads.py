"""The set-based reads of drift, on SQLite and PostgreSQL: setting commands, mirror records, journals, freshness."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update

from adapters.storage.database import Database
from adapters.storage.models import CommandRow, table_of
from reconcile.batches.validation import NewCommand, ValidBatch
from reconcile.outlook.drift import SETTING_TYPES, SetCommand
from reconcile.vocabulary.records import HistoryEntry, HistoryItem, MirrorIssue, MirrorLink, SprintRef
from tests.support import T0

pytestmark = pytest.mark.anyio


def batch(*commands: tuple[str, dict[str, Any]]) -> ValidBatch:
    return ValidBatch(
        author="a",
        title="t",
        project=None,
        commands=tuple(
            NewCommand(seq=i, type=t, params=p, temp_key=p.get("temp_key") if t == "ensure_issue" else None)
            for i, (t, p) in enumerate(commands, start=1)
        ),
        notes=(),
        estimate_seconds=0,
    )


async def test_setting_commands_are_the_done_ones_in_the_order_they_finished(db: Database) -> None:
    """Done and confirmed_by_state commands of the setting types, oldest finish first; only ensure_issue's result."""
    async with db.unit() as unit:
        _, commands = await unit.queue.add_batch(
            batch(
                ("ensure_issue", {"temp_key": "new:1", "summary": "s"}),
                ("ensure_fields", {"key": "new:1", "duedate": "2026-10-23"}),
                ("ensure_comment", {"key": "A-1", "marker": "m", "body": "b"}),
                ("ensure_status", {"key": "A-1", "target": "Готово"}),
                ("ensure_sprint", {"key": "A-1", "sprint": "backlog"}),
            ),
            token_name=None,
            retry_of=None,
            now=T0,
        )
        table = table_of(CommandRow)
        finish = {0: ("done", 3), 1: ("confirmed_by_state", 1), 2: ("done", 2), 3: ("failed", 4), 4: ("queued", 0)}
        for index, (status, minutes) in finish.items():
            await unit.session.execute(
                update(table)
                .where(table.c.id == commands[index].id)
                .values(status=status, finished_at=T0 + timedelta(minutes=minutes), result={"key": "A-9", "x": 1})
            )
    async with db.unit() as unit:
        found = await unit.queue.setting_commands(SETTING_TYPES)
    ids = [c.id for c in commands]
    assert found == [
        SetCommand(
            id=ids[1],
            batch_id=commands[1].batch_id,
            type="ensure_fields",
            params={"key": "new:1", "duedate": "2026-10-23"},
            finished_at=T0 + timedelta(minutes=1),
        ),
        SetCommand(
            id=ids[0],
            batch_id=commands[0].batch_id,
            type="ensure_issue",
            params={"temp_key": "new:1", "summary": "s"},
            temp_key="new:1",
            result={"key": "A-9", "x": 1},
            finished_at=T0 + timedelta(minutes=3),
        ),
    ]


async def test_entries_read_what_they_are_asked_for_in_one_set(db: Database) -> None:
    """Any number of keys in one statement; only the named text fields, labels and sprint; links only of the
    linked issues."""
    link = MirrorLink(id="10", type="Связанные", source="A-1", target="A-2")
    issues = [
        MirrorIssue(
            key=f"A-{n}",
            summary="s",
            description="длинное описание",
            status="Готово",
            duedate="2026-10-23",
            labels=("AWPCA",),
            sprint=SprintRef(id=7, name="Спринт 2", state="active"),
            links=(link,) if n in (1, 2) else (),
        )
        for n in range(1, 1201)
    ]
    async with db.unit() as unit:
        await unit.mirror.upsert_issues(issues, command_id=1, now=T0)
        await unit.mirror.vanish(["A-3"], now=T0 + timedelta(hours=1))
    async with db.unit() as unit:
        every = await unit.mirror.entries([f"A-{n}" for n in range(1, 1201)] + ["B-1"])
        some = await unit.mirror.entries(["A-1", "A-2", "A-3"], fields=["status", "labels", "sprint"], linked=["A-1"])
        bare = await unit.mirror.entries(["A-1"], fields=["duedate"], linked=[])
    assert len(every) == 1200
    assert every["A-1"].issue == issues[0]
    assert some["A-1"].issue == MirrorIssue(
        key="A-1",
        status="Готово",
        labels=("AWPCA",),
        sprint=SprintRef(id=7, name="Спринт 2", state="active"),
        links=(link,),
    )
    assert bare["A-1"].issue == MirrorIssue(key="A-1", duedate="2026-10-23")
    assert some["A-2"].issue.links == ()
    assert (some["A-3"].refreshed_at, some["A-3"].vanished_at) == (T0, T0 + timedelta(hours=1))


async def test_journals_of_many_issues_oldest_first(db: Database) -> None:
    """Each issue's journal entries, oldest first; an issue without entries is absent."""
    item = HistoryItem(field="duedate", to="2026-10-23")
    entries = [
        HistoryEntry(key="A-1", id="2", created="2026-10-22T10:00:00Z", author="petrova", items=(item,)),
        HistoryEntry(key="A-1", id="1", created="2026-10-22T09:00:00Z", author="ivanov", items=(item,)),
        HistoryEntry(key="A-2", id="3", created="2026-10-22T09:30:00Z", author="petrova", items=()),
    ]
    async with db.unit() as unit:
        await unit.mirror.upsert_history(entries)
    async with db.unit() as unit:
        found = await unit.mirror.journals(["A-1", "A-2", "A-3"])
    assert found == {"A-1": [entries[1], entries[0]], "A-2": [entries[2]]}


async def test_last_full_refresh_is_the_latest_finished_full_run(db: Database) -> None:
    """Runs not full or not finished do not count; none → None."""
    async with db.unit() as unit:
        _, commands = await unit.queue.add_batch(
            batch(("refresh", {"jql": "x"}), ("refresh", {"jql": "y"}), ("refresh", {"keys": ["A-1"]})),
            token_name=None,
            retry_of=None,
            now=T0,
        )
        assert await unit.queue.last_full_refresh() is None
        runs = [(True, 1, True), (True, 2, False), (False, 3, True)]
        for command, (full, minutes, finished) in zip(commands, runs, strict=True):
            await unit.queue.start_sync_run(command.id, query="q", full=full, now=T0 + timedelta(minutes=minutes))
            if finished:
                await unit.queue.finish_sync_run(command.id, issues=0, history_at=None, now=T0 + timedelta(hours=1))
        assert await unit.queue.last_full_refresh() == T0 + timedelta(minutes=1)
