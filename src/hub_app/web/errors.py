"""The page's answers to errors: a page in Russian with the hub's own message, never JSON.

Errors an action expects (a 422 of a batch, a 409 of a cancel) are shown inline by the view itself; what
reaches these handlers is what has no better place: an unknown batch, a role that may not, a stale form.
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Response
from litestar.exceptions import HTTPException, NotFoundException, PermissionDeniedException

from hub_app.runtime.connection import HubRequest
from hub_app.runtime.refusals import INTERNAL_ERROR, STATUS_BY_ERROR, refusal
from hub_app.web.cookies import CSRF_REFUSED
from hub_app.web.render import page
from hub_app.web.session import LoginRequired, PageRefused, login_redirect

__all__ = ["CSRF_REFUSED", "NO_SUCH_PAGE", "page_exception_handlers"]

log = logging.getLogger("hub_app")

NO_SUCH_PAGE = "такой страницы нет"


def error_page(request: HubRequest, status: int, message: str) -> Response[Any]:
    return page(request, "error.html", status_code=status, status=status, message=message)


def _login(request: HubRequest, exc: Exception) -> Response[Any]:
    return login_redirect(request, exc.then if isinstance(exc, LoginRequired) else None)


def _permission(request: HubRequest, exc: Exception) -> Response[Any]:
    if isinstance(exc, PageRefused):
        return error_page(request, 403, str(exc.detail))
    return error_page(request, 403, CSRF_REFUSED)  # the only other refusal here is the CSRF check's


def _refused(request: HubRequest, exc: Exception) -> Response[Any]:
    """A refusal of the core, with the status of :mod:`hub_app.runtime.refusals`."""
    found = refusal(exc)
    if found is None:
        return _internal(request, exc)
    return error_page(request, found.status, found.message)


def _http(request: HubRequest, exc: Exception) -> Response[Any]:
    assert isinstance(exc, HTTPException)
    if isinstance(exc, NotFoundException):
        return error_page(request, 404, NO_SUCH_PAGE)
    return error_page(request, exc.status_code, str(exc.detail))


def _internal(request: HubRequest, exc: Exception) -> Response[Any]:
    log.error("unhandled error", exc_info=exc, extra={"path": request.url.path, "method": request.method})
    return error_page(request, 500, INTERNAL_ERROR)


def page_exception_handlers() -> dict[int | type[Exception], Any]:
    return {
        LoginRequired: _login,
        PermissionDeniedException: _permission,
        **dict.fromkeys(STATUS_BY_ERROR, _refused),
        HTTPException: _http,
        Exception: _internal,
    }
