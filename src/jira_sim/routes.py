"""The simulator's REST API (Jira REST v2 and agile 1.0): a route table over :class:`jira_sim.store.Store`.

Each handler takes the store, the parsed request, a renderer for the request's base URL and the path match,
and returns a response; every decision about Jira's data is the store's. :func:`dispatch` authenticates the
caller as Jira does and turns a :class:`jira_sim.model.JiraError` into Jira's error body.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

import attrs

from jira_sim import instance, webhooks
from jira_sim.model import JiraError, Webhook
from jira_sim.render import Renderer
from jira_sim.store import Store
from jira_sim.wire import Request, Response, expand_list, int_param, json_response, parse_multipart

__all__ = ["MAX_RESULTS", "authenticate", "dispatch", "routed"]

MAX_RESULTS = 100
_UNAUTHENTICATED = "You are not authenticated. Authentication required to perform this operation."

Handler = Callable[[Store, Request, Renderer, re.Match[str]], Response]


@attrs.frozen
class _Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    anonymous: bool  # Jira answers it without credentials


_ROUTES: list[_Route] = []


def route(method: str, pattern: str, *, anonymous: bool = False) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _ROUTES.append(_Route(method, re.compile(f"^{pattern}$"), fn, anonymous))
        return fn

    return register


def routed(method: str, path: str) -> bool:
    """Whether a route of the simulator answers ``method path`` (every endpoint a command type may call must be)."""
    return any(r.method == method and r.pattern.match(path) for r in _ROUTES)


@route("GET", r"/rest/api/2/myself")
def _myself(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, r.myself(req.user))


@route("GET", r"/rest/api/2/serverInfo", anonymous=True)
def _server_info(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, instance.server_info(r))


@route("GET", r"/rest/api/2/field")
def _fields(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, instance.fields(r))


@route("GET", r"/rest/api/2/project")
def _projects(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, instance.project_list(r))


@route("GET", r"/rest/api/2/project/(?P<key>[^/]+)")
def _project(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, instance.project(r, store.project(m["key"])))


@route("GET", r"/rest/api/2/issuetype")
def _issue_types(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, [r.issuetype(tid) for tid in store.issue_types])


@route("GET", r"/rest/api/2/issueLinkType")
def _link_types(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, {"issueLinkTypes": [r.link_type(t) for t in store.link_types.values()]})


@route("GET", r"/rest/api/2/issueLinkType/(?P<id>[^/]+)")
def _link_type(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    t = store.link_types.get(m["id"])
    if t is None:
        raise JiraError(404, [f"No issue link type with id '{m['id']}' exists."])
    return json_response(200, r.link_type(t))


@route("GET", r"/rest/api/2/issue/(?P<key>[^/]+)")
def _get_issue(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = store.issue(m["key"])
    fields = req.param("fields")
    wanted = fields.split(",") if fields else None
    changelog = "changelog" in expand_list(req.param("expand"))
    return json_response(200, r.issue(issue, wanted, changelog=changelog))


@route("PUT", r"/rest/api/2/issue/(?P<key>[^/]+)")
def _edit_issue(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    store.edit_issue(m["key"], req.json_object(), req.user)
    return Response(status=204)


@route("DELETE", r"/rest/api/2/issue/(?P<key>[^/]+)")
def _delete_issue(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    store.delete_issue(m["key"], req.user)
    return Response(status=204)


@route("POST", r"/rest/api/2/issue")
def _create_issue(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = store.create_issue(req.json_object(), req.user)
    return json_response(201, {"id": issue.id, "key": issue.key, "self": f"{r.api}/issue/{issue.id}"})


def _search(store: Store, req: Request, r: Renderer, params: dict[str, Any]) -> Response:
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
    found = store.search(jql_text, req.user, strict=strict)
    fields = params.get("fields")
    wanted = expand_list(fields) if fields is not None else None
    changelog = "changelog" in expand_list(params.get("expand"))
    page = store.issues_of(found.keys[start : start + limit])
    body: dict[str, Any] = {
        "expand": "schema,names",
        "startAt": start,
        "maxResults": limit,
        "total": len(found.keys),
        "issues": [r.issue(i, wanted, changelog=changelog, navigable_default=True) for i in page],
    }
    if found.warnings:
        body["warningMessages"] = list(found.warnings)
    return json_response(200, body)


@route("GET", r"/rest/api/2/search")
def _search_get(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    # a repeated parameter (``fields=a&fields=b``, as some clients send lists) counts with all its values
    params: dict[str, Any] = {k: v[0] if len(v) == 1 else v for k, v in req.query.items()}
    return _search(store, req, r, params)


@route("POST", r"/rest/api/2/search")
def _search_post(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return _search(store, req, r, req.json_object())


@route("GET", r"/rest/api/2/issue/(?P<key>[^/]+)/transitions")
def _transitions(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(
        200,
        {"expand": "transitions", "transitions": [r.transition(t) for t in store.available_transitions(m["key"])]},
    )


@route("POST", r"/rest/api/2/issue/(?P<key>[^/]+)/transitions")
def _do_transition(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    store.transition(m["key"], req.json_object(), req.user)
    return Response(status=204)


@route("GET", r"/rest/api/2/issue/(?P<key>[^/]+)/comment")
def _comments(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = store.issue(m["key"])
    start = max(int_param(req, "startAt", 0), 0)
    raw_limit = req.param("maxResults")
    limit = None if raw_limit in (None, "") else max(int_param(req, "maxResults", 0), 0)
    return json_response(200, r.comments(issue, start, limit))


@route("POST", r"/rest/api/2/issue/(?P<key>[^/]+)/comment")
def _add_comment(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = store.issue(m["key"])
    comment = store.add_comment(m["key"], req.json_object(), req.user)
    return json_response(201, r.comment(issue, comment))


@route("GET", r"/rest/api/2/issue/(?P<key>[^/]+)/comment/(?P<id>[^/]+)")
def _get_comment(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, r.comment(store.issue(m["key"]), store.comment(m["key"], m["id"])))


@route("PUT", r"/rest/api/2/issue/(?P<key>[^/]+)/comment/(?P<id>[^/]+)")
def _update_comment(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    issue = store.issue(m["key"])
    comment = store.update_comment(m["key"], m["id"], req.json_object(), req.user)
    return json_response(200, r.comment(issue, comment))


@route("DELETE", r"/rest/api/2/issue/(?P<key>[^/]+)/comment/(?P<id>[^/]+)")
def _delete_comment(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    store.delete_comment(m["key"], m["id"], req.user)
    return Response(status=204)


@route("POST", r"/rest/api/2/issueLink")
def _add_link(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    store.add_link(req.json_object(), req.user)
    return Response(status=201)


@route("GET", r"/rest/api/2/issueLink/(?P<id>[^/]+)")
def _get_link(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, r.link(store.get_link(m["id"])))


@route("DELETE", r"/rest/api/2/issueLink/(?P<id>[^/]+)")
def _delete_link(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    store.delete_link(m["id"], req.user)
    return Response(status=204)


@route("POST", r"/rest/api/2/issue/(?P<key>[^/]+)/attachments")
def _add_attachments(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    if req.headers.get("x-atlassian-token", "").lower() not in ("no-check", "nocheck"):
        raise JiraError(403, ["XSRF check failed"])
    store.issue(m["key"])
    ctype = req.headers.get("content-type", "")
    if not ctype.lower().startswith("multipart/form-data"):
        raise JiraError(415, ["Unsupported Media Type: multipart/form-data expected"])
    files = [(fn, ct, data) for name, fn, ct, data in parse_multipart(req.body, ctype) if name == "file" and fn]
    added = store.add_attachments(m["key"], files, req.user)
    return json_response(200, [r.attachment(a) for a in added])


@route("GET", r"/rest/api/2/attachment/(?P<id>[^/]+)")
def _attachment_meta(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, r.attachment(store.attachment(m["id"])))


@route("DELETE", r"/rest/api/2/attachment/(?P<id>[^/]+)")
def _delete_attachment(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    store.delete_attachment(m["id"], req.user)
    return Response(status=204)


@route("GET", r"/secure/attachment/(?P<id>[^/]+)/(?P<name>.*)")
def _attachment_content(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    a = store.attachment(m["id"])
    return Response(status=200, body=a.content, content_type=a.mime_type.encode())


def _agile_page(req: Request, items: list[dict[str, Any]]) -> Response:
    """Jira Software's page of a list: ``{maxResults, startAt, isLast, values}`` (at most 50 a page)."""
    start = max(int_param(req, "startAt", 0), 0)
    limit = min(max(int_param(req, "maxResults", 50), 1), 50)
    values = items[start : start + limit]
    return json_response(
        200, {"maxResults": limit, "startAt": start, "isLast": start + limit >= len(items), "values": values}
    )


