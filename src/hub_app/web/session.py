"""Who is looking at the page: login with a token into a session, the guard of every view, «Выйти».

The session lives on the server and its cookie is an opaque id (:mod:`hub_app.web.cookies`: HttpOnly,
SameSite=Strict, Secure whenever the request came over HTTPS; 12 hours from login at most); the session knows
only the sha256 of the person's token, the digest the hub stores, and every request looks the token up again.
The page's key comes from the hub's data dir (:func:`session_key`, generated once); it signs the login form's
CSRF cookie. An agent token opens no page.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from litestar import Response, get, post
from litestar.exceptions import PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler
from litestar.middleware import DefineMiddleware
from litestar.params import QueryParameter
from litestar.response import Redirect, Template
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from hub_app.operations import admin
from hub_app.runtime.connection import HubConnection, HubRequest, hub_of
from hub_app.runtime.hub import Unit
from hub_app.runtime.roles import INTERFACE, Caller, Role
from hub_app.web.cookies import CSRF_BEFORE_LOGIN, end_session, page_session, page_session_middleware, start_session
from hub_app.web.render import form_text, page, public_path, safe_next
from reconcile.guard import Throttle, after_failure, retry_after, throttle_keys

__all__ = [
    "ADMIN_ONLY",
    "AGENT_REFUSED",
    "KEEP_BEFORE_LOGIN",
    "KEY_FILE",
    "ROUTES",
    "TOO_MANY",
    "WRONG_TOKEN",
    "LoginRequired",
    "PageRefused",
    "page_guard",
    "page_middleware",
    "session_key",
]

AGENT_REFUSED = "токен агента не открывает страницу"
WRONG_TOKEN = "неверный токен"
TOO_MANY = "слишком много неудачных попыток входа: повторите через {seconds} с"
ADMIN_ONLY = "это может только администратор"

#: The file in the hub's data dir that keeps the page's key (it signs the login form's CSRF cookie).
KEY_FILE = "web-session.key"
_KEY_BYTES = 32


#: A route's ``opt`` key: an async function of the request that keeps what its form posted without a live session
#: (the editor's draft) before the person is sent to log in, and answers where to go after the login.
KEEP_BEFORE_LOGIN = "keep_before_login"


class LoginRequired(Exception):
    """No valid session: the page sends the person to ``/login`` (and after it to ``then``, when set)."""

    def __init__(self, then: str | None = None) -> None:
        super().__init__(then)
        self.then = then


class PageRefused(PermissionDeniedException):
    """The person's role may not do this (an interface token on an admin's form)."""


def session_key(data_dir: Path) -> bytes:
    """The page's key kept in ``data_dir`` (created once, readable by the hub's user only)."""
    path = data_dir / KEY_FILE
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        fresh = data_dir / f".{KEY_FILE}.{secrets.token_hex(4)}"
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(os.urandom(_KEY_BYTES))
        try:
            os.link(fresh, path)  # two hubs starting at once: the first key stays, the other is dropped
        except FileExistsError:
            pass
        finally:
            fresh.unlink()
    key = path.read_bytes()
    if len(key) != _KEY_BYTES:
        raise ValueError(f"{path}: ожидается ключ из {_KEY_BYTES} байт; удалите файл, хаб создаст новый")
    return key


def page_middleware(key: bytes) -> list[DefineMiddleware]:
    """The middleware of every view: cookies marked Secure over HTTPS (outer), then the session and CSRF."""
    return [
        DefineMiddleware(_secure_cookies_over_https),
        DefineMiddleware(page_session_middleware, key=key),
    ]


def _secure_cookies_over_https(app: ASGIApp) -> ASGIApp:
    """Mark the page's cookies ``Secure`` when the request came over HTTPS.

    The scheme is the request's own, or the ``X-Forwarded-Proto`` of a TLS proxy that uvicorn trusts
    (``sdlc-hub serve --forwarded-allow-ips``; by default a proxy on the same host): a browser then never sends
    the session over plain HTTP, while a hub tried out on ``http://127.0.0.1`` still logs in.
    """

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("scheme") != "https":
            await app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    (name, value + b"; Secure")
                    if name.lower() == b"set-cookie" and b"secure" not in value.lower()
                    else (name, value)
                    for name, value in message.get("headers", ())
                ]
            await send(message)

        await app(scope, receive, sending)

    return middleware


async def page_guard(connection: HubConnection, handler: BaseRouteHandler) -> None:
    """Every view but the login needs a session of an interface or admin token; some need admin."""
    if handler.opt.get("page_public"):
        return
    session = page_session(connection)
    caller = session.caller if session is not None and session.live else None
    if caller is None:
        keep = handler.opt.get(KEEP_BEFORE_LOGIN)
        raise LoginRequired(await keep(connection) if keep is not None else None)
    connection.state.caller = caller
    if caller.role not in handler.opt.get("page_roles", INTERFACE):
        raise PageRefused(ADMIN_ONLY)


@get("/login", opt={"page_public": True})
async def login_form(
    request: HubRequest, target: Annotated[str, QueryParameter(name="next", max_length=2000)] = "/"
) -> Template:
    return page(request, "login.html", next=safe_next(target))


@post("/login", opt={"page_public": True, CSRF_BEFORE_LOGIN: True})
async def login(request: HubRequest) -> Response[Any]:
    """«Войти»: a known interface or admin token opens a new session (the one this browser had ends); wrong tokens
    are throttled by client address and token prefix (:mod:`reconcile.guard.login_throttle`): 429 with
    ``Retry-After``."""
    form = await request.form()
    secret, target = form_text(form, "token").strip(), safe_next(form_text(form, "next"))
    session = page_session(request)
    assert session is not None
    address = request.client.host if request.client else None
    keys = [_throttle_key(key) for key in throttle_keys(address, secret)]
    async with hub_of(request).unit(door="web") as unit:
        wait, caller = await _attempt(unit, keys, secret)
        if caller is not None and caller.role is not Role.AGENT:
            await start_session(unit, session, admin.token_digest(secret))
            unit.audit("login", actor=caller.name)
    if wait is not None:
        answer = page(request, "login.html", status_code=429, next=target, error=TOO_MANY.format(seconds=wait))
        answer.headers["Retry-After"] = str(wait)
        return answer
    if caller is None:
        return page(request, "login.html", status_code=401, next=target, error=WRONG_TOKEN)
    if caller.role is Role.AGENT:
        return page(request, "login.html", status_code=403, next=target, error=AGENT_REFUSED)
    return Redirect(target, status_code=303)


@post("/logout", opt={"page_public": True})
async def logout(request: HubRequest) -> Redirect:
    """«Выйти»: the session ends on the server, so its cookie opens nothing more, wherever it was copied."""
    session = page_session(request)
    assert session is not None
    async with hub_of(request).unit(door="web") as unit:
        if session.caller is not None:
            unit.audit("logout", actor=session.caller.name)
        await end_session(unit, session)
    return Redirect("/login", status_code=303)


async def _attempt(unit: Unit, keys: list[str], secret: str) -> tuple[int | None, Caller | None]:
    """The seconds to wait while a key is blocked (the token then not even checked), else the token's caller;
    a failure counts under every key, a success clears them."""
    throttles = await unit.db.web_sessions.throttles(keys)
    waits = [wait for throttle in throttles.values() if (wait := retry_after(throttle, unit.now)) is not None]
    if waits:
        return max(waits), None
    caller = await admin.authenticate(unit, secret) if secret else None
    if caller is not None:
        await unit.db.web_sessions.clear_throttles(keys)
        return None, caller
    for key in keys:
        await unit.db.web_sessions.save_throttle(
            key, after_failure(throttles.get(key, Throttle()), unit.now), now=unit.now
        )
    return None, None


def _throttle_key(key: str) -> str:
    """What the database keeps of a throttle's key (an address, a token's prefix): its sha256."""
    return hashlib.sha256(b"sdlc-hub login " + key.encode()).hexdigest()


def login_redirect(request: HubRequest, then: str | None = None) -> Response[Any]:
    """Where a request without a session goes: ``/login?next=<here>`` (or ``then``; htmx: a full navigation)."""
    target = "/login"
    here = then or public_path(request, with_query=True)
    if (request.method == "GET" or then) and here != "/":
        target = f"/login?next={quote(here, safe='/')}"
    if request.headers.get("hx-request"):
        return Response(b"", status_code=200, headers={"HX-Redirect": target})
    return Redirect(target, status_code=303)


ROUTES = [login_form, login, logout]
