"""agent_status.last_webhook_event_at: when the agent last relayed a Jira webhook event (DESIGN.md 6.2, freshness)

Revision ID: freshness
Revises: web_sessions
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from adapters.storage.models import UTCDateTime

revision = "freshness"
down_revision = "web_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_status") as batch:
        batch.add_column(sa.Column("last_webhook_event_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agent_status") as batch:
        batch.drop_column("last_webhook_event_at")
