"""The web page's sessions (one row each, shared by every hub process on the database) and the drafts kept over a
login, as named queries."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import WebDraftRow, WebSessionRow, table_of
from adapters.storage.records import WebSessionRecord

__all__ = ["WebSessionRepository"]

_SESSION = table_of(WebSessionRow)
_DRAFT = table_of(WebDraftRow)


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

    async def keep_draft(self, id_sha256: str, text: str, *, now: datetime, expires_at: datetime) -> None:
        """Keep a browser's draft (one per browser: a newer one replaces it); expired drafts are dropped."""
        await self._session.execute(
            delete(_DRAFT).where((_DRAFT.c.expires_at <= now) | (_DRAFT.c.id_sha256 == id_sha256))
        )
        await self._session.execute(
            insert(_DRAFT).values(id_sha256=id_sha256, text=text, created_at=now, expires_at=expires_at)
        )

    async def take_draft(self, id_sha256: str, *, now: datetime) -> str | None:
        """The browser's draft unless expired by ``now``; it is taken (gone after)."""
        query = select(_DRAFT.c.text).where(_DRAFT.c.id_sha256 == id_sha256, _DRAFT.c.expires_at > now)
        text = await self._session.scalar(query)
        if text is not None:
            await self._session.execute(delete(_DRAFT).where(_DRAFT.c.id_sha256 == id_sha256))
        return text
