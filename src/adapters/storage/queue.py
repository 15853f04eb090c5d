"""The queue's tables — batches and commands (the refreshes' sync runs: :mod:`adapters.storage.sync_runs`) — as
named queries.

Every method takes and returns values (:mod:`adapters.storage.records`, the core's ``TempKeyOutcome``); the
decisions are the core's. Order of the queue: ``(batch.created_at, batch.id, seq)``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, case, func, insert, null, select, true, update
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.generation import Generation, bump_generation
from adapters.storage.models import BatchRow, CommandRow, SyncRunRow, storable_id, table_of
from adapters.storage.queue_filters import batch_filter, distinct_of
from adapters.storage.records import BatchRecord, CommandRecord
from adapters.storage.sync_runs import SyncRuns
from reconcile.batches import ValidBatch
from reconcile.outlook import Approval, ApprovalState, PlanSnapshot, QueueFilter, SetCommand, StalePlan, search_text
from reconcile.queue import TempKeyOutcome, outcome_of
from reconcile.vocabulary import CATALOGUE, RESOLVED, CommandStatus, creating_types

__all__ = ["QueueRepository"]


_BATCH = table_of(BatchRow)
_COMMAND = table_of(CommandRow)
_RUN = table_of(SyncRunRow)
#: A batch's columns as its record holds them (its search text stays in the database).
_LISTED = [column for column in _BATCH.c if column.name != "search"]
#: The command types whose result names the issue they created.
_CREATING = creating_types(CATALOGUE)


def _approval(row: Row[Any]) -> Approval | None:
    if row.approval_state is None:
        return None
    return Approval(
        state=ApprovalState(row.approval_state),
        by=row.approval_by,
        at=row.approval_at,
        reason=row.approval_reason,
        plan=PlanSnapshot.from_json(row.approval_plan) if row.approval_plan else None,
        stale=StalePlan.from_json(row.approval_stale) if row.approval_stale else None,
        expired_at=row.approval_expired_at,
    )


def _approval_values(approval: Approval | None) -> dict[str, Any]:
    return {
        "approval_state": approval.state.value if approval else None,
        "approval_by": approval.by if approval else None,
        "approval_at": approval.at if approval else None,
        "approval_reason": approval.reason if approval else None,
        "approval_plan": approval.plan.to_json() if approval and approval.plan else None,
        "approval_stale": approval.stale.to_json() if approval and approval.stale else None,
        "approval_expired_at": approval.expired_at if approval else None,
    }


def _batch(row: Row[Any]) -> BatchRecord:
    return BatchRecord(
        id=row.id,
        author=row.author,
        title=row.title,
        project=row.project,
        token_name=row.token_name,
        estimate_seconds=row.estimate_seconds,
        created_at=row.created_at,
        door=row.door,
        approval=_approval(row),
        undo_of=row.undo_of,
    )


def _command(row: Row[Any]) -> CommandRecord:
    return CommandRecord(
        id=row.id,
        batch_id=row.batch_id,
        seq=row.seq,
        type=row.type,
        params=dict(row.params),
        temp_key=row.temp_key,
        status=CommandStatus(row.status),
        deliveries=row.deliveries,
        claimed_at=row.claimed_at,
        finished_at=row.finished_at,
        result=row.result,
        error=row.error,
        jira_calls=row.jira_calls,
        operations=row.operations,
        retry_of=row.retry_of,
    )


class QueueRepository(SyncRuns):
    def __init__(self, session: AsyncSession) -> None:
        self._session = session
        #: The batches whose commands or approval this transaction changed (their followers wake after it).
        self.changed: set[int] = set()

    async def add_batch(
        self,
        valid: ValidBatch,
        *,
        token_name: str | None,
        retry_of: int | None,
        now: datetime,
        door: str | None = None,
        approval: Approval | None = None,
        undo_of: int | None = None,
    ) -> tuple[BatchRecord, list[CommandRecord]]:
        """Store a validated batch with its commands, all ``queued``; ``retry_of`` marks its first command,
        ``undo_of`` names the batch it undoes."""
        inserted = await self._session.execute(
            insert(_BATCH)
            .values(
                author=valid.author,
                title=valid.title,
                project=valid.project,
                token_name=token_name,
                estimate_seconds=valid.estimate_seconds,
                created_at=now,
                door=door,
                undo_of=undo_of,
                search=search_text(
                    title=valid.title,
                    author=valid.author,
                    project=valid.project,
                    token_name=token_name,
                    commands=((c.type, c.params) for c in valid.commands),
                ),
                **_approval_values(approval),
            )
            .returning(*_LISTED)
        )
        batch = _batch(inserted.one())
        rows: list[dict[str, Any]] = [
            {
                "batch_id": batch.id,
                "seq": c.seq,
                "type": c.type,
                "params": dict(c.params),
                "temp_key": c.temp_key,
                "status": CommandStatus.QUEUED.value,
                "deliveries": 0,
                "retry_of": retry_of if c.seq == 1 else None,
            }
            for c in valid.commands
        ]
        # One executemany, then only the ids read back: the records are built from what was written, not read and
        # decoded again (RETURNING in parameter order runs a row at a time on SQLite).
        await self._session.execute(insert(_COMMAND), rows)
        query = select(_COMMAND.c.seq, _COMMAND.c.id).where(_COMMAND.c.batch_id == batch.id)
        ids: dict[int, int] = dict((await self._session.execute(query)).all())
        commands = [
            CommandRecord(
                id=ids[row["seq"]],
                batch_id=batch.id,
                seq=row["seq"],
                type=row["type"],
                params=row["params"],
                temp_key=row["temp_key"],
                status=CommandStatus.QUEUED,
                deliveries=0,
                retry_of=row["retry_of"],
            )
            for row in rows
        ]
        return batch, commands

    async def batches_by_id(self, batch_ids: Iterable[int]) -> dict[int, BatchRecord]:
        wanted = sorted({batch_id for batch_id in batch_ids if storable_id(batch_id)})
        if not wanted:
            return {}
        rows = (await self._session.execute(select(*_LISTED).where(_BATCH.c.id.in_(wanted)))).all()
        return {row.id: _batch(row) for row in rows}

    async def batch(self, batch_id: int) -> BatchRecord | None:
        if not storable_id(batch_id):
            return None
        row = (await self._session.execute(select(*_LISTED).where(_BATCH.c.id == batch_id))).first()
        return _batch(row) if row is not None else None

    async def batches(
        self, *, limit: int, offset: int, only: QueueFilter | None = None
    ) -> tuple[list[BatchRecord], int]:
        """A page of batches, newest first, and how many there are (all, or those ``only`` asks for)."""
        where = batch_filter(only) if only is not None else true()
        total = await self._session.scalar(select(func.count()).select_from(_BATCH).where(where)) or 0
        query = (
            select(*_LISTED)
            .where(where)
            .order_by(_BATCH.c.created_at.desc(), _BATCH.c.id.desc())
            .limit(limit)
            .offset(offset)
        )
        return [_batch(row) for row in (await self._session.execute(query)).all()], total

    async def count_batches(self, only: QueueFilter) -> int:
        """How many batches ``only`` asks for."""
        return await self._session.scalar(select(func.count()).select_from(_BATCH).where(batch_filter(only))) or 0

    async def filter_choices(self) -> tuple[list[str], list[str]]:
        """The authors (the batches' ``author`` and the names of the tokens they came with; the hub's own batches'
        author only when it has a token's batch too) and the projects the batches have: what the queue's filter
        offers."""
        tokens = (await self._session.scalars(distinct_of(_BATCH.c.token_name))).all()
        authors = (
            await self._session.scalars(distinct_of(_BATCH.c.author).where(_BATCH.c.token_name.is_not(None)))
        ).all()
        projects = (await self._session.scalars(distinct_of(_BATCH.c.project))).all()
        return sorted({str(name) for name in (*tokens, *authors)}), [str(p) for p in projects]

    async def undone_by(self, batch_ids: Iterable[int]) -> dict[int, list[int]]:
        """For each of ``batch_ids``, the batches that undo it, oldest first."""
        wanted = [batch_id for batch_id in batch_ids if storable_id(batch_id)]
        found: dict[int, list[int]] = {batch_id: [] for batch_id in wanted}
        if wanted:
            query = select(_BATCH.c.undo_of, _BATCH.c.id).where(_BATCH.c.undo_of.in_(wanted)).order_by(_BATCH.c.id)
            for undone, batch_id in (await self._session.execute(query)).all():
                found[undone].append(batch_id)
        return found

    async def save_approval(self, batch_id: int, approval: Approval | None) -> None:
        self.changed.add(batch_id)
        await self._session.execute(update(_BATCH).where(_BATCH.c.id == batch_id).values(**_approval_values(approval)))

    async def approved_undelivered(self) -> list[BatchRecord]:
        """Approved batches with a queued command and no command delivered since the approval (whose approval may
        have lapsed: ``approval_ttl_hours``)."""
        queued = (
            select(_COMMAND.c.id)
            .where(_COMMAND.c.batch_id == _BATCH.c.id, _COMMAND.c.status == CommandStatus.QUEUED.value)
            .exists()
        )
        delivered = (
            select(_COMMAND.c.id)
            .where(_COMMAND.c.batch_id == _BATCH.c.id, _COMMAND.c.claimed_at >= _BATCH.c.approval_at)
            .exists()
        )
        rows = await self._session.execute(
            select(*_LISTED)
            .where(_BATCH.c.approval_state == ApprovalState.APPROVED.value, queued, ~delivered)
            .order_by(_BATCH.c.id)
        )
        return [_batch(row) for row in rows]

    async def awaiting_approval(self) -> list[BatchRecord]:
        """The batches whose approval is ``pending``, oldest first."""
        query = (
            select(*_LISTED)
            .where(_BATCH.c.approval_state == ApprovalState.PENDING.value)
            .order_by(_BATCH.c.created_at, _BATCH.c.id)
        )
        return [_batch(row) for row in (await self._session.execute(query)).all()]

    async def command(self, command_id: int) -> CommandRecord | None:
        if not storable_id(command_id):
            return None
        row = (await self._session.execute(select(_COMMAND).where(_COMMAND.c.id == command_id))).first()
        return _command(row) if row is not None else None

    async def commands_of(self, batch_ids: Sequence[int]) -> dict[int, list[CommandRecord]]:
        """The commands of each batch, by ``seq``."""
        found: dict[int, list[CommandRecord]] = {batch_id: [] for batch_id in batch_ids}
        if not batch_ids:
            return found
        query = select(_COMMAND).where(_COMMAND.c.batch_id.in_(batch_ids)).order_by(_COMMAND.c.seq)
        for row in (await self._session.execute(query)).all():
            found[row.batch_id].append(_command(row))
        return found

    async def with_status(self, status: CommandStatus) -> list[CommandRecord]:
        query = select(_COMMAND).where(_COMMAND.c.status == status.value).order_by(_COMMAND.c.id)
        return [_command(row) for row in (await self._session.execute(query)).all()]

    async def queued_head(self, limit: int, *, held: Collection[int] = ()) -> list[CommandRecord]:
        """The first ``limit`` queued commands in the queue's order, leaving out those of the ``held`` batches."""
        query = (
            select(_COMMAND)
            .join(_BATCH, _BATCH.c.id == _COMMAND.c.batch_id)
            .where(_COMMAND.c.status == CommandStatus.QUEUED.value)
            .order_by(_BATCH.c.created_at, _BATCH.c.id, _COMMAND.c.seq)
            .limit(limit)
        )
        if held:
            query = query.where(_COMMAND.c.batch_id.not_in(sorted(held)))
        return [_command(row) for row in (await self._session.execute(query)).all()]

    async def unfinished_by_type(self, *, held: Collection[int] = ()) -> dict[str, int]:
        """How many commands are ``queued`` or ``claimed``, by type, leaving out those of the ``held`` batches."""
        statuses = (CommandStatus.QUEUED.value, CommandStatus.CLAIMED.value)
        query = select(_COMMAND.c.type, func.count()).where(_COMMAND.c.status.in_(statuses)).group_by(_COMMAND.c.type)
        if held:
            query = query.where(_COMMAND.c.batch_id.not_in(sorted(held)))
        return {str(command_type): int(count) for command_type, count in (await self._session.execute(query)).all()}

    async def unfinished_of_type(self, command_type: str) -> list[CommandRecord]:
        """The ``queued`` and ``claimed`` commands of one type, oldest first."""
        statuses = (CommandStatus.QUEUED.value, CommandStatus.CLAIMED.value)
        query = (
            select(_COMMAND)
            .where(_COMMAND.c.type == command_type, _COMMAND.c.status.in_(statuses))
            .order_by(_COMMAND.c.id)
        )
        return [_command(row) for row in (await self._session.execute(query)).all()]

    async def agent_work(self, since: datetime) -> tuple[bool, datetime | None, list[datetime]]:
        """The agent's recent work as its reports told it: whether it holds a command now, when its last delivered
        command ended (``None`` before any), and one time per write reported since ``since`` (at its report)."""
        holding = select(_COMMAND.c.id).where(_COMMAND.c.status == CommandStatus.CLAIMED.value).limit(1)
        last = (
            select(_COMMAND.c.finished_at)
            .where(_COMMAND.c.finished_at.is_not(None), _COMMAND.c.deliveries > 0)
            .order_by(_COMMAND.c.finished_at.desc())
            .limit(1)
        )
        recent = select(_COMMAND.c.finished_at, _COMMAND.c.operations).where(
            _COMMAND.c.finished_at > since, _COMMAND.c.operations.is_not(None)
        )
        writes = [
            row.finished_at
            for row in (await self._session.execute(recent)).all()
            for _ in (row.operations if isinstance(row.operations, list) else ())
        ]
        held = await self._session.scalar(holding) is not None
        return held, await self._session.scalar(last), sorted(writes)

    async def count_unfinished(self, *, held: Collection[int] = ()) -> int:
        """Commands ``queued`` or ``claimed``, leaving out those of the ``held`` batches."""
        return sum((await self.unfinished_by_type(held=held)).values())

    async def save(self, command: CommandRecord) -> None:
        """Write back what a command's life changes (status, deliveries, times, outcome); a resolved one is a new
        input of drift."""
        self.changed.add(command.batch_id)
        if command.status in RESOLVED:
            await bump_generation(self._session, Generation.COMMANDS)
        await self._session.execute(
            update(_COMMAND)
            .where(_COMMAND.c.id == command.id)
            .values(
                status=command.status.value,
                deliveries=command.deliveries,
                claimed_at=command.claimed_at,
                finished_at=command.finished_at,
                result=command.result,
                error=command.error,
                jira_calls=command.jira_calls,
                operations=command.operations,
            )
        )

    async def save_params(self, command_id: int, params: dict[str, Any]) -> None:
        """A queued command's params, changed before any delivery (the hub's refresh for events takes more keys)."""
        await self._session.execute(update(_COMMAND).where(_COMMAND.c.id == command_id).values(params=params))

    async def setting_commands(self, types: Iterable[str]) -> list[SetCommand]:
        """The ``done`` and ``confirmed_by_state`` commands of ``types``, in the order they finished (drift)."""
        query = (
            select(
                _COMMAND.c.id,
                _COMMAND.c.batch_id,
                _COMMAND.c.type,
                _COMMAND.c.params,
                _COMMAND.c.temp_key,
                _COMMAND.c.finished_at,
                # Only the result of a command that creates an issue is read (its key): the others' are not decoded.
                case((_COMMAND.c.type.in_(_CREATING), _COMMAND.c.result), else_=null()).label("result"),
            )
            .where(
                _COMMAND.c.status.in_(sorted(status.value for status in RESOLVED)),
                _COMMAND.c.type.in_(sorted(set(types))),
            )
            .order_by(_COMMAND.c.finished_at, _COMMAND.c.id)
        )
        return [
            SetCommand(
                id=id_, batch_id=batch_id, type=type_, params=params, temp_key=temp_key, finished_at=at, result=result
            )
            for id_, batch_id, type_, params, temp_key, at, result in (await self._session.execute(query)).all()
        ]

    async def temp_key_outcomes(self, batch_ids: Iterable[int]) -> dict[int, dict[str, TempKeyOutcome]]:
        """Per batch: every ``ensure_issue`` temp key → its status and created key."""
        wanted = sorted(set(batch_ids))
        found: dict[int, dict[str, TempKeyOutcome]] = {batch_id: {} for batch_id in wanted}
        if not wanted:
            return found
        query = select(_COMMAND.c.batch_id, _COMMAND.c.temp_key, _COMMAND.c.status, _COMMAND.c.result).where(
            _COMMAND.c.batch_id.in_(wanted), _COMMAND.c.temp_key.is_not(None)
        )
        for batch_id, temp_key, status, result in (await self._session.execute(query)).all():
            found[batch_id][temp_key] = outcome_of(status, result)
        return found
