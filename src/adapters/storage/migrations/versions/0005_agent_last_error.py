"""agent_status.last_error: what keeps the agent from working, as it reported it (DESIGN.md 5.4, 6)

Revision ID: agent_last_error
Revises: instance
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "agent_last_error"
down_revision = "instance"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_status") as batch:
        batch.add_column(sa.Column("last_error", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agent_status") as batch:
        batch.drop_column("last_error")
