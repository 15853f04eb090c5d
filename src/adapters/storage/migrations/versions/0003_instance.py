"""agent_status.instance: the agent process that claimed last (DESIGN.md 5.4)

Revision ID: instance
Revises: approval
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "instance"
down_revision = "approval"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_status") as batch:
        batch.add_column(sa.Column("instance", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agent_status") as batch:
        batch.drop_column("instance")
