"""Response bodies of the hub's API and MCP tools (typed, attrs), built from storage records.

Times are UTC ISO-8601 with ``Z`` (:func:`iso`). :func:`to_json` turns any view into the JSON value the API
answers and the MCP tools return (one converter for both, so the two doors never disagree).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import attrs
import cattrs

from adapters.storage.records import (
    AgentStatusRecord,
    BatchRecord,
    CommandRecord,
    MirrorEntry,
    NoteRecord,
    ProjectRecord,
    TokenRecord,
)
from reconcile import pacing
from reconcile.approval import Approval
from reconcile.drift import Drift
from reconcile.lifecycle import FINAL
from reconcile.records import HistoryEntry, MirrorLink, SprintRef
from reconcile.records import converter as records_converter
from reconcile.settings import Settings

__all__ = [
    "AgentStatusView",
    "ApprovalView",
    "BatchCreated",
    "BatchDetail",
    "BatchView",
    "CommandBrief",
    "CommandHeld",
    "CommandView",
    "DeliveryView",
    "DriftItemView",
    "DriftPage",
    "ErrorView",
    "FileStored",
    "HealthView",
    "IssueDetail",
    "IssueView",
    "Items",
    "NoteView",
    "PagesAck",
    "ProjectView",
    "QueueOutlook",
    "ReportAck",
    "TokenCreated",
    "TokenView",
    "iso",
    "to_json",
]

T = TypeVar("T")


def iso(value: datetime | None) -> str | None:
    """UTC ISO-8601 with ``Z``."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


@attrs.frozen(kw_only=True)
class ErrorView:
    """Every error: the HTTP status and the message a person reads (the seed's words, in Russian)."""

    status_code: int
    detail: str


@attrs.frozen(kw_only=True)
class Items(Generic[T]):
    """A page of a list and how many there are in all."""

    items: list[T]
    total: int


@attrs.frozen(kw_only=True)
class HealthView:
    status: str


# --- batches and commands ---------------------------------------------------------------------------------


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

    @classmethod
    def of(cls, command: CommandRecord) -> CommandView:
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
        )


@attrs.frozen(kw_only=True)
class Progress:
    """How far a batch is: counts by status, and the live figures of :mod:`reconcile.pacing` (DESIGN 6)."""

    total: int
    finished: int
    by_status: dict[str, int]
    remaining_seconds: float
    elapsed_seconds: float

    @classmethod
    def of(
        cls, batch: BatchRecord, commands: Sequence[CommandRecord], *, settings: Settings, now: datetime
    ) -> Progress:
        counts: dict[str, int] = {}
        for command in commands:
            counts[command.status.value] = counts.get(command.status.value, 0) + 1
        finished = sum(1 for command in commands if command.status in FINAL)
        return cls(
            total=len(commands),
            finished=finished,
            by_status=counts,
            remaining_seconds=pacing.remaining_seconds(commands, settings, now),
            elapsed_seconds=pacing.elapsed_seconds(batch.created_at, commands, now),
        )


