"""agent_status.policy: the pace the agent reported (its floors per type and its write budget, DESIGN.md 6 round
4), and an index on command.finished_at for the agent's recent work (its last command's end, its writes of the
last hour) that the batch's live figures read

Revision ID: agent_policy
Revises: drafts_and_throttle
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from adapters.storage.models import JSONType

revision = "agent_policy"
down_revision = "drafts_and_throttle"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_status") as batch:
        batch.add_column(sa.Column("policy", JSONType, nullable=True))
    op.create_index("ix_command_finished_at", "command", ["finished_at"])


def downgrade() -> None:
    op.drop_index("ix_command_finished_at", table_name="command")
    with op.batch_alter_table("agent_status") as batch:
        batch.drop_column("policy")
