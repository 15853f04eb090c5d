"""Many rows into one table in one call, each database its fastest way: how a refresh page is written
(:mod:`adapters.storage.mirror`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Dialect, Table, Text, bindparam, cast, column, func, select, true
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = ["BulkRows"]


class BulkRows:
    """Many rows into one table in one call, each database its fastest way (SQLAlchemy's per-row parameter handling
    was most of a refresh page's time). PostgreSQL reads them from one JSON parameter (``jsonb_to_recordset``: one
    set-based statement); SQLite, in process, runs the driver's own ``executemany`` of the statement compiled once,
    over plain tuples passed through the columns' bind processors, so values are stored as any statement stores
    them. ``shared`` columns take one value for every row; with ``key`` (a unique index's columns), a row whose key is
    stored replaces it."""

    def __init__(
        self,
        table: Table,
        columns: Sequence[str],
        dialect: Dialect,
        *,
        shared: Sequence[str] = (),
        key: Sequence[str] = (),
    ) -> None:
        self.json = dialect.name == "postgresql"
        insert: Any
        if self.json:
            records = func.jsonb_to_recordset(cast(bindparam("rows", type_=Text), postgresql.JSONB)).table_valued(
                *(column(name, table.c[name].type) for name in columns)
            )
            values = [
                *records.render_derived(with_types=True).c,
                *(cast(bindparam(name, type_=table.c[name].type), table.c[name].type) for name in shared),
            ]
            insert = postgresql.insert(table).from_select([*columns, *shared], select(*values).where(true()))
        else:
            names = (*columns, *shared)
            insert = sqlite.insert(table).values({name: bindparam(name, type_=table.c[name].type) for name in names})
        if key:
            changed = {name: insert.excluded[name] for name in (*columns, *shared) if name not in key}
            insert = insert.on_conflict_do_update(index_elements=[table.c[name] for name in key], set_=changed)
        self.statement = insert
        if self.json:
            return
        compiled = insert.compile(dialect=dialect)
        self.sql = str(compiled)
        # each bound name in the statement's order: its bind processor, and whether it is one of the shared values
        self.order = [
            (name, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect), name in shared)
            for name in compiled.positiontup or ()
        ]

    async def run(self, session: AsyncSession, rows: Sequence[Mapping[str, Any]], **shared: Any) -> None:
        if self.json:
            await session.execute(self.statement, {"rows": json.dumps(rows), **shared})
            return
        same = {
            name: shared[name] if bind is None else bind(shared[name]) for name, bind, common in self.order if common
        }
        values = [
            tuple(
                same[name] if common else row[name] if bind is None else bind(row[name])
                for name, bind, common in self.order
            )
            for row in rows
        ]
        await (await session.connection()).exec_driver_sql(self.sql, values)
