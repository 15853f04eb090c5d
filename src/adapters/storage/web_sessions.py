"""The web page's sessions (one row each, shared by every hub process on the database), the drafts kept over a
login and the login throttle, as named queries."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import LoginThrottleRow, WebDraftRow, WebSessionRow, table_of
from adapters.storage.records import WebSessionRecord
from reconcile.guard import ENDED_SESSION_KEPT, MAX_BLOCK, Throttle, place_draft

__all__ = ["WebSessionRepository"]

_SESSION = table_of(WebSessionRow)
_DRAFT = table_of(WebDraftRow)
_THROTTLE = table_of(LoginThrottleRow)


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

    async def issued(self, id_sha256: str, *, now: datetime) -> WebSessionRecord | None:
        """The session with this cookie digest if the hub issued it and it is live or ended at most
        :data:`~reconcile.guard.web_drafts.ENDED_SESSION_KEPT` before ``now`` (what a draft may be kept for)."""
        kept = _SESSION.c.expires_at > now - ENDED_SESSION_KEPT
        row = (await self._session.execute(select(_SESSION).where(_SESSION.c.id_sha256 == id_sha256, kept))).first()
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

    async def end(self, id_sha256: str, *, now: datetime) -> None:
        """«Выйти» (or a new login): the session ends now, so its cookie, wherever it was copied, opens nothing; the
        row stays for a day as an ended session (its drafts go to the browser's next one)."""
        ended = update(_SESSION).where(_SESSION.c.id_sha256 == id_sha256, _SESSION.c.expires_at > now)
        await self._session.execute(ended.values(expires_at=now))

    async def purge(self, *, now: datetime) -> int:
        """Drop the sessions ended more than a day before ``now``, expired drafts and quiet throttles; how many
        sessions."""
        result = await self._session.execute(delete(_SESSION).where(_SESSION.c.expires_at <= now - ENDED_SESSION_KEPT))
        await self._session.execute(delete(_DRAFT).where(_DRAFT.c.expires_at <= now))
        await self._session.execute(delete(_THROTTLE).where(_THROTTLE.c.updated_at <= now - 2 * MAX_BLOCK))
        return int(result.rowcount)  # type: ignore[attr-defined]

    async def keep_draft(self, session_sha256: str, text: str, *, now: datetime, expires_at: datetime) -> bool:
        """Keep a draft for the session within the bounds of :func:`reconcile.guard.web_drafts.place_draft` (the
        session's oldest may go to make room); whether it was kept."""
        await self._session.execute(delete(_DRAFT).where(_DRAFT.c.expires_at <= now))
        mine = select(_DRAFT.c.id, _DRAFT.c.size).where(_DRAFT.c.session_sha256 == session_sha256)
        drafts = [(row.id, row.size) for row in (await self._session.execute(mine.order_by(_DRAFT.c.id))).all()]
        total = await self._session.scalar(select(func.coalesce(func.sum(_DRAFT.c.size), 0)))
        size = len(text.encode())
        place = place_draft(size, session_drafts=drafts, total_bytes=int(total or 0))
        if not place.keep:
            return False
        if place.drop:
            await self._session.execute(delete(_DRAFT).where(_DRAFT.c.id.in_(place.drop)))
        values = {"session_sha256": session_sha256, "text": text, "size": size}
        await self._session.execute(insert(_DRAFT).values(**values, created_at=now, expires_at=expires_at))
        return True

    async def adopt_drafts(self, ended_sha256: str, session_sha256: str) -> None:
        """A new login of the browser whose session ``ended_sha256`` was: its drafts are the new session's."""
        adopted = update(_DRAFT).where(_DRAFT.c.session_sha256 == ended_sha256)
        await self._session.execute(adopted.values(session_sha256=session_sha256))

    async def take_draft(self, session_sha256: str, *, now: datetime) -> str | None:
        """The session's newest draft unless expired by ``now``; it is taken (gone after)."""
        newest = (
            select(_DRAFT.c.id, _DRAFT.c.text)
            .where(_DRAFT.c.session_sha256 == session_sha256, _DRAFT.c.expires_at > now)
            .order_by(_DRAFT.c.id.desc())
            .limit(1)
        )
        row = (await self._session.execute(newest)).first()
        if row is None:
            return None
        await self._session.execute(delete(_DRAFT).where(_DRAFT.c.id == row.id))
        return str(row.text)

    async def throttles(self, keys: Iterable[str]) -> dict[str, Throttle]:
        """The login throttle of each of ``keys`` (sha256 digests) that has one."""
        query = select(_THROTTLE).where(_THROTTLE.c.key_sha256.in_(sorted(set(keys))))
        return {
            row.key_sha256: Throttle(
                recent=tuple(datetime.fromisoformat(moment) for moment in row.recent or ()),
                level=row.level,
                blocked_until=row.blocked_until,
            )
            for row in (await self._session.execute(query)).all()
        }

    async def save_throttle(self, key: str, throttle: Throttle, *, now: datetime) -> None:
        values = {
            "recent": [moment.isoformat() for moment in throttle.recent],
            "level": throttle.level,
            "blocked_until": throttle.blocked_until,
            "updated_at": now,
        }
        upsert = postgresql.insert if self._session.get_bind().dialect.name == "postgresql" else sqlite.insert
        statement = upsert(_THROTTLE).values(key_sha256=key, **values)
        await self._session.execute(
            statement.on_conflict_do_update(index_elements=[_THROTTLE.c.key_sha256], set_=values)
        )

    async def clear_throttles(self, keys: Iterable[str]) -> None:
        """A successful login: its keys start over."""
        await self._session.execute(delete(_THROTTLE).where(_THROTTLE.c.key_sha256.in_(sorted(set(keys)))))
