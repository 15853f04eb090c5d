"""«Откатить пакет…» (DESIGN.md 6.4, 8): the plan of the batch's undo on a confirmation page (it works without
JavaScript), then the undo batch created, which waits for approval where it must."""

from __future__ import annotations

from litestar import get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template

from hub_app.operations import undo
from hub_app.runtime.connection import HubRequest
from hub_app.web.acting import attempt, requester, waits
from hub_app.web.render import flash, page

__all__ = ["ROUTES"]


@get("/batches/{batch_id:int}/undo")
async def batch_undo_confirm(request: HubRequest, batch_id: FromPath[int]) -> Template | Redirect:
    """The undo's plan: what happens to each command, what people changed since (kept), the inverse batch's lines."""
    asking = requester(request)
    outcome = await attempt(request, lambda u: undo.undo_batch(u, batch_id, requester=asking, dry_run=True))
    if outcome.error is not None:
        flash(request, outcome.error, error=True)
        return Redirect(f"/batches/{batch_id}", status_code=303)
    return page(request, "confirm_undo.html", undo=outcome.value, batch_id=batch_id)


@post("/batches/{batch_id:int}/undo")
async def batch_undo(request: HubRequest, batch_id: FromPath[int]) -> Redirect:
    """«Откатить»: the undo batch created; the page of the new batch, or the refusal on the batch's page."""
    asking = requester(request)
    outcome = await attempt(request, lambda u: undo.undo_batch(u, batch_id, requester=asking, dry_run=False))
    if outcome.error is not None or outcome.value.batch is None:
        flash(request, outcome.error or f"в пакете {batch_id} нечего откатывать", error=True)
        return Redirect(f"/batches/{batch_id}", status_code=303)
    created = outcome.value.batch
    flash(request, f"создан пакет {created.id}: откат пакета {batch_id}" + waits(created))
    return Redirect(f"/batches/{created.id}", status_code=303)


ROUTES = [batch_undo_confirm, batch_undo]
