"""Routes of batches and commands (interface role): create (or dry run), read, plan, approve or reject, cancel,
retry, refresh."""

from __future__ import annotations

from typing import Any

from litestar import Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, FromQuery, JSONBody

from hub_app import approvals, batches, plan
from hub_app.answers.batches import BatchCreated, BatchDetail, BatchView, CommandView
from hub_app.answers.plans import BatchPlanView, DryRunView, PlanChangedView
from hub_app.answers.wire import Items, to_json
from hub_app.api.routing import acting, in_unit, requester, route, token_name
from hub_app.bodies.batches import ApproveIn, BatchIn, CancelIn, EmptyIn, RefreshIn, RejectIn
from hub_app.bodies.parsing import parse
from hub_app.connection import HubRequest, hub_of
from hub_app.roles import INTERFACE
from reconcile.approved_plan import PLAN_NEEDED
from reconcile.errors import ValidationError

__all__ = ["ROUTES"]

_PLANNED = {200: ResponseSpec(data_container=DryRunView, description="dry_run=true", generate_examples=False)}


@post("/batches", **route(INTERFACE, body=BatchIn, answer=BatchCreated, status=201, errors_=(422,), more=_PLANNED))
async def create_batch(
    request: HubRequest, dry_run: FromQuery[bool] = False, data: JSONBody[Any] = None
) -> Response[Any]:
    """A batch of commands, validated as a whole; with ``dry_run=true`` nothing is written and each command's
    predicted writes are answered."""
    if dry_run:
        return Response(await in_unit(request, lambda u: plan.dry_run(u, data)), status_code=200)
    created = await in_unit(request, lambda u: batches.create_batch(u, data, requester=requester(request)))
    return Response(created, status_code=201)


@get("/batches", **route(INTERFACE, answer=Items[BatchView], errors_=(400, 422)))
async def list_batches(
    request: HubRequest,
    limit: FromQuery[int | None] = None,
    offset: FromQuery[int | None] = None,
) -> Any:
    """Batches, newest first, with their commands and progress."""
    return await in_unit(request, lambda u: batches.list_batches(u, limit=limit, offset=offset))


@get("/batches/{batch_id:int}", **route(INTERFACE, answer=BatchDetail, errors_=(400, 404)))
async def get_batch(request: HubRequest, batch_id: FromPath[int]) -> Any:
    """One batch with its commands, statuses, results, errors, progress and notes."""
    return await in_unit(request, lambda u: batches.get_batch(u, batch_id))


@get("/batches/{batch_id:int}/plan", **route(INTERFACE, answer=BatchPlanView, errors_=(400, 404)))
async def batch_plan(request: HubRequest, batch_id: FromPath[int]) -> Any:
    """What its unfinished commands would write in Jira, computed now from the mirror: per command lines ``+``
    create, ``~`` change ``old → new``, ``-`` delete, ``=`` no changes, ``!`` fails; ``unknown`` marks what the
    plan cannot know yet."""
    return await in_unit(request, lambda u: plan.batch_plan(u, batch_id))


_PLAN_CHANGED = {
    409: ResponseSpec(
        data_container=PlanChangedView,
        description="не ждёт одобрения, или план изменился (plan — текущий план)",
        generate_examples=False,
    )
}


@post(
    "/batches/{batch_id:int}/approve",
    **route(INTERFACE, body=ApproveIn, answer=BatchView, errors_=(404, 409, 422), more=_PLAN_CHANGED),
)
async def approve_batch(request: HubRequest, batch_id: FromPath[int], data: JSONBody[Any] = None) -> Any:
    """A batch waiting for approval is approved with the plan the person read (``{"plan": "<digest>"}``, the
    ``digest`` of ``GET /batches/{id}/plan``) and its commands may be issued; only by a token other than the
    creator's (403 «нельзя одобрить свой пакет») that does not require approval itself (403); a batch not
    waiting → 409; a plan that changed since → 409 «план изменился — посмотрите и одобрите заново» with the current
    ``plan``; no ``plan`` → 422."""
    if not isinstance(data, dict) or "plan" not in data:
        raise ValidationError(PLAN_NEEDED)
    body = parse(ApproveIn, data)
    return await in_unit(request, lambda u: approvals.approve_batch(u, batch_id, body, approver=requester(request)))


