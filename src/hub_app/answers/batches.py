"""Answers about batches and their commands: a new batch, a batch with its progress and notes, a command."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import attrs

from adapters.storage.records import BatchRecord, CommandRecord
from hub_app.answers.mirror import NoteView
from hub_app.answers.wire import iso
from reconcile.config import Settings
from reconcile.outlook import Approval, RunFacts, batch_state, command_seconds, eta
from reconcile.queue import outcome_of, resolved_keys
from reconcile.vocabulary import FINAL

__all__ = ["ApprovalView", "BatchCreated", "BatchDetail", "BatchView", "CommandBrief", "CommandView", "Progress"]


@attrs.frozen(kw_only=True)
class CommandBrief:
    id: int
    batch_id: int
    seq: int
    type: str
    params: dict[str, Any]
    status: str

    @classmethod
    def of(cls, command: CommandRecord) -> CommandBrief:
        return cls(
            id=command.id,
            batch_id=command.batch_id,
            seq=command.seq,
            type=command.type,
            params=command.params,
            status=command.status.value,
        )


@attrs.frozen(kw_only=True)
class CommandView(CommandBrief):
    temp_key: str | None
    deliveries: int
    claimed_at: str | None
    finished_at: str | None
    result: dict[str, Any] | None
    error: str | None
    jira_calls: int | None
    operations: list[Any] | None
    retry_of: int | None
    #: Since its (last) delivery: until it finished, or until now while it runs; ``null`` if never delivered.
    duration_seconds: float | None

    @classmethod
    def of(cls, command: CommandRecord, *, now: datetime | None = None) -> CommandView:
        """The command at ``now`` (a running one's duration so far; without ``now``, a finished one's only)."""
        return cls(
            **attrs.asdict(CommandBrief.of(command), recurse=False),
            temp_key=command.temp_key,
            deliveries=command.deliveries,
            claimed_at=iso(command.claimed_at),
            finished_at=iso(command.finished_at),
            result=command.result,
            error=command.error,
            jira_calls=command.jira_calls,
            operations=command.operations,
            retry_of=command.retry_of,
            duration_seconds=command_seconds(command.claimed_at, command.finished_at, now),
        )


@attrs.frozen(kw_only=True)
class Progress:
    """How far a batch is: counts by status, and the live figures at the agent's pace (:mod:`reconcile.outlook.eta`,
    DESIGN 6): the run still ahead, the run so far since the first delivery, the whole run as it now looks, and
    the wait for approval (``null`` for a batch that needed none)."""

    total: int
    finished: int
    by_status: dict[str, int]
    remaining_seconds: float
    elapsed_seconds: float
    eta_seconds: float
    approval_wait_seconds: float | None

    @classmethod
    def of(
        cls,
        batch: BatchRecord,
        commands: Sequence[CommandRecord],
        *,
        settings: Settings,
        now: datetime,
        facts: RunFacts | None = None,
    ) -> Progress:
        counts: dict[str, int] = {}
        for command in commands:
            counts[command.status.value] = counts.get(command.status.value, 0) + 1
        finished = sum(1 for command in commands if command.status in FINAL)
        facts = facts if facts is not None else RunFacts()
        remaining = eta.remaining_seconds(commands, settings, now, facts)
        elapsed = eta.elapsed_seconds(commands, now)
        return cls(
            total=len(commands),
            finished=finished,
            by_status=counts,
            remaining_seconds=remaining,
            elapsed_seconds=elapsed,
            eta_seconds=round(elapsed + remaining, 3),
            approval_wait_seconds=eta.approval_wait_seconds(batch.created_at, batch.approval, now),
        )


@attrs.frozen(kw_only=True)
class PlanView:
    """The plan an approval means (DESIGN.md 6.5): its write lines (``{seq, key, aspect, from?, to}``; no ``from``:
    not vouched for), their sha256 ``digest`` and when it was computed."""

    digest: str
    lines: list[dict[str, Any]]
    at: str


@attrs.frozen(kw_only=True)
class StaleView:
    """Why an approved batch waits again: the writes the agent found not approved (``{key, aspect, now, approved,
    text}``), and when."""

    difference: list[dict[str, Any]]
    at: str


@attrs.frozen(kw_only=True)
class ApprovalView:
    """A batch's approval by a person: ``pending`` (its commands wait), ``approved`` or ``rejected``; ``plan`` the
    plan it waits with or was approved with; ``stale`` the last approved plan the agent found stale; ``expired_at``
    when an approval last lapsed (``approval_ttl_hours``)."""

    state: str
    by: str | None
    at: str | None
    reason: str | None
    plan: PlanView | None = None
    stale: StaleView | None = None
    expired_at: str | None = None

    @classmethod
    def of(cls, approval: Approval | None) -> ApprovalView | None:
        if approval is None:
            return None
        plan = approval.plan.to_json() if approval.plan else None
        stale = approval.stale.to_json() if approval.stale else None
        return cls(
            state=approval.state.value,
            by=approval.by,
            at=iso(approval.at),
            reason=approval.reason,
            plan=PlanView(**plan) if plan else None,
            stale=StaleView(**stale) if stale else None,
            expired_at=iso(approval.expired_at),
        )


@attrs.frozen(kw_only=True)
class BatchCreated:
    """The answer to a new batch: its commands as stored (params normalised, tail refresh added)."""

    id: int
    author: str
    title: str
    project: str | None
    created_at: str
    estimate_seconds: float
    commands: list[CommandBrief]
    approval: ApprovalView | None
    undo_of: int | None = None

    @classmethod
    def of(cls, batch: BatchRecord, commands: Sequence[CommandRecord]) -> BatchCreated:
        return cls(
            id=batch.id,
            author=batch.author,
            title=batch.title,
            project=batch.project,
            created_at=iso(batch.created_at),
            estimate_seconds=batch.estimate_seconds,
            commands=[CommandBrief.of(c) for c in commands],
            approval=ApprovalView.of(batch.approval),
            undo_of=batch.undo_of,
        )


@attrs.frozen(kw_only=True)
class BatchView:
    id: int
    author: str
    title: str
    project: str | None
    token_name: str | None
    created_at: str
    estimate_seconds: float
    progress: Progress
    #: In words (:mod:`reconcile.outlook.batch_state`): ``awaiting_approval``, ``queued``, ``running``, ``done``,
    #: ``done_with_errors``, ``cancelled``, ``rejected``.
    state: str
    commands: list[CommandView]
    door: str | None
    approval: ApprovalView | None
    #: The batch's temp keys whose issues exist: ``new:<n>`` → the real key.
    temp_keys: dict[str, str]
    #: The batch this one undoes, and the batches that undo this one (DESIGN.md 6.4).
    undo_of: int | None = None
    undone_by: list[int] = attrs.field(factory=list)

    @classmethod
    def of(
        cls,
        batch: BatchRecord,
        commands: Sequence[CommandRecord],
        *,
        settings: Settings,
        now: datetime,
        facts: RunFacts | None = None,
        undone_by: Sequence[int] = (),
    ) -> BatchView:
        """The batch as it stands at ``now`` (its live progress figures read the current pacing and what the hub
        knows of the agent, ``facts``)."""
        return cls(
            id=batch.id,
            author=batch.author,
            title=batch.title,
            project=batch.project,
            token_name=batch.token_name,
            created_at=iso(batch.created_at),
            estimate_seconds=batch.estimate_seconds,
            progress=Progress.of(batch, commands, settings=settings, now=now, facts=facts),
            state=batch_state(
                (c.status for c in commands), batch.approval.state if batch.approval is not None else None
            ).value,
            commands=[CommandView.of(c, now=now) for c in commands],
            door=batch.door,
            approval=ApprovalView.of(batch.approval),
            temp_keys=resolved_keys({c.temp_key: outcome_of(c.status, c.result) for c in commands if c.temp_key}),
            undo_of=batch.undo_of,
            undone_by=list(undone_by),
        )


@attrs.frozen(kw_only=True)
class BatchDetail(BatchView):
    """One batch with its commands, progress and notes."""

    notes: list[NoteView]
