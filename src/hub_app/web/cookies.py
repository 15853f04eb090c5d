"""The page's cookies: the session (an opaque id of a ``web_session`` row) and, before login, the CSRF cookie.

A session lives on the server (:mod:`adapters.storage.web_sessions`), so every hub process on the database knows
it: the cookie holds only a random 256-bit id, the row its sha256, the digest of the person's token and when the
session ends — :data:`SESSION_LIFETIME` after login, never extended by use (the cookie is set once, at login).
«Выйти» deletes the row: the cookie opens nothing more, wherever it was copied. Each request looks the token up
again, so a revoked token ends its sessions at once.

Every form POST is CSRF-checked. With a session, the form's token must be the one bound to it (an HMAC keyed by
the session's id, which only the person's browser holds: the cookie is HttpOnly), so a token picked up anywhere
else — from an anonymous ``GET /login``, tossed in as a cookie from a sibling subdomain — opens nobody's session;
a login makes a new session, and so a new token. The login form, before any session, is checked by a signed
double-submit cookie (``hub_csrf``). A browser that says the form came from another site (``Sec-Fetch-Site``)
is refused whatever it sends.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import timedelta
from typing import Any

import attrs
from litestar.datastructures import Cookie, FormMultiDict, MutableScopeHeaders
from litestar.enums import RequestEncodingType, ScopeType
from litestar.exceptions import PermissionDeniedException
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from litestar.utils.scope.state import ScopeState

from adapters.storage.records import WebSessionRecord
from hub_app.operations import admin
from hub_app.runtime.connection import HubConnection, HubRequest, hub_of
from hub_app.runtime.hub import Unit
from hub_app.runtime.request_text import check_form_encoding
from hub_app.runtime.roles import Caller, Role
from reconcile.guard import DRAFT_LIFETIME, ENDED_SESSION_KEPT
from reconcile.vocabulary import ValidationError, readable

__all__ = [
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "CSRF_REFUSED",
    "SESSION_COOKIE",
    "SESSION_LIFETIME",
    "PageSession",
    "end_session",
    "page_session",
    "page_session_middleware",
    "start_session",
]

SESSION_COOKIE = "hub_session"
CSRF_COOKIE = "hub_csrf"
#: How long a session lasts from login, however much it is used.
SESSION_LIFETIME = timedelta(hours=12)
CSRF_REFUSED = "форма устарела или отправлена не с этой страницы: обновите страницу и повторите"
#: A route's ``opt`` key: its form is checked before login too (the login form).
CSRF_BEFORE_LOGIN = "csrf_before_login"

#: How long a browser keeps the session's cookie: the session, a day to keep drafts after it, a day to take them.
_COOKIE_LIFETIME = SESSION_LIFETIME + ENDED_SESSION_KEPT + DRAFT_LIFETIME
_STATE = "hub_page_session"
_CSRF_FIELD = "_csrf_token"
#: The header a script of the page sends the CSRF token in when it posts no form (``static/hub.js``).
CSRF_HEADER = "x-csrf-token"
_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
#: What a browser's ``Sec-Fetch-Site`` says of a form this page sent (``none``: typed in or bookmarked).
_OWN_SITE = frozenset({"same-origin", "none"})
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{43}")
_NONCE_HEX = 64


@attrs.define(kw_only=True)
class PageSession:
    """What the middleware knows of the request's session, and what the response must change."""

    record: WebSessionRecord | None = None
    caller: Caller | None = None
    cookie: str | None = None
    csrf_token: str = ""
    flash: list[dict[str, Any]] = attrs.field(factory=list)
    flash_changed: bool = False
    new_csrf_cookie: str | None = None
    started: str | None = None
    ended: bool = False
    #: The cookie digest of a session the hub issued that is no longer live (ended at most a day ago, or its token
    #: revoked): what a draft posted now is kept for (:mod:`hub_app.web.editor.drafts`); ``None`` for anyone else.
    ended_id: str | None = None
    #: The digest of the session cookie the browser sent, whatever became of its session: a login takes over the
    #: drafts kept for it.
    presented_id: str | None = None

    @property
    def live(self) -> bool:
        return self.record is not None and self.caller is not None


def page_session(connection: HubConnection) -> PageSession | None:
    """The request's session as the middleware loaded it (``None`` off the page's views)."""
    found = connection.scope.get("state", {}).get(_STATE)
    return found if isinstance(found, PageSession) else None


def _digest(cookie: str) -> str:
    return hashlib.sha256(cookie.encode()).hexdigest()


def _bound_token(cookie: str) -> str:
    """The CSRF token of the session whose cookie is ``cookie``: computable only with the cookie itself."""
    return hmac.new(cookie.encode(), b"sdlc-hub csrf", hashlib.sha256).hexdigest()


def _signed(key: bytes, nonce: str) -> str:
    return hmac.new(key, nonce.encode(), hashlib.sha256).hexdigest()


