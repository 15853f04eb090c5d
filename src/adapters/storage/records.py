"""What the repositories hand out: frozen values of the hub's own tables (rows become values only here).

The mirror's records are the core's (:class:`reconcile.vocabulary.records.MirrorIssue`, :class:`HistoryEntry`); the
hub's bookkeeping of the queue, its projects, tokens, files, notes and agent are these. Change one with
``attrs.evolve`` and hand it back to its repository.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import attrs

from reconcile.outlook import AgentPace, Approval
from reconcile.vocabulary import CommandStatus, MirrorIssue

__all__ = [
    "AgentStatusRecord",
    "BatchRecord",
    "CommandRecord",
    "FileRecord",
    "MirrorEntry",
    "NoteRecord",
    "ProjectRecord",
    "Sighting",
    "SyncRunRecord",
    "TokenRecord",
    "WebSessionRecord",
]


@attrs.frozen(kw_only=True)
class BatchRecord:
    id: int
    author: str
    title: str
    project: str | None
    token_name: str | None
    estimate_seconds: float
    created_at: datetime
    door: str | None = None
    approval: Approval | None = None
    undo_of: int | None = None


@attrs.frozen(kw_only=True)
class CommandRecord:
    """A command as stored: ``params`` as normalised at enqueue (never the delivery-time additions)."""

    id: int
    batch_id: int
    seq: int
    type: str
    params: dict[str, Any]
    temp_key: str | None
    status: CommandStatus
    deliveries: int
    claimed_at: datetime | None = None
    finished_at: datetime | None = None
    result: dict[str, Any] | None = None
    error: str | None = None
    jira_calls: int | None = None
    operations: list[Any] | None = None
    retry_of: int | None = None

    def log_fields(self) -> dict[str, Any]:
        """What names the command in a log event: its id, batch, type and, where it has one, its issue key."""
        fields: dict[str, Any] = {"command_id": self.id, "batch_id": self.batch_id, "type": self.type}
        if isinstance(self.params.get("key"), str):
            fields["key"] = self.params["key"]
        return fields


@attrs.frozen(kw_only=True)
class SyncRunRecord:
    """One refresh command's run: ``started_at`` is its latest delivery; ``history_at`` its journal mark."""

    command_id: int
    query: str
    full: bool
    started_at: datetime
    finished_at: datetime | None = None
    issues: int | None = None
    history_at: datetime | None = None


@attrs.frozen(kw_only=True)
class MirrorEntry:
    """A mirror issue with the hub's bookkeeping of it."""

    issue: MirrorIssue
    refreshed_at: datetime
    vanished_at: datetime | None = None


@attrs.frozen(kw_only=True)
class NoteRecord:
    id: int
    batch_id: int | None
    key: str
    author: str
    text: str
    created_at: datetime


@attrs.frozen(kw_only=True)
class ProjectRecord:
    name: str
    board_id: int | None
    board_type: str | None
    created_at: datetime


@attrs.frozen(kw_only=True)
class TokenRecord:
    name: str
    role: str
    created_at: datetime
    revoked_at: datetime | None = None
    needs_approval: bool = False


@attrs.frozen(kw_only=True)
class FileRecord:
    sha256: str
    size: int
    filename: str | None
    created_at: datetime


@attrs.frozen(kw_only=True)
class AgentStatusRecord:
    agent_id: str
    instance: str | None = None
    version: str | None = None
    jira_user: str | None = None
    jira_time_zone: str | None = None
    symmetric_link_types: tuple[str, ...] = ()
    last_seen_at: datetime
    last_claim_at: datetime | None = None
    last_error: str | None = None
    #: When the agent last relayed a Jira webhook event (``POST /agent/events``).
    last_webhook_event_at: datetime | None = None
    #: Jira's own address (``serverInfo``'s ``baseUrl``, no userinfo), as the agent reported it with its claim.
    jira_base_url: str | None = None
    #: The command whose pause the agent is waiting out, and when that pause ends (its heartbeat said so).
    pause_command_id: int | None = None
    pause_ends_at: datetime | None = None
    #: The pace the agent reported with its last claim or heartbeat (``None``: an agent that reports none).
    policy: AgentPace | None = None


@attrs.frozen(kw_only=True)
class WebSessionRecord:
    """A live session of the web page (``id_sha256`` is the sha256 of its cookie; the cookie itself is never
    stored) and the messages waiting for its next page."""

    id_sha256: str
    token_sha256: str
    created_at: datetime
    expires_at: datetime
    flash: tuple[dict[str, Any], ...] = ()


@attrs.frozen(kw_only=True)
class Sighting:
    """When a refresh last returned a mirror issue not vanished, and which (a full run vanishes the others)."""

    key: str
    labels: tuple[str, ...]
    seen_by: int | None
    refreshed_at: datetime
