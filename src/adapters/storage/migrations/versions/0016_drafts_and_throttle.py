"""web_draft by session (at most 5 a session, their sizes counted); login_throttle: the web page's failed logins
by client address and token prefix (DESIGN.md 5.7, the hub)

The drafts kept before (keyed by a browser's login-form cookie, for a day at most) are dropped: a draft is now kept
only for a session the hub issued.

Revision ID: drafts_and_throttle
Revises: jira_base_url
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from adapters.storage.models import UTCDateTime

revision = "drafts_and_throttle"
down_revision = "jira_base_url"
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.drop_index(op.f("ix_web_draft_expires_at"), table_name="web_draft")
    op.drop_table("web_draft")
    op.create_table(
        "web_draft",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_sha256", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_draft")),
    )
    op.create_index(op.f("ix_web_draft_session_sha256"), "web_draft", ["session_sha256"], unique=False)
    op.create_index(op.f("ix_web_draft_expires_at"), "web_draft", ["expires_at"], unique=False)
    op.create_table(
        "login_throttle",
        sa.Column("key_sha256", sa.String(length=64), nullable=False),
        sa.Column("recent", JSONType, nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("blocked_until", UTCDateTime(), nullable=True),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key_sha256", name=op.f("pk_login_throttle")),
    )
    op.create_index(op.f("ix_login_throttle_updated_at"), "login_throttle", ["updated_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_login_throttle_updated_at"), table_name="login_throttle")
    op.drop_table("login_throttle")
    op.drop_index(op.f("ix_web_draft_expires_at"), table_name="web_draft")
    op.drop_index(op.f("ix_web_draft_session_sha256"), table_name="web_draft")
    op.drop_table("web_draft")
    op.create_table(
        "web_draft",
        sa.Column("id_sha256", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id_sha256", name=op.f("pk_web_draft")),
    )
    op.create_index(op.f("ix_web_draft_expires_at"), "web_draft", ["expires_at"], unique=False)
