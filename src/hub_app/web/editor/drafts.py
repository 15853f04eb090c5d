"""A draft of «Новый пакет» survives an ended session: posted after it ended, it is kept, and after the login the
editor opens with it.

A form of the editor or of its JSON view that arrives without a live session is kept on the server before the
person is sent to log in (:data:`~hub_app.web.session.KEEP_BEFORE_LOGIN`) — only when the request names a session
the hub issued, live or ended at most a day ago (its cookie outlives the session: the server knows it ended),
within the bounds of :mod:`reconcile.guard.web_drafts` (2 MB each, 5 a session, 200 MB in all), for a day. An anonymous
POST stores nothing. The browser's next session takes the drafts over at its login, and each ``/new`` after it opens the
newest one left (once).
"""

from __future__ import annotations

import logging

from litestar import Request

from hub_app.runtime.connection import HubConnection, HubRequest, hub_of
from hub_app.web.cookies import page_session
from hub_app.web.editor.form import from_form
from hub_app.web.render import form_text
from reconcile.guard import DRAFT_LIFETIME

__all__ = ["keep", "take"]

log = logging.getLogger(__name__)


async def keep(connection: HubConnection) -> str | None:
    """Keep what the form posted (the editor's batch as JSON, or the JSON view's text) for the session it names;
    then go to ``/new`` — but from the JSON view's «В очередь» to the login's own default, as it always went
    (``/new`` still opens the draft). An anonymous request goes to the login, and nothing is read or kept."""
    session = page_session(connection)
    if not isinstance(connection, Request) or connection.method != "POST" or session is None:
        return None
    if session.ended_id is None:
        return None
    form = await connection.form()
    text = form_text(form, "batch") if form.get("c1.type") is None and "title" not in form else ""
    text = text or from_form(form).json_text()
    async with hub_of(connection).unit() as unit:
        kept = await unit.db.web_sessions.keep_draft(
            session.ended_id, text, now=unit.now, expires_at=unit.now + DRAFT_LIFETIME
        )
    if not kept:  # over the bounds: the person is sent to log in all the same
        log.warning("draft_not_kept", extra={"bytes": len(text.encode())})
    return None if connection.url.path.endswith("/new") else "/new"


async def take(request: HubRequest) -> str | None:
    """The newest draft kept for this session (from before its login), taken (once); ``None`` when there is none."""
    session = page_session(request)
    if session is None or session.record is None:
        return None
    async with hub_of(request).unit() as unit:
        return await unit.db.web_sessions.take_draft(session.record.id_sha256, now=unit.now)
