"""idempotency_key: the keys of the requests that created batches, unique per token (DESIGN.md 6.3)

Revision ID: idempotency_keys
Revises: agent_policy
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from adapters.storage.models import UTCDateTime

revision = "idempotency_keys"
down_revision = "agent_policy"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotency_key",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_name", sa.String(length=200), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["batch.id"], name=op.f("fk_idempotency_key_batch_id_batch"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_idempotency_key")),
        sa.UniqueConstraint("token_name", "key", name="uq_idempotency_key_token_name_key"),
    )
    op.create_index(op.f("ix_idempotency_key_created_at"), "idempotency_key", ["created_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_idempotency_key_created_at"), table_name="idempotency_key")
    op.drop_table("idempotency_key")
