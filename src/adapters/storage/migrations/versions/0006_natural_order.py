"""the mirror's slice paged by the database: issues' natural sort key, labels one row each

Revision ID: natural_order
Revises: agent_last_error
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from reconcile.vocabulary import natural_key

revision = "natural_order"
down_revision = "agent_last_error"
branch_labels = None
depends_on = None

# Compared by code point on PostgreSQL whatever the database's collation (SQLite compares so by default).
CodePointText = sa.String(length=120).with_variant(sa.String(length=120, collation="C"), "postgresql")
_ISSUE = sa.table(
    "mirror_issue",
    sa.column("id", sa.Integer),
    sa.column("key", sa.String),
    sa.column("labels", sa.JSON),
    sa.column("sort_key", sa.String),
    sa.column("vanished_at", sa.DateTime),
)


def upgrade() -> None:
    label = op.create_table(
        "mirror_label",
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("issue_key", sa.String(length=60), nullable=False),
        sa.Column("sort_key", CodePointText, nullable=False),
        sa.PrimaryKeyConstraint("label", "issue_key", name=op.f("pk_mirror_label")),
    )
    op.create_index(op.f("ix_mirror_label_issue_key"), "mirror_label", ["issue_key"], unique=False)
    op.create_index("ix_mirror_label_label_sort_key", "mirror_label", ["label", "sort_key", "issue_key"], unique=False)
    with op.batch_alter_table("mirror_issue") as batch:
        batch.add_column(sa.Column("sort_key", CodePointText, nullable=True))

    connection = op.get_bind()
    query = sa.select(_ISSUE.c.id, _ISSUE.c.key, _ISSUE.c.labels, _ISSUE.c.vanished_at.is_(None))
    rows = connection.execute(query).all()
    if rows:
        connection.execute(
            sa.update(_ISSUE).where(_ISSUE.c.id == sa.bindparam("row_id")).values(sort_key=sa.bindparam("sort")),
            [{"row_id": row_id, "sort": natural_key(key)} for row_id, key, _, _ in rows],
        )
        pairs = {(name, key) for _, key, labels, shown in rows if shown for name in labels or ()}
        if pairs:
            op.bulk_insert(
                label,
                [{"label": name, "issue_key": key, "sort_key": natural_key(key)} for name, key in sorted(pairs)],
            )

    with op.batch_alter_table("mirror_issue") as batch:
        batch.alter_column("sort_key", existing_type=CodePointText, nullable=False)
        batch.create_index(batch.f("ix_mirror_issue_sort_key"), ["sort_key"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("mirror_issue") as batch:
        batch.drop_index(batch.f("ix_mirror_issue_sort_key"))
        batch.drop_column("sort_key")
    op.drop_index("ix_mirror_label_label_sort_key", table_name="mirror_label")
    op.drop_index(op.f("ix_mirror_label_issue_key"), table_name="mirror_label")
    op.drop_table("mirror_label")
