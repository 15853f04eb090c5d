"""Following a batch (issue 34): ``GET /batches/{id}?wait=N[&since=S]`` and MCP ``batch_status`` with
``wait_seconds`` answer as soon as a command of the batch changes status (or its approval changes), else at the
deadline — one long poll on the hub's own wake-up (:meth:`hub_app.runtime.longpoll.Wakeup.watch`), never a sleep loop.

What "changed" means is the batch's **state stamp** (:func:`state_stamp`): a digest of its commands' statuses and
its approval's state, answered in the ``Batch-State`` header. ``since`` is the stamp the client last saw; without
it, the state when the request arrived. The wait holds no database connection: it reads the batch in one short
transaction per wake-up, shared by every follower of the batch woken by the same change
(:meth:`~hub_app.runtime.longpoll.Wakeup.shared_look`). The hub's shutdown ends it at once, with the batch as it stands.
"""

from __future__ import annotations

import hashlib

import anyio

from hub_app.answers.batches import BatchDetail
from hub_app.operations.batches import get_batch
from hub_app.runtime.hub import Hub
from hub_app.runtime.longpoll import WATCH_REPOLL_SECONDS
from reconcile.vocabulary import ValidationError

__all__ = ["MAX_WAIT_SECONDS", "follow_batch", "state_stamp"]

#: The longest wait a client may ask for (under the 60 s idle timeout of common proxies).
MAX_WAIT_SECONDS = 55


def check_wait(seconds: float, name: str) -> float:
    """``seconds`` when it is a wait the hub gives (0 to :data:`MAX_WAIT_SECONDS`), else 422 naming ``name``."""
    if not 0 <= seconds <= MAX_WAIT_SECONDS:
        raise ValidationError(f"{name} — ожидается число секунд от 0 до {MAX_WAIT_SECONDS}")
    return seconds


def state_stamp(batch: BatchDetail) -> str:
    """A digest of what following a batch waits for: each command's status, and the approval's state."""
    approval = batch.approval.state if batch.approval is not None else "-"
    statuses = ",".join(f"{command.id}:{command.status}" for command in batch.commands)
    return hashlib.sha256(f"{approval};{statuses}".encode()).hexdigest()[:16]


async def _look(hub: Hub, batch_id: int) -> tuple[BatchDetail, str]:
    async with hub.unit() as unit:
        batch = await get_batch(unit, batch_id)
    return batch, state_stamp(batch)


async def follow_batch(hub: Hub, batch_id: int, *, wait: float, since: str | None = None) -> tuple[BatchDetail, str]:
    """The batch and its stamp once its stamp is not ``since`` (the stamp at arrival when ``None``), or after
    ``wait`` seconds, or at the hub's shutdown (404 at once for a batch that does not exist)."""
    deadline = anyio.current_time() + wait
    with hub.wakeup.watch(batch_id) as waiter:
        while True:
            waiter.rearm()  # before the look: a change committed while it reads still wakes the next wait
            batch, stamp = await hub.wakeup.shared_look(batch_id, lambda: _look(hub, batch_id))
            since = stamp if since is None else since
            left = deadline - anyio.current_time()
            if stamp != since or left <= 0 or waiter.ended is not None:
                return batch, stamp
            await hub.wakeup.wait(waiter, left, repoll=WATCH_REPOLL_SECONDS)