@route("GET", r"/rest/agile/1.0/board")
def _boards(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    kind = req.param("type")
    project = req.param("projectKeyOrId")
    chosen = [
        b
        for b in store.boards.values()
        if (not kind or b.type == kind)
        and (not project or (b.project is not None and store.project(project).key == b.project))
    ]
    return _agile_page(req, [r.board(b) for b in chosen])


@route("GET", r"/rest/agile/1.0/board/(?P<id>[^/]+)")
def _board(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, r.board(store.board(m["id"])))


@route("GET", r"/rest/agile/1.0/board/(?P<id>[^/]+)/sprint")
def _board_sprints(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    states = [s.strip() for s in (req.param("state") or "").split(",") if s.strip()]
    return _agile_page(req, [r.sprint(s) for s in store.board_sprints(m["id"], states)])


@route("GET", r"/rest/agile/1.0/sprint/(?P<id>[^/]+)")
def _sprint(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, r.sprint(store.sprint(m["id"])))


@route("POST", r"/rest/agile/1.0/sprint/(?P<id>[^/]+)/issue")
def _to_sprint(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    store.move_to_sprint(m["id"], req.json_object(), req.user)
    return Response(status=204)


@route("POST", r"/rest/agile/1.0/backlog/issue")
def _to_backlog(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    store.move_to_backlog(req.json_object(), req.user)
    return Response(status=204)


_LEGACY_HOOKS = r"/rest/webhooks/1\.0/webhook"
_V10_HOOKS = r"/rest/jira-webhook/1\.0/webhooks"


def _legacy(store: Store, r: Renderer, webhook: Webhook) -> dict[str, Any]:
    owner = store.user(webhook.owner)
    return webhooks.render_legacy(webhook, r.base, owner.display_name if owner else webhook.owner)


@route("POST", _LEGACY_HOOKS)
def _register_legacy(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(201, _legacy(store, r, store.register_webhook(req.json_object(), req.user, "legacy")))


@route("GET", _LEGACY_HOOKS)
def _list_legacy(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, [_legacy(store, r, w) for w in store.webhooks.values()])


@route("GET", _LEGACY_HOOKS + r"/(?P<id>[^/]+)")
def _get_legacy(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, _legacy(store, r, store.webhook(m["id"])))


@route("POST", _V10_HOOKS)
def _register_v10(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(201, webhooks.render_v10(store.register_webhook(req.json_object(), req.user, "v10")))


@route("GET", _V10_HOOKS)
def _list_v10(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, [webhooks.render_v10(w) for w in store.webhooks.values()])


@route("GET", _V10_HOOKS + r"/(?P<id>[^/]+)")
def _get_v10(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, webhooks.render_v10(store.webhook(m["id"])))


@route("PUT", _LEGACY_HOOKS + r"/(?P<id>[^/]+)")
def _update_legacy(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, _legacy(store, r, store.update_webhook(m["id"], req.json_object(), req.user, "legacy")))


@route("PUT", _V10_HOOKS + r"/(?P<id>[^/]+)")
def _update_v10(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    return json_response(200, webhooks.render_v10(store.update_webhook(m["id"], req.json_object(), req.user, "v10")))


@route("DELETE", _LEGACY_HOOKS + r"/(?P<id>[^/]+)")
@route("DELETE", _V10_HOOKS + r"/(?P<id>[^/]+)")
def _delete_webhook(store: Store, req: Request, r: Renderer, m: re.Match[str]) -> Response:
    store.delete_webhook(m["id"])
    return Response(status=204)


def authenticate(store: Store, headers: dict[str, str]) -> str | None:
    """The user a request acts as (Jira's bearer token or basic auth), ``None`` when it has no credentials."""
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


def dispatch(store: Store, req: Request) -> Response:
    """The answer of the REST route ``req`` names (404 when none, 405 when only another method matches)."""
    renderer = Renderer(store, req.base)
    allowed = False
    for route_ in _ROUTES:
        match = route_.pattern.match(req.path)
        if match is None:
            continue
        allowed = True
        if route_.method != req.method:
            continue
        user = authenticate(store, req.headers)
        if user is None and (not route_.anonymous or "authorization" in req.headers):
            return json_response(401, {"errorMessages": [_UNAUTHENTICATED], "errors": {}})
        req.user = user or ""
        try:
            return route_.handler(store, req, renderer, match)
        except JiraError as exc:
            return json_response(exc.status, exc.body())
        except (AttributeError, TypeError, ValueError) as exc:
            # a body of the wrong shape (a list where Jira expects an object, …): Jira's Jackson says 400
            message = f"Can not deserialize the request body: {type(exc).__name__}: {exc}"
            return json_response(400, {"errorMessages": [message], "errors": {}})
    if allowed:
        return Response(status=405)
    return json_response(404, {"message": f"null for uri: {req.base}{req.path}", "status-code": 404})
