"""the plan an approval means (batch.approval_plan, approval_stale, approval_expired_at) and the hash-chained
audit (audit, audit_checkpoint), append-only by triggers (DESIGN.md 6.5, 6.6)

Revision ID: audit
Revises: batch_undo
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from adapters.storage.audit_guard import APPEND_ONLY, DROP
from adapters.storage.models import JSONType, UTCDateTime

revision = "audit"
down_revision = "batch_undo"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("batch") as batch:
        batch.add_column(sa.Column("approval_plan", JSONType, nullable=True))
        batch.add_column(sa.Column("approval_stale", JSONType, nullable=True))
        batch.add_column(sa.Column("approval_expired_at", UTCDateTime(), nullable=True))
    op.create_table(
        "audit",
        sa.Column("seq", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("actor", sa.String(length=250), nullable=False),
        sa.Column("door", sa.String(length=10), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.Column("command_id", sa.BigInteger(), nullable=True),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("prev", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_audit")),
    )
    for column in ("at", "kind", "actor", "batch_id"):
        op.create_index(op.f(f"ix_audit_{column}"), "audit", [column], unique=False)
    op.create_table(
        "audit_checkpoint",
        sa.Column("seq", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_audit_checkpoint")),
    )
    for statement in APPEND_ONLY[op.get_bind().dialect.name]:
        op.execute(statement)


def downgrade() -> None:
    for statement in DROP[op.get_bind().dialect.name]:
        op.execute(statement)
    op.drop_table("audit_checkpoint")
    for column in ("batch_id", "actor", "kind", "at"):
        op.drop_index(op.f(f"ix_audit_{column}"), table_name="audit")
    op.drop_table("audit")
    with op.batch_alter_table("batch") as batch:
        batch.drop_column("approval_expired_at")
        batch.drop_column("approval_stale")
        batch.drop_column("approval_plan")
