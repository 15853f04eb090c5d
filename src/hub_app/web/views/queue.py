"""«Очередь» (``/``): the agent, the command in flight and its pause, depth and ETA, and the batches, newest first.

The batches are filtered by the URL's query (:func:`reconcile.outlook.queue_filter.parse_filter`: state, author (the
batch's ``author`` or its token's name), project, text, and ``auto`` for the hub's automatic refreshes, hidden
otherwise), a GET form that works without JavaScript and is bookmarkable. The live part is re-fetched by htmx
every 2 s while the tab is visible (``static/hub.js``), with the same filter; without JavaScript the page is the
same, read once.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

import attrs
from litestar import get
from litestar.params import QueryParameter
from litestar.response import Redirect, Template

from hub_app.dispatch import overview
from hub_app.operations import batches
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.hub import Unit
from hub_app.web.acting import read
from hub_app.web.labels import BATCH_STATE_LABELS
from hub_app.web.render import fragment, is_htmx, page
from reconcile.outlook import parse_filter

__all__ = ["BATCHES_PER_PAGE", "ROUTES", "PageNumber", "pages"]

BATCHES_PER_PAGE = 20
_FILTER_FIELDS = ("status", "author", "project", "q", "auto")

#: ``?page=N`` of a paged view (1-based).
PageNumber = Annotated[int, QueryParameter(name="page", ge=1, le=2**31)]


def pages(total: int, size: int) -> int:
    """How many pages ``total`` rows make (at least one, empty)."""
    return max(1, -(-total // size))


def _here(query: dict[str, str], number: int) -> str:
    """This page of the queue with its filter: what the live part polls."""
    asked = urlencode({**query, **({"page": str(number)} if number > 1 else {})})
    return f"/?{asked}" if asked else "/"


@get("/")
async def queue_view(request: HubRequest, number: PageNumber = 1) -> Template | Redirect:
    only = parse_filter({name: request.query_params.get(name) or "" for name in _FILTER_FIELDS})
    query = only.query()
    live = is_htmx(request)  # the live part: the form and its choices stay on the page
    # A submitted form sends its empty fields too: the address to bookmark names only what is asked.
    blank = any(name in request.query_params and name not in query for name in _FILTER_FIELDS)
    if blank and not live:
        return Redirect(_here(query, number), status_code=303)

    async def look(unit: Unit) -> dict[str, Any]:
        offset = (number - 1) * BATCHES_PER_PAGE
        listed = await batches.list_batches(unit, limit=BATCHES_PER_PAGE, offset=offset, only=only)
        authors, projects = ([], []) if live else await unit.db.queue.filter_choices()
        shown = attrs.evolve(only, automatic=True)
        hidden = 0 if only.automatic else await unit.db.queue.count_batches(shown) - listed.total
        return {
            "overview": await overview.queue_overview(unit),
            "batches": listed.items,
            "total": listed.total,
            "number": number,
            "pages": pages(listed.total, BATCHES_PER_PAGE),
            "only": only,
            "choices": {"states": BATCH_STATE_LABELS, "authors": authors, "projects": projects},
            "filtered": bool(query),
            "hidden": hidden,
            "with_automatic": _here(shown.query(), 1),
            "live_url": _here(query, number),
            "pager_extra": "".join(f"&{urlencode({name: value})}" for name, value in query.items()),
        }

    context = await read(request, look)
    if live:
        pushed = {"HX-Push-Url": _here(query, number)} if blank else {}
        return fragment(request, "_queue.html", headers=pushed, **context)
    return page(request, "queue.html", **context)


ROUTES = [queue_view]
