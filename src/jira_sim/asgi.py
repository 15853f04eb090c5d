"""The ASGI application: the one place that wires the store, the fault book and the routes together.

It reads the request, sends ``/_sim/*`` to the control API, applies a matching fault to ``/rest/*`` calls
(latency, 429, 503, or a dropped connection), dispatches the rest to the REST routes, and logs every
``/rest/*`` call in the fault book.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

import anyio
import anyio.lowlevel
import httpx

from jira_sim.control import control
from jira_sim.faults import Fault, FaultBook
from jira_sim.routes import dispatch
from jira_sim.store import Store
from jira_sim.wire import Request, Response, json_response

__all__ = ["App", "make_app"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def _base_url(scope: Scope, headers: dict[str, str]) -> str:
    host = headers.get("host")
    if not host:
        server = scope.get("server") or ("localhost", 80)
        host = f"{server[0]}:{server[1]}"
    return f"{scope.get('scheme', 'http')}://{host}"


async def _send(send: Send, resp: Response, user: str = "anonymous") -> None:
    headers = [*resp.headers, (b"x-ausername", user.encode("utf-8"))]
    if resp.body:
        headers.append((b"content-type", resp.content_type))
    if resp.status != 204:  # a 204 carries no body, not even a length
        headers.append((b"content-length", str(len(resp.body)).encode()))
    headers.append((b"x-arequestid", b"sim"))
    await send({"type": "http.response.start", "status": resp.status, "headers": headers})
    await send({"type": "http.response.body", "body": resp.body, "more_body": False})


async def _drop(send: Send) -> None:
    """Cut the connection without a response: abort the socket under uvicorn, else raise to the caller."""
    cycle = getattr(send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if transport is not None and hasattr(transport, "abort"):
        transport.abort()
        for _ in range(5):  # let the server notice the disconnect so it does not answer 500
            await anyio.lowlevel.checkpoint()
        return
    raise httpx.RemoteProtocolError("Server disconnected without sending a response.")


def _retry_after(value: float) -> bytes:
    return (str(int(value)) if float(value).is_integer() else repr(float(value))).encode()


def _fault_response(fault: Fault) -> Response:
    if fault.status == 429:
        headers = [
            (b"x-ratelimit-limit", b"100"),
            (b"x-ratelimit-remaining", b"0"),
            (b"x-ratelimit-fillrate", b"10"),
            (b"x-ratelimit-interval-seconds", b"1"),
        ]
        if fault.retry_after is not None:
            headers.insert(0, (b"retry-after", _retry_after(fault.retry_after)))
        resp = json_response(429, {"errorMessages": ["Rate limit exceeded."], "errors": {}})
        resp.headers = headers
        return resp
    body = b"<html><head><title>503 Service Unavailable</title></head><body>Service Unavailable</body></html>"
    resp = Response(status=int(fault.status), body=body, content_type=b"text/html;charset=UTF-8")
    if fault.retry_after is not None:
        resp.headers = [(b"retry-after", _retry_after(fault.retry_after))]
    return resp


def make_app(store: Store, book: FaultBook) -> App:
    """The ASGI application serving ``store``, failing and logging calls through ``book``."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if "authorization" in headers:
            headers["authorization"] = headers["authorization"].encode("latin-1").decode("utf-8", "replace")
        path = scope.get("path", "/")
        req = Request(
            method=scope["method"].upper(),
            path=path,
            query=parse_qs(scope.get("query_string", b"").decode("utf-8", "replace"), keep_blank_values=True),
            headers=headers,
            body=b"".join(chunks),
            base=_base_url(scope, headers),
        )
        if path.startswith("/_sim/"):
            await _send(send, control(store, book, req))
            return
        rest = path.startswith("/rest/")  # faults and call records concern Jira's REST API only
        fault = book.take(req.method, path) if rest else None
        if fault is not None:
            if fault.latency > 0:
                await anyio.sleep(fault.latency)
            if fault.status == "drop":
                book.record(req.method, path, 0, store.now())
                await _drop(send)
                return
            if fault.status != "pass":
                resp = _fault_response(fault)
                book.record(req.method, path, resp.status, store.now())
                await _send(send, resp)
                return
        resp = dispatch(store, req)
        if rest:
            book.record(req.method, path, resp.status, store.now())
        await _send(send, resp, req.user or "anonymous")

    return app
