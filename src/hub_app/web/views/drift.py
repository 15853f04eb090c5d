"""«Расхождения» (``/drift``): desired states of done commands that Jira no longer shows, with who changed them,
and «Вернуть» per item or for a selection (a new batch re-asserting those commands, validated as new)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import get, post
from litestar.params import QueryParameter
from litestar.response import Redirect, Template

from hub_app.answers.batches import BatchCreated
from hub_app.bodies.drift import ReapplyIn
from hub_app.operations import admin, drift
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.hub import Unit
from hub_app.web.acting import attempt, form_body, read, requester, waits
from hub_app.web.render import flash, page
from hub_app.web.views.queue import PageNumber, pages
from reconcile.vocabulary import PROJECT_NAME_MAX

__all__ = ["ITEMS_PER_PAGE", "ROUTES"]

ITEMS_PER_PAGE = 50


def _number(value: str) -> Any:
    """A command id from a form: a number, or the text as sent (the API's 422 then names it)."""
    return int(value) if value.strip().isdigit() else value


@get("/drift")
async def drift_view(
    request: HubRequest,
    number: PageNumber = 1,
    project: Annotated[str, QueryParameter(name="project", max_length=PROJECT_NAME_MAX)] = "",
) -> Template:
    async def look(unit: Unit) -> dict[str, Any]:
        found = await drift.list_drift(
            unit,
            project_name=project or None,
            limit=ITEMS_PER_PAGE,
            offset=(number - 1) * ITEMS_PER_PAGE,
        )
        return {
            "drift": found,
            "projects": await admin.list_projects(unit),
            "pages": pages(found.total, ITEMS_PER_PAGE),
        }

    return page(request, "drift.html", number=number, project=project, **await read(request, look))


@post("/drift/reapply")
async def drift_reapply(request: HubRequest) -> Redirect:
    """«Вернуть»: one item's command (the button's ``one``) or the checked ones (``selected``)."""
    form = await request.form()
    one = form.get("one")
    chosen = [one] if isinstance(one, str) else [v for v in form.getall("selected", []) if isinstance(v, str)]
    asking = requester(request)

    async def put_back(unit: Unit) -> BatchCreated:
        body = form_body(ReapplyIn, {"command_ids": [_number(v) for v in chosen]})
        return await drift.reapply(unit, body, requester=asking)

    outcome = await attempt(request, put_back)
    if outcome.error is not None:
        flash(request, outcome.error, error=True)
        return Redirect("/drift", status_code=303)
    flash(request, f"создан пакет {outcome.value.id}: {outcome.value.title}" + waits(outcome.value))
    return Redirect(f"/batches/{outcome.value.id}", status_code=303)


ROUTES = [drift_view, drift_reapply]
