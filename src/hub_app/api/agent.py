"""Routes of the agent (agent role): the long-poll claim, refresh pages, reports, Jira's webhook events, and the
files to attach."""

from __future__ import annotations

from typing import Any

import anyio
from litestar import Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, FromQuery, JSONBody
from litestar.response import File
from litestar.status_codes import HTTP_204_NO_CONTENT

from hub_app.answers.agent import CommandHeld, DeliveryView, EventsAck, PagesAck, ReportAck
from hub_app.api.routing import in_unit, route
from hub_app.bodies.agent import AgentProblemIn, ClaimIn, EventsIn, PagesIn, ReportIn
from hub_app.bodies.parsing import parse
from hub_app.dispatch import claims, events, reports
from hub_app.operations import admin
from hub_app.runtime.connection import HubRequest, hub_of
from hub_app.runtime.hub import Hub
from hub_app.runtime.roles import AGENT
from reconcile.config import Settings
from reconcile.jira import EventOutcome
from reconcile.vocabulary import ValidationError

__all__ = ["ROUTES"]

_NOTHING = {204: ResponseSpec(data_container=None, description="нечего выдать за время ожидания")}


@post("/agent/claim", **route(AGENT, answer=DeliveryView, errors_=(409, 422), more=_NOTHING))
async def agent_claim(request: HubRequest, data: JSONBody[ClaimIn]) -> Response[Any]:
    """Long poll: a delivery at once, or after a wake-up, or 204 after ``wait`` seconds with nothing to issue (or
    when a newer poll of the same agent instance, or the hub's shutdown, ends it: :mod:`hub_app.runtime.longpoll`)."""
    hub = hub_of(request)
    nothing = Response(content=None, status_code=HTTP_204_NO_CONTENT)
    with hub.wakeup.enter(data.agent_id, data.instance) as waiter:
        settings = await hub.wakeup.look(waiter, lambda: _settings(hub))
        if settings is None:
            return nothing
        wanted = settings.claim_wait_seconds if data.wait is None else data.wait
        deadline = anyio.current_time() + min(wanted, settings.claim_wait_seconds)
        while True:
            waiter.rearm()
            found = await hub.wakeup.look(waiter, lambda: in_unit(request, lambda u: claims.claim_once(u, data)))
            if found is not None:
                return Response(found, status_code=200)
            remaining = deadline - anyio.current_time()
            if remaining <= 0 or waiter.ended is not None:
                return nothing
            await hub.wakeup.wait(waiter, remaining)


async def _settings(hub: Hub) -> Settings:
    async with hub.unit() as unit:
        return await unit.db.admin.settings()


@post("/agent/status", **route(AGENT, status=204, errors_=(409, 422)))
async def agent_problem(request: HubRequest, data: JSONBody[AgentProblemIn]) -> None:
    """The agent is alive (its heartbeat during a pause or a wait), and what keeps it waiting (a TLS failure, a
    wrong Jira URL, Jira's 503…): shown by ``/agent-status``."""
    await in_unit(request, lambda u: claims.record_problem(u, data))


@get("/agent/commands/{command_id:int}", **route(AGENT, answer=CommandHeld, errors_=(404, 422)))
async def agent_command(request: HubRequest, command_id: FromPath[int], instance: FromQuery[str | None] = None) -> Any:
    """Asked before the first write (and after every pause): a command no longer held is dropped unwritten."""
    return await in_unit(request, lambda u: claims.command_held(u, command_id, instance=instance))


@post(
    "/agent/commands/{command_id:int}/pages",
    **route(AGENT, answer=PagesAck, errors_=(404, 409, 422)),
)
async def agent_pages(request: HubRequest, command_id: FromPath[int], data: JSONBody[PagesIn]) -> Any:
    """One page of a refresh: idempotent upserts into the mirror."""
    return await in_unit(request, lambda u: reports.submit_pages(u, command_id, data))


@post(
    "/agent/commands/{command_id:int}/report",
    **route(AGENT, answer=ReportAck, errors_=(404, 409, 422)),
)
async def agent_report(request: HubRequest, command_id: FromPath[int], data: JSONBody[ReportIn]) -> Any:
    """The outcome of a delivery (idempotent); a late one records only what the seed allows."""
    return await in_unit(request, lambda u: reports.report(u, command_id, data))


@post("/agent/events", **route(AGENT, body=EventsIn, answer=EventsAck, errors_=(422,)))
async def agent_events(request: HubRequest, data: JSONBody[Any] = None) -> Any:
    """Jira's webhook events the agent received: newer issues into the mirror, the confirmation by state, and one
    refresh of the hub's for what they could not bring (idempotent)."""
    try:
        body = parse(EventsIn, data)
        return await in_unit(request, lambda u: events.submit_events(u, body))
    except ValidationError:
        told = data.get("events") if isinstance(data, dict) else None
        refused = [EventOutcome.REFUSED.value] * (len(told) if isinstance(told, list) else 1)
        hub_of(request).metrics.events_received(refused)
        raise


@get("/agent/files/{sha256:str}", **route(AGENT, errors_=(404,)), media_type="application/octet-stream")
async def agent_file(request: HubRequest, sha256: FromPath[str]) -> File:
    """The bytes, streamed from the file store; the agent checks sha256 and size before uploading to Jira."""
    async with hub_of(request).unit() as unit:
        path = await admin.agent_file_path(unit, sha256)
    return File(
        path=path, filename=sha256, media_type="application/octet-stream", content_disposition_type="attachment"
    )


ROUTES = [agent_claim, agent_problem, agent_command, agent_pages, agent_report, agent_events, agent_file]
