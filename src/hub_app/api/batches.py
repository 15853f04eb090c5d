"""Routes of batches and commands (interface role): create (or dry run), read, plan, approve or reject, cancel,
retry, refresh."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from litestar import Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, FromQuery, HeaderParameter, JSONBody, QueryParameter

from hub_app.answers.batches import BatchCreated, BatchDetail, BatchView, CommandView
from hub_app.answers.plans import BatchPlanView, DryRunView, PlanChangedView
from hub_app.answers.undo import UndoView
from hub_app.answers.wire import Items, to_json
from hub_app.api.routing import acting, in_unit, requester, route, token_name
from hub_app.bodies.batches import ApproveIn, BatchIn, CancelIn, EmptyIn, RefreshIn, RejectIn
from hub_app.bodies.parsing import given_json
from hub_app.operations import approvals, batches, following, idempotency, plan, undo
from hub_app.runtime.connection import HubRequest, hub_of
from hub_app.runtime.hub import Unit
from hub_app.runtime.roles import INTERFACE
from reconcile.outlook import parse_filter
from reconcile.queue import BATCH_ASKED, REFRESH_ASKED

__all__ = ["ROUTES"]

_PLANNED = {
    200: ResponseSpec(
        data_container=DryRunView,
        description="dry_run=true; or the batch an earlier request with the same Idempotency-Key created "
        "(header Idempotent-Replayed: true)",
        generate_examples=False,
    )
}
_UNDO_PLANNED = {200: ResponseSpec(data_container=UndoView, description="dry_run=true", generate_examples=False)}

#: ``Idempotency-Key`` (DESIGN.md 6.3): one key per intended batch, kept per token for 24 h.
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        description="1–255 печатных символов ASCII: тот же ключ с тем же телом в течение 24 ч — тот же пакет "
        "(200, Idempotent-Replayed: true); с другим телом — 422. Пробный прогон ключ не проверяет и не занимает.",
    ),
]
#: The header a replayed answer carries.
REPLAYED = "Idempotent-Replayed"
#: The header of a batch's state stamp (:func:`hub_app.operations.following.state_stamp`).
STATE_HEADER = "Batch-State"


async def _created(
    request: HubRequest,
    create: Callable[[Unit], Awaitable[tuple[BatchCreated, bool]]],
    *,
    kind: str,
    body: Any,
    key: str | None,
) -> Response[Any]:
    """A creating request's answer: 201 a new batch, 200 one that was there (the key's, a running refresh)."""
    async with hub_of(request).unit(**acting(request)) as unit:
        done = await idempotency.create_once(
            unit, requester=requester(request), key=key, kind=kind, body=body, create=lambda: create(unit)
        )
        answer = to_json(done.batch)
    headers = {REPLAYED: "true"} if done.replayed else {}
    return Response(answer, status_code=201 if done.new else 200, headers=headers)


@post("/batches", **route(INTERFACE, body=BatchIn, answer=BatchCreated, status=201, errors_=(422,), more=_PLANNED))
async def create_batch(
    request: HubRequest,
    dry_run: FromQuery[bool] = False,
    data: JSONBody[Any] = None,
    idempotency_key: IdempotencyKey = None,
) -> Response[Any]:
    """A batch of commands, validated as a whole; with ``dry_run=true`` nothing is written and each command's
    predicted writes are answered. With ``Idempotency-Key``, a retried request answers the first's batch."""
    if dry_run:
        return Response(await in_unit(request, lambda u: plan.dry_run(u, data)), status_code=200)

    async def create(unit: Unit) -> tuple[BatchCreated, bool]:
        return await batches.create_batch(unit, data, requester=requester(request)), True

    return await _created(request, create, kind=BATCH_ASKED, body=data, key=idempotency_key)


