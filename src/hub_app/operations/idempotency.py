"""A batch created once however often it is asked (DESIGN.md 6.3): ``POST /batches`` and ``POST /refresh`` with an
``Idempotency-Key``, MCP ``batch_create`` and ``refresh`` with ``idempotency_key``.

The key is taken in the transaction that stores the batch (:meth:`IdempotencyRepository.take`, a unique
``(token, key)``): a second request with the key — sequential, concurrent, through another hub process — answers
the first's batch (``replayed``), or 422 «ключ идемпотентности уже использован для другого пакета: N» when its
body is another. A refused batch (422) rolls its key back with it: the key stays free. A dry run never comes here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import attrs

from hub_app.answers.batches import BatchCreated
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import batch
from reconcile.outlook import Requester
from reconcile.queue import idempotency

__all__ = ["Created", "create_once", "prune_keys"]


@attrs.frozen(kw_only=True)
class Created:
    """The batch a creating request answers: ``new`` when it was stored now (201), ``replayed`` when it is the one
    an earlier request with the same key made (200, ``Idempotent-Replayed: true``)."""

    batch: BatchCreated
    new: bool
    replayed: bool = False


async def create_once(
    unit: Unit,
    *,
    requester: Requester,
    key: str | None,
    kind: str,
    body: Any,
    create: Callable[[], Awaitable[tuple[BatchCreated, bool]]],
) -> Created:
    """``create()`` (its batch and whether it is new), unless ``key`` was used by this token within 24 h: then the
    batch that use created, or 422 when the body (of ``kind``: ``batch``, ``refresh``) differs."""
    if key is None:
        created, new = await create()
        return Created(batch=created, new=new)
    token = requester.token_name or ""
    kept = await unit.db.idempotency.take(
        token_name=token,
        key=idempotency.check_key(key),
        fingerprint=idempotency.fingerprint(kind, body),
        now=unit.now,
        expired_before=idempotency.expired_before(unit.now),
    )
    if kept is None:
        created, new = await create()
        await unit.db.idempotency.bind(token_name=token, key=key, batch_id=created.id)
        unit.amend_audit("batch_created", created.id, idempotency_key=key)
        return Created(batch=created, new=new)
    if kept.batch_id is None or kept.fingerprint != idempotency.fingerprint(kind, body):
        raise idempotency.reused(kept.batch_id or 0)
    first = await batch(unit, kept.batch_id)
    commands = (await unit.db.queue.commands_of([first.id]))[first.id]
    return Created(batch=BatchCreated.of(first, commands), new=False, replayed=True)


async def prune_keys(unit: Unit) -> int:
    """Remove the keys past their 24 h (at an idle claim: a request never waits for it); how many."""
    return await unit.db.idempotency.prune(idempotency.expired_before(unit.now))
