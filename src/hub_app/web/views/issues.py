"""One issue of the mirror (``/issues/{key}``): its fields and links, the batches and commands that touched it (the
latest :data:`TOUCHING_BATCHES` batches naming it; the queue's text filter finds the rest), the hub's notes on it
(«Добавить заметку») and its journal of changes in Jira, paged."""

from __future__ import annotations

from typing import Any

from litestar import get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template

from hub_app.bodies.mirror import NoteIn
from hub_app.operations import mirror
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.hub import Unit
from hub_app.web.acting import attempt, author, form_body, read
from hub_app.web.render import flash, form_text, page
from hub_app.web.views.queue import PageNumber, pages
from reconcile.vocabulary import NotFoundError

__all__ = ["HISTORY_PER_PAGE", "ROUTES", "TOUCHING_BATCHES"]

HISTORY_PER_PAGE = 50
#: How many of the latest batches naming the issue the page reads for the commands that touched it.
TOUCHING_BATCHES = 20


async def _issue_page(
    request: HubRequest, key: str, number: int, *, status_code: int = 200, **context: Any
) -> Template:
    async def look(unit: Unit) -> dict[str, Any]:
        journal = await mirror.issue_history(unit, key, limit=HISTORY_PER_PAGE, offset=(number - 1) * HISTORY_PER_PAGE)
        issue = await mirror.get_issue(unit, key)
        touches, more = await mirror.issue_commands(unit, issue.key, batches=TOUCHING_BATCHES)
        return {
            "issue": issue,
            "touches": touches,
            "more_touches": more,
            "touches_batches": TOUCHING_BATCHES,
            "journal": journal.items,
            "journal_total": journal.total,
            "pages": pages(journal.total, HISTORY_PER_PAGE),
        }

    found = await read(request, look)
    return page(request, "issue.html", status_code=status_code, number=number, **found, **context)


@get("/issues/{key:str}")
async def issue_view(request: HubRequest, key: FromPath[str], number: PageNumber = 1) -> Template:
    """The issue; one not yet in the mirror says so and offers «Обновить из Jira» (404: the mirror has no page)."""
    try:
        return await _issue_page(request, key, number, note="", error=None)
    except NotFoundError:
        return page(request, "issue_missing.html", status_code=404, key=key)


@post("/issues/{key:str}/notes")
async def note_add(request: HubRequest, key: FromPath[str]) -> Template | Redirect:
    """«Добавить заметку»: a note of the hub on this issue (never written to Jira)."""
    text = form_text(await request.form(), "text")
    name = author(request)
    outcome = await attempt(
        request, lambda u: mirror.add_note(u, form_body(NoteIn, {"key": key, "text": text}), author=name)
    )
    if outcome.error is not None:
        return await _issue_page(request, key, 1, status_code=422, note=text, error=outcome.error)
    flash(request, "заметка добавлена")
    return Redirect(f"/issues/{key}", status_code=303)


ROUTES = [issue_view, note_add]
