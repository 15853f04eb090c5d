"""The claims waiting in this hub process (the long poll of ``POST /agent/claim``, DESIGN.md 6).

- **One waiting claim per agent instance.** A new poll of the same ``agent_id`` and ``instance`` ends the one
  before it with 204: an agent that gave up on a poll and asked again, or a script firing thousands of polls with
  one token, never piles up waiters.
- **A waiting claim holds no database connection.** It looks at the queue in one short transaction and waits in
  memory. The claims of this process look one at a time (the queue lock serialises their transactions anyway):
  a crowd of polls queues here, not in the connection pool that the interface's reads need.
- **A wake-up** (a batch created or approved here, or announced by another hub through ``LISTEN/NOTIFY``) ends
  every wait at once; each claim then looks again.
- **Shutdown** ends every wait at once with 204, and a claim arriving meanwhile is answered 204 without a look:
  restarting the hub costs the agent an ordinary empty poll, never a 5xx or a cut connection.

The same wake-up serves the clients that follow a batch (``GET /batches/{id}?wait=N``, MCP ``batch_status`` with
``wait_seconds``, :mod:`hub_app.operations.following`): each waits, holding no database connection, until a command of
its batch changes status (:meth:`Wakeup.batches_changed`, called after the commit here and for every other hub
process through ``LISTEN/NOTIFY``), its deadline, or the shutdown.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Collection, Iterator
from typing import TypeVar

import anyio
import attrs

__all__ = ["REPOLL_SECONDS", "SHARED_LOOK_SECONDS", "WATCH_REPOLL_SECONDS", "Waiter", "Wakeup"]

T = TypeVar("T")

#: A long poll looks at the queue again at least this often, even without a wake-up.
REPOLL_SECONDS = 5.0
#: A client following a batch looks at it again at least this often, even without a wake-up (a notification
#: lost with the LISTEN connection is made up for when it comes back).
WATCH_REPOLL_SECONDS = 15.0
#: How long a look at a followed batch serves the other followers (its live figures age; a re-poll reads anew).
SHARED_LOOK_SECONDS = 1.0


@attrs.define(eq=False)
class Waiter:
    """One waiting claim: its wake-up event (renewed before each look) and why it must end, if it must."""

    event: anyio.Event = attrs.field(factory=anyio.Event)
    ended: str | None = None  # "superseded" or "closing"

    def rearm(self) -> None:
        """A new event, taken before looking at the queue: a wake-up during the look still counts."""
        self.event = anyio.Event()

    def end(self, why: str) -> None:
        self.ended = why
        self.event.set()


class Wakeup:
    """The claims waiting in this process, woken when work may have appeared and ended at shutdown."""

    def __init__(self) -> None:
        self._waiting: dict[tuple[str, str], Waiter] = {}
        self._watching: dict[int, set[Waiter]] = {}
        #: Per followed batch: how many changes this process has heard of, the latest look at it (with the count
        #: it was taken at) and the lock of one look at a time — the followers woken by one change share a read.
        self._changes: dict[int, int] = {}
        self._looks: dict[int, tuple[int, float, object]] = {}
        self._look_locks: dict[int, anyio.Lock] = {}
        self._looking = anyio.Lock()
        self.closing = False

    def notify(self) -> None:
        """Work may have appeared: every waiting claim looks again."""
        for waiter in list(self._waiting.values()):
            waiter.event.set()

    def close(self) -> None:
        """The process is shutting down: every wait ends (204), and no claim looks any more."""
        self.closing = True
        for waiter in [*self._waiting.values(), *(w for ws in self._watching.values() for w in ws)]:
            waiter.end("closing")

    def batches_changed(self, batch_ids: Collection[int] | None) -> None:
        """A command of each of ``batch_ids`` (``None``: of any batch) changed: their followers look again."""
        chosen = self._watching.keys() if batch_ids is None else [b for b in batch_ids if b in self._watching]
        for batch_id in list(chosen):
            self._changes[batch_id] = self._changes.get(batch_id, 0) + 1
            for waiter in self._watching[batch_id]:
                waiter.event.set()

    async def shared_look(self, batch_id: int, look: Callable[[], Awaitable[T]]) -> T:
        """``look()`` at a followed batch, or the look another follower took after the latest change heard of, less
        than :data:`SHARED_LOOK_SECONDS` ago: a change that wakes a hundred followers costs one read."""
        lock = self._look_locks.setdefault(batch_id, anyio.Lock())
        async with lock:
            heard, now = self._changes.get(batch_id, 0), anyio.current_time()
            kept = self._looks.get(batch_id)
            if kept is not None and kept[0] == heard and now - kept[1] < SHARED_LOOK_SECONDS:
                return kept[2]  # type: ignore[return-value]
            value = await look()
            self._looks[batch_id] = (heard, now, value)
            return value

    def watchers(self) -> int:
        """How many clients follow a batch now."""
        return sum(len(waiters) for waiters in self._watching.values())

    @contextlib.contextmanager
    def watch(self, batch_id: int) -> Iterator[Waiter]:
        """Follow batch ``batch_id``: the waiter's event is set when one of its commands changes."""
        waiter = Waiter()
        if self.closing:
            waiter.end("closing")
        self._watching.setdefault(batch_id, set()).add(waiter)
        try:
            yield waiter
        finally:
            waiters = self._watching.get(batch_id, set())
            waiters.discard(waiter)
            if not waiters:
                for kept in (self._watching, self._changes, self._looks, self._look_locks):
                    kept.pop(batch_id, None)

    def waiting(self) -> int:
        """How many claims wait (or look) now."""
        return len(self._waiting)

    @contextlib.contextmanager
    def enter(self, agent_id: str, instance: str | None) -> Iterator[Waiter]:
        """Register the claim of ``agent_id``/``instance``, ending the one it replaces."""
        key = (agent_id, instance or "")
        previous = self._waiting.get(key)
        if previous is not None:
            previous.end("superseded")
        waiter = Waiter()
        if self.closing:
            waiter.end("closing")
        self._waiting[key] = waiter
        try:
            yield waiter
        finally:
            if self._waiting.get(key) is waiter:
                del self._waiting[key]

    async def look(self, waiter: Waiter, action: Callable[[], Awaitable[T]]) -> T | None:
        """Run ``action`` (one look at the queue) when no other claim of this process is looking; ``None``
        without running it when the claim ended meanwhile."""
        async with self._looking:
            if waiter.ended is not None:
                return None
            return await action()

    async def wait(self, waiter: Waiter, seconds: float, *, repoll: float = REPOLL_SECONDS) -> None:
        """Until a wake-up, the wait's end, or ``seconds`` (at most ``repoll``)."""
        with anyio.move_on_after(min(seconds, repoll)):
            await waiter.event.wait()