@post(
    "/batches/{batch_id:int}/reject",
    **route(INTERFACE, body=RejectIn, answer=BatchView, errors_=(404, 409, 422)),
)
async def reject_batch(request: HubRequest, batch_id: FromPath[int], data: JSONBody[Any] = None) -> Any:
    """A batch waiting for approval is rejected: its commands are cancelled with «пакет отклонён: <reason>»; a
    batch not waiting → 409."""
    body = parse(RejectIn, data)
    return await in_unit(request, lambda u: approvals.reject_batch(u, batch_id, body, token_name=token_name(request)))


@post("/batches/{batch_id:int}/cancel", **route(INTERFACE, body=CancelIn, answer=BatchView, errors_=(404, 422)))
async def cancel_batch(request: HubRequest, batch_id: FromPath[int], data: JSONBody[Any] = None) -> Any:
    """Its queued commands are cancelled; the claimed one too only with ``force``."""
    body = parse(CancelIn, data)
    return await in_unit(request, lambda u: batches.cancel_batch(u, batch_id, body))


@get("/commands/{command_id:int}", **route(INTERFACE, answer=CommandView, errors_=(400, 404)))
async def get_command(request: HubRequest, command_id: FromPath[int]) -> Any:
    """One command with its deliveries, times, result, error, Jira calls and operations."""
    return await in_unit(request, lambda u: batches.get_command(u, command_id))


@post(
    "/commands/{command_id:int}/cancel",
    **route(INTERFACE, body=CancelIn, answer=CommandView, errors_=(404, 409, 422)),
)
async def cancel_command(request: HubRequest, command_id: FromPath[int], data: JSONBody[Any] = None) -> Any:
    """A queued command is cancelled; a claimed one only with ``force`` (409 without)."""
    body = parse(CancelIn, data)
    return await in_unit(request, lambda u: batches.cancel_command(u, command_id, body))


@post(
    "/commands/{command_id:int}/retry",
    **route(INTERFACE, body=EmptyIn, answer=BatchCreated, status=201, errors_=(404, 409, 422)),
)
async def retry_command(request: HubRequest, command_id: FromPath[int], data: JSONBody[Any] = None) -> Any:
    """A failed, skipped or cancelled command again: a new batch with the same params, validated as new; it waits
    for approval again when the command's batch did."""
    parse(EmptyIn, data)
    return await in_unit(request, lambda u: batches.retry_command(u, command_id, requester=requester(request)))


_RUNNING = {
    200: ResponseSpec(
        data_container=BatchCreated, description="a full refresh already queued or running", generate_examples=False
    )
}


@post("/refresh", **route(INTERFACE, body=RefreshIn, answer=BatchCreated, status=201, errors_=(422,), more=_RUNNING))
async def refresh(request: HubRequest, data: JSONBody[Any] = None) -> Response[Any]:
    """``{keys}``, ``{jql}`` or ``{}`` (a full refresh by the projects' base JQL) as a refresh-only batch; a full
    refresh asked while one is queued or running answers that one's batch (200), storing nothing."""
    body = parse(RefreshIn, data)
    async with hub_of(request).unit(**acting(request)) as unit:
        created, new = await batches.request_refresh(unit, body, requester=requester(request))
        answer = to_json(created)
    return Response(answer, status_code=201 if new else 200)


ROUTES = [
    create_batch,
    list_batches,
    get_batch,
    batch_plan,
    approve_batch,
    reject_batch,
    cancel_batch,
    get_command,
    cancel_command,
    retry_command,
    refresh,
]
