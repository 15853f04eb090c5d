"""Settings (``/settings``): everyone with a page sees them; an admin changes them as JSON, merged as
``PATCH /settings`` merges (a partial object keeps the rest). A refusal is shown inline and nothing changes."""

from __future__ import annotations

from litestar import get, post
from litestar.response import Redirect, Template

from hub_app import admin
from hub_app.connection import HubRequest
from hub_app.roles import ADMIN
from hub_app.web.acting import attempt, read, read_json
from hub_app.web.labels import pretty_json
from hub_app.web.render import flash, form_text, page

__all__ = ["ROUTES"]


@get("/settings")
async def settings_view(request: HubRequest) -> Template:
    current = await read(request, admin.get_settings)
    return page(request, "settings.html", text=pretty_json(current), error=None)


@post("/settings", opt={"page_roles": ADMIN})
async def settings_change(request: HubRequest) -> Template | Redirect:
    text = form_text(await request.form(), "settings")
    outcome = read_json(text.encode())
    if outcome.error is None:
        body = outcome.value
        outcome = await attempt(request, lambda u: admin.patch_settings(u, body))
    if outcome.error is not None:
        return page(request, "settings.html", status_code=422, text=text, error=outcome.error)
    flash(request, "настройки сохранены")
    return Redirect("/settings", status_code=303)


ROUTES = [settings_view, settings_change]
