"""``GET /audit`` (admin): the hash-chained audit, streamed as JSON lines or CSV (DESIGN.md 6.6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar import get
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIType, Operation, Schema
from litestar.params import FromQuery
from litestar.response import Stream

from hub_app.api.routing import acting, route
from hub_app.operations.audit import FORMATS, audit_filter, export_lines
from hub_app.runtime.connection import HubRequest, hub_of
from hub_app.runtime.roles import ADMIN
from reconcile.vocabulary import ValidationError

__all__ = ["ROUTES"]

_MEDIA = {"jsonl": "application/x-ndjson", "csv": "text/csv; charset=utf-8"}
_STREAMED = {
    200: ResponseSpec(data_container=str, description="записи аудита, по одной в строке", generate_examples=False)
}


@dataclass
class _Streamed(Operation):
    """``GET /audit``'s operation: its 200 is JSON lines or CSV, each by its own media type (not JSON)."""

    def __post_init__(self) -> None:
        ok = (self.responses or {}).get("200")
        if ok is not None and not isinstance(ok, dict) and hasattr(ok, "content"):
            text = OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))
            ok.content = {media.split(";")[0]: text for media in _MEDIA.values()}


@get("/audit", **route(ADMIN, errors_=(400, 422), more=_STREAMED), operation_class=_Streamed)
async def audit(  # noqa: PLR0917 — a route's query parameters
    request: HubRequest,
    since: FromQuery[str | None] = None,
    until: FromQuery[str | None] = None,
    batch: FromQuery[int | None] = None,
    kind: FromQuery[str | None] = None,
    actor: FromQuery[str | None] = None,
    cursor: FromQuery[int | None] = None,
    format: FromQuery[str] = "jsonl",
) -> Stream:
    """The audit's records, oldest first: ``seq``, ``at``, ``kind``, ``actor``, ``door``, ``batch_id``,
    ``command_id``, ``data``, ``prev``, ``hash`` (sha256 of ``prev`` and the canonical JSON of the others).
    Filters: ``since``/``until`` (ISO-8601), ``batch``, ``kind``, ``actor``; ``cursor``: the records after that
    ``seq``. ``format=jsonl`` (the first line ``{"checkpoint": …}`` when retention removed what came before) or
    ``csv``. ``sdlc-hub audit verify`` checks an unfiltered export."""
    if format not in FORMATS:
        raise ValidationError(f"format — ожидается {' или '.join(FORMATS)}")
    where = audit_filter(since=since, until=until, batch=batch, kind=kind, actor=actor, cursor=cursor)
    hub, who = hub_of(request), acting(request)
    headers: dict[str, Any] = {"Content-Disposition": f'attachment; filename="audit.{format}"'}
    return Stream(export_lines(lambda: hub.unit(**who), where, format), media_type=_MEDIA[format], headers=headers)


ROUTES = [audit]
