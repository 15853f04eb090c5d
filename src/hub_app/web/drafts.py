"""A draft of «Новый пакет» survives an ended session: posted without one, it is kept, and after the login the
editor opens with it.

A form of the editor or of its JSON view that arrives without a live session (it ended, or was ended elsewhere)
is kept on the server before the person is sent to log in (:data:`~hub_app.web.session.KEEP_BEFORE_LOGIN`): keyed
by the sha256 of the browser's login-form cookie (the one cookie a browser without a session holds, and keeps
through the login), at most :data:`MAX_DRAFT_CHARS` of the batch's JSON, for :data:`DRAFT_LIFETIME`, one per
browser. The first ``/new`` after the login takes it.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from litestar import Request

from hub_app.connection import HubConnection, HubRequest, hub_of
from hub_app.web.cookies import CSRF_COOKIE, page_session
from hub_app.web.editor import from_form
from hub_app.web.render import form_text

__all__ = ["DRAFT_LIFETIME", "MAX_DRAFT_CHARS", "keep", "take"]

DRAFT_LIFETIME = timedelta(hours=24)
#: A draft larger than this is not kept (the person is sent to log in all the same).
MAX_DRAFT_CHARS = 2_000_000


def _digest(token: str) -> str:
    return hashlib.sha256(b"sdlc-hub draft " + token.encode()).hexdigest()


async def keep(connection: HubConnection) -> str | None:
    """Keep what the form posted (the editor's batch as JSON, or the JSON view's text); then go to ``/new`` — but
    from the JSON view's «В очередь» to the login's own default, as it always went (``/new`` still opens the
    draft)."""
    session = page_session(connection)
    if not isinstance(connection, Request) or connection.method != "POST" or session is None:
        return None
    form = await connection.form()
    text = form_text(form, "batch") if form.get("c1.type") is None and "title" not in form else ""
    text = text or from_form(form).json_text()
    if len(text) <= MAX_DRAFT_CHARS:
        async with hub_of(connection).unit() as unit:
            await unit.db.web_sessions.keep_draft(
                _digest(session.csrf_token), text, now=unit.now, expires_at=unit.now + DRAFT_LIFETIME
            )
    return None if connection.url.path.endswith("/new") else "/new"


async def take(request: HubRequest) -> str | None:
    """The JSON kept for this browser before its login, taken (once); ``None`` when there is none."""
    token = request.cookies.get(CSRF_COOKIE)
    if not token:
        return None
    async with hub_of(request).unit() as unit:
        return await unit.db.web_sessions.take_draft(_digest(token), now=unit.now)
