"""The simulator's HTTP layer: a small raw ASGI router over :class:`jira_sim.store.Store`.

Request parsing, auth, fault injection, call recording and the control API live here; every decision about
Jira's data lives in the store. Responses use Jira's JSON shapes and error bodies.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

import anyio
import anyio.lowlevel
import attrs
import httpx

from jira_sim.render import Renderer
from jira_sim.store import JiraError, Store

if TYPE_CHECKING:
    from jira_sim.simulator import Simulator

__all__ = ["MAX_RESULTS", "Fault", "SimulatedDrop", "make_app"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MAX_RESULTS = 100
_JSON = b"application/json;charset=UTF-8"
_UNAUTHENTICATED = "You are not authenticated. Authentication required to perform this operation."


class SimulatedDrop(Exception):
    """Raised in-process for a ``drop`` fault when there is no socket to cut."""


@attrs.define(kw_only=True)
class Fault:
    method: str | None
    path_regex: str | None
    status: int | str
    retry_after: float | None
    times: int
    latency: float

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method.upper() != method.upper():
            return False
        return self.path_regex is None or re.search(self.path_regex, path) is not None


@attrs.define(kw_only=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    base: str
    user: str = ""

    def param(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default

    def json(self) -> Any:
        if not self.body.strip():
            raise JiraError(400, ["No content to map to Object due to end of input"])
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise JiraError(400, [f"Unexpected character: {exc}"]) from None

    def json_object(self) -> dict[str, Any]:
        value = self.json()
        if not isinstance(value, dict):
            raise JiraError(400, ["Can not deserialize instance of object out of non-object token"])
        return value


@attrs.define(kw_only=True)
class Response:
    status: int
    body: bytes = b""
    content_type: bytes = _JSON
    headers: list[tuple[bytes, bytes]] = attrs.Factory(list)


def _json(status: int, data: Any) -> Response:
    return Response(status=status, body=json.dumps(data, ensure_ascii=False).encode("utf-8"))


def _int_param(req: Request, name: str, default: int) -> int:
    raw = req.param(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise JiraError(400, [f"The value '{raw}' is not valid for the parameter '{name}'."]) from None


Handler = Callable[["Simulator", Request, Renderer, re.Match[str]], Response]
_ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []


def route(method: str, pattern: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _ROUTES.append((method, re.compile(f"^{pattern}$"), fn))
        return fn

    return register


# --- REST v2 ---------------------------------------------------------------------------------------------


@route("GET", r"/rest/api/2/myself")
def _myself(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return _json(200, r.myself(req.user))


@route("GET", r"/rest/api/2/issueLinkType")
def _link_types(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return _json(200, {"issueLinkTypes": [r.link_type(t) for t in sim.store.link_types.values()]})


@route("GET", r"/rest/api/2/issueLinkType/(?P<id>[^/]+)")
def _link_type(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    t = sim.store.link_types.get(m["id"])
    if t is None:
        raise JiraError(404, [f"No issue link type with id '{m['id']}' exists."])
    return _json(200, r.link_type(t))


@route("GET", r"/rest/api/2/field")
def _fields(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    system = [
        "summary",
        "description",
        "issuetype",
        "project",
        "status",
        "priority",
        "labels",
        "duedate",
        "assignee",
        "reporter",
        "creator",
        "created",
        "updated",
        "issuelinks",
        "attachment",
        "comment",
    ]
    out: list[dict[str, Any]] = [{"id": f, "name": f, "custom": False, "navigable": True} for f in system]
    for fid, spec in sim.store.fields.items():
        out.append(
            {
                "id": fid,
                "name": spec["name"],
                "custom": True,
                "navigable": True,
                "clauseNames": [f"cf[{fid.rsplit('_', 1)[-1]}]", spec["name"]],
            }
        )
    return _json(200, out)


def _expand_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",")]
    return [str(v).strip() for v in value]


@route("GET", r"/rest/api/2/issue/(?P<key>[^/]+)")
def _get_issue(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = sim.store.issue(m["key"])
    fields = req.param("fields")
    wanted = fields.split(",") if fields else None
    changelog = "changelog" in _expand_list(req.param("expand"))
    return _json(200, r.issue(issue, wanted, changelog=changelog))


@route("PUT", r"/rest/api/2/issue/(?P<key>[^/]+)")
def _edit_issue(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    sim.store.edit_issue(m["key"], req.json_object(), req.user)
    return Response(status=204)


@route("POST", r"/rest/api/2/issue")
def _create_issue(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = sim.store.create_issue(req.json_object(), req.user)
    return _json(201, {"id": issue.id, "key": issue.key, "self": f"{r.api}/issue/{issue.id}"})


def _search(sim: Simulator, req: Request, r: Renderer, params: dict[str, Any]) -> Response:
    jql_text = params.get("jql") or ""
    if not isinstance(jql_text, str):
        raise JiraError(400, ["The 'jql' parameter must be a string."])
    try:
        start = int(params.get("startAt") or 0)
        limit = int(params["maxResults"]) if params.get("maxResults") not in (None, "") else 50
    except (TypeError, ValueError):
        raise JiraError(400, ["startAt and maxResults must be numbers."]) from None
    start = max(start, 0)
    limit = 50 if limit < 0 else min(limit, MAX_RESULTS)
    validate = params.get("validateQuery", True)
    strict = str(validate).lower() not in ("false", "warn", "none")
    issues, warnings = sim.store.search(jql_text, req.user, strict=strict)
    fields = params.get("fields")
    wanted = _expand_list(fields) if fields is not None else None
    changelog = "changelog" in _expand_list(params.get("expand"))
    page = issues[start : start + limit]
    body: dict[str, Any] = {
        "expand": "schema,names",
        "startAt": start,
        "maxResults": limit,
        "total": len(issues),
        "issues": [r.issue(i, wanted, changelog=changelog, navigable_default=True) for i in page],
    }
    if warnings:
        body["warningMessages"] = warnings
    return _json(200, body)


@route("GET", r"/rest/api/2/search")
def _search_get(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    params = {k: v[0] for k, v in req.query.items()}
    return _search(sim, req, r, params)


@route("POST", r"/rest/api/2/search")
def _search_post(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return _search(sim, req, r, req.json_object())


@route("GET", r"/rest/api/2/issue/(?P<key>[^/]+)/transitions")
def _transitions(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return _json(
        200,
        {"expand": "transitions", "transitions": [r.transition(t) for t in sim.store.available_transitions(m["key"])]},
    )


@route("POST", r"/rest/api/2/issue/(?P<key>[^/]+)/transitions")
def _do_transition(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    sim.store.transition(m["key"], req.json_object(), req.user)
    return Response(status=204)


@route("GET", r"/rest/api/2/issue/(?P<key>[^/]+)/comment")
def _comments(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = sim.store.issue(m["key"])
    start = max(_int_param(req, "startAt", 0), 0)
    raw_limit = req.param("maxResults")
    limit = None if raw_limit in (None, "") else max(_int_param(req, "maxResults", 0), 0)
    return _json(200, r.comments(issue, start, limit))


@route("POST", r"/rest/api/2/issue/(?P<key>[^/]+)/comment")
def _add_comment(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = sim.store.issue(m["key"])
    comment = sim.store.add_comment(m["key"], req.json_object(), req.user)
    return _json(201, r.comment(issue, comment))


@route("GET", r"/rest/api/2/issue/(?P<key>[^/]+)/comment/(?P<id>[^/]+)")
def _get_comment(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = sim.store.issue(m["key"])
    comment = next((c for c in issue.comments if c.id == m["id"]), None)
    if comment is None:
        raise JiraError(404, [f"Can not find a comment for the id: {m['id']}."])
    return _json(200, r.comment(issue, comment))


@route("PUT", r"/rest/api/2/issue/(?P<key>[^/]+)/comment/(?P<id>[^/]+)")
def _update_comment(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = sim.store.issue(m["key"])
    comment = sim.store.update_comment(m["key"], m["id"], req.json_object(), req.user)
    return _json(200, r.comment(issue, comment))


@route("POST", r"/rest/api/2/issueLink")
def _add_link(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    sim.store.add_link(req.json_object(), req.user)
    return Response(status=201)


@route("GET", r"/rest/api/2/issueLink/(?P<id>[^/]+)")
def _get_link(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return _json(200, r.link(sim.store.get_link(m["id"])))


@route("DELETE", r"/rest/api/2/issueLink/(?P<id>[^/]+)")
def _delete_link(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    sim.store.delete_link(m["id"], req.user)
    return Response(status=204)


@route("POST", r"/rest/api/2/issue/(?P<key>[^/]+)/attachments")
def _add_attachments(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    if req.headers.get("x-atlassian-token", "").lower() not in ("no-check", "nocheck"):
        raise JiraError(403, ["XSRF check failed"])
    sim.store.issue(m["key"])
    ctype = req.headers.get("content-type", "")
    if not ctype.lower().startswith("multipart/form-data"):
        raise JiraError(415, ["Unsupported Media Type: multipart/form-data expected"])
    files = [(fn, ct, data) for name, fn, ct, data in parse_multipart(req.body, ctype) if name == "file" and fn]
    added = sim.store.add_attachments(m["key"], files, req.user)
    return _json(200, [r.attachment(a) for a in added])


@route("GET", r"/rest/api/2/attachment/(?P<id>[^/]+)")
def _attachment_meta(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return _json(200, r.attachment(sim.store.attachment(m["id"])))


@route("GET", r"/secure/attachment/(?P<id>[^/]+)/(?P<name>.*)")
def _attachment_content(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    a = sim.store.attachment(m["id"])
    return Response(status=200, body=a.content, content_type=a.mime_type.encode())


# --- agile 1.0 -------------------------------------------------------------------------------------------


@route("GET", r"/rest/agile/1.0/board/(?P<id>[^/]+)")
def _board(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return _json(200, r.board(sim.store.board(m["id"])))


@route("GET", r"/rest/agile/1.0/board/(?P<id>[^/]+)/sprint")
def _board_sprints(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    states = [s.strip() for s in (req.param("state") or "").split(",") if s.strip()]
    sprints = sim.store.board_sprints(m["id"], states)
    start = max(_int_param(req, "startAt", 0), 0)
    limit = min(max(_int_param(req, "maxResults", 50), 1), 50)
    page = sprints[start : start + limit]
    return _json(
        200,
        {
            "maxResults": limit,
            "startAt": start,
            "isLast": start + limit >= len(sprints),
            "values": [r.sprint(s) for s in page],
        },
    )


@route("GET", r"/rest/agile/1.0/sprint/(?P<id>[^/]+)")
def _sprint(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    sprint = sim.store.sprints.get(int(m["id"])) if m["id"].isdigit() else None
    if sprint is None:
        raise JiraError(404, [f"Sprint with id {m['id']} does not exist or you do not have permission to see it."])
    return _json(200, r.sprint(sprint))


@route("POST", r"/rest/agile/1.0/sprint/(?P<id>[^/]+)/issue")
def _to_sprint(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    sim.store.move_to_sprint(m["id"], req.json_object(), req.user)
    return Response(status=204)


@route("POST", r"/rest/agile/1.0/backlog/issue")
def _to_backlog(sim: Simulator, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    sim.store.move_to_backlog(req.json_object(), req.user)
    return Response(status=204)


# --- multipart -------------------------------------------------------------------------------------------

_PARAM = re.compile(r';\s*([A-Za-z0-9_*.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)')


def _header_params(value: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for raw_name, raw in _PARAM.findall(value):
        name = raw_name
        text = raw.strip()
        if text.startswith('"') and text.endswith('"'):
            text = re.sub(r"\\(.)", r"\1", text[1:-1])
        if name.endswith("*"):
            charset, _, rest = text.partition("'")
            _, _, encoded = rest.partition("'")
            text = unquote(encoded, encoding=charset or "utf-8")
            name = name[:-1]
        out[name.lower()] = text
    return out


def parse_multipart(body: bytes, content_type: str) -> list[tuple[str, str, str, bytes]]:
    """``(name, filename, content type, data)`` of each part of a ``multipart/form-data`` body."""
    boundary = _header_params(content_type).get("boundary")
    if not boundary:
        raise JiraError(400, ["Missing multipart boundary"])
    delimiter = b"--" + boundary.encode("latin-1")
    parts = body.split(delimiter)
    out: list[tuple[str, str, str, bytes]] = []
    for raw_part in parts[1:]:
        if raw_part.startswith(b"--"):
            break
        # CRLF is the rule; bare LF is accepted as well (hand-written bodies, recorded cassettes)
        newline = b"\r\n" if raw_part.startswith(b"\r\n") else b"\n"
        head, sep, data = raw_part.removeprefix(newline).partition(newline * 2)
        if not sep:
            continue
        data = data.removesuffix(newline)
        headers: dict[str, str] = {}
        for line in head.split(newline):
            name, _, value = line.partition(b":")
            try:
                text = value.decode("utf-8")
            except UnicodeDecodeError:
                text = value.decode("latin-1")
            headers[name.decode("latin-1").strip().lower()] = text.strip()
        disposition = _header_params(headers.get("content-disposition", ""))
        out.append(
            (
                disposition.get("name", ""),
                disposition.get("filename", ""),
                headers.get("content-type", "application/octet-stream"),
                data,
            )
        )
    return out


# --- the ASGI callable -----------------------------------------------------------------------------------


def _base_url(scope: Scope, headers: dict[str, str]) -> str:
    host = headers.get("host")
    if not host:
        server = scope.get("server") or ("localhost", 80)
        host = f"{server[0]}:{server[1]}"
    return f"{scope.get('scheme', 'http')}://{host}"


def _authenticate(store: Store, headers: dict[str, str]) -> str | None:
    auth = headers.get("authorization", "")
    scheme, _, credentials = auth.partition(" ")
    credentials = credentials.strip()
    if scheme.lower() == "bearer" and credentials:
        return store.myself
    if scheme.lower() == "basic" and credentials:
        try:
            decoded = base64.b64decode(credentials, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None
        name, _, _password = decoded.partition(":")
        user = store.find_user(name)
        return None if user is None else user.name
    return None


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
        resp = _json(429, {"errorMessages": ["Rate limit exceeded."], "errors": {}})
        resp.headers = headers
        return resp
    body = b"<html><head><title>503 Service Unavailable</title></head><body>Service Unavailable</body></html>"
    resp = Response(status=int(fault.status), body=body, content_type=b"text/html;charset=UTF-8")
    if fault.retry_after is not None:
        resp.headers = [(b"retry-after", _retry_after(fault.retry_after))]
    return resp


def make_app(sim: Simulator) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """The ASGI application of ``sim``."""

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
            await _send(send, _control(sim, req))
            return
        rest = path.startswith("/rest/")  # faults and call records concern Jira's REST API only
        fault = sim._take_fault(req.method, path) if rest else None
        if fault is not None:
            if fault.latency > 0:
                await anyio.sleep(fault.latency)
            if fault.status == "drop":
                sim._record_call(req.method, path, 0)
                await _drop(send)
                return
            if fault.status != "pass":
                resp = _fault_response(fault)
                sim._record_call(req.method, path, resp.status)
                await _send(send, resp)
                return
        resp = _dispatch(sim, req)
        if rest:
            sim._record_call(req.method, path, resp.status)
        await _send(send, resp, req.user or "anonymous")

    return app


def _dispatch(sim: Simulator, req: Request) -> Response:
    renderer = Renderer(sim.store, req.base)
    allowed = False
    for method, pattern, handler in _ROUTES:
        match = pattern.match(req.path)
        if match is None:
            continue
        allowed = True
        if method != req.method:
            continue
        user = _authenticate(sim.store, req.headers)
        if user is None:
            return _json(401, {"errorMessages": [_UNAUTHENTICATED], "errors": {}})
        req.user = user
        try:
            return handler(sim, req, renderer, match)
        except JiraError as exc:
            return _json(exc.status, exc.body())
        except (AttributeError, TypeError, ValueError) as exc:
            # a body of the wrong shape (a list where Jira expects an object, …): Jira's Jackson says 400
            message = f"Can not deserialize the request body: {type(exc).__name__}: {exc}"
            return _json(400, {"errorMessages": [message], "errors": {}})
    if allowed:
        return Response(status=405)
    return _json(404, {"message": f"null for uri: {req.base}{req.path}", "status-code": 404})


def _control(sim: Simulator, req: Request) -> Response:
    path, method = req.path, req.method
    try:
        if path == "/_sim/reset" and method == "POST":
            sim.reset()
            return Response(status=204)
        if path == "/_sim/calls" and method == "GET":
            return _json(200, sim.calls)
        if path == "/_sim/calls" and method == "DELETE":
            sim.clear_calls()
            return Response(status=204)
        if path == "/_sim/faults" and method == "POST":
            body = req.json_object()
            unknown = set(body) - {"method", "path_regex", "status", "retry_after", "times", "latency"}
            if unknown:
                raise JiraError(400, [f"unknown fault keys: {', '.join(sorted(unknown))}"])
            sim.add_fault(**body)
            return _json(201, {"faults": len(sim._faults)})
        if path == "/_sim/faults" and method == "DELETE":
            sim.clear_faults()
            return Response(status=204)
        match = re.fullmatch(r"/_sim/state/issues/([^/]+)", path)
        if match and method == "GET":
            return _json(200, sim.raw_issue(unquote(match[1])))
    except JiraError as exc:
        return _json(exc.status, exc.body())
    except (TypeError, ValueError) as exc:
        return _json(400, {"errorMessages": [str(exc)], "errors": {}})
    return _json(404, {"errorMessages": [f"no control endpoint {method} {path}"], "errors": {}})
