"""initial schema

Revision ID: 0001
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from adapters.storage.models import UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    _agent_and_tokens()
    _batches_and_files()
    _mirror()
    _projects_and_settings()
    _commands_notes_and_sync_runs()


def _agent_and_tokens() -> None:
    """The agent's status and the API tokens."""
    op.create_table(
        "agent_status",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("agent_id", sa.Text(), nullable=False),
        sa.Column("version", sa.Text(), nullable=True),
        sa.Column("jira_user", sa.Text(), nullable=True),
        sa.Column("jira_time_zone", sa.Text(), nullable=True),
        sa.Column(
            "symmetric_link_types",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("last_seen_at", UTCDateTime(), nullable=False),
        sa.Column("last_claim_at", UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_status")),
    )
    op.create_table(
        "api_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("revoked_at", UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_token")),
        sa.UniqueConstraint("name", name=op.f("uq_api_token_name")),
        sa.UniqueConstraint("sha256", name=op.f("uq_api_token_sha256")),
    )


def _batches_and_files() -> None:
    """Batches and the uploaded files."""
    op.create_table(
        "batch",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("author", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("project", sa.String(length=200), nullable=True),
        sa.Column("token_name", sa.String(length=200), nullable=True),
        sa.Column("estimate_seconds", sa.Float(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_batch")),
    )
    with op.batch_alter_table("batch", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_batch_created_at"), ["created_at"], unique=False)

    op.create_table(
        "file",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("filename", sa.Text(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_file")),
        sa.UniqueConstraint("sha256", name=op.f("uq_file_sha256")),
    )


def _mirror() -> None:
    """The mirror: issues, their links and their journal."""
    op.create_table(
        "history_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issue_key", sa.String(length=60), nullable=False),
        sa.Column("jira_id", sa.String(length=60), nullable=False),
        sa.Column("created", sa.String(length=40), nullable=False),
        sa.Column("author", sa.Text(), nullable=True),
        sa.Column(
            "items",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_history_entry")),
        sa.UniqueConstraint("issue_key", "jira_id", name="uq_history_entry_issue_key_jira_id"),
    )
    op.create_table(
        "mirror_issue",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=60), nullable=False),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("status", sa.Text(), nullable=True),
        sa.Column("status_category", sa.String(length=40), nullable=True),
        sa.Column("priority", sa.Text(), nullable=True),
        sa.Column("duedate", sa.String(length=40), nullable=True),
        sa.Column("planned_start", sa.String(length=40), nullable=True),
        sa.Column("planned_end", sa.String(length=40), nullable=True),
        sa.Column(
            "labels",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("epic_key", sa.String(length=60), nullable=True),
        sa.Column("assignee", sa.Text(), nullable=True),
        sa.Column("reporter", sa.Text(), nullable=True),
        sa.Column("created", sa.String(length=40), nullable=True),
        sa.Column("updated", sa.String(length=40), nullable=True),
        sa.Column(
            "sprint",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("refreshed_at", UTCDateTime(), nullable=False),
        sa.Column("vanished_at", UTCDateTime(), nullable=True),
        sa.Column("seen_by", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mirror_issue")),
        sa.UniqueConstraint("key", name=op.f("uq_mirror_issue_key")),
    )
    op.create_table(
        "mirror_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("jira_id", sa.String(length=60), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=60), nullable=False),
        sa.Column("target", sa.String(length=60), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mirror_link")),
        sa.UniqueConstraint("jira_id", name=op.f("uq_mirror_link_jira_id")),
    )
    with op.batch_alter_table("mirror_link", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mirror_link_source"), ["source"], unique=False)
        batch_op.create_index(batch_op.f("ix_mirror_link_target"), ["target"], unique=False)


def _projects_and_settings() -> None:
    """Projects and settings."""
    op.create_table(
        "project",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("board_id", sa.Integer(), nullable=True),
        sa.Column("board_type", sa.String(length=20), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_project")),
        sa.UniqueConstraint("name", name=op.f("uq_project_name")),
    )
    op.create_table(
        "settings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column(
            "data",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_settings")),
    )


def _commands_notes_and_sync_runs() -> None:
    """Commands, notes and sync runs (they point at batches)."""
    op.create_table(
        "command",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column(
            "params",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("temp_key", sa.String(length=60), nullable=True),
        sa.Column("status", sa.String(length=30), nullable=False),
        sa.Column("deliveries", sa.Integer(), nullable=False),
        sa.Column("claimed_at", UTCDateTime(), nullable=True),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.Column(
            "result",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("jira_calls", sa.Integer(), nullable=True),
        sa.Column(
            "operations",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("retry_of", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["batch_id"], ["batch.id"], name=op.f("fk_command_batch_id_batch"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["retry_of"], ["command.id"], name=op.f("fk_command_retry_of_command"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_command")),
        sa.UniqueConstraint("batch_id", "seq", name="uq_command_batch_id_seq"),
    )
    with op.batch_alter_table("command", schema=None) as batch_op:
        batch_op.create_index("ix_command_status", ["status"], unique=False)

    op.create_table(
        "note",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.Column("key", sa.String(length=60), nullable=False),
        sa.Column("author", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["batch_id"], ["batch.id"], name=op.f("fk_note_batch_id_batch"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_note")),
    )
    with op.batch_alter_table("note", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_note_key"), ["key"], unique=False)

    op.create_table(
        "sync_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("command_id", sa.Integer(), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("full", sa.Boolean(), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.Column("issues", sa.Integer(), nullable=True),
        sa.Column("history_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["command_id"], ["command.id"], name=op.f("fk_sync_run_command_id_command"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sync_run")),
        sa.UniqueConstraint("command_id", name=op.f("uq_sync_run_command_id")),
    )


def downgrade() -> None:

    op.drop_table("sync_run")
    with op.batch_alter_table("note", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_note_key"))

    op.drop_table("note")
    with op.batch_alter_table("command", schema=None) as batch_op:
        batch_op.drop_index("ix_command_status")

    op.drop_table("command")
    op.drop_table("settings")
    op.drop_table("project")
    with op.batch_alter_table("mirror_link", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mirror_link_target"))
        batch_op.drop_index(batch_op.f("ix_mirror_link_source"))

    op.drop_table("mirror_link")
    op.drop_table("mirror_issue")
    op.drop_table("history_entry")
    op.drop_table("file")
    with op.batch_alter_table("batch", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_batch_created_at"))

    op.drop_table("batch")
    op.drop_table("api_token")
    op.drop_table("agent_status")
