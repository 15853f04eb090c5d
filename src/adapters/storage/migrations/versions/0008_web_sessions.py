"""web_session: the web page's sessions on the server, so «Выйти» ends one and every hub process sees it (DESIGN.md 8);
project names as long as Jira's labels (255)

Revision ID: web_sessions
Revises: natural_order
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from adapters.storage.models import UTCDateTime

revision = "web_sessions"
down_revision = "token_approval"
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
    _project_names(255, 200)


def _project_names(length: int, was: int) -> None:
    """``project.name`` and ``batch.project`` hold a Jira label (reconcile.vocabulary.project_names)."""
    with op.batch_alter_table("project") as batch:
        batch.alter_column("name", existing_type=sa.String(length=was), type_=sa.String(length=length))
    with op.batch_alter_table("batch") as batch:
        batch.alter_column("project", existing_type=sa.String(length=was), type_=sa.String(length=length))


def downgrade() -> None:
    _project_names(200, 255)
    op.drop_index(op.f("ix_web_session_expires_at"), table_name="web_session")
    op.drop_table("web_session")
