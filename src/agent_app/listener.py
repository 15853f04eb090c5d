"""The agent's webhook listener (DESIGN.md 6.2): Jira's webhooks received inside the bank and relayed to the hub.

``POST /jira/webhook`` (:class:`WebhookListener`, a small ASGI app the agent serves with uvicorn in its own event
loop, beside the claim loop):

1. the body (at most :data:`MAX_BODY` bytes, else 413) must carry ``X-Hub-Signature: sha256=<HMAC-SHA256>`` with
   the agent's secret, else **401** and nothing relayed;
2. it is read into an event (:func:`reconcile.webhook_events.parse_webhook`, no Jira call) with the custom fields
   of the latest delivery's context — before the first delivery the agent does not know the hub's field ids, so an
   issue event is relayed *without* its issue (the hub then reads the key itself: a wrong field id would blank a
   field in the mirror); a body that is no Jira payload is 400;
3. dropped, answered 204 all the same (Jira does not retry, and a refusal would only fill Jira's log): an event
   outside the agent's policy (:func:`~reconcile.webhook_events.in_policy`), a duplicate
   (:class:`~reconcile.webhook_events.RecentEvents`: bounded), and one that needs nothing of the hub (a comment
   event: the mirror keeps no comments, and the issue event of the same comment comes too);
4. queued for the relay (204 once queued). The queue is bounded (:data:`QUEUE_SIZE`): when the hub is slower
   than Jira, the request waits for room — Jira's delivery waits too — rather than losing a signed event or
   letting memory grow.

The relay (:meth:`WebhookListener.relay`) sends the queued events to the hub in batches of up to
:data:`BATCH` (``POST /agent/events``, idempotent), tried again while the hub does not answer with the agent's
retry policy; a batch the hub refuses (4xx) is logged and dropped (the change-only refresh stays the safety
net). Relaying is a hub call, never a Jira call, so a burst of events costs the bank's Jira nothing: what the
hub queues for events (targeted refreshes) comes back as paced commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import attrs
import uvicorn
from uvicorn._types import ASGIReceiveCallable, ASGISendCallable, Scope

from adapters.clock import Clock
from adapters.hub_client import HubClient, HubRefused, HubUnreachable
from agent_app.retry import Backoff, Retrying, Stopped, race
from reconcile.errors import ValidationError
from reconcile.executors._run import context_settings
from reconcile.policy import AgentPolicy
from reconcile.settings import Settings
from reconcile.webhook_events import Need, RecentEvents, WebhookError, WebhookEvent, in_policy, parse_webhook
from reconcile.webhook_events import signature_ok as signed

__all__ = ["BATCH", "MAX_BODY", "PATH", "QUEUE_SIZE", "ListenerServer", "WebhookListener", "bind"]

log = logging.getLogger(__name__)

PATH = "/jira/webhook"
#: The largest body read (Jira's issue payloads are a few kilobytes; a description can make one larger).
MAX_BODY = 8 * 1024 * 1024
#: Events waiting for the relay; past it a request waits for room.
QUEUE_SIZE = 1000
#: The most events one ``POST /agent/events`` carries.
BATCH = 100


def bind(listen: str) -> socket.socket:
    """A listening socket on ``HOST:PORT`` (``OSError`` when it cannot be had: the agent says so and exits)."""
    host, _, port = listen.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, int(port)))
    except (OSError, ValueError):
        sock.close()
        raise
    sock.listen(128)
    sock.setblocking(False)
    return sock


@attrs.frozen(kw_only=True)
class _Answer:
    status: int
    text: str = ""


class WebhookListener:
    """``POST /jira/webhook`` and the relay of its events to the hub; one per agent process."""

    def __init__(
        self,
        *,
        hub: HubClient,
        secret: bytes,
        policy: AgentPolicy,
        clock: Clock,
        stopping: asyncio.Event,
        rng: random.Random | None = None,
        backoff: Backoff | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        queue_size: int = QUEUE_SIZE,
    ) -> None:
        self.hub = hub
        self.secret = secret
        self.policy = policy
        self.stopping = stopping
        self.now = now
        self.retrying = Retrying(clock=clock, rng=rng or random.Random(), policy=backoff or Backoff())
        self.queue: asyncio.Queue[WebhookEvent] = asyncio.Queue(maxsize=queue_size)
        self.recent = RecentEvents()
        self.settings: Settings | None = None
        #: Events by what became of them (``relayed`` once the hub took them): the operator's and the tests' view.
        self.counts: dict[str, int] = {}

    def follow(self, context: Mapping[str, Any]) -> None:
        """A delivery came: its context's custom fields read the next events' issues."""
        with contextlib.suppress(ValidationError):
            self.settings = context_settings(context)

    def _count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    # --- receiving ---------------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] != PATH:
            answer = _Answer(status=404, text="not found")
        elif scope["method"] != "POST":
            answer = _Answer(status=405, text="POST only")
        else:
            body = await _body(receive)
            headers = dict(scope["headers"])
            answer = await self.receive(body, _header(headers, b"x-hub-signature"))
        await send(
            {
                "type": "http.response.start",
                "status": answer.status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")],
            }
        )
        await send({"type": "http.response.body", "body": answer.text.encode()})

    async def receive(self, body: bytes | None, signature: str | None) -> _Answer:
        """One delivery: checked, read, filtered, queued (see the module docstring)."""
        if body is None:
            self._count("too_large")
            return _Answer(status=413, text=f"body over {MAX_BODY} bytes")
        if not signed(body, signature, self.secret):
            self._count("unsigned")
            log.warning("webhook_unsigned", extra={"signature": "absent" if signature is None else "wrong"})
            return _Answer(status=401, text="X-Hub-Signature missing or wrong")
        try:
            event = parse_webhook(body, self.settings or Settings(), received_at=self.now())
        except WebhookError as error:
            self._count("unreadable")
            log.warning("webhook_unreadable", extra={"error": error.message})
            return _Answer(status=400, text=error.message)
        if self.settings is None:
            event = attrs.evolve(event, issue=None)
        dropped = self._dropped(event)
        if dropped is not None:
            self._count(dropped)
            return _Answer(status=204)
        await self.queue.put(event)
        self._count("queued")
        return _Answer(status=204)

    def _dropped(self, event: WebhookEvent) -> str | None:
        if not in_policy(event, self.policy):
            return "outside_policy"
        if event.need is Need.NOTHING:
            return "needs_nothing"
        if not self.recent.first_time(event.dedup):
            return "duplicate"
        return None

    # --- relaying ------------------------------------------------------------------------------------------

    async def relay(self) -> None:
        """Until stopped: send the queued events to the hub in batches (see the module docstring)."""
        with contextlib.suppress(Stopped):
            while True:
                events = [await race(self.queue.get(), self.stopping)]
                while len(events) < BATCH and not self.queue.empty():
                    events.append(self.queue.get_nowait())
                await self._send([event.to_wire() for event in events])
                for _ in events:
                    self.queue.task_done()  # ``await listener.queue.join()``: every queued event was sent or refused

    async def _send(self, wire: list[dict[str, Any]]) -> None:
        def hub_down(error: Exception) -> bool:
            return isinstance(error, HubUnreachable)

        try:
            await self.retrying(
                lambda: race(self.hub.post_events(wire), self.stopping),
                on=hub_down,
                what="events",
                interrupt=self.stopping,
            )
        except HubRefused as exc:
            self._count("refused", len(wire))
            log.warning("events_refused", extra={"events": len(wire), "status_code": exc.status_code})
            return
        self._count("relayed", len(wire))

    async def serve(self, sock: socket.socket) -> None:
        """Serve the listener on ``sock`` and relay its events until the agent stops."""
        # uvicorn's own lines ("Started server process"…) would say the agent is a server starting and stopping;
        # the agent logs ``webhook_listener`` at start and ``stop`` last.
        logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
        config = uvicorn.Config(self, lifespan="off", log_config=None, access_log=False, timeout_keep_alive=30)
        server = ListenerServer(config)

        async def stop() -> None:
            await self.stopping.wait()
            server.should_exit = True

        async with asyncio.TaskGroup() as group:
            group.create_task(self.relay())
            group.create_task(stop())
            group.create_task(server.serve(sockets=[sock]))
        log.debug("webhook_listener_stopped", extra=dict(self.counts))  # the agent's ``stop`` stays its last line


class ListenerServer(uvicorn.Server):
    """uvicorn without its signal handlers: the agent owns SIGINT/SIGTERM and stops the listener itself."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def _body(receive: ASGIReceiveCallable) -> bytes | None:
    """The request's body, or ``None`` past :data:`MAX_BODY`."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunk = bytes(message.get("body", b""))
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _header(headers: Mapping[bytes, bytes], name: bytes) -> str | None:
    value = headers.get(name)
    return value.decode("latin-1") if value is not None else None
