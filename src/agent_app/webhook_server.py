"""The socket side of the agent's webhook listener (DESIGN.md 5.7): a small HTTP/1.1 server (h11) that nothing
sent to it can turn against the claim loop it runs beside.

- **A connection cap** (``--webhook-max-connections``, default :data:`MAX_CONNECTIONS`): a connection is accepted
  only when a slot is free; the others wait in the kernel's backlog, holding none of the agent's file descriptors.
- **Deadlines**: a request's head within :data:`HEAD_SECONDS` of the connection's acceptance, its whole body within
  :data:`BODY_SECONDS` of the head; else the connection is closed. One request per connection (Jira opens one for
  each delivery), so an idle connection never outlives its head's deadline.
- **The body's size known before it is read**: ``Content-Length`` is required (411 without it, a chunked body
  included) and at most the listener's limit (413), checked before a byte of the body is read; the bodies being
  read together never hold more than :data:`MAX_BUFFERED` bytes (a request waits for room within its body's
  deadline, else 503). So unsigned bodies from every connection at once stay within a bounded memory.
- **Trouble accepting** (``EMFILE`` when the process is out of file descriptors, ``ENFILE``, ``ENOBUFS``,
  ``ENOMEM``…) never ends the server nor the agent: it stops accepting for a while (doubling from
  :data:`ACCEPT_BACKOFF` up to :data:`ACCEPT_BACKOFF_MAX`), logs ``webhook_accept_failed`` at most once a
  :data:`LOG_EVERY` seconds (with how many failures it did not log), and tries again.

What a request means is the :class:`~agent_app.listener.WebhookListener`'s business (:class:`Handler`).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any, TypeVar

import attrs
import h11

from adapters.clock import Clock

PATH = "/jira/webhook"

__all__ = [
    "ACCEPT_BACKOFF",
    "ACCEPT_BACKOFF_MAX",
    "BODY_SECONDS",
    "HEAD_SECONDS",
    "LOG_EVERY",
    "MAX_BUFFERED",
    "MAX_CONNECTIONS",
    "PATH",
    "AcceptTrouble",
    "Answer",
    "Handler",
    "Limits",
    "WebhookServer",
    "refused_head",
]

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 64
HEAD_SECONDS = 10.0
BODY_SECONDS = 10.0
#: The bytes of bodies being read at once, across every connection.
MAX_BUFFERED = 32 * 1024 * 1024
ACCEPT_BACKOFF = 0.1
ACCEPT_BACKOFF_MAX = 5.0
LOG_EVERY = 60.0
_READ = 64 * 1024
#: The largest request head (its line and headers) read.
_MAX_HEAD = 64 * 1024

T = TypeVar("T")


@attrs.frozen(kw_only=True)
class Answer:
    status: int
    text: str = ""


@attrs.frozen(kw_only=True)
class Limits:
    """The server's bounds (see the module docstring); ``max_body``: the largest ``Content-Length`` taken."""

    max_connections: int = MAX_CONNECTIONS
    max_body: int
    head_seconds: float = HEAD_SECONDS
    body_seconds: float = BODY_SECONDS
    max_buffered: int = MAX_BUFFERED


#: What the listener makes of a request: ``(method, path, signature header, body) → answer``.
Handler = Callable[[str, str, str | None, bytes], Awaitable[Answer]]


