"""The ASGI application: the one place that wires the store, the simulator's controls and the routes together.

It reads the request, sends ``/_sim/*`` to the control API, applies a matching fault to ``/rest/*`` calls
(latency, 429, 503, or a dropped connection), then the caller's rate-limit bucket when the limit is on
(429 when it is empty; its headers on every answer), dispatches the rest to the REST routes, logs every
``/rest/*`` call in the fault book, and hands the changes the call made to the webhook dispatcher.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

import anyio
import anyio.lowlevel
import httpx

from jira_sim.browse import PREFIX, browse_page
from jira_sim.control import Controls, control
from jira_sim.faults import Fault
from jira_sim.rate_limit import Admission
from jira_sim.routes import authenticate, dispatch
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


# Jira DC's own 429 is the servlet container's status page (as a Jira 9 answered it: ahungry/org-jira#365)
_RATE_LIMITED = (
    '<!doctype html><html lang="en"><head><title>HTTP Status 429 – Too Many Requests</title></head><body>'
    '<h1>HTTP Status 429 – Too Many Requests</h1><hr class="line" /><p><b>Type</b> Status Report</p>'
    "<p><b>Message</b> Rate limit exceeded.</p><p><b>Description</b> The user has sent too many requests in a "
    'given amount of time ("rate limiting").</p><hr class="line" /><h3>Apache Tomcat</h3></body></html>'
).encode()


def _rate_limited(admission: Admission) -> Response:
    return Response(
        status=429, body=_RATE_LIMITED, content_type=b"text/html;charset=utf-8", headers=admission.headers()
    )


def make_app(store: Store, controls: Controls) -> App:
    """The ASGI application serving ``store``, failing, limiting, logging and announcing calls by ``controls``."""
    book = controls.faults

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await controls.webhooks.aclose()
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
            await _send(send, control(store, controls, req))
            return
        if path.startswith(PREFIX) and req.method == "GET":
            await _send(send, browse_page(store, path))
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
        admission = None
        if rest and controls.rate_limit.policy is not None:
            caller = authenticate(store, req.headers)  # Jira limits authenticated callers only, each on its own
            admission = controls.rate_limit.admit(caller) if caller is not None else None
            if admission is not None and not admission.allowed:
                book.record(req.method, path, 429, store.now())
                await _send(send, _rate_limited(admission), caller or "anonymous")
                return
        resp = dispatch(store, req)
        if admission is not None:
            resp.headers = [*resp.headers, *admission.headers()]
        if rest:
            book.record(req.method, path, resp.status, store.now())
        if store.changes:
            controls.webhooks.publish(store, req.base)
        await _send(send, resp, req.user or "anonymous")

    return app
