"""The queue's filter in SQL, on SQLite and PostgreSQL: by state, token, project and text, the hub's own batches
hidden unless asked, paged with the total of what matched (their speed: bench/bench_queue_filters.py)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
import pytest
from alembic import command
from sqlalchemy import Connection, inspect, text, update

from adapters.storage.database import Database
from adapters.storage.engine import alembic_config, make_engine
from adapters.storage.models import CommandRow, table_of
from reconcile.batches.validation import NewCommand, ValidBatch
from reconcile.outlook.approval import Approval, ApprovalState
from reconcile.outlook.batch_state import BatchState, batch_state
from reconcile.outlook.queue_filter import QueueFilter
from reconcile.vocabulary.lifecycle import CommandStatus

from .test_schema import empty_url  # noqa: F401 — an empty database of each kind

pytestmark = pytest.mark.anyio

T0 = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)


def batch(title: str, *commands: tuple[str, dict[str, Any]], project: str | None = None) -> ValidBatch:
    return ValidBatch(
        author="planner",
        title=title,
        project=project,
        commands=tuple(
            NewCommand(seq=i, type=t, params=p, temp_key=p.get("temp_key") if t == "ensure_issue" else None)
            for i, (t, p) in enumerate(commands, start=1)
        ),
        notes=(),
        estimate_seconds=0,
    )


_FIELDS = ("ensure_fields", {"key": "AURORA-7", "duedate": "2026-10-23"})
_REFRESH = ("refresh", {"keys": ["AURORA-7"]})


async def _add(
    db: Database,
    title: str,
    statuses: tuple[CommandStatus, ...],
    *,
    minute: int,
    token: str | None = "planner",
    project: str | None = None,
    approval: Approval | None = None,
    commands: tuple[tuple[str, dict[str, Any]], ...] = (),
) -> int:
    given = commands or tuple([_FIELDS] * (len(statuses) - 1) + [_REFRESH])
    async with db.unit() as unit:
        found, stored = await unit.queue.add_batch(
            batch(title, *given, project=project),
            token_name=token,
            retry_of=None,
            now=T0 + timedelta(minutes=minute),
            approval=approval,
        )
        for command, status in zip(stored, statuses, strict=True):
            if status is not CommandStatus.QUEUED:
                await unit.queue.save(attrs.evolve(command, status=status))
    return found.id


async def _titles(db: Database, only: QueueFilter, *, limit: int = 20, offset: int = 0) -> tuple[list[str], int]:
    async with db.unit() as unit:
        found, total = await unit.queue.batches(limit=limit, offset=offset, only=only)
    return [b.title for b in found], total


_S = CommandStatus


async def test_the_filter_says_the_state_the_page_says(db: Database) -> None:
    """The SQL of each state finds exactly the batches :func:`batch_state` puts in it: every pair of command
    statuses under every approval (one rule, written twice only because the storage must filter before paging)."""
    approvals = {
        "без одобрения": None,
        "одобрен": Approval(state=ApprovalState.APPROVED, by="lead", at=T0),
        "ждёт": Approval(state=ApprovalState.PENDING),
        "отклонён": Approval(state=ApprovalState.REJECTED, by="lead", at=T0, reason="нет"),
    }
    expected: dict[BatchState, set[str]] = {state: set() for state in BatchState}
    cases = itertools.product(approvals.items(), itertools.combinations_with_replacement(CommandStatus, 2))
    for minute, ((name, approval), pair) in enumerate(cases, start=1):
        title = f"{name}: {pair[0].value}, {pair[1].value}"
        await _add(db, title, pair, minute=minute, approval=approval)
        expected[batch_state(pair, None if approval is None else approval.state)].add(title)
    found = {state: set((await _titles(db, QueueFilter(state=state), limit=500))[0]) for state in BatchState}
    assert found == expected
    assert all(expected.values())  # every state is met by some pair


async def test_states_tokens_projects_and_the_hubs_own(db: Database) -> None:
    """Each batch is in exactly one state; the hub's own batch (no token) shows only with ``automatic``."""
    await _add(db, "идёт", (_S.DONE, _S.QUEUED), minute=1)
    await _add(db, "готово", (_S.DONE, _S.CONFIRMED_BY_STATE), minute=2, token="lead", project="AWPCA")
    await _add(db, "с ошибкой", (_S.FAILED, _S.CANCELLED), minute=3)
    await _add(db, "пропуск", (_S.DONE, _S.SKIPPED), minute=4)
    await _add(db, "отменён", (_S.DONE, _S.CANCELLED), minute=5, project="AWPCA")
    await _add(db, "ждёт", (_S.QUEUED, _S.QUEUED), minute=6, approval=Approval(state=ApprovalState.PENDING))
    rejected = Approval(state=ApprovalState.REJECTED, by="lead", at=T0, reason="нет")
    await _add(db, "отклонён", (_S.CANCELLED, _S.CANCELLED), minute=7, approval=rejected)
    approved = Approval(state=ApprovalState.APPROVED, by="lead", at=T0)
    await _add(db, "одобрен, идёт", (_S.CLAIMED, _S.QUEUED), minute=8, approval=approved)
    await _add(db, "автообновление", (_S.DONE,), minute=9, token=None, commands=(_REFRESH,))

    everything = ["одобрен, идёт", "отклонён", "ждёт", "отменён", "пропуск", "с ошибкой", "готово", "идёт"]
    assert await _titles(db, QueueFilter()) == (everything, 8)
    assert await _titles(db, QueueFilter(automatic=True)) == (["автообновление", *everything], 9)
    by_state = {state: (await _titles(db, QueueFilter(state=state)))[0] for state in BatchState}
    assert by_state == {
        BatchState.QUEUED: [],
        BatchState.RUNNING: ["одобрен, идёт", "идёт"],
        BatchState.AWAITING_APPROVAL: ["ждёт"],
        BatchState.REJECTED: ["отклонён"],
        BatchState.DONE_WITH_ERRORS: ["пропуск", "с ошибкой"],
        BatchState.CANCELLED: ["отменён"],
        BatchState.DONE: ["готово"],
    }
    assert await _titles(db, QueueFilter(state=BatchState.DONE, automatic=True)) == (["автообновление", "готово"], 2)
    assert await _titles(db, QueueFilter(author="lead")) == (["готово"], 1)
    assert await _titles(db, QueueFilter(project="AWPCA")) == (["отменён", "готово"], 2)
    assert await _titles(db, QueueFilter(project="AWPCA", state=BatchState.CANCELLED)) == (["отменён"], 1)
    assert await _titles(db, QueueFilter(author="nobody")) == ([], 0)
    async with db.unit() as unit:
        assert await unit.queue.filter_choices() == (["lead", "planner"], ["AWPCA"])


