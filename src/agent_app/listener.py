"""The agent's webhook listener (DESIGN.md 6.2, 5.7): Jira's webhooks received inside the bank and relayed to the hub.

``POST /jira/webhook``, served on the agent's own event loop beside the claim loop by
:class:`~agent_app.webhook_server.WebhookServer` (a connection cap, deadlines, the body's length checked before it
is read, trouble accepting never the agent's end); :class:`WebhookListener` says what a delivery means:

1. the body (``Content-Length`` required, at most :data:`MAX_BODY` bytes, else 411/413) must carry
   ``X-Hub-Signature: sha256=<HMAC-SHA256>`` with the agent's secret, else **401** and nothing relayed;
2. it is read into an event (:func:`reconcile.jira.webhook_events.parse_webhook`, no Jira call) with the custom fields
   of the latest delivery's context — before the first delivery the agent does not know the hub's field ids, so an
   issue event is relayed *without* its issue (the hub then reads the key itself: a wrong field id would blank a
   field in the mirror); a body that is no Jira payload is 400;
3. dropped, answered 204 all the same (Jira does not retry, and a refusal would only fill Jira's log): an event
   outside the agent's policy (:func:`~reconcile.jira.webhook_events.in_policy`) or, once a delivery told it, outside
   the hub's Jira project (the hub would refuse it), a duplicate (:class:`~reconcile.jira.webhook_events.RecentEvents`:
   bounded), and one that needs nothing of the hub (a comment event: the mirror keeps no comments, and the issue
   event of the same comment comes too);
4. queued for the relay (204 once queued). The queue is bounded (:data:`QUEUE_SIZE`): when the hub is slower
   than Jira, the request waits for room — Jira's delivery waits too — rather than losing a signed event or
   letting memory grow.

The relay (:meth:`WebhookListener.relay`) sends the queued events to the hub in batches of up to
:data:`BATCH` (``POST /agent/events``, idempotent), tried again while the hub does not answer with the agent's
retry policy; a batch the hub refuses (4xx) is sent again event by event, so one event the hub refuses never
costs the others; a single refused event is logged and dropped (the change-only refresh stays the safety net).
Relaying is a hub call, never a Jira call, so a burst of events costs the bank's Jira nothing: what the hub
queues for events (targeted refreshes) comes back as paced commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import attrs
from uvicorn._types import ASGIReceiveCallable, ASGISendCallable, Scope

from adapters.clock import Clock
from adapters.hub_client import HubClient, HubRefused, HubUnreachable
from agent_app.retry import Backoff, Retrying, Stopped, race
from agent_app.webhook_server import MAX_CONNECTIONS, PATH, Answer, Limits, WebhookServer, refused_head
from reconcile.config import Settings
from reconcile.executors import context_settings
from reconcile.guard import AgentPolicy, key_project
from reconcile.jira import Need, RecentEvents, WebhookError, WebhookEvent, in_policy, parse_webhook
from reconcile.jira import signature_ok as signed
from reconcile.vocabulary import ValidationError

__all__ = ["BATCH", "MAX_BODY", "PATH", "QUEUE_SIZE", "WebhookListener", "bind"]

log = logging.getLogger(__name__)

#: The largest body read (Jira's issue payloads are a few kilobytes; a description can make one larger).
MAX_BODY = 8 * 1024 * 1024
#: Events waiting for the relay; past it a request waits for room.
QUEUE_SIZE = 1000
#: The most events one ``POST /agent/events`` carries.
BATCH = 100
#: The hub's refusals of a batch that one of its events may have caused: the batch goes again event by event.
_ONE_EVENTS_FAULT = (413, 422)


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
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.hub = hub
        self.clock = clock
        self.limits = Limits(max_connections=max_connections, max_body=MAX_BODY)
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
        #: The socket's server, once :meth:`serve` runs.
        self.server: WebhookServer | None = None

    def follow(self, context: Mapping[str, Any]) -> None:
        """A delivery came: its context's custom fields read the next events' issues."""
        with contextlib.suppress(ValidationError):
            self.settings = context_settings(context)

    def _count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    async def __call__(self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        """The same as ASGI (the simulator delivers to it in process); the server's bounds are the socket's."""
        if scope["type"] != "http":
            return
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        answer = refused_head(scope["method"], scope["path"], headers.get("content-length"), MAX_BODY)
        if answer is None:
            body = await _body(receive)
            signature = headers.get("x-hub-signature")
            too_large = Answer(status=413, text=f"body over {MAX_BODY} bytes")
            answer = too_large if body is None else await self.handle(scope["method"], scope["path"], signature, body)
        await send(
            {
                "type": "http.response.start",
                "status": answer.status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")],
            }
        )
        await send({"type": "http.response.body", "body": answer.text.encode()})

    async def handle(self, method: str, path: str, signature: str | None, body: bytes) -> Answer:
        """A request whose head passed (:func:`~agent_app.webhook_server.refused_head`): a delivery."""
        return await self.receive(body, signature)

    async def receive(self, body: bytes, signature: str | None) -> Answer:
        """One delivery: checked, read, filtered, queued (see the module docstring)."""
        if not signed(body, signature, self.secret):
            self._count("unsigned")
            log.warning("webhook_unsigned", extra={"signature": "absent" if signature is None else "wrong"})
            return Answer(status=401, text="X-Hub-Signature missing or wrong")
        try:
            event = parse_webhook(body, self.settings or Settings(), received_at=self.now())
        except WebhookError as error:
            self._count("unreadable")
            log.warning("webhook_unreadable", extra={"error": error.message})
            return Answer(status=400, text=error.message)
        if self.settings is None:
            event = attrs.evolve(event, issue=None)
        dropped = self._dropped(event)
        if dropped is not None:
            self._count(dropped)
            return Answer(status=204)
        await self.queue.put(event)
        self._count("queued")
        return Answer(status=204)

    def _dropped(self, event: WebhookEvent) -> str | None:
        if not in_policy(event, self.policy):
            return "outside_policy"
        if self.settings is not None and event.key is not None and key_project(event.key) != self.settings.jira_project:
            return "outside_hub_project"
        if event.need is Need.NOTHING:
            return "needs_nothing"
        if not self.recent.first_time(event.dedup):
            return "duplicate"
        return None

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
        """One batch to the hub; refused (4xx), it goes again event by event, so only what the hub refuses is lost."""

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
            if len(wire) > 1 and exc.status_code in _ONE_EVENTS_FAULT:
                for one in wire:
                    await self._send([one])
                return
            self._count("refused", len(wire))
            fields = {"events": len(wire), "status_code": exc.status_code, "detail": exc.detail[:200], **_first(wire)}
            log.warning("events_refused", extra=fields)
            return
        self._count("relayed", len(wire))

    async def serve(self, sock: socket.socket) -> None:
        """Serve the listener on ``sock`` and relay its events until the agent stops."""
        server = WebhookServer(self.handle, self.limits, clock=self.clock, stopping=self.stopping)
        self.server = server
        async with asyncio.TaskGroup() as group:
            group.create_task(self.relay())
            group.create_task(server.serve(sock))
        log.debug("webhook_listener_stopped", extra={**self.counts, **server.counts})  # ``stop`` stays the last line


def _first(wire: list[dict[str, Any]]) -> dict[str, Any]:
    """The first event refused, named in the log line."""
    return {"event": wire[0].get("event"), "key": wire[0].get("key")} if wire else {}


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
