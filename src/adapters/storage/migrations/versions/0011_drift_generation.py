"""drift_generation: counters of the writes that can change drift, for the hub's kept drift (issue 27)

Revision ID: drift_generation
Revises: queue_filters
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "drift_generation"
down_revision = "queue_filters"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "drift_generation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_drift_generation")),
    )


def downgrade() -> None:
    op.drop_table("drift_generation")