class AcceptTrouble:
    """When to try accepting again after a failure, and whether to log it (at most once a :data:`LOG_EVERY`)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.delay = 0.0
        self.unlogged = 0
        self.logged_at: float | None = None

    def failed(self, error: OSError) -> float:
        """The seconds to stop accepting for after ``error``; logs it unless a line went out within the minute."""
        self.delay = min(max(self.delay * 2, ACCEPT_BACKOFF), ACCEPT_BACKOFF_MAX)
        now = self.clock.monotonic()
        if self.logged_at is not None and now - self.logged_at < LOG_EVERY:
            self.unlogged += 1
            return self.delay
        fields = {"error": errno.errorcode.get(error.errno or 0, type(error).__name__), "detail": error.strerror}
        log.warning(
            "webhook_accept_failed", extra={**fields, "not_logged": self.unlogged, "retry_in_s": round(self.delay, 2)}
        )
        self.logged_at, self.unlogged = now, 0
        return self.delay

    def accepted(self) -> None:
        self.delay = 0.0


class WebhookServer:
    """Serves ``handler`` on a listening socket until ``stopping`` is set (see the module docstring)."""

    def __init__(self, handler: Handler, limits: Limits, *, clock: Clock, stopping: asyncio.Event) -> None:
        self.handler = handler
        self.limits = limits
        self.clock = clock
        self.stopping = stopping
        self.slots = asyncio.Semaphore(limits.max_connections)
        self.room = asyncio.Condition()
        self.buffered = 0
        self.trouble = AcceptTrouble(clock)
        #: Connections by how they ended (``answered``, ``timed_out``, ``reset``, ``gone``): the operator's view.
        self.counts: dict[str, int] = {}
        self.open = 0

    def _count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    async def serve(self, sock: socket.socket) -> None:
        """Accept connections until stopped; each is served in a task of its own."""
        loop = asyncio.get_running_loop()
        stop: asyncio.Future[Any] = asyncio.ensure_future(self.stopping.wait())
        serving: set[asyncio.Task[None]] = set()
        try:
            async with asyncio.TaskGroup() as group:
                while await _first(self.slots.acquire(), stop):
                    try:
                        accepted = await _first(loop.sock_accept(sock), stop)
                    except OSError as error:  # out of descriptors or buffers: stop accepting for a while
                        self.slots.release()
                        await _first(self.clock.sleep(self.trouble.failed(error)), stop)
                        continue
                    if accepted is None:
                        break
                    self.trouble.accepted()
                    task = group.create_task(self._connection(accepted[0]))
                    serving.add(task)
                    task.add_done_callback(serving.discard)
                for task in serving:  # the agent stops: requests still open are cut, not waited for
                    task.cancel()
        finally:
            stop.cancel()

    async def _connection(self, conn: socket.socket) -> None:
        self.open += 1
        writer: asyncio.StreamWriter | None = None
        try:
            conn.setblocking(False)
            reader, writer = await asyncio.open_connection(sock=conn)
            answer = await self._exchange(reader)
            if answer is None:
                self._count("gone")
                return
            writer.write(_response(answer))
            await asyncio.wait_for(writer.drain(), self.limits.body_seconds)
            self._count("answered")
        except TimeoutError:
            self._count("timed_out")
        except OSError:
            self._count("reset")
        except h11.ProtocolError:  # a body unlike its head (h11 refuses it): the client's fault, its connection ends
            self._count("bad_request")
        except Exception as error:  # one request never ends the server
            self._count("failed")
            log.warning("webhook_request_failed", extra={"error": f"{type(error).__name__}: {error}"})
        finally:
            if writer is not None:
                writer.close()
            conn.close()
            self.open -= 1
            self.slots.release()

    async def _exchange(self, reader: asyncio.StreamReader) -> Answer | None:
        """Read one request and ask the handler; ``None`` when the client went away (``TimeoutError`` past a
        deadline)."""
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=_MAX_HEAD)
        try:
            head = await asyncio.wait_for(_next(conn, reader), self.limits.head_seconds)
        except h11.RemoteProtocolError:
            return Answer(status=400, text="not an HTTP/1.1 request")
        if not isinstance(head, h11.Request):
            return None
        method, path = head.method.decode("latin-1"), head.target.decode("latin-1").partition("?")[0]
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in head.headers}
        refused = refused_head(method, path, headers.get("content-length"), self.limits.max_body)
        if refused is not None:
            return refused
        size = int(headers["content-length"])
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.body_seconds
        try:
            await asyncio.wait_for(self._reserve(size), self.limits.body_seconds)
        except TimeoutError:
            return Answer(status=503, text="too many bodies at once: try again")
        try:
            body = await asyncio.wait_for(_body(conn, reader), max(deadline - loop.time(), 0.0))
        finally:
            await self._release(size)
        if body is None:
            return None
        return await self.handler(method, path, headers.get("x-hub-signature"), body)

    async def _reserve(self, size: int) -> None:
        async with self.room:
            await self.room.wait_for(lambda: self.buffered + size <= self.limits.max_buffered)
            self.buffered += size

    async def _release(self, size: int) -> None:
        async with self.room:
            self.buffered -= size
            self.room.notify_all()


async def _first(awaitable: Awaitable[T], stop: asyncio.Future[Any]) -> T | None:
    """``awaitable``'s result, or ``None`` once ``stop`` is done first (``awaitable`` is then cancelled)."""
    task: asyncio.Future[T] = asyncio.ensure_future(awaitable)
    waiting: set[asyncio.Future[Any]] = {task, stop}
    await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, OSError):
        await task
    return None


def refused_head(method: str, path: str, length: str | None, max_body: int) -> Answer | None:
    """The answer to a request refused by its head alone (before its body is read), or ``None``."""
    if path != PATH:
        return Answer(status=404, text="not found")
    if method != "POST":
        return Answer(status=405, text="POST only")
    if length is None or not length.isdigit():
        return Answer(status=411, text="Content-Length required")
    if int(length) > max_body:
        return Answer(status=413, text=f"body over {max_body} bytes")
    return None


async def _next(conn: h11.Connection, reader: asyncio.StreamReader) -> object:
    """The request's next h11 event, reading as needed; ``None`` when the client closed first."""
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        data = await reader.read(_READ)
        if not data:
            return None
        conn.receive_data(data)


async def _body(conn: h11.Connection, reader: asyncio.StreamReader) -> bytes | None:
    """The request's body (its length checked before), or ``None`` when the client closed first."""
    chunks: list[bytes] = []
    while True:
        event = await _next(conn, reader)
        if isinstance(event, h11.Data):
            chunks.append(bytes(event.data))
        elif isinstance(event, h11.EndOfMessage):
            return b"".join(chunks)
        else:
            return None


def _response(answer: Answer) -> bytes:
    """The answer as HTTP/1.1 bytes, closing the connection (one request per connection)."""
    body = answer.text.encode()
    head = (
        f"HTTP/1.1 {answer.status} {HTTPStatus(answer.status).phrase}\r\n"
        "content-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body
