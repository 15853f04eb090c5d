"""«Аудит» (``/audit``, admins): the hash-chained audit with the API's filters (since, until, batch, kind, actor),
a page at a time from the newest filter's first record on (the keyset cursor), and the export of what the filters
select as JSON lines or CSV (DESIGN.md 6.6, 8 round 4)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from litestar import get
from litestar.params import QueryParameter
from litestar.response import Stream, Template

from hub_app.operations.audit import FORMATS, audit_filter, export_lines
from hub_app.runtime.connection import HubRequest, hub_of
from hub_app.runtime.hub import Unit
from hub_app.runtime.roles import ADMIN
from hub_app.web.acting import acting, read
from hub_app.web.render import page
from reconcile.audit import KINDS
from reconcile.vocabulary import ValidationError

__all__ = ["ROUTES"]

#: Records a page shows.
PAGE_SIZE = 100

Text = Annotated[str | None, QueryParameter(max_length=300)]


def _filters(
    since: str | None, until: str | None, batch: str | None, kind: str | None, actor: str | None
) -> dict[str, str]:
    return {
        k: v for k, v in {"since": since, "until": until, "batch": batch, "kind": kind, "actor": actor}.items() if v
    }


def _batch(value: str | None) -> int | None:
    if not value:
        return None
    if not value.isdigit() or len(value) > 9:
        raise ValidationError("batch — ожидается номер пакета")
    return int(value)


@get("/audit", opt={"page_roles": ADMIN})
async def audit_page(  # noqa: PLR0917 — the page's filters
    request: HubRequest,
    since: Text = None,
    until: Text = None,
    batch: Text = None,
    kind: Text = None,
    actor: Text = None,
    cursor: Annotated[int | None, QueryParameter(ge=0)] = None,
) -> Template:
    """The records the filters select, oldest first, ``PAGE_SIZE`` a page; a refused filter is said above."""
    given = _filters(since, until, batch, kind, actor)
    error = None
    records = []
    try:
        where = audit_filter(since=since, until=until, batch=_batch(batch), kind=kind, actor=actor, cursor=cursor)

        async def look(unit: Unit) -> list:  # type: ignore[type-arg]
            return await unit.db.audit.records(where, limit=PAGE_SIZE + 1)

        records = await read(request, look)
    except ValidationError as exc:
        error = exc.message
    more = records[PAGE_SIZE] if len(records) > PAGE_SIZE else None
    return page(
        request,
        "audit.html",
        records=records[:PAGE_SIZE],
        filters=given,
        kinds=KINDS,
        error=error,
        next_query=urlencode({**given, "cursor": records[PAGE_SIZE - 1].seq}) if more else None,
        export={form: "/audit/export?" + urlencode({**given, "format": form}) for form in FORMATS},
    )


@get("/audit/export", opt={"page_roles": ADMIN})
async def audit_export(  # noqa: PLR0917 — the page's filters
    request: HubRequest,
    since: Text = None,
    until: Text = None,
    batch: Text = None,
    kind: Text = None,
    actor: Text = None,
    format: Text = "jsonl",
) -> Stream:
    """What the filters select, as the API's ``GET /audit`` streams it (a file to keep or to verify)."""
    form = format if format in FORMATS else "jsonl"
    where = audit_filter(since=since, until=until, batch=_batch(batch), kind=kind, actor=actor)
    hub, who = hub_of(request), acting(request)
    media = "text/csv; charset=utf-8" if form == "csv" else "application/x-ndjson"
    headers = {"Content-Disposition": f'attachment; filename="audit.{form}"'}
    return Stream(export_lines(lambda: hub.unit(**who), where, form), media_type=media, headers=headers)


ROUTES = [audit_page, audit_export]