async def test_text_is_found_in_titles_keys_and_summaries_whatever_the_case(db: Database) -> None:
    """A key, a word of a summary or of the title, in any case; ``%`` and ``_`` are only themselves."""
    issue = ("ensure_issue", {"temp_key": "new:1", "summary": "Сверка ОСВ 60", "labels": ["AWPCA"]})
    comment = ("ensure_comment", {"key": "AURORA-1590", "marker": "[план]", "body": "Стенд готов"})
    await _add(db, "Перенос сроков", (_S.QUEUED, _S.QUEUED), minute=1, commands=(issue, comment))
    await _add(db, "100% готово_2", (_S.QUEUED,), minute=2, commands=(_FIELDS,))
    assert await _titles(db, QueueFilter(text="aurora-1590")) == (["Перенос сроков"], 1)
    assert await _titles(db, QueueFilter(text="осв 60")) == (["Перенос сроков"], 1)
    assert await _titles(db, QueueFilter(text="  СТЕНД  ")) == (["Перенос сроков"], 1)
    assert await _titles(db, QueueFilter(text="перенос")) == (["Перенос сроков"], 1)
    assert await _titles(db, QueueFilter(text="aurora-7")) == (["100% готово_2"], 1)
    assert await _titles(db, QueueFilter(text="0% г")) == (["100% готово_2"], 1)
    assert await _titles(db, QueueFilter(text="о_2")) == (["100% готово_2"], 1)
    assert await _titles(db, QueueFilter(text="о%2")) == ([], 0)
    assert await _titles(db, QueueFilter(text="ensure_comment")) == (["Перенос сроков"], 1)


async def test_the_key_of_an_issue_a_batch_created_finds_it(db: Database) -> None:
    """Once ``ensure_issue`` reported its key, that key finds the batch (though no parameter names it)."""
    issue = ("ensure_issue", {"temp_key": "new:1", "summary": "Сверка"})
    await _add(db, "Новая задача", (_S.QUEUED,), minute=1, commands=(issue,))
    assert await _titles(db, QueueFilter(text="AURORA-1590")) == ([], 0)
    async with db.unit() as unit:
        found, _ = await unit.queue.batches(limit=1, offset=0)
        [created] = (await unit.queue.commands_of([found[0].id]))[found[0].id]
        done = attrs.evolve(created, status=_S.DONE, result={"key": "AURORA-1590", "created": True})
        await unit.queue.save(done)
    assert await _titles(db, QueueFilter(text="aurora-1590")) == (["Новая задача"], 1)
    assert await _titles(db, QueueFilter(text="AURORA-15")) == (["Новая задача"], 1)
    assert await _titles(db, QueueFilter(text="created")) == ([], 0)


async def test_a_filtered_queue_is_paged_with_its_own_total(db: Database) -> None:
    """The page and the total are those of what matched, newest first."""
    for n in range(5):
        await _add(db, f"ошибка {n}", (_S.FAILED,), minute=2 * n, commands=(_FIELDS,))
        await _add(db, f"готово {n}", (_S.DONE,), minute=2 * n + 1, commands=(_FIELDS,))
    failed = QueueFilter(state=BatchState.DONE_WITH_ERRORS)
    assert await _titles(db, failed, limit=2) == (["ошибка 4", "ошибка 3"], 5)
    assert await _titles(db, failed, limit=2, offset=4) == (["ошибка 0"], 5)


