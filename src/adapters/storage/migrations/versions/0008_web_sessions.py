"""web_session: the web page's sessions on the server, so «Выйти» ends one and every hub process sees it (DESIGN.md 8)

Revision ID: web_sessions
Revises: natural_order
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from adapters.storage.models import UTCDateTime

revision = "web_sessions"
down_revision = "natural_order"
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "web_session",
        sa.Column("id_sha256", sa.String(length=64), nullable=False),
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.Column("flash", JSONType, nullable=True),
        sa.PrimaryKeyConstraint("id_sha256", name=op.f("pk_web_session")),
    )
    op.create_index(op.f("ix_web_session_expires_at"), "web_session", ["expires_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_web_session_expires_at"), table_name="web_session")
    op.drop_table("web_session")
