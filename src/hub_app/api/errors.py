"""One place that maps errors to HTTP answers, all shaped ``{"status_code": N, "detail": "<message>"}``.

The core's :class:`~reconcile.errors.ValidationError` → 422, :class:`~reconcile.errors.ConflictError` → 409,
:class:`~reconcile.errors.ForbiddenError` → 403,
:class:`~reconcile.errors.NotFoundError` → 404, a file over ``max_file_bytes`` or a full file store
(:class:`~reconcile.errors.TooLargeError`) → 413; Litestar's own 400/401/403/404/405/413 keep their codes; a
database that cannot be reached now (:mod:`adapters.storage.outage`) → 503 with ``Retry-After`` and a warning
without traceback; anything else is logged and answers 500 without details.
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException
from litestar.exceptions import ValidationException as LitestarValidationError

from adapters.files import FileTooLargeError
from adapters.storage.outage import OUTAGE_TYPES, RETRY_AFTER_SECONDS, is_outage, outage_reason
from reconcile.agents import AgentConflict
from reconcile.errors import ConflictError, ForbiddenError, NotFoundError, TooLargeError, ValidationError

__all__ = ["DATABASE_UNAVAILABLE", "INTERNAL_ERROR", "database_unavailable", "error_response", "exception_handlers"]

log = logging.getLogger("hub_app")

INTERNAL_ERROR = "внутренняя ошибка хаба"
DATABASE_UNAVAILABLE = "база данных не отвечает"


def error_response(status: int, detail: str, headers: dict[str, str] | None = None) -> Response[Any]:
    return Response({"status_code": status, "detail": detail}, status_code=status, headers=headers)


def _core_error(_: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    if isinstance(exc, ValidationError):
        return error_response(422, exc.message)
    if isinstance(exc, AgentConflict):
        # When the active agent would count as away: a restarted agent asks again then, not a poll later.
        return error_response(409, exc.message, {"Retry-After": str(exc.retry_after)})
    if isinstance(exc, ConflictError):
        return error_response(409, exc.message)
    if isinstance(exc, ForbiddenError):
        return error_response(403, exc.message)
    if isinstance(exc, NotFoundError):
        return error_response(404, exc.message)
    if isinstance(exc, FileTooLargeError):
        return error_response(413, f"файл больше max_file_bytes = {exc.limit} байт")
    if isinstance(exc, TooLargeError):
        return error_response(413, exc.message)
    return _internal_error(_, exc)


def _http_error(_: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
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


def _maybe_outage(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    if not is_outage(exc):
        return _internal_error(request, exc)
    log.warning(
        "database_unavailable",
        extra={"path": request.url.path, "method": request.method, "error": outage_reason(exc)},
    )
    return database_unavailable()


def _internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.error("unhandled error", exc_info=exc, extra={"path": request.url.path, "method": request.method})
    return error_response(500, INTERNAL_ERROR)


def exception_handlers() -> dict[int | type[Exception], Any]:
    return {
        NotFoundError: _core_error,
        ValidationError: _core_error,
        ConflictError: _core_error,
        ForbiddenError: _core_error,
        FileTooLargeError: _core_error,
        TooLargeError: _core_error,
        HTTPException: _http_error,
        **dict.fromkeys(OUTAGE_TYPES, _maybe_outage),
        Exception: _internal_error,
    }
