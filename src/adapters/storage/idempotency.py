"""The idempotency keys of the requests that create batches (DESIGN.md 6.3), as named queries.

:meth:`IdempotencyRepository.take` inserts the key with ``ON CONFLICT DO NOTHING`` before the batch is stored, in
the same transaction: the unique ``(token_name, key)`` decides between concurrent requests. On PostgreSQL the
second insert waits for the first transaction; when that one commits, it inserts nothing and the row it then reads
is the first's, with its batch; when it rolls back (a refused batch), the second takes the key. On SQLite the
transactions run one after another (``BEGIN IMMEDIATE``), so the second finds the row at once.
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
        """Take ``key`` for a new batch (``None``), or answer who has it: the row a request of this token stored
        with it before ``expired_before`` is dropped first (the key may be used again)."""
        await self._session.execute(delete(_KEY).where(_KEY.c.created_at < expired_before))
        values = {"token_name": token_name, "key": key, "fingerprint": fingerprint, "created_at": now}
        dialect = postgresql if self._postgres else sqlite
        insert = dialect.insert(_KEY).values(**values).on_conflict_do_nothing().returning(_KEY.c.id)
        query = select(_KEY.c.fingerprint, _KEY.c.batch_id).where(_KEY.c.token_name == token_name, _KEY.c.key == key)
        while True:
            if (await self._session.execute(insert)).first() is not None:
                return None
            row = (await self._session.execute(query)).first()
            if row is not None:  # else the holder's row vanished in between (it expired): take the key again
                return KeptKey(fingerprint=row.fingerprint, batch_id=row.batch_id)

    async def bind(self, *, token_name: str, key: str, batch_id: int) -> None:
        """The batch the request that took ``key`` answered."""
        query = update(_KEY).where(_KEY.c.token_name == token_name, _KEY.c.key == key).values(batch_id=batch_id)
        await self._session.execute(query)