@get("/batches", **route(INTERFACE, answer=Items[BatchView], errors_=(400, 422)))
async def list_batches(
    request: HubRequest,
    limit: FromQuery[int | None] = None,
    offset: FromQuery[int | None] = None,
    status: Annotated[
        str | None,
        QueryParameter(description="only batches in this state (awaiting_approval, queued, running, done, …)"),
    ] = None,
    author: Annotated[str | None, QueryParameter(description="only batches created with this token")] = None,
) -> Any:
    """Batches, newest first, with their commands and progress; ``status`` and ``author`` narrow them as the
    queue page's filter does (``/?status=running``)."""
    only = parse_filter({"status": status or "", "author": author or "", "auto": "1"}) if status or author else None
    return await in_unit(request, lambda u: batches.list_batches(u, limit=limit, offset=offset, only=only))


_STAMP = ResponseHeader(
    name=STATE_HEADER,
    description="отпечаток состояния пакета (статусы команд и одобрение): since для следующего ожидания",
    documentation_only=True,
)


@get(
    "/batches/{batch_id:int}",
    **route(INTERFACE, answer=BatchDetail, errors_=(400, 404, 422)),
    response_headers=[_STAMP],
)
async def get_batch(
    request: HubRequest,
    batch_id: FromPath[int],
    wait: Annotated[
        float,
        QueryParameter(
            description="ждать до стольких секунд (≤ 55), пока статус какой-нибудь команды пакета или его одобрение "
            "не изменится; ответ — сразу после изменения или по истечении срока",
        ),
    ] = 0,
    since: Annotated[
        str | None,
        QueryParameter(
            description="заголовок Batch-State прошлого ответа: ждать изменения относительно него, а не состояния на "
            "момент запроса (ни одно изменение между запросами не теряется)",
        ),
    ] = None,
) -> Response[Any]:
    """One batch with its commands, statuses, results, errors, progress and notes; with ``wait``, a long poll that
    answers at the first change of a command's status (or of its approval)."""
    found, stamp = await following.follow_batch(
        hub_of(request), batch_id, wait=following.check_wait(wait, "wait"), since=since
    )
    return Response(to_json(found), headers={STATE_HEADER: stamp})


@get("/batches/{batch_id:int}/plan", **route(INTERFACE, answer=BatchPlanView, errors_=(400, 404)))
async def batch_plan(request: HubRequest, batch_id: FromPath[int]) -> Any:
    """What its unfinished commands would write in Jira, computed now from the mirror: per command lines ``+``
    create, ``~`` change ``old → new``, ``-`` delete, ``=`` no changes, ``!`` fails, ``?`` a call the mirror cannot
    answer; ``unknown`` marks what the plan cannot know yet."""
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
    **route(INTERFACE, answer=BatchView, errors_=(404, 409, 422), more=_PLAN_CHANGED),
)
async def approve_batch(request: HubRequest, batch_id: FromPath[int], data: JSONBody[ApproveIn]) -> Any:
    """A batch waiting for approval is approved with the plan the person read (``{"plan": "<digest>"}``, the
    ``digest`` of ``GET /batches/{id}/plan``) and its commands may be issued; only by a token other than the
    creator's (403 «нельзя одобрить свой пакет») that does not require approval itself (403); a batch not
    waiting → 409; a plan that changed since → 409 «план изменился — посмотрите и одобрите заново» with the current
    ``plan``; no ``plan`` → 422."""
    return await in_unit(request, lambda u: approvals.approve_batch(u, batch_id, data, approver=requester(request)))


@post(
    "/batches/{batch_id:int}/reject",
    **route(INTERFACE, answer=BatchView, errors_=(404, 409, 422)),
)
async def reject_batch(request: HubRequest, batch_id: FromPath[int], data: JSONBody[RejectIn]) -> Any:
    """A batch waiting for approval is rejected: its commands are cancelled with «пакет отклонён: <reason>»; a
    batch not waiting → 409."""
    return await in_unit(request, lambda u: approvals.reject_batch(u, batch_id, data, token_name=token_name(request)))


