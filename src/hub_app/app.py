"""The hub's HTTP API (DESIGN.md section 6) on Litestar: parse, call :mod:`hub_app.services`, map errors once.

Every error answers ``{"status_code": N, "detail": "<message>"}``: the core's ValidationError → 422,
ConflictError → 409, NotFoundError → 404, a file over ``max_file_bytes`` → 413, Litestar's own 400/401/403/
404/405/413 in the same shape.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
from litestar import Litestar, Request, Response, delete, get, patch, post
from litestar.connection import ASGIConnection
from litestar.exceptions import (
    ClientException,
    HTTPException,
    NotAuthorizedException,
    PermissionDeniedException,
)
from litestar.exceptions import ValidationException as LitestarValidationError
from litestar.handlers.base import BaseRouteHandler
from litestar.openapi.config import OpenAPIConfig
from litestar.params import FromPath, FromQuery
from litestar.response import File
from litestar.status_codes import HTTP_204_NO_CONTENT

from adapters.files import FileTooLargeError
from hub_app import services
from hub_app.mcp_server import McpPlugin
from hub_app.runtime import Hub
from reconcile.errors import ConflictError, ValidationError

__all__ = ["MAX_JSON_BODY", "create_app"]

log = logging.getLogger(__name__)

#: Largest JSON body the API reads (file uploads have their own limit, ``max_file_bytes``).
MAX_JSON_BODY = 10 * 1024 * 1024
#: A long poll looks at the queue again at least this often, even without a wake-up.
REPOLL_SECONDS = 5.0

INTERFACE = ("interface", "admin")
ADMIN = ("admin",)
AGENT = ("agent",)


# --- errors -------------------------------------------------------------------------------------------------


def _error(status: int, detail: str) -> Response[Any]:
    return Response({"status_code": status, "detail": detail}, status_code=status)


def _core_error(_: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    if isinstance(exc, ValidationError):
        return _error(422, exc.message)
    if isinstance(exc, ConflictError):
        return _error(409, exc.message)
    if isinstance(exc, services.NotFoundError):
        return _error(404, exc.message)
    if isinstance(exc, FileTooLargeError):
        return _error(413, f"файл больше max_file_bytes = {exc.limit} байт")
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
    return _error(exc.status_code, detail)


def _internal_error(_: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.exception("unhandled error", exc_info=exc)
    return _error(500, "внутренняя ошибка хаба")


# --- auth ---------------------------------------------------------------------------------------------------


async def _guard(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    roles: Sequence[str] | None = handler.opt.get("roles")
    if roles is None:
        return
    header = connection.headers.get("authorization", "")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise NotAuthorizedException("нужен заголовок Authorization: Bearer <токен>")
    hub: Hub = connection.app.state.hub
    async with hub.unit() as unit:
        token = await services.authenticate(unit, secret.strip())
    if token is None:
        raise NotAuthorizedException("токен неизвестен или отозван")
    if token.role not in roles:
        raise PermissionDeniedException(f"роли {token.role} это не разрешено; нужна {' или '.join(roles)}")
    connection.state.token = token


def _token_name(request: Request[Any, Any, Any]) -> str:
    token: services.TokenInfo = request.state.token
    return token.name


async def read_json(request: Request[Any, Any, Any]) -> Any:
    """The body as JSON (``None`` when empty); 400 with a readable detail when it is not JSON."""
    raw = await request.body()
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ClientException(f"тело запроса — не JSON: {exc}") from None


def _hub(request: Request[Any, Any, Any]) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


async def _run(request: Request[Any, Any, Any], call: Callable[[Any], Any]) -> Any:
    async with _hub(request).unit() as unit:
        return await call(unit)


# --- interface ----------------------------------------------------------------------------------------------


@post("/batches", opt={"roles": INTERFACE}, status_code=201)
async def create_batch(request: Request[Any, Any, Any], dry_run: FromQuery[bool] = False) -> Response[Any]:
    body = await read_json(request)
    data = await _run(
        request, lambda u: services.create_batch(u, body, token_name=_token_name(request), dry_run=dry_run)
    )
    return Response(data, status_code=200 if dry_run else 201)


@get("/batches", opt={"roles": INTERFACE})
async def list_batches(
    request: Request[Any, Any, Any], limit: FromQuery[int | None] = None, offset: FromQuery[int | None] = None
) -> dict[str, Any]:
    result: dict[str, Any] = await _run(request, lambda u: services.list_batches(u, limit=limit, offset=offset))
    return result


@get("/batches/{batch_id:int}", opt={"roles": INTERFACE})
async def get_batch(request: Request[Any, Any, Any], batch_id: FromPath[int]) -> dict[str, Any]:
    result: dict[str, Any] = await _run(request, lambda u: services.get_batch(u, batch_id))
    return result


@post("/batches/{batch_id:int}/cancel", opt={"roles": INTERFACE}, status_code=200)
async def cancel_batch(request: Request[Any, Any, Any], batch_id: FromPath[int]) -> dict[str, Any]:
    body = await read_json(request)
    result: dict[str, Any] = await _run(request, lambda u: services.cancel_batch(u, batch_id, body))
    return result


@get("/commands/{command_id:int}", opt={"roles": INTERFACE})
async def get_command(request: Request[Any, Any, Any], command_id: FromPath[int]) -> dict[str, Any]:
    result: dict[str, Any] = await _run(request, lambda u: services.get_command(u, command_id))
    return result


@post("/commands/{command_id:int}/cancel", opt={"roles": INTERFACE}, status_code=200)
async def cancel_command(request: Request[Any, Any, Any], command_id: FromPath[int]) -> dict[str, Any]:
    body = await read_json(request)
    result: dict[str, Any] = await _run(request, lambda u: services.cancel_command(u, command_id, body))
    return result


@post("/commands/{command_id:int}/retry", opt={"roles": INTERFACE}, status_code=201)
async def retry_command(request: Request[Any, Any, Any], command_id: FromPath[int]) -> dict[str, Any]:
    body = await read_json(request)
    services.check_body(body, {})
    result: dict[str, Any] = await _run(
        request, lambda u: services.retry_command(u, command_id, token_name=_token_name(request))
    )
    return result


@post("/files", opt={"roles": INTERFACE}, status_code=201, request_max_body_size=None)
async def upload_file(request: Request[Any, Any, Any], filename: FromQuery[str | None] = None) -> dict[str, Any]:
    hub = _hub(request)
    async with hub.unit() as unit:
        settings = await services.load_settings(unit)
    stored = await hub.files.put_stream(request.stream(), limit=settings.max_file_bytes)
    result: dict[str, Any] = await _run(
        request, lambda u: services.record_file(u, sha256=stored.sha256, size=stored.size, filename=filename)
    )
    return result


@get("/projects", opt={"roles": INTERFACE})
async def list_projects(request: Request[Any, Any, Any]) -> dict[str, Any]:
    items = await _run(request, services.list_projects)
    return {"items": items, "total": len(items)}


@post("/projects", opt={"roles": ADMIN}, status_code=201)
async def create_project(request: Request[Any, Any, Any]) -> dict[str, Any]:
    body = await read_json(request)
    result: dict[str, Any] = await _run(request, lambda u: services.create_project(u, body))
    return result


@patch("/projects/{name:str}", opt={"roles": ADMIN})
async def patch_project(request: Request[Any, Any, Any], name: FromPath[str]) -> dict[str, Any]:
    body = await read_json(request)
    result: dict[str, Any] = await _run(request, lambda u: services.patch_project(u, name, body))
    return result


@delete("/projects/{name:str}", opt={"roles": ADMIN}, status_code=204)
async def delete_project(request: Request[Any, Any, Any], name: FromPath[str]) -> None:
    await _run(request, lambda u: services.delete_project(u, name))


@get("/settings", opt={"roles": INTERFACE})
async def get_settings(request: Request[Any, Any, Any]) -> dict[str, Any]:
    result: dict[str, Any] = await _run(request, services.get_settings)
    return result


@patch("/settings", opt={"roles": ADMIN})
async def patch_settings(request: Request[Any, Any, Any]) -> dict[str, Any]:
    body = await read_json(request)
    result: dict[str, Any] = await _run(request, lambda u: services.patch_settings(u, body))
    return result


@get("/issues", opt={"roles": INTERFACE})
async def list_issues(
    request: Request[Any, Any, Any],
    project: FromQuery[str | None] = None,
    limit: FromQuery[int | None] = None,
    offset: FromQuery[int | None] = None,
) -> dict[str, Any]:
    result: dict[str, Any] = await _run(
        request, lambda u: services.list_issues(u, project=project, limit=limit, offset=offset)
    )
    return result


@get("/issues/{key:str}", opt={"roles": INTERFACE})
async def get_issue(request: Request[Any, Any, Any], key: FromPath[str]) -> dict[str, Any]:
    result: dict[str, Any] = await _run(request, lambda u: services.get_issue(u, key))
    return result


@get("/issues/{key:str}/history", opt={"roles": INTERFACE})
async def issue_history(
    request: Request[Any, Any, Any],
    key: FromPath[str],
    limit: FromQuery[int | None] = None,
    offset: FromQuery[int | None] = None,
) -> dict[str, Any]:
    result: dict[str, Any] = await _run(request, lambda u: services.issue_history(u, key, limit=limit, offset=offset))
    return result


@get("/notes", opt={"roles": INTERFACE})
async def list_notes(
    request: Request[Any, Any, Any],
    key: FromQuery[str | None] = None,
    limit: FromQuery[int | None] = None,
    offset: FromQuery[int | None] = None,
) -> dict[str, Any]:
    result: dict[str, Any] = await _run(request, lambda u: services.list_notes(u, key=key, limit=limit, offset=offset))
    return result


@post("/notes", opt={"roles": INTERFACE}, status_code=201)
async def add_note(request: Request[Any, Any, Any]) -> dict[str, Any]:
    body = await read_json(request)
    result: dict[str, Any] = await _run(request, lambda u: services.add_note(u, body, author=_token_name(request)))
    return result


@post("/refresh", opt={"roles": INTERFACE}, status_code=201)
async def refresh(request: Request[Any, Any, Any]) -> dict[str, Any]:
    body = await read_json(request)
    result: dict[str, Any] = await _run(
        request, lambda u: services.create_refresh(u, body, token_name=_token_name(request))
    )
    return result


@get("/tokens", opt={"roles": ADMIN})
async def list_tokens(request: Request[Any, Any, Any]) -> dict[str, Any]:
    items = await _run(request, services.list_tokens)
    return {"items": items, "total": len(items)}


@post("/tokens", opt={"roles": ADMIN}, status_code=201)
async def add_token(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """``{name, role}`` → the token with its secret, shown only in this answer."""
    data = services.check_body(await read_json(request), {"name": "nonempty", "role": "str"})
    secret = await _run(request, lambda u: services.add_token(u, data["name"], data["role"]))
    return {"name": data["name"], "role": data["role"], "secret": secret}


@delete("/tokens/{name:str}", opt={"roles": ADMIN}, status_code=200)
async def revoke_token(request: Request[Any, Any, Any], name: FromPath[str]) -> dict[str, Any]:
    result: dict[str, Any] = await _run(request, lambda u: services.revoke_token(u, name))
    return result


@get("/agent-status", opt={"roles": INTERFACE})
async def agent_status(request: Request[Any, Any, Any]) -> dict[str, Any]:
    result: dict[str, Any] = await _run(request, services.agent_status)
    return result


@get("/health")
async def health(request: Request[Any, Any, Any]) -> Response[Any]:
    if await _hub(request).ping():
        return Response({"status": "ok"}, status_code=200)
    return _error(503, "база данных не отвечает")


# --- agent --------------------------------------------------------------------------------------------------


@post("/agent/claim", opt={"roles": AGENT}, status_code=200)
async def agent_claim(request: Request[Any, Any, Any]) -> Response[Any]:
    """Long poll: a delivery at once, or after a wake-up, or 204 after ``wait`` seconds with nothing to issue."""
    body = await read_json(request)
    data = services.parse_claim(body)
    hub = _hub(request)
    async with hub.unit() as unit:
        settings = await services.load_settings(unit)
    wait = min(float(data.get("wait", settings.claim_wait_seconds)), settings.claim_wait_seconds)
    deadline = anyio.current_time() + wait
    while True:
        # Taken before looking at the queue: a batch created after the look still wakes this claim.
        event = hub.wakeup.current()
        found = await _run(request, lambda u: services.claim(u, body))
        if found is not None:
            return Response(found, status_code=200)
        remaining = deadline - anyio.current_time()
        if remaining <= 0:
            return Response(content=None, status_code=HTTP_204_NO_CONTENT)
        with anyio.move_on_after(min(remaining, REPOLL_SECONDS)):
            await event.wait()


@post("/agent/commands/{command_id:int}/pages", opt={"roles": AGENT}, status_code=200)
async def agent_pages(request: Request[Any, Any, Any], command_id: FromPath[int]) -> dict[str, Any]:
    body = await read_json(request)
    result: dict[str, Any] = await _run(request, lambda u: services.submit_pages(u, command_id, body))
    return result


@post("/agent/commands/{command_id:int}/report", opt={"roles": AGENT}, status_code=200)
async def agent_report(request: Request[Any, Any, Any], command_id: FromPath[int]) -> dict[str, Any]:
    body = await read_json(request)
    result: dict[str, Any] = await _run(request, lambda u: services.report(u, command_id, body))
    return result


@get("/agent/files/{sha256:str}", opt={"roles": AGENT})
async def agent_file(request: Request[Any, Any, Any], sha256: FromPath[str]) -> File:
    """The bytes, streamed from the file store; the agent checks sha256 and size before uploading to Jira."""
    path = await _run(request, lambda u: services.agent_file_path(u, sha256))
    return File(
        path=path, filename=sha256, media_type="application/octet-stream", content_disposition_type="attachment"
    )


ROUTES = [
    create_batch,
    list_batches,
    get_batch,
    cancel_batch,
    get_command,
    cancel_command,
    retry_command,
    upload_file,
    list_projects,
    create_project,
    patch_project,
    delete_project,
    get_settings,
    patch_settings,
    list_issues,
    get_issue,
    issue_history,
    list_notes,
    add_note,
    refresh,
    list_tokens,
    add_token,
    revoke_token,
    agent_status,
    health,
    agent_claim,
    agent_pages,
    agent_report,
    agent_file,
]


def create_app(
    hub: Hub, *, extra_route_handlers: Sequence[Any] = (), close_hub: bool = False, mcp: bool = True
) -> Litestar:
    """The Litestar app over ``hub``, with the MCP endpoint at ``/mcp`` unless ``mcp=False``.

    ``extra_route_handlers`` lets other parts (the web page) mount; ``close_hub`` closes the hub on shutdown.
    """

    @asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        await hub.start_listening()
        try:
            yield
        finally:
            if close_hub:
                await hub.close()

    app = Litestar(
        route_handlers=[*ROUTES, *extra_route_handlers],
        guards=[_guard],
        exception_handlers={
            services.NotFoundError: _core_error,
            ValidationError: _core_error,
            ConflictError: _core_error,
            FileTooLargeError: _core_error,
            HTTPException: _http_error,
            Exception: _internal_error,
        },
        openapi_config=OpenAPIConfig(title="sdlc-hub", version="0.1.0", path="/schema"),
        lifespan=[lifespan],
        request_max_body_size=MAX_JSON_BODY,
        plugins=[McpPlugin()] if mcp else [],
    )
    app.state.hub = hub
    return app
