"""The web page in the hub's app: its views, templates and static files, and how a browser reaches them.

A view and the API share their URLs (``/batches/7`` is the batch's page and its JSON, DESIGN.md 8 and 6).
:func:`page_dispatch` tells them apart before routing: a request without ``Authorization`` that a browser made
(it accepts ``text/html``, is an htmx request, or posts a form) goes to the page, whose routes live under
:data:`~hub_app.web.render.PAGE_PREFIX`; a script's request (it carries its bearer token) goes to the API as
before. ``/``, ``/login``, ``/logout`` and ``/new`` are the page's alone. Every page answer, and ``/schema``'s,
carries a self-only Content-Security-Policy: the page runs only ``/static`` scripts and styles, and talks only to
its own origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from litestar import Litestar, Response, Router
from litestar.config.app import AppConfig
from litestar.datastructures import CacheControlHeader
from litestar.enums import ScopeType
from litestar.exceptions import HTTPException, NotFoundException
from litestar.plugins import InitPlugin
from litestar.static_files import create_static_files_router
from litestar.types import ASGIApp, ExceptionHandler, Message, Receive, Scope, Send

from hub_app.runtime.connection import HubRequest
from hub_app.web import session
from hub_app.web.editor import files, new
from hub_app.web.errors import NO_SUCH_PAGE, error_page, page_exception_handlers
from hub_app.web.jira import jira_facts
from hub_app.web.render import PAGE_PREFIX, template_config
from hub_app.web.session import page_guard, page_middleware
from hub_app.web.views import audit, batches, drift, issues, projects, queue, refresh, settings, tokens, undo

__all__ = ["CONTENT_SECURITY_POLICY", "WebPage", "page_dispatch", "wants_page"]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)

_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
    (b"vary", b"HX-Request"),
]

#: First path segments only the page has, and those it shares with the API.
_PAGE_ONLY = frozenset({"", "login", "logout", "new"})
_SHARED = frozenset({"batches", "commands", "projects", "issues", "settings", "drift", "files", "tokens", "audit"})
_FORMS = (b"application/x-www-form-urlencoded", b"multipart/form-data")
#: How many fields a multipart form of the page may have (Litestar's default is 1 000).
MULTIPART_PARTS = 100_000
#: The API's documents and their page: served under the page's headers too.
_DOCS = "/schema"


def wants_page(scope: Scope) -> bool:
    """Whether a request is a browser's for the page (see the module docstring)."""
    path: str = scope["path"]
    section = path.split("/", 2)[1] if path.startswith("/") else ""
    if section not in _PAGE_ONLY and section not in _SHARED:
        return False
    headers = dict(scope["headers"])
    if b"authorization" in headers:
        return False
    if section in _PAGE_ONLY or headers.get(b"hx-request") == b"true":
        return True
    if b"text/html" in headers.get(b"accept", b""):
        return True
    return scope.get("method") == "POST" and headers.get(b"content-type", b"").startswith(_FORMS)


def _with_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", []), *_HEADERS]
        await send(message)

    return sending


def page_dispatch(handler: ASGIApp) -> ASGIApp:
    """Route a browser's requests to the page's views (the app's ASGI handler wrapped)."""

    async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP:
            if wants_page(scope):
                scope["path"] = PAGE_PREFIX + (scope["path"] if scope["path"] != "/" else "")
            if scope["path"].startswith((PAGE_PREFIX, _DOCS)):
                send = _with_headers(send)
        await handler(scope, receive, send)

    return dispatch


STATIC = Path(__file__).parent / "static"


def _not_found(handlers: Mapping[Any, ExceptionHandler[Any]]) -> ExceptionHandler[Any]:
    """A path of the page that no view has is a page too (routing finds no view, so no view's handler runs)."""
    api = handlers.get(NotFoundException) or handlers.get(HTTPException)

    def not_found(request: HubRequest, exc: Exception) -> Response[Any]:
        if request.url.path.startswith(PAGE_PREFIX) or api is None:
            return error_page(request, 404, NO_SUCH_PAGE)
        return api(request, exc)

    return not_found


class WebPage(InitPlugin):
    """``Litestar(plugins=[page])`` then ``page.attach(app)``: the views, templates, ``/static`` and dispatch.

    ``key`` is the page's session key (:func:`~hub_app.web.session.session_key` reads it from the data dir).
    """

    def __init__(self, *, key: bytes) -> None:
        self.key = key

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        views = Router(
            path=PAGE_PREFIX,
            route_handlers=[
                *session.ROUTES,
                *queue.ROUTES,
                *batches.ROUTES,
                *undo.ROUTES,
                *new.ROUTES,
                *files.ROUTES,
                *projects.ROUTES,
                *issues.ROUTES,
                *drift.ROUTES,
                *settings.ROUTES,
                *tokens.ROUTES,
                *audit.ROUTES,
                *refresh.ROUTES,
            ],
            middleware=page_middleware(self.key),
            guards=[page_guard],
            before_request=jira_facts,
            exception_handlers=page_exception_handlers(),
            include_in_schema=False,
        )
        static = create_static_files_router(
            path="/static",
            directories=[STATIC],
            cache_control=CacheControlHeader(max_age=3600),
            include_in_schema=False,
        )
        app_config.route_handlers.extend([views, static])
        app_config.template_config = template_config()
        # The editor's form is multipart while it holds an attachment (its file picker without JavaScript): a
        # field a part, so a big batch has thousands; the request's size limit still bounds it.
        app_config.multipart_form_part_limit = max(app_config.multipart_form_part_limit, MULTIPART_PARTS)
        app_config.exception_handlers[NotFoundException] = _not_found(app_config.exception_handlers)
        return app_config

    @staticmethod
    def attach(app: Litestar) -> None:
        app.asgi_handler = page_dispatch(app.asgi_handler)
