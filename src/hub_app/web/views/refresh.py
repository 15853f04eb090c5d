"""«Обновить из Jira» (DESIGN.md 8, round 3): an issue's page, an issue not yet in the mirror and a project's page
queue a refresh that reads it from Jira (the API's ``POST /refresh``: ``{keys}`` for an issue, ``{jql}`` of the
project's label for a project). A form post with the page's CSRF field, so it works without JavaScript; the
answer is a redirect back with what was queued (or the hub's refusal)."""

from __future__ import annotations

from urllib.parse import quote

from litestar import post
from litestar.params import FromPath
from litestar.response import Redirect

from hub_app.answers.batches import BatchCreated
from hub_app.bodies.batches import RefreshIn
from hub_app.operations import batches
from hub_app.runtime import lookups
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.hub import Unit
from hub_app.web.acting import attempt, form_body, read, requester
from hub_app.web.render import flash, safe_next
from reconcile.queue import history

__all__ = ["ROUTES", "queued"]


def queued(created: BatchCreated, *, new: bool) -> str:
    """What the person is told: the refresh's batch, new or the one already queued that reads the same."""
    if new:
        return f"обновление из Jira поставлено в очередь: пакет {created.id}"
    return f"обновление из Jira уже в очереди: пакет {created.id}"


async def _refresh(request: HubRequest, fields: dict[str, object], back: str) -> Redirect:
    asking = requester(request)

    async def ask(unit: Unit) -> str:
        created, new = await batches.request_refresh(unit, form_body(RefreshIn, fields), requester=asking)
        return queued(created, new=new)

    outcome = await attempt(request, ask)
    flash(request, outcome.error or outcome.value, error=outcome.error is not None)
    return Redirect(back, status_code=303)


@post("/issues/{key:str}/refresh")
async def issue_refresh(request: HubRequest, key: FromPath[str]) -> Redirect:
    """One issue read from Jira (``POST /refresh {keys: [key]}``)."""
    return await _refresh(request, {"keys": [key]}, safe_next(f"/issues/{quote(key, safe='')}"))


@post("/projects/{name:str}/refresh")
async def project_refresh(request: HubRequest, name: FromPath[str]) -> Redirect:
    """The project's issues read from Jira: the JQL of its label in the configured Jira project."""

    async def jql(unit: Unit) -> str | None:
        await lookups.project(unit, name)  # 404 for a project the hub does not have
        settings = await unit.db.admin.settings()
        return history.base_jql(settings.jira_project, [name])

    query = await read(request, jql)
    return await _refresh(request, {"jql": query}, safe_next(f"/projects/{quote(name, safe='')}"))


ROUTES = [issue_refresh, project_refresh]
