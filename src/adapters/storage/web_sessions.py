"""The web page's sessions (one row each, shared by every hub process on the database) as named queries."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import WebSessionRow, table_of
from adapters.storage.records import WebSessionRecord

__all__ = ["WebSessionRepository"]

_SESSION = table_of(WebSessionRow)


def _session(row: Row[Any]) -> WebSessionRecord:
    return WebSessionRecord(
        id_sha256=row.id_sha256,
        token_sha256=row.token_sha256,
        created_at=row.created_at,
        expires_at=row.expires_at,
        flash=tuple(row.flash or ()),
    )


class WebSessionRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def live(self, id_sha256: str, *, now: datetime) -> WebSessionRecord | None:
        """The session with this cookie digest, unless it has ended or expired by ``now``."""
        query = select(_SESSION).where(_SESSION.c.id_sha256 == id_sha256, _SESSION.c.expires_at > now)
        row = (await self._session.execute(query)).first()
        return _session(row) if row is not None else None

    async def add(self, record: WebSessionRecord) -> None:
        await self._session.execute(
            insert(_SESSION).values(
                id_sha256=record.id_sha256,
                token_sha256=record.token_sha256,
                created_at=record.created_at,
                expires_at=record.expires_at,
                flash=list(record.flash) or None,
            )
        )

    async def set_flash(self, id_sha256: str, flash: Sequence[dict[str, Any]]) -> None:
        query = update(_SESSION).where(_SESSION.c.id_sha256 == id_sha256).values(flash=list(flash) or None)
        await self._session.execute(query)

    async def end(self, id_sha256: str) -> None:
        """«Выйти»: the row is gone, so its cookie, wherever it was copied, opens nothing."""
        await self._session.execute(delete(_SESSION).where(_SESSION.c.id_sha256 == id_sha256))

    async def purge(self, *, now: datetime) -> int:
        """Drop the sessions expired by ``now``; how many."""
        result = await self._session.execute(delete(_SESSION).where(_SESSION.c.expires_at <= now))
        return int(result.rowcount)  # type: ignore[attr-defined]
