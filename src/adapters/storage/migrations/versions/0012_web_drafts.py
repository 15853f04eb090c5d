"""web_draft: a batch posted from «Новый пакет» after the session ended, kept until the person logs in again

Revision ID: web_drafts
Revises: drift_generation
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from adapters.storage.models import UTCDateTime

revision = "web_drafts"
down_revision = "drift_generation"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_draft",
        sa.Column("id_sha256", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id_sha256", name=op.f("pk_web_draft")),
    )
    op.create_index(op.f("ix_web_draft_expires_at"), "web_draft", ["expires_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_web_draft_expires_at"), table_name="web_draft")
    op.drop_table("web_draft")