@attrs.frozen(kw_only=True)
class ApprovalView:
    """A batch's approval by a person: ``pending`` (its commands wait), ``approved`` or ``rejected``."""

    state: str
    by: str | None
    at: str | None
    reason: str | None

    @classmethod
    def of(cls, approval: Approval | None) -> ApprovalView | None:
        if approval is None:
            return None
        return cls(state=approval.state.value, by=approval.by, at=iso(approval.at), reason=approval.reason)


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

    @classmethod
    def of(cls, batch: BatchRecord, commands: Sequence[CommandRecord]) -> BatchCreated:
        return cls(
            id=batch.id,
            author=batch.author,
            title=batch.title,
            project=batch.project,
            created_at=_iso(batch.created_at),
            estimate_seconds=batch.estimate_seconds,
            commands=[CommandBrief.of(c) for c in commands],
            approval=ApprovalView.of(batch.approval),
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
    commands: list[CommandView]
    door: str | None
    approval: ApprovalView | None

    @classmethod
    def of(
        cls, batch: BatchRecord, commands: Sequence[CommandRecord], *, settings: Settings, now: datetime
    ) -> BatchView:
        """The batch as it stands at ``now`` (its live progress figures read the current pacing)."""
        return cls(
            id=batch.id,
            author=batch.author,
            title=batch.title,
            project=batch.project,
            token_name=batch.token_name,
            created_at=_iso(batch.created_at),
            estimate_seconds=batch.estimate_seconds,
            progress=Progress.of(batch, commands, settings=settings, now=now),
            commands=[CommandView.of(c) for c in commands],
            door=batch.door,
            approval=ApprovalView.of(batch.approval),
        )


@attrs.frozen(kw_only=True)
class NoteView:
    id: int
    batch_id: int | None
    key: str
    author: str
    text: str
    created_at: str

    @classmethod
    def of(cls, note: NoteRecord) -> NoteView:
        return cls(
            id=note.id,
            batch_id=note.batch_id,
            key=note.key,
            author=note.author,
            text=note.text,
            created_at=_iso(note.created_at),
        )


@attrs.frozen(kw_only=True)
class BatchDetail(BatchView):
    """One batch with its commands, progress and notes."""

    notes: list[NoteView]


# --- the mirror -------------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class IssueView:
    """A mirror issue (the wire record of DESIGN 6) with when the hub last saw it, and whether it vanished."""

    key: str
    summary: str | None
    description: str | None
    status: str | None
    status_category: str | None
    priority: str | None
    duedate: str | None
    planned_start: str | None
    planned_end: str | None
    labels: list[str]
    epic_key: str | None
    assignee: str | None
    reporter: str | None
    created: str | None
    updated: str | None
    sprint: SprintRef | None
    links: list[MirrorLink]
    refreshed_at: str
    vanished_at: str | None

    @classmethod
    def fields_of(cls, entry: MirrorEntry) -> dict[str, Any]:
        data: dict[str, Any] = attrs.asdict(entry.issue, recurse=False)
        data.update(
            labels=list(entry.issue.labels),
            links=list(entry.issue.links),
            refreshed_at=_iso(entry.refreshed_at),
            vanished_at=iso(entry.vanished_at),
        )
        return data

    @classmethod
    def of(cls, entry: MirrorEntry) -> IssueView:
        return cls(**cls.fields_of(entry))


@attrs.frozen(kw_only=True)
class IssueDetail(IssueView):
    notes: list[NoteView]

    @classmethod
    def with_notes(cls, entry: MirrorEntry, notes: Sequence[NoteRecord]) -> IssueDetail:
        return cls(**IssueView.fields_of(entry), notes=[NoteView.of(n) for n in notes])


# --- drift ------------------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class DriftItemView:
    """A desired state Jira no longer shows: the command and aspect, wanted and now, who changed it and when."""

    command_id: int
    batch_id: int
    key: str
    type: str
    aspect: str
    wanted: Any
    now: Any
    changed_by: str | None
    changed_at: str | None

    @classmethod
    def of(cls, drift: Drift) -> DriftItemView:
        return cls(**{field.name: getattr(drift, field.name) for field in attrs.fields(cls)})


@attrs.frozen(kw_only=True)
class DriftPage:
    """A page of drift, and when the latest finished full refresh started (how fresh the mirror is)."""

    items: list[DriftItemView]
    total: int
    last_full_refresh_at: str | None


# --- administration ---------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class ProjectView:
    name: str
    board_id: int | None
    board_type: str | None
    created_at: str

    @classmethod
    def of(cls, project: ProjectRecord) -> ProjectView:
        return cls(
            name=project.name,
            board_id=project.board_id,
            board_type=project.board_type,
            created_at=_iso(project.created_at),
        )


@attrs.frozen(kw_only=True)
class TokenView:
    name: str
    role: str
    created_at: str
    revoked_at: str | None
    needs_approval: bool

    @classmethod
    def of(cls, token: TokenRecord) -> TokenView:
        return cls(
            name=token.name,
            role=token.role,
            created_at=_iso(token.created_at),
            revoked_at=iso(token.revoked_at),
            needs_approval=token.needs_approval,
        )


@attrs.frozen(kw_only=True)
class TokenCreated:
    """A new token with its secret: shown in this answer only (stored as sha256)."""

    name: str
    role: str
    secret: str
    needs_approval: bool = False


@attrs.frozen(kw_only=True)
class FileStored:
    sha256: str
    size: int


# --- the agent --------------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class QueueOutlook:
    """The queue as the agent sees it: ``depth`` commands it can be given (queued outside batches waiting for
    approval, and the one in flight) and their ETA by the pacing policy; ``awaiting_approval`` batches (with
    ``awaiting_commands`` commands) wait for a person and count in neither."""

    depth: int
    eta_seconds: float
    awaiting_approval: int
    awaiting_commands: int


@attrs.frozen(kw_only=True)
class AgentStatusView:
    agent_id: str | None
    instance: str | None
    version: str | None
    jira_user: str | None
    jira_time_zone: str | None
    symmetric_link_types: list[str]
    last_seen_at: str | None
    last_claim_at: str | None
    online: bool
    #: What keeps the agent from working, as it reported it (a TLS failure, a wrong Jira URL…); cleared by
    #: its next claim.
    last_error: str | None
    queue: QueueOutlook

    @classmethod
    def of(cls, status: AgentStatusRecord | None, *, online: bool, queue: QueueOutlook) -> AgentStatusView:
        if status is None:
            return cls(
                agent_id=None,
                instance=None,
                version=None,
                jira_user=None,
                jira_time_zone=None,
                symmetric_link_types=[],
                last_seen_at=None,
                last_claim_at=None,
                online=False,
                last_error=None,
                queue=queue,
            )
        return cls(
            agent_id=status.agent_id,
            instance=status.instance,
            version=status.version,
            jira_user=status.jira_user,
            jira_time_zone=status.jira_time_zone,
            symmetric_link_types=list(status.symmetric_link_types),
            last_seen_at=_iso(status.last_seen_at),
            last_claim_at=iso(status.last_claim_at),
            online=online,
            last_error=status.last_error,
            queue=queue,
        )


@attrs.frozen(kw_only=True)
class DeliveryView:
    """A command handed to the agent: params completed at delivery, the pause to keep, the settings it needs."""

    id: int
    type: str
    params: dict[str, Any]
    pause_seconds: float
    deliveries: int
    context: dict[str, Any]


@attrs.frozen(kw_only=True)
class PagesAck:
    accepted: bool
    issues: int
    history: int


@attrs.frozen(kw_only=True)
class CommandHeld:
    """``GET /agent/commands/{id}``: the command's status, whether the asking agent process still holds it
    (claimed and issued to it), and its ``deliveries``: only a process holding the latest delivery may write to
    Jira (DESIGN.md 5.4, 5.6: the fencing of deliveries)."""

    id: int
    status: str
    held: bool
    deliveries: int


@attrs.frozen(kw_only=True)
class ReportAck:
    """Whether the report changed the command, and the command's status now."""

    accepted: bool
    status: str


# --- JSON -------------------------------------------------------------------------------------------------

_converter = cattrs.Converter()
for _record in (HistoryEntry, SprintRef, MirrorLink):
    _converter.register_unstructure_hook(_record, records_converter.unstructure)
#: A view's ``dict[str, Any]`` (a command's parameters, a report's result, a predicted write) holds JSON already:
#: decoded from a request or the database, or built as JSON by the core. cattrs would walk every value of it
#: looking for something to convert (a fifth of a large dry run's answer); it is passed as it is.
_JSON_ALREADY = (dict[str, Any], list[dict[str, Any]])
_converter.register_unstructure_hook_func(lambda kind: kind in _JSON_ALREADY, lambda value: value)


def to_json(value: Any) -> Any:
    """The JSON value of a view (or of a list or mapping of views)."""
    if isinstance(value, Mapping):
        return {key: to_json(item) for key, item in value.items()}
    return _converter.unstructure(value)
