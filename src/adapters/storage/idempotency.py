"""The idempotency keys of the requests that create batches (DESIGN.md 6.3), as named queries.

:meth:`IdempotencyRepository.take` inserts the key before the batch is stored, in the same transaction, with
``ON CONFLICT DO UPDATE … WHERE`` the row there has expired: the unique ``(token_name, key)`` decides between
concurrent requests, and an expired key is taken again by the same statement. On PostgreSQL the second insert
waits for the first transaction; when that one commits, it changes nothing and the row it then reads is the
first's, with its batch; when it rolls back (a refused batch), the second takes the key. On SQLite the
transactions run one after another (``BEGIN IMMEDIATE``), so the second finds the row at once. The other expired
rows are swept at an idle claim (:meth:`IdempotencyRepository.prune`), out of the way of a request.
"""

from __future__ import annotations

from datetime import datetime

import attrs
from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import IdempotencyKeyRow, table_of

__all__ = ["IdempotencyRepository", "KeptKey"]

_KEY = table_of(IdempotencyKeyRow)


@attrs.frozen(kw_only=True)
class KeptKey:
    """A key already used by the token: the fingerprint of its first request's body and the batch it answered."""

    fingerprint: str
    batch_id: int | None


class IdempotencyRepository:
    def __init__(self, session: AsyncSession, *, postgres: bool) -> None:
        self._session = session
        self._postgres = postgres

    async def take(
        self, *, token_name: str, key: str, fingerprint: str, now: datetime, expired_before: datetime
    ) -> KeptKey | None:
        """Take ``key`` for a new batch (``None``), or answer who has it. A row this token stored with it before
        ``expired_before`` no longer holds it: the key is taken again."""
        values = {"token_name": token_name, "key": key, "fingerprint": fingerprint, "created_at": now}
        dialect = postgresql if self._postgres else sqlite
        insert = dialect.insert(_KEY).values(**values)
        insert = insert.on_conflict_do_update(
            index_elements=[_KEY.c.token_name, _KEY.c.key],
            set_={"fingerprint": fingerprint, "created_at": now, "batch_id": None},
            where=_KEY.c.created_at < expired_before,
        ).returning(_KEY.c.id)
        query = select(_KEY.c.fingerprint, _KEY.c.batch_id).where(_KEY.c.token_name == token_name, _KEY.c.key == key)
        while True:
            if (await self._session.execute(insert)).first() is not None:
                return None
            row = (await self._session.execute(query)).first()
            if row is not None:  # else the holder's row vanished in between (swept): take the key again
                return KeptKey(fingerprint=row.fingerprint, batch_id=row.batch_id)

    async def prune(self, expired_before: datetime) -> int:
        """Remove the keys stored before ``expired_before`` (none of them holds its key any more); how many."""
        result = await self._session.execute(delete(_KEY).where(_KEY.c.created_at < expired_before))
        return int(result.rowcount or 0)  # type: ignore[attr-defined]

    async def bind(self, *, token_name: str, key: str, batch_id: int) -> None:
        """The batch the request that took ``key`` answered."""
        query = update(_KEY).where(_KEY.c.token_name == token_name, _KEY.c.key == key).values(batch_id=batch_id)
        await self._session.execute(query)
