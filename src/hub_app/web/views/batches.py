"""A batch (``/batches/{id}``) and a command (``/commands/{id}``): reading them, approving or rejecting a batch
that waits for a person, cancelling, retrying.

«Отменить», «Отменить принудительно» and «Повторить» first show a confirmation page (it works without
JavaScript): the cancel says which commands stop and that the batch's tail refresh stops with them, the forced
cancel explains that a command already with the agent may still be written, the retry shows the batch it will
create with its parameters. Each action answers with a redirect
to the page that shows its result (and its refusal, in the hub's words).
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import get, post
from litestar.params import FromPath, QueryParameter
from litestar.response import Redirect, Template

from hub_app.answers.wire import iso
from hub_app.bodies.batches import ApproveIn, CancelIn, RejectIn
from hub_app.operations import approvals, batches, plan
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import resolved_in_batch
from hub_app.web.acting import attempt, author, form_body, read, requester, waits
from hub_app.web.labels import duration
from hub_app.web.render import flash, form_text, fragment, is_htmx, page, safe_next
from reconcile.outlook import OWN_BATCH, WAITS_FOR_ANOTHER, Approval, ApprovalState, approval_refusal

__all__ = ["QUEUED_ONLY", "ROUTES", "STILL_WRITTEN", "tail_refresh_note"]

#: What «Отменить принудительно» asks the person to understand before confirming.
STILL_WRITTEN = (
    "Команда, уже выданная агенту, может всё равно быть записана в Jira: если агент уже начал писать, он "
    "допишет её; если он ещё выжидает паузу, он бросит её, ничего не записав. Что в итоге в Jira, покажет "
    "следующее обновление зеркала."
)


#: What the page says instead of «Одобрить» to whom the hub would refuse it.
_WHY_NOT = {OWN_BATCH: f"Ваш пакет {WAITS_FOR_ANOTHER}: одобрить свой пакет нельзя."}


#: What «Отменить» (without force) asks the person to understand before confirming.
QUEUED_ONLY = (
    "Отменятся команды в очереди; команда, уже выданная агенту, допишется (её снимает только принудительная отмена)."
)


def tail_refresh_note(auto_refresh_minutes: float) -> str:
    """Why cancelling a batch also cancels its tail refresh, and when the mirror catches up instead."""
    return (
        "Обновление из Jira в конце пакета тоже отменится: отменённый пакет больше не обращается к Jira. Что пакет "
        f"успел записать, зеркало покажет после автообновления (раз в {duration(auto_refresh_minutes * 60)}, "
        "когда очередь пуста)."
    )


#: ``?force=false``: the confirmation of «Отменить»; without it, of «Отменить принудительно».
Forced = Annotated[bool, QueryParameter(name="force")]

#: The forms of the confirmation page: its title and its warning, by ``force``.
_CANCEL = {True: ("Отменить принудительно", STILL_WRITTEN), False: ("Отменить", QUEUED_ONLY)}


@get("/batches")
async def batches_list() -> Redirect:
    """The batches are listed on «Очередь»."""
    return Redirect("/", status_code=303)


@get("/batches/{batch_id:int}")
async def batch_view(request: HubRequest, batch_id: FromPath[int]) -> Template:
    """The batch; one waiting for approval shows its plan with «Одобрить» and «Отклонить»."""
    if is_htmx(request):
        detail = await read(request, lambda u: batches.get_batch(u, batch_id))
        return fragment(request, "_batch.html", batch=detail, temp_keys=detail.temp_keys)

    asking = requester(request)

    async def look(unit: Unit) -> dict[str, Any]:
        detail = await batches.get_batch(unit, batch_id)
        pending = detail.approval is not None and detail.approval.state == ApprovalState.PENDING
        refused = approval_refusal(
            Approval(state=ApprovalState.PENDING),
            batch_id=batch_id,
            creator=detail.token_name,
            approver=asking.token_name or "",
            approver_needs_approval=asking.needs_approval,
        )
        return {
            "batch": detail,
            "temp_keys": detail.temp_keys,
            "plan": await plan.batch_plan(unit, batch_id) if pending else None,
            "cannot_approve": None if refused is None else _WHY_NOT.get(refused.message, refused.message),
        }

    return page(request, "batch.html", **await read(request, look))


@post("/batches/{batch_id:int}/approve")
async def batch_approve(request: HubRequest, batch_id: FromPath[int]) -> Redirect:
    """«Одобрить» the plan shown (its digest is in the form): by a token other than the creator's that does not
    require approval itself (the hub refuses the others); a plan that changed since is refused, and the page shows
    the plan now."""
    asking = requester(request)
    digest = form_text(await request.form(), "plan")

    async def approve(unit: Unit) -> Any:
        return await approvals.approve_batch(unit, batch_id, form_body(ApproveIn, {"plan": digest}), approver=asking)

    outcome = await attempt(request, approve)
    flash(request, outcome.error or f"пакет {batch_id} одобрен", error=outcome.error is not None)
    return Redirect(f"/batches/{batch_id}", status_code=303)


@post("/batches/{batch_id:int}/reject")
async def batch_reject(request: HubRequest, batch_id: FromPath[int]) -> Redirect:
    """«Отклонить» with a reason: the batch's queued commands are cancelled with it."""
    reason, name = form_text(await request.form(), "reason"), author(request)

    async def reject(unit: Unit) -> Any:
        return await approvals.reject_batch(unit, batch_id, form_body(RejectIn, {"reason": reason}), token_name=name)

    outcome = await attempt(request, reject)
    flash(request, outcome.error or f"пакет {batch_id} отклонён: {reason}", error=outcome.error is not None)
    return Redirect(f"/batches/{batch_id}", status_code=303)


