"""Routes of drift (interface role): the desired states Jira no longer shows, and putting them back."""

from __future__ import annotations

from typing import Any

from litestar import get, post
from litestar.params import FromQuery, JSONBody

from hub_app.answers.batches import BatchCreated
from hub_app.answers.drift import DriftPage
from hub_app.api.routing import in_unit, requester, route
from hub_app.bodies.drift import ReapplyIn
from hub_app.operations import drift
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.roles import INTERFACE

__all__ = ["ROUTES"]


@get("/drift", **route(INTERFACE, answer=DriftPage, errors_=(400, 404, 422)))
async def list_drift(
    request: HubRequest,
    project: FromQuery[str | None] = None,
    limit: FromQuery[int | None] = None,
    offset: FromQuery[int | None] = None,
) -> Any:
    """Desired states of done commands that the mirror no longer shows — per issue and aspect, the latest
    command that set it — in natural key order, with who changed each last and when (from Jira's journal), and
    when the latest full refresh started: drift is only as fresh as the mirror."""
    return await in_unit(request, lambda u: drift.list_drift(u, project_name=project, limit=limit, offset=offset))


@post(
    "/drift/reapply",
    **route(INTERFACE, answer=BatchCreated, status=201, errors_=(404, 409, 422)),
)
async def reapply(request: HubRequest, data: JSONBody[ReapplyIn]) -> Any:
    """One new batch re-asserting the drifted aspects of the chosen commands (temp keys already resolved),
    validated as new, with its tail refresh; a command without drift now → 409."""
    return await in_unit(request, lambda u: drift.reapply(u, data, requester=requester(request)))


ROUTES = [list_drift, reapply]