async def fill_queue(db: Database, count: int) -> list[int]:
    """``count`` batches, four in five the hub's refreshes, one in three in AWPCA, every command done but the
    first of every seventh batch, which failed (its id is returned). ``bench/bench_queue_filters.py`` times the
    filters on 5 000 of them."""
    failed: list[int] = []
    async with db.unit() as unit:
        for n in range(count):
            own = n % 5 != 0
            given = (_REFRESH,) if own else (_FIELDS, ("ensure_status", {"key": f"AURORA-{n}", "target": "Готово"}))
            _, stored = await unit.queue.add_batch(
                batch(f"пакет {n}", *given, project="AWPCA" if n % 3 == 0 else None),
                token_name=None if own else f"planner-{n % 4}",
                retry_of=None,
                now=T0 + timedelta(seconds=n),
            )
            failed.extend(c.id for c in stored[:1] if n % 7 == 0)
        table = table_of(CommandRow)
        await unit.session.execute(update(table).values(status=_S.DONE.value))
        await unit.session.execute(update(table).where(table.c.id.in_(failed)).values(status=_S.FAILED.value))
    return failed


def queue_filters(count: int) -> list[QueueFilter]:
    """The filters a person uses, on a queue made by :func:`fill_queue`."""
    return [
        QueueFilter(),
        QueueFilter(automatic=True),
        QueueFilter(state=BatchState.DONE_WITH_ERRORS),
        QueueFilter(state=BatchState.DONE, project="AWPCA"),
        QueueFilter(author="planner-2"),
        QueueFilter(text=f"aurora-{count - 5}"),
        QueueFilter(text="нет такого"),
    ]


async def test_filters_on_a_big_queue_page_and_count_what_they_match(db: Database) -> None:
    """700 batches: each filter's first page is at most a page and its total counts every match — the hub's own
    batches only when asked, one batch by a key in its text, nothing for text nobody wrote. (Their speed at
    5 000 batches is measured in ``bench/bench_queue_filters.py``, not asserted here.)"""
    count = 700
    failed = await fill_queue(db, count)
    totals = {}
    for only in queue_filters(count):
        titles, totals[only] = await _titles(db, only)
        assert len(titles) == min(20, totals[only])
    everything, automatic, with_errors, done_awpca, planner_2, one_key, nothing = totals.values()
    assert (everything, automatic) == (count // 5, count)
    assert with_errors == len([n for n in range(0, count, 5) if n % 7 == 0])
    assert done_awpca == len([n for n in range(0, count, 5) if n % 7 and n % 3 == 0])
    assert planner_2 == len([n for n in range(0, count, 5) if n % 4 == 2])
    assert (one_key, nothing) == (1, 0)
    assert await _titles(db, QueueFilter(text=f"aurora-{count - 5}")) == ([f"пакет {count - 5}"], 1)
    assert (await _titles(db, QueueFilter(state=BatchState.DONE_WITH_ERRORS, automatic=True)))[1] == len(failed)


async def test_the_migration_writes_the_search_text_of_every_batch(empty_url: str) -> None:  # noqa: F811
    """``queue_filters`` fills ``batch.search`` of the batches already stored (from their commands), and its
    downgrade removes the column again."""

    def move(connection: Connection, revision: str, *, up: bool) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        (command.upgrade if up else command.downgrade)(config, revision)

    engine = make_engine(empty_url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(move, "freshness", up=True)
            await conn.execute(
                text(
                    "INSERT INTO batch (id, author, title, project, token_name, estimate_seconds, created_at) "
                    "VALUES (1, 'Planner', 'Перенос', 'AWPCA', 'lead', 0, '2026-10-22 09:00:00')"
                )
            )
            await conn.execute(
                text(
                    "INSERT INTO command (id, batch_id, seq, type, params, status, deliveries) VALUES "
                    """(1, 1, 1, 'ensure_issue', '{"temp_key": "new:1", "summary": "ОСВ 60"}', 'queued', 0)"""
                )
            )
            await conn.run_sync(move, "queue_filters", up=True)
            found = (await conn.execute(text("SELECT search FROM batch"))).scalar_one()
            head, values = found.split("\n")[:5], found.split("\n")[5:]  # PostgreSQL's JSONB orders the params
            assert (head, sorted(values)) == (
                ["перенос", "planner", "awpca", "lead", "ensure_issue"],
                ["new:1", "осв 60"],
            )
            await conn.run_sync(move, "freshness", up=False)
            columns = await conn.run_sync(lambda c: [col["name"] for col in inspect(c).get_columns("batch")])
            assert "search" not in columns
    finally:
        await engine.dispose()
