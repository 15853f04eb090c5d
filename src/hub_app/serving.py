"""``sdlc-hub serve``'s HTTP server: uvicorn, with a graceful end for long polls and a deadline for slow requests.

- :class:`HubServer` tells the hub that it stops *before* uvicorn waits for the open requests: the claims
  waiting in a long poll answer 204 at once (:mod:`hub_app.runtime.longpoll`), so a SIGTERM finishes every request
  with an answer instead of cutting them after the graceful timeout (an error-level log, a 500).
- :class:`RequestDeadline` (uvicorn's HTTP/1.1 protocol, h11) closes a connection that has not delivered a
  request's head within ``request_timeout`` seconds of its first byte (or of the connection's opening), that sends
  nothing of the body for that long, or whose body comes slower than a floor: ``request_timeout`` for a body up to
  :data:`FLOOR_BYTES` (the API's JSON limit), proportionally longer for a larger upload — nginx's
  ``client_header_timeout`` and ``client_body_timeout``, and a minimum rate besides. uvicorn has only the keep-alive
  timeout between requests, so a silent or byte-by-byte client held a socket forever. An idle keep-alive
  connection is uvicorn's business (``timeout_keep_alive``).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from hub_app.runtime.hub import Hub

__all__ = ["FLOOR_BYTES", "REQUEST_TIMEOUT_SECONDS", "HubServer", "RequestDeadline", "with_request_timeout"]

log = logging.getLogger(__name__)

#: How long a client may take to send a request's head, or pause inside its body (DESIGN.md 10).
REQUEST_TIMEOUT_SECONDS = 30.0
#: The bytes a body may take ``request_timeout`` to arrive (the API's JSON limit, ``hub_app.app.MAX_JSON_BODY``):
#: a larger upload gets proportionally longer, a smaller one no less.
FLOOR_BYTES = 10 * 1024 * 1024


class HubServer(uvicorn.Server):
    """uvicorn's server, ending the hub's long polls as soon as it starts shutting down."""

    def __init__(self, config: uvicorn.Config, hub: Hub) -> None:
        super().__init__(config)
        self.hub = hub

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.hub.begin_shutdown()
        await super().shutdown(sockets)


class RequestDeadline(H11Protocol):
    """uvicorn's h11 protocol with the request deadline of the module's docstring."""

    request_timeout: ClassVar[float] = REQUEST_TIMEOUT_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        #: When the request's body began (the loop's time) and how many bytes have come since; ``None``: no body yet.
        self._body_since: float | None = None
        self._body_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            self._body_moves(len(data))
        elif state is h11.IDLE:
            if self._deadline is None:
                self._arm()  # the first bytes of a request's head: the head's deadline starts
        else:
            self._body_since = None
            self._disarm()  # the request is complete (or the connection is ending)

    def _body_moves(self, size: int) -> None:
        """The body's deadline: a pause of ``request_timeout`` at most, and the whole body by its floor."""
        now = self.loop.time()
        if self._body_since is None:
            self._body_since, self._body_bytes = now, 0
        else:
            self._body_bytes += size
        floor = self._body_since + self.request_timeout * max(1.0, self._body_bytes / FLOOR_BYTES)
        self._arm(min(now + self.request_timeout, floor))

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, when: float | None = None) -> None:
        self._disarm()
        at = self.loop.time() + self.request_timeout if when is None else when
        self._deadline = self.loop.call_at(at, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.flow.read_paused:  # the hub, not the client, is behind: reading resumes when the app has read
            self._arm()
            return
        client = f"{self.client[0]}:{self.client[1]}" if self.client else None
        log.info("request_timeout", extra={"client": client, "timeout_s": self.request_timeout})
        self.transport.close()


def with_request_timeout(seconds: float) -> type[RequestDeadline]:
    """:class:`RequestDeadline` with its deadline set to ``seconds``."""
    return type("RequestDeadline", (RequestDeadline,), {"request_timeout": seconds})
