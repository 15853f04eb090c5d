"""The API's answers to errors, all shaped ``{"status_code": N, "detail": "<message>"}``; a batch refused by its
validation (422, one error or more) adds ``errors``: ``[{command, param?, message}]``, every error found, the first
being ``detail``.

A refusal of the core gets the status of :mod:`hub_app.runtime.refusals` (422, 409, 403, 404, 413; a second agent's 409
adds ``Retry-After``); Litestar's own 400/401/403/404/405/413 keep their codes; a database that cannot be reached
now (:mod:`adapters.storage.outage`) → 503 with ``Retry-After`` and a warning without traceback; anything else is
logged and answers 500 without details.
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Response
from litestar.exceptions import HTTPException
from litestar.exceptions import ValidationException as LitestarValidationError

from adapters.storage.outage import OUTAGE_TYPES, RETRY_AFTER_SECONDS, is_outage, outage_reason
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.refusals import INTERNAL_ERROR, STATUS_BY_ERROR, refusal
from reconcile.queue import AgentConflict

__all__ = ["DATABASE_UNAVAILABLE", "database_unavailable", "error_response", "exception_handlers"]

log = logging.getLogger("hub_app")

DATABASE_UNAVAILABLE = "база данных не отвечает"


def error_response(
    status: int,
    detail: str,
    headers: dict[str, str] | None = None,
    *,
    errors: tuple[dict[str, Any], ...] = (),
    plan: dict[str, Any] | None = None,
) -> Response[Any]:
    """``{status_code, detail}``; a batch refused by its validation adds ``errors``, every error found (``detail``
    is the first's message); an approval of a plan that changed adds the ``plan`` now."""
    body: dict[str, Any] = {"status_code": status, "detail": detail}
    if errors:
        body["errors"] = list(errors)
    if plan is not None:
        body["plan"] = plan
    return Response(body, status_code=status, headers=headers)


def _refused(request: HubRequest, exc: Exception) -> Response[Any]:
    refused = refusal(exc)
    if refused is None:
        return _internal_error(request, exc)
    # A second agent is told when the active one would count as away: it asks again then, not a poll later.
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, AgentConflict) else None
    return error_response(refused.status, refused.message, headers, errors=refused.errors, plan=refused.plan)


def _http_error(_: HubRequest, exc: Exception) -> Response[Any]:
    assert isinstance(exc, HTTPException)
    detail = exc.detail
    if isinstance(exc, LitestarValidationError) and exc.extra:
        parts = []
        for item in exc.extra if isinstance(exc.extra, list) else [exc.extra]:
            if isinstance(item, dict):
                where = item.get("key") or ""
                parts.append(f"{where}: {item.get('message', '')}".strip(": "))
        if parts:
            detail = f"{detail}: {'; '.join(parts)}"
    if exc.status_code == 413:
        detail = f"тело запроса больше допустимого ({detail})"
    return error_response(exc.status_code, detail)


def database_unavailable() -> Response[Any]:
    """503 «база данных не отвечает» with ``Retry-After``: the same request succeeds once the database is back."""
    return error_response(503, DATABASE_UNAVAILABLE, {"Retry-After": str(RETRY_AFTER_SECONDS)})


def _maybe_outage(request: HubRequest, exc: Exception) -> Response[Any]:
    if not is_outage(exc):
        return _internal_error(request, exc)
    log.warning(
        "database_unavailable",
        extra={"path": request.url.path, "method": request.method, "error": outage_reason(exc)},
    )
    return database_unavailable()


def _internal_error(request: HubRequest, exc: Exception) -> Response[Any]:
    log.error("unhandled error", exc_info=exc, extra={"path": request.url.path, "method": request.method})
    return error_response(500, INTERNAL_ERROR)


def exception_handlers() -> dict[int | type[Exception], Any]:
    return {
        **dict.fromkeys(STATUS_BY_ERROR, _refused),
        HTTPException: _http_error,
        **dict.fromkeys(OUTAGE_TYPES, _maybe_outage),
        Exception: _internal_error,
    }
