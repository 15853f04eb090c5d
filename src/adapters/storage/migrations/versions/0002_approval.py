"""a batch's door and its approval by a person

Revision ID: approval
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from adapters.storage.models import UTCDateTime

revision = "approval"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("batch", schema=None) as batch_op:
        batch_op.add_column(sa.Column("door", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("approval_state", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("approval_by", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("approval_at", UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column("approval_reason", sa.Text(), nullable=True))
        batch_op.create_index(batch_op.f("ix_batch_approval_state"), ["approval_state"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("batch", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_batch_approval_state"))
        for column in ("approval_reason", "approval_at", "approval_by", "approval_state", "door"):
            batch_op.drop_column(column)
