"""Notes: the hub's own remarks on issues (never written to Jira), kept by key and moved when a temp key resolves."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import NoteRow, table_of
from adapters.storage.records import NoteRecord
from reconcile.batches import NewNote

__all__ = ["NotesRepository"]

_NOTE = table_of(NoteRow)


def _note(row: Row[Any]) -> NoteRecord:
    return NoteRecord(
        id=row.id, batch_id=row.batch_id, key=row.key, author=row.author, text=row.text, created_at=row.created_at
    )


class NotesRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def add(self, *, key: str, author: str, text: str, now: datetime, batch_id: int | None = None) -> NoteRecord:
        values = {"batch_id": batch_id, "key": key, "author": author, "text": text, "created_at": now}
        inserted = await self._session.execute(insert(_NOTE).values(**values).returning(*_NOTE.c))
        return _note(inserted.one())

    async def add_to_batch(self, batch_id: int, notes: Sequence[NewNote], *, author: str, now: datetime) -> None:
        if notes:
            await self._session.execute(
                insert(_NOTE),
                [
                    {"batch_id": batch_id, "key": n.key, "author": author, "text": n.text, "created_at": now}
                    for n in notes
                ],
            )

    async def page(self, *, key: str | None, limit: int, offset: int) -> tuple[list[NoteRecord], int]:
        """A page of notes (of one key, or all), oldest first, and how many there are."""
        query = select(_NOTE)
        if key is not None:
            query = query.where(_NOTE.c.key == key)
        total = await self._session.scalar(select(func.count()).select_from(query.subquery())) or 0
        rows = (await self._session.execute(query.order_by(_NOTE.c.id).limit(limit).offset(offset))).all()
        return [_note(row) for row in rows], total

    async def of_batch(self, batch_id: int) -> list[NoteRecord]:
        query = select(_NOTE).where(_NOTE.c.batch_id == batch_id).order_by(_NOTE.c.id)
        return [_note(row) for row in (await self._session.execute(query)).all()]

    async def of_key(self, key: str) -> list[NoteRecord]:
        query = select(_NOTE).where(_NOTE.c.key == key).order_by(_NOTE.c.id)
        return [_note(row) for row in (await self._session.execute(query)).all()]

    async def move(self, batch_id: int, temp_key: str, key: str) -> None:
        """The batch's notes of ``new:<n>`` move to the created issue's key."""
        await self._session.execute(
            update(_NOTE).where(_NOTE.c.batch_id == batch_id, _NOTE.c.key == temp_key).values(key=key)
        )