@post(
    "/batches/{batch_id:int}/undo",
    **route(INTERFACE, answer=UndoView, status=201, errors_=(404, 409, 422), more=_UNDO_PLANNED),
)
async def undo_batch(
    request: HubRequest, batch_id: FromPath[int], data: JSONBody[EmptyIn], dry_run: FromQuery[bool] = False
) -> Response[Any]:
    """The batch taken back (DESIGN.md 6.4): with ``dry_run=true`` the plan of its inverse batch, nothing written;
    without, the undo batch created (``undo_of``), waiting for approval as any batch of the token does, and always
    when the batch undone waited. Fields back only while Jira still holds what the batch set; what a person changed
    since is kept and named (``kept``); what a command replaced when its result does not say is listed «что было до
    — не известно». 409: the batch still runs, or there is nothing to take back."""
    answer = await in_unit(
        request, lambda u: undo.undo_batch(u, batch_id, requester=requester(request), dry_run=dry_run)
    )
    return Response(answer, status_code=200 if dry_run else 201)


@post("/batches/{batch_id:int}/cancel", **route(INTERFACE, answer=BatchView, errors_=(404, 422)))
async def cancel_batch(request: HubRequest, batch_id: FromPath[int], data: JSONBody[CancelIn]) -> Any:
    """Its queued commands are cancelled; the claimed one too only with ``force``."""
    return await in_unit(request, lambda u: batches.cancel_batch(u, batch_id, data))


@get("/commands/{command_id:int}", **route(INTERFACE, answer=CommandView, errors_=(400, 404)))
async def get_command(request: HubRequest, command_id: FromPath[int]) -> Any:
    """One command with its deliveries, times, result, error, Jira calls and operations."""
    return await in_unit(request, lambda u: batches.get_command(u, command_id))


@post(
    "/commands/{command_id:int}/cancel",
    **route(INTERFACE, answer=CommandView, errors_=(404, 409, 422)),
)
async def cancel_command(request: HubRequest, command_id: FromPath[int], data: JSONBody[CancelIn]) -> Any:
    """A queued command is cancelled; a claimed one only with ``force`` (409 without)."""
    return await in_unit(request, lambda u: batches.cancel_command(u, command_id, data))


@post(
    "/commands/{command_id:int}/retry",
    **route(INTERFACE, answer=BatchCreated, status=201, errors_=(404, 409, 422)),
)
async def retry_command(request: HubRequest, command_id: FromPath[int], data: JSONBody[EmptyIn]) -> Any:
    """A failed, skipped or cancelled command again: a new batch with the same params, validated as new; it waits
    for approval again when the command's batch did."""
    return await in_unit(request, lambda u: batches.retry_command(u, command_id, requester=requester(request)))


_RUNNING = {
    200: ResponseSpec(
        data_container=BatchCreated,
        description="a full refresh already queued or running; or the batch an earlier request with the same "
        "Idempotency-Key created (header Idempotent-Replayed: true)",
        generate_examples=False,
    )
}


@post("/refresh", **route(INTERFACE, answer=BatchCreated, status=201, errors_=(422,), more=_RUNNING))
async def refresh(
    request: HubRequest, data: JSONBody[RefreshIn], idempotency_key: IdempotencyKey = None
) -> Response[Any]:
    """``{keys}``, ``{jql}`` or ``{}`` (a full refresh by the projects' base JQL) as a refresh-only batch; a full
    refresh asked while one is queued or running answers that one's batch (200), storing nothing."""

    async def create(unit: Unit) -> tuple[BatchCreated, bool]:
        return await batches.request_refresh(unit, data, requester=requester(request))

    return await _created(request, create, kind=REFRESH_ASKED, body=given_json(data), key=idempotency_key)


ROUTES = [
    create_batch,
    list_batches,
    get_batch,
    batch_plan,
    approve_batch,
    reject_batch,
    undo_batch,
    cancel_batch,
    get_command,
    cancel_command,
    retry_command,
    refresh,
]
