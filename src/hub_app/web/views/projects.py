"""Projects (``/projects``; admins add, change and delete them) and a project's mirror slice (``/projects/{name}``).

The slice is paged and filtered in the database (text in key or summary, exact status): the first page of a
10 000-issue project costs what it costs for a hundred.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import get, post
from litestar.params import FromPath, QueryParameter
from litestar.response import Redirect, Template

from hub_app.bodies.admin import ProjectIn, ProjectPatchIn
from hub_app.operations import admin, mirror
from hub_app.runtime import lookups
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.hub import Unit
from hub_app.runtime.roles import ADMIN
from hub_app.web.acting import attempt, form_body, read
from hub_app.web.render import flash, form_text, fragment, is_htmx, page, segment
from hub_app.web.views.queue import PageNumber, pages

__all__ = ["ISSUES_PER_PAGE", "ROUTES"]

ISSUES_PER_PAGE = 50

_ADMIN = {"page_roles": ADMIN}


def _board_id(value: str) -> Any:
    """A board id typed in a form: a number, none, or the text as typed (the API's 422 then names it)."""
    value = value.strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        return value


def _board_fields(form: Any) -> dict[str, Any]:
    return {"board_id": _board_id(form_text(form, "board_id")), "board_type": form_text(form, "board_type") or None}


@get("/projects")
async def projects_view(request: HubRequest) -> Template:
    return page(request, "projects.html", projects=await read(request, admin.list_projects))


@post("/projects", opt=_ADMIN)
async def project_add(request: HubRequest) -> Redirect:
    form = await request.form()
    name = form_text(form, "name").strip()

    async def add(unit: Unit) -> Any:
        return await admin.create_project(unit, form_body(ProjectIn, {"name": name, **_board_fields(form)}))

    outcome = await attempt(request, add)
    flash(request, outcome.error or f"проект {name} добавлен", error=outcome.error is not None)
    return Redirect("/projects", status_code=303)


@post("/projects/{name:str}/edit", opt=_ADMIN)
async def project_change(request: HubRequest, name: FromPath[str]) -> Redirect:
    form = await request.form()

    async def change(unit: Unit) -> Any:
        return await admin.patch_project(unit, name, form_body(ProjectPatchIn, _board_fields(form)))

    outcome = await attempt(request, change)
    flash(request, outcome.error or f"проект {name} изменён", error=outcome.error is not None)
    return Redirect("/projects", status_code=303)


#: What deleting a project does, said before the person confirms.
PROJECT_DELETED = "Его задачи останутся в зеркале, но выпадут из полного обновления."


@get("/projects/{name:str}/delete", opt=_ADMIN)
async def project_delete_confirm(request: HubRequest, name: FromPath[str]) -> Template:
    """«Удалить» first asks (it works without JavaScript)."""
    project = await read(request, lambda u: lookups.project(u, name))
    return page(
        request,
        "confirm_delete.html",
        title=f"Удалить проект {project.name}",
        warning=PROJECT_DELETED,
        action=f"/projects/{segment(project.name)}/delete",
        back="/projects",
    )


@post("/projects/{name:str}/delete", opt=_ADMIN)
async def project_delete(request: HubRequest, name: FromPath[str]) -> Redirect:
    outcome = await attempt(request, lambda u: admin.delete_project(u, name))
    flash(request, outcome.error or f"проект {name} удалён", error=outcome.error is not None)
    return Redirect("/projects", status_code=303)


@get("/projects/{name:str}")
async def project_slice(
    request: HubRequest,
    name: FromPath[str],
    number: PageNumber = 1,
    text: Annotated[str, QueryParameter(name="q", max_length=200)] = "",
    status: Annotated[str, QueryParameter(name="status", max_length=200)] = "",
) -> Template:
    async def look(unit: Unit) -> dict[str, Any]:
        listed = await mirror.list_issues(
            unit,
            project_name=name,
            text=text.strip() or None,
            status=status or None,
            limit=ISSUES_PER_PAGE,
            offset=(number - 1) * ISSUES_PER_PAGE,
        )
        return {
            "project": await lookups.project(unit, name),
            "statuses": await mirror.slice_statuses(unit, name),
            "issues": listed.items,
            "total": listed.total,
            "pages": pages(listed.total, ISSUES_PER_PAGE),
        }

    context = {**await read(request, look), "number": number, "q": text, "status": status}
    if is_htmx(request):
        return fragment(request, "_slice.html", **context)
    return page(request, "project.html", **context)


ROUTES = [projects_view, project_add, project_change, project_delete_confirm, project_delete, project_slice]
