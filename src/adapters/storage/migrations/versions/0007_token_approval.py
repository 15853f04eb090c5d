"""api_token.needs_approval: every batch the token creates waits for a person's approval (DESIGN.md 6)

Revision ID: token_approval
Revises: natural_order
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "token_approval"
down_revision = "natural_order"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_token") as batch:
        batch.add_column(sa.Column("needs_approval", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("api_token") as batch:
        batch.drop_column("needs_approval")