def _anonymous_token(key: bytes) -> str:
    nonce = secrets.token_hex(_NONCE_HEX // 2)
    return nonce + _signed(key, nonce)


def _anonymous_ok(key: bytes, token: str | None) -> bool:
    if token is None or len(token) != 2 * _NONCE_HEX:
        return False
    return hmac.compare_digest(token[_NONCE_HEX:], _signed(key, token[:_NONCE_HEX]))


async def start_session(unit: Unit, session: PageSession, token_sha256: str) -> None:
    """Login: a new session (a new id, so a new CSRF token) replaces the request's one; expired ones are dropped."""
    await unit.db.web_sessions.purge(now=unit.now)
    previous = session.presented_id
    if session.record is not None:
        await unit.db.web_sessions.end(session.record.id_sha256, now=unit.now)
    cookie = secrets.token_urlsafe(32)
    record = WebSessionRecord(
        id_sha256=_digest(cookie),
        token_sha256=token_sha256,
        created_at=unit.now,
        expires_at=unit.now + SESSION_LIFETIME,
    )
    await unit.db.web_sessions.add(record)
    if previous is not None:  # what the browser posted after its last session ended opens in /new now
        await unit.db.web_sessions.adopt_drafts(previous, record.id_sha256)
    session.record, session.cookie, session.started = record, cookie, cookie
    session.csrf_token, session.flash, session.flash_changed = _bound_token(cookie), [], False


async def end_session(unit: Unit, session: PageSession) -> None:
    """«Выйти»: the row is deleted and the cookie cleared."""
    if session.record is not None:
        await unit.db.web_sessions.end(session.record.id_sha256, now=unit.now)
    await unit.db.web_sessions.purge(now=unit.now)
    session.record, session.caller, session.ended = None, None, True


async def _load(request: HubRequest, key: bytes) -> PageSession:
    session = PageSession()
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie and _SESSION_ID.fullmatch(cookie):
        session.presented_id = _digest(cookie)
        async with hub_of(request).unit() as unit:
            record = await unit.db.web_sessions.live(_digest(cookie), now=unit.now)
            caller = await admin.caller_by_digest(unit, record.token_sha256) if record is not None else None
            if record is not None and caller is not None and caller.role is not Role.AGENT:
                session.record, session.caller, session.cookie = record, caller, cookie
                session.csrf_token, session.flash = _bound_token(cookie), list(record.flash)
                return session
            if await unit.db.web_sessions.issued(_digest(cookie), now=unit.now) is not None:
                session.ended_id = _digest(cookie)
    anonymous = request.cookies.get(CSRF_COOKIE)
    if _anonymous_ok(key, anonymous):
        session.csrf_token = anonymous or ""
    else:
        session.csrf_token = session.new_csrf_cookie = _anonymous_token(key)
    return session


async def _form(request: HubRequest) -> FormMultiDict:
    """The posted form, its fields decoded strictly (422 on what is not UTF-8, never a 500 or a U+FFFD)."""
    content_type, _ = request.content_type
    if content_type == RequestEncodingType.URL_ENCODED:
        check_form_encoding(await request.body())
    try:
        return await request.form()
    except UnicodeDecodeError:
        raise ValidationError("недопустимый символ в теле запроса") from None


async def _check_csrf(request: HubRequest, session: PageSession, key: bytes) -> None:
    if request.headers.get("sec-fetch-site", "same-origin") not in _OWN_SITE:
        raise PermissionDeniedException(CSRF_REFUSED)
    # The file picker posts a file's bytes as they are (no form): its token comes in a header.
    sent = request.headers.get(CSRF_HEADER) or (await _form(request)).get(_CSRF_FIELD)
    sent = sent if isinstance(sent, str) else ""
    if session.live:
        ok = hmac.compare_digest(sent, session.csrf_token)
    elif request.route_handler.opt.get(CSRF_BEFORE_LOGIN):
        ok = _anonymous_ok(key, sent) and hmac.compare_digest(sent, request.cookies.get(CSRF_COOKIE, ""))
    else:
        # No session: the guard sends the person to /login and nothing is done (nor is there anything to end).
        ok = True
    if not ok:
        raise PermissionDeniedException(CSRF_REFUSED)


def _cookie(name: str, value: str, max_age: int | None) -> str:
    made = Cookie(key=name, value=value, path="/", httponly=True, samesite="strict", max_age=max_age)
    return made.to_header(header="")


def _cookies(session: PageSession) -> list[str]:
    if session.started is not None:
        # Sent on past the session's end (the server knows it ended): a form posted within a day keeps its draft,
        # and a login within the draft's day takes it over.
        return [_cookie(SESSION_COOKIE, session.started, int(_COOKIE_LIFETIME.total_seconds()))]
    if session.ended:
        return [_cookie(SESSION_COOKIE, "", 0)]
    if session.new_csrf_cookie is not None:
        return [_cookie(CSRF_COOKIE, session.new_csrf_cookie, None)]
    return []


async def _keep_flash(request: HubRequest, session: PageSession) -> None:
    """The messages left for (or shown by) this page, kept with the session for its next page."""
    if session.flash_changed and session.record is not None and not session.ended:
        flash = readable(session.flash)
        async with hub_of(request).unit() as unit:
            await unit.db.web_sessions.set_flash(session.record.id_sha256, flash)


def page_session_middleware(app: ASGIApp, key: bytes) -> ASGIApp:
    """Load the session, check a form POST's CSRF token, and write the cookies and messages with the answer.

    ``key`` is the page's key (the data dir's ``web-session.key``); it signs the login form's CSRF cookie.
    """
    csrf_key = hmac.new(key, b"csrf", hashlib.sha256).digest()

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        request: HubRequest = scope["litestar_app"].request_class(scope=scope, receive=receive)
        session = await _load(request, csrf_key)
        scope.setdefault("state", {})[_STATE] = session
        ScopeState.from_scope(scope).csrf_token = session.csrf_token
        if request.method not in _SAFE:
            await _check_csrf(request, session, csrf_key)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                await _keep_flash(request, session)
                headers = MutableScopeHeaders.from_message(message)
                for cookie in _cookies(session):
                    headers.add("set-cookie", cookie)
            await send(message)

        await app(scope, receive, sending)

    return middleware
