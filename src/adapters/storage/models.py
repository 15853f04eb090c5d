"""The hub's tables (DESIGN.md section 4) as SQLAlchemy 2 models, portable between SQLite and PostgreSQL.

Times are stored as UTC: :class:`UTCDateTime` writes naive UTC on SQLite and ``timestamptz`` on PostgreSQL and
always reads back an aware UTC ``datetime``. Jira's own times in mirror records stay the wire strings.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from reconcile.vocabulary import NATURAL_KEY_MAX, PROJECT_NAME_MAX

__all__ = [
    "DB_INT_MAX",
    "AgentStatusRow",
    "ApiTokenRow",
    "AuditCheckpointRow",
    "AuditRow",
    "Base",
    "BatchRow",
    "CommandRow",
    "DriftGenerationRow",
    "FileRow",
    "HistoryEntryRow",
    "MirrorIssueRow",
    "MirrorLabelRow",
    "MirrorLinkRow",
    "NoteRow",
    "ProjectRow",
    "SettingsRow",
    "SyncRunRow",
    "UTCDateTime",
    "WebDraftRow",
    "WebSessionRow",
    "storable_id",
    "table_of",
]


#: The largest value an ``Integer`` column holds on both databases (a 32-bit ``INTEGER`` on PostgreSQL).
DB_INT_MAX = 2**31 - 1


def storable_id(value: int) -> bool:
    """Whether ``value`` can be a row id at all (anything else is simply not found)."""
    return 0 < value <= DB_INT_MAX


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC ``datetime`` in, the same out, on both databases."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the hub's storage")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


JSONType = JSON().with_variant(JSONB(), "postgresql")
#: Text compared by code point on both databases (SQLite's default; PostgreSQL's "C" collation), whatever the
#: PostgreSQL database's own collation: what :func:`reconcile.vocabulary.records.natural_key` needs to sort.
CodePointText = String(NATURAL_KEY_MAX).with_variant(String(NATURAL_KEY_MAX, collation="C"), "postgresql")

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class ProjectRow(Base):
    __tablename__ = "project"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(PROJECT_NAME_MAX), unique=True)
    board_id: Mapped[int | None] = mapped_column(Integer)
    board_type: Mapped[str | None] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BatchRow(Base):
    __tablename__ = "batch"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    author: Mapped[str] = mapped_column(Text)
    title: Mapped[str] = mapped_column(Text)
    project: Mapped[str | None] = mapped_column(String(PROJECT_NAME_MAX))
    token_name: Mapped[str | None] = mapped_column(String(200))
    estimate_seconds: Mapped[float] = mapped_column(Float, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    # How it came (reconcile.outlook.approval.Door; NULL for the hub's own) and its approval (NULL: none needed).
    door: Mapped[str | None] = mapped_column(String(20))
    approval_state: Mapped[str | None] = mapped_column(String(20), index=True)
    approval_by: Mapped[str | None] = mapped_column(String(200))
    approval_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    approval_reason: Mapped[str | None] = mapped_column(Text)
    # reconcile.outlook.approved_plan: the plan it waits with or was approved with, the last stale plan, the last lapse.
    approval_plan: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    approval_stale: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    approval_expired_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # reconcile.outlook.queue_filter.search_text: what the queue's text filter finds the batch by.
    search: Mapped[str] = mapped_column(Text, server_default="")
    # The batch this one undoes (DESIGN.md 6.4); the batches undoing one are those naming it here.
    undo_of: Mapped[int | None] = mapped_column(ForeignKey("batch.id", ondelete="SET NULL"), index=True)


class CommandRow(Base):
    __tablename__ = "command"
    __table_args__ = (
        UniqueConstraint("batch_id", "seq", name="uq_command_batch_id_seq"),
        Index("ix_command_status", "status"),
        Index("ix_command_batch_id_status", "batch_id", "status"),
        Index("ix_command_finished_at", "finished_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    batch_id: Mapped[int] = mapped_column(ForeignKey("batch.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(40))
    params: Mapped[dict[str, Any]] = mapped_column(JSONType)
    temp_key: Mapped[str | None] = mapped_column(String(60))
    status: Mapped[str] = mapped_column(String(30))
    deliveries: Mapped[int] = mapped_column(Integer, default=0)
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    error: Mapped[str | None] = mapped_column(Text)
    jira_calls: Mapped[int | None] = mapped_column(Integer)
    operations: Mapped[list[Any] | None] = mapped_column(JSONType)
    retry_of: Mapped[int | None] = mapped_column(ForeignKey("command.id", ondelete="SET NULL"))


class MirrorIssueRow(Base):
    __tablename__ = "mirror_issue"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(60), unique=True)
    # reconcile.vocabulary.records.natural_key(key): the slice's order, paged by the database.
    sort_key: Mapped[str] = mapped_column(CodePointText, index=True)
    summary: Mapped[str | None] = mapped_column(Text)
    description: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(Text)
    status_category: Mapped[str | None] = mapped_column(String(40))
    priority: Mapped[str | None] = mapped_column(Text)
    duedate: Mapped[str | None] = mapped_column(String(40))
    planned_start: Mapped[str | None] = mapped_column(String(40))
    planned_end: Mapped[str | None] = mapped_column(String(40))
    labels: Mapped[list[str]] = mapped_column(JSONType)
    epic_key: Mapped[str | None] = mapped_column(String(60))
    assignee: Mapped[str | None] = mapped_column(Text)
    reporter: Mapped[str | None] = mapped_column(Text)
    created: Mapped[str | None] = mapped_column(String(40))
    updated: Mapped[str | None] = mapped_column(String(40))
    sprint: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    refreshed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    vanished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The refresh command whose pages last returned this issue: a full run vanishes the ones it did not see.
    seen_by: Mapped[int | None] = mapped_column(Integer)


class MirrorLabelRow(Base):
    """A label of a mirror issue not vanished, one row each, with the issue's sort key: a project's slice is a
    range of the ``(label, sort_key)`` index, in order, whatever the share of the mirror it is."""

    __tablename__ = "mirror_label"
    __table_args__ = (Index("ix_mirror_label_label_sort_key", "label", "sort_key", "issue_key"),)

    label: Mapped[str] = mapped_column(Text, primary_key=True)
    issue_key: Mapped[str] = mapped_column(String(60), primary_key=True, index=True)
    sort_key: Mapped[str] = mapped_column(CodePointText)


class MirrorLinkRow(Base):
    __tablename__ = "mirror_link"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    jira_id: Mapped[str] = mapped_column(String(60), unique=True)
    type: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(60), index=True)
    target: Mapped[str] = mapped_column(String(60), index=True)


class SyncRunRow(Base):
    __tablename__ = "sync_run"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    command_id: Mapped[int] = mapped_column(ForeignKey("command.id", ondelete="CASCADE"), unique=True)
    query: Mapped[str] = mapped_column(Text)
    full: Mapped[bool] = mapped_column(Boolean)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    issues: Mapped[int | None] = mapped_column(Integer)
    history_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class HistoryEntryRow(Base):
    __tablename__ = "history_entry"
    __table_args__ = (UniqueConstraint("issue_key", "jira_id", name="uq_history_entry_issue_key_jira_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issue_key: Mapped[str] = mapped_column(String(60))
    jira_id: Mapped[str] = mapped_column(String(60))
    created: Mapped[str] = mapped_column(String(40))
    author: Mapped[str | None] = mapped_column(Text)
    items: Mapped[list[Any]] = mapped_column(JSONType)


class NoteRow(Base):
    __tablename__ = "note"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("batch.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(60), index=True)
    author: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class FileRow(Base):
    __tablename__ = "file"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    size: Mapped[int] = mapped_column(BigInteger)
    filename: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class AgentStatusRow(Base):
    __tablename__ = "agent_status"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    agent_id: Mapped[str] = mapped_column(Text)
    instance: Mapped[str | None] = mapped_column(String(64))
    version: Mapped[str | None] = mapped_column(Text)
    jira_user: Mapped[str | None] = mapped_column(Text)
    jira_time_zone: Mapped[str | None] = mapped_column(Text)
    symmetric_link_types: Mapped[list[str]] = mapped_column(JSONType)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_claim_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    last_webhook_event_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    jira_base_url: Mapped[str | None] = mapped_column(Text)
    pause_command_id: Mapped[int | None] = mapped_column(BigInteger)
    pause_ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The pace the agent reported: ``reconcile.outlook.eta.AgentPace.to_wire()``.
    policy: Mapped[dict[str, Any] | None] = mapped_column(JSONType)


class ApiTokenRow(Base):
    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    role: Mapped[str] = mapped_column(String(20))
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Every batch this token creates waits for a person's approval (``token add --needs-approval``).
    needs_approval: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class SettingsRow(Base):
    """The settings as one JSON row (``id = 1``), validated by ``reconcile.config.settings.settings_from_json``."""

    __tablename__ = "settings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSONType)


class DriftGenerationRow(Base):
    """How many times what drift is computed from changed, a row each (absent: never): the commands resolved, the
    mirror's records written or vanished. Bumped in the writing transaction, so a value read names one state of
    those tables in every hub process (:mod:`adapters.storage.generation`)."""

    __tablename__ = "drift_generation"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)


class WebSessionRow(Base):
    """A person's session of the web page: the sha256 of its cookie, whose token it is, when it ends (absolutely),
    and the messages left for the next page (``flash``)."""

    __tablename__ = "web_session"

    id_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    token_sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    flash: Mapped[list[Any] | None] = mapped_column(JSONType)


class WebDraftRow(Base):
    """A batch a browser posted from «Новый пакет» after its session ended, kept until the person logs in again
    (at most until ``expires_at``): the session it was posted with (the sha256 of its cookie; the next session of
    the browser takes it over), the editor's JSON and its size in bytes (``reconcile.guard.web_drafts``)."""

    __tablename__ = "web_draft"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_sha256: Mapped[str] = mapped_column(String(64), index=True)
    text: Mapped[str] = mapped_column(Text)
    size: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class IdempotencyKeyRow(Base):
    """A key a token sent with a request that creates a batch (DESIGN.md 6.3): the fingerprint of that request's
    body and the batch it answered. Unique per token: two requests with one key make one batch, in every hub
    process (the insert of the second waits for the first's transaction and then finds its row)."""

    __tablename__ = "idempotency_key"
    __table_args__ = (UniqueConstraint("token_name", "key", name="uq_idempotency_key_token_name_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_name: Mapped[str] = mapped_column(String(200))
    key: Mapped[str] = mapped_column(String(255))
    fingerprint: Mapped[str] = mapped_column(String(64))
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("batch.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class LoginThrottleRow(Base):
    """The web page's failed logins under one key — a client address or a token prefix, kept as a sha256 —
    (``reconcile.guard.login_throttle``), shared by every hub process on the database."""

    __tablename__ = "login_throttle"

    key_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    #: The failures of the last minute, as ISO-8601 times.
    recent: Mapped[list[Any]] = mapped_column(JSONType)
    level: Mapped[int] = mapped_column(Integer)
    blocked_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class AuditRow(Base):
    """One record of the hash-chained audit (reconcile.audit.chain): append-only, the database refuses an UPDATE or a
    DELETE (but of what a checkpoint covers: retention). ``data`` is kept as the canonical JSON text it was
    hashed over; ``seq`` is given by the chain, not by the database (no gaps)."""

    __tablename__ = "audit"

    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    kind: Mapped[str] = mapped_column(String(40), index=True)
    actor: Mapped[str] = mapped_column(String(250), index=True)
    door: Mapped[str] = mapped_column(String(10))
    batch_id: Mapped[int | None] = mapped_column(Integer, index=True)
    command_id: Mapped[int | None] = mapped_column(BigInteger)
    data: Mapped[str] = mapped_column(Text)
    prev: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))


class AuditCheckpointRow(Base):
    """What retention removed up to: the ``seq`` and ``hash`` of the last record removed (the newest row counts)."""

    __tablename__ = "audit_checkpoint"

    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    hash: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(UTCDateTime)


def table_of(model: type[Base]) -> Table:
    """The model's table, typed for SQLAlchemy Core statements."""
    table = model.__table__
    assert isinstance(table, Table)
    return table
