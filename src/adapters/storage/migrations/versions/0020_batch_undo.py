"""batch.undo_of: the batch a batch undoes (DESIGN.md 6.4); ``undone_by`` is read back through it

Revision ID: batch_undo
Revises: idempotency_keys
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "batch_undo"
down_revision = "idempotency_keys"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("batch") as batch:
        batch.add_column(sa.Column("undo_of", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_batch_undo_of_batch", "batch", ["undo_of"], ["id"], ondelete="SET NULL")
        batch.create_index("ix_batch_undo_of", ["undo_of"])


def downgrade() -> None:
    with op.batch_alter_table("batch") as batch:
        batch.drop_index("ix_batch_undo_of")
        batch.drop_constraint("fk_batch_undo_of_batch", type_="foreignkey")
        batch.drop_column("undo_of")
