"""agent_status.jira_base_url, pause_command_id, pause_ends_at: Jira's own address as the agent reported it
(links to Jira from the page), and the pause the agent is waiting out (the wait really left, DESIGN.md 8)

Revision ID: jira_base_url
Revises: web_drafts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from adapters.storage.models import UTCDateTime

revision = "jira_base_url"
down_revision = "web_drafts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_status") as batch:
        batch.add_column(sa.Column("jira_base_url", sa.Text(), nullable=True))
        batch.add_column(sa.Column("pause_command_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("pause_ends_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agent_status") as batch:
        batch.drop_column("pause_ends_at")
        batch.drop_column("pause_command_id")
        batch.drop_column("jira_base_url")
