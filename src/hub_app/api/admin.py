"""Routes of administration: projects, settings and tokens (writes by admin), files, the agent's status, health,
readiness and metrics."""

from __future__ import annotations

from typing import Any

from litestar import Response, delete, get, head, patch, post
from litestar.params import FromPath, FromQuery, JSONBody

from adapters.storage.engine import head_revision, schema_revision
from adapters.storage.outage import OUTAGE_TYPES, RETRY_AFTER_SECONDS
from hub_app.answers.admin import FileStored, HealthView, ProjectView, TokenCreated, TokenView
from hub_app.answers.agent import AgentStatusView
from hub_app.answers.wire import Items, to_json
from hub_app.api.errors import DATABASE_UNAVAILABLE, error_response
from hub_app.api.routing import in_unit, route
from hub_app.bodies.admin import ProjectIn, ProjectPatchIn, SettingsIn, TokenIn
from hub_app.dispatch import claims, overview
from hub_app.operations import admin
from hub_app.runtime.connection import HubRequest, hub_of
from hub_app.runtime.hub import Hub
from hub_app.runtime.metrics import CONTENT_TYPE_LATEST
from hub_app.runtime.roles import ADMIN, INTERFACE
from reconcile.config import Settings

__all__ = ["ROUTES"]


@post("/files", request_max_body_size=None, **route(INTERFACE, answer=FileStored, status=201, errors_=(400, 413, 422)))
async def upload_file(request: HubRequest, filename: FromQuery[str | None] = None) -> Any:
    """The raw body is stored by its sha256 (over ``max_file_bytes``, or past the store's ``max_store_bytes`` →
    413, nothing kept); ``ensure_attachment`` names it. Files past ``file_retention_hours`` that no queued or
    claimed command names are pruned first."""
    return to_json(await admin.upload_file(hub_of(request), request.stream(), filename=filename))


@get("/projects", **route(INTERFACE, answer=Items[ProjectView]))
async def list_projects(request: HubRequest) -> Any:
    """Projects (Jira labels of the hub's Jira project) with their boards, in creation order."""
    items = await in_unit(request, admin.list_projects)
    return {"items": items, "total": len(items)}


@post("/projects", **route(ADMIN, answer=ProjectView, status=201, errors_=(409, 422)))
async def create_project(request: HubRequest, data: JSONBody[ProjectIn]) -> Any:
    return await in_unit(request, lambda u: admin.create_project(u, data))


@patch("/projects/{name:str}", **route(ADMIN, answer=ProjectView, errors_=(404, 422)))
async def patch_project(request: HubRequest, name: FromPath[str], data: JSONBody[ProjectPatchIn]) -> Any:
    """Another board forgets its type until a refresh reads it (unless the type is given too)."""
    return await in_unit(request, lambda u: admin.patch_project(u, name, data))


@delete("/projects/{name:str}", **route(ADMIN, status=204, errors_=(404,)))
async def delete_project(request: HubRequest, name: FromPath[str]) -> None:
    await in_unit(request, lambda u: admin.delete_project(u, name))


@get("/settings", **route(INTERFACE, answer=Settings))
async def get_settings(request: HubRequest) -> Any:
    return await in_unit(request, admin.get_settings)


@patch("/settings", **route(ADMIN, body=SettingsIn, answer=Settings, errors_=(422,)))
async def patch_settings(request: HubRequest, data: JSONBody[Any] = None) -> Any:
    """Any subset of the settings, validated as a whole: on any error nothing changes (422)."""
    return await in_unit(request, lambda u: admin.patch_settings(u, data))


@get("/tokens", **route(ADMIN, answer=Items[TokenView]))
async def list_tokens(request: HubRequest) -> Any:
    items = await in_unit(request, admin.list_tokens)
    return {"items": items, "total": len(items)}


@post("/tokens", **route(ADMIN, answer=TokenCreated, status=201, errors_=(409, 422)))
async def add_token(request: HubRequest, data: JSONBody[TokenIn]) -> Any:
    """``{name, role}`` → the token with its secret, shown only in this answer."""
    return await in_unit(request, lambda u: admin.add_token(u, data))


@delete("/tokens/{name:str}", **route(ADMIN, answer=TokenView, status=200, errors_=(404,)))
async def revoke_token(request: HubRequest, name: FromPath[str]) -> Any:
    return await in_unit(request, lambda u: admin.revoke_token(u, name))


@get("/agent-status", **route(INTERFACE, answer=AgentStatusView))
async def agent_status(request: HubRequest) -> Any:
    """The agent as the hub last saw it, and whether it is online (seen within 2 × claim wait)."""
    return await in_unit(request, claims.agent_status)


@get("/health", **route(None, answer=HealthView))
async def health() -> Response[Any]:
    """Liveness: 200 while the process runs (the database is ``/readyz``'s business)."""
    return Response({"status": "ok"}, status_code=200)


@head("/health", include_in_schema=False)
async def health_head() -> Response[None]:
    """``HEAD /health``: what GET answers, without the body (load balancers probe with HEAD)."""
    return Response(None, status_code=200)


async def _not_ready(hub: Hub) -> str | None:
    """Why the hub cannot serve (the database does not answer, or its schema is not the code's), else None."""
    if not await hub.ping():
        return DATABASE_UNAVAILABLE
    try:
        current, wanted = await schema_revision(hub.database.engine), head_revision()
    except OUTAGE_TYPES:
        return DATABASE_UNAVAILABLE
    if current != wanted:
        return f"схема базы данных {current or 'пуста'}, нужна {wanted}: выполните sdlc-hub migrate"
    return None


@get("/readyz", **route(None, answer=HealthView, errors_=(503,)))
async def readyz(request: HubRequest) -> Response[Any]:
    """Readiness: 200 when the database answers and its schema is the code's, else 503 with the reason."""
    problem = await _not_ready(hub_of(request))
    if problem is not None:
        return error_response(503, problem, {"Retry-After": str(RETRY_AFTER_SECONDS)})
    return Response({"status": "ready"}, status_code=200)


@head("/readyz", include_in_schema=False)
async def readyz_head(request: HubRequest) -> Response[None]:
    """``HEAD /readyz``: GET's status and ``Retry-After``, without the body."""
    if await _not_ready(hub_of(request)) is not None:
        return Response(None, status_code=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    return Response(None, status_code=200)


@get("/metrics", include_in_schema=False)
async def metrics(request: HubRequest) -> Response[bytes]:
    """Prometheus text, without a token (DESIGN.md 6): bind the hub to an internal interface, or filter the path
    at the proxy. Left out of the OpenAPI document on purpose: it is not JSON, and its format is Prometheus's."""
    hub = hub_of(request)
    async with hub.unit() as unit:
        readings = await overview.read_queue(unit)
    # Given as the header: Litestar would append a second «; charset=utf-8» to the media type's own.
    return Response(hub.metrics.render(readings), headers={"Content-Type": CONTENT_TYPE_LATEST})


ROUTES = [
    upload_file,
    list_projects,
    create_project,
    patch_project,
    delete_project,
    get_settings,
    patch_settings,
    list_tokens,
    add_token,
    revoke_token,
    agent_status,
    health,
    health_head,
    readyz,
    readyz_head,
    metrics,
]
