"""batch.search and the (batch_id, status) index of command: the queue's filters by text and by state (issue 27)

Revision ID: queue_filters
Revises: freshness
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from reconcile.outlook import search_text

revision = "queue_filters"
down_revision = "freshness"
branch_labels = None
depends_on = None

_BATCH = sa.table(
    "batch",
    sa.column("id", sa.Integer),
    sa.column("title", sa.Text),
    sa.column("author", sa.Text),
    sa.column("project", sa.String),
    sa.column("token_name", sa.String),
    sa.column("search", sa.Text),
)
_COMMAND = sa.table(
    "command",
    sa.column("batch_id", sa.Integer),
    sa.column("seq", sa.Integer),
    sa.column("type", sa.String),
    sa.column("params", sa.JSON),
)


def _backfill() -> None:
    connection = op.get_bind()
    commands: dict[int, list[tuple[str, object]]] = {}
    query = sa.select(_COMMAND.c.batch_id, _COMMAND.c.type, _COMMAND.c.params).order_by(
        _COMMAND.c.batch_id, _COMMAND.c.seq
    )
    for batch_id, command_type, params in connection.execute(query):
        commands.setdefault(batch_id, []).append((command_type, params))
    batches = connection.execute(
        sa.select(_BATCH.c.id, _BATCH.c.title, _BATCH.c.author, _BATCH.c.project, _BATCH.c.token_name)
    ).all()
    for batch_id, title, author, project, token_name in batches:
        text = search_text(
            title=title, author=author, project=project, token_name=token_name, commands=commands.get(batch_id, [])
        )
        connection.execute(sa.update(_BATCH).where(_BATCH.c.id == batch_id).values(search=text))


def upgrade() -> None:
    with op.batch_alter_table("batch") as batch:
        batch.add_column(sa.Column("search", sa.Text(), server_default="", nullable=False))
    op.create_index("ix_command_batch_id_status", "command", ["batch_id", "status"])
    _backfill()


def downgrade() -> None:
    op.drop_index("ix_command_batch_id_status", table_name="command")
    with op.batch_alter_table("batch") as batch:
        batch.drop_column("search")