@get("/batches/{batch_id:int}/cancel")
async def batch_cancel_confirm(request: HubRequest, batch_id: FromPath[int], force: Forced = True) -> Template:
    """The confirmation of «Отменить» (``?force=false``) or «Отменить принудительно» for the whole batch."""

    async def look(unit: Unit) -> tuple[Any, float]:
        return await batches.get_batch(unit, batch_id), (await unit.db.admin.settings()).auto_refresh_minutes

    detail, minutes = await read(request, look)
    title, warning = _CANCEL[force]
    return page(
        request,
        "confirm_cancel.html",
        action=f"/batches/{batch_id}/cancel",
        back=f"/batches/{batch_id}",
        title=title,
        force=force,
        what=f"пакет {batch_id} «{detail.title}»",
        claimed=[c for c in detail.commands if c.status == "claimed"],
        queued=[c for c in detail.commands if c.status == "queued"],
        warning=warning,
        tail=tail_refresh_note(minutes) if any(c.status == "queued" for c in detail.commands) else None,
    )


@post("/batches/{batch_id:int}/cancel")
async def batch_cancel(request: HubRequest, batch_id: FromPath[int]) -> Redirect:
    force = form_text(await request.form(), "force") == "true"

    async def cancel(unit: Unit) -> str:
        after = await batches.cancel_batch(unit, batch_id, CancelIn(force=force))
        now = iso(unit.now)
        count = sum(1 for c in after.commands if c.status == "cancelled" and c.finished_at == now)
        told = f"отменено команд: {count}"
        for left in (c for c in after.commands if c.status == "claimed"):
            told += f"; команда {left.id} уже у агента и выполняется («Отменить принудительно» отменит и её)"
        return told

    outcome = await attempt(request, cancel)
    flash(request, outcome.error or outcome.value, error=outcome.error is not None)
    return Redirect(f"/batches/{batch_id}", status_code=303)


@get("/commands/{command_id:int}")
async def command_view(request: HubRequest, command_id: FromPath[int]) -> Template:
    async def look(unit: Unit) -> dict[str, Any]:
        command = await batches.get_command(unit, command_id)
        return {"command": command, "temp_keys": await resolved_in_batch(unit, command.batch_id)}

    return page(request, "command.html", **await read(request, look))


@get("/commands/{command_id:int}/cancel")
async def command_cancel_confirm(request: HubRequest, command_id: FromPath[int], force: Forced = True) -> Template:
    """The confirmation of «Отменить» (``?force=false``) or «Отменить принудительно» for one command."""
    command = await read(request, lambda u: batches.get_command(u, command_id))
    title, _ = _CANCEL[force]
    return page(
        request,
        "confirm_cancel.html",
        action=f"/commands/{command_id}/cancel",
        back=f"/batches/{command.batch_id}",
        title=title,
        force=force,
        what=f"команду {command_id} ({command.type})",
        claimed=[command] if command.status == "claimed" else [],
        queued=[command] if command.status == "queued" else [],
        warning=STILL_WRITTEN if force else "Команда не будет выдана агенту.",
        tail=None,
    )


@post("/commands/{command_id:int}/cancel")
async def command_cancel(request: HubRequest, command_id: FromPath[int]) -> Redirect:
    form = await request.form()
    force = form_text(form, "force") == "true"
    outcome = await attempt(request, lambda u: batches.cancel_command(u, command_id, CancelIn(force=force)))
    flash(request, outcome.error or f"команда {command_id} отменена", error=outcome.error is not None)
    return Redirect(safe_next(form_text(form, "back") or f"/commands/{command_id}"), status_code=303)


@get("/commands/{command_id:int}/retry")
async def command_retry_confirm(request: HubRequest, command_id: FromPath[int]) -> Template:
    """«Повторить» shows the batch it will create (its parameters) before the person confirms."""

    async def look(unit: Unit) -> dict[str, Any]:
        return {
            "command": await batches.get_command(unit, command_id),
            "body": await batches.retry_batch(unit, command_id),
        }

    return page(request, "confirm_retry.html", **await read(request, look))


@post("/commands/{command_id:int}/retry")
async def command_retry(request: HubRequest, command_id: FromPath[int]) -> Redirect:
    asking = requester(request)
    outcome = await attempt(request, lambda u: batches.retry_command(u, command_id, requester=asking))
    if outcome.error is not None:
        flash(request, outcome.error, error=True)
        return Redirect(f"/commands/{command_id}", status_code=303)
    flash(request, f"создан пакет {outcome.value.id}: повтор команды {command_id}" + waits(outcome.value))
    return Redirect(f"/batches/{outcome.value.id}", status_code=303)


ROUTES = [
    batches_list,
    batch_view,
    batch_approve,
    batch_reject,
    batch_cancel_confirm,
    batch_cancel,
    command_view,
    command_cancel_confirm,
    command_cancel,
    command_retry_confirm,
    command_retry,
]
