"""Settings (``/settings``): everyone with a page sees them with each key's description; an admin changes them in
a form (:mod:`reconcile.config.form`: one field per value, validated as a whole like any settings) or, for
experts, as JSON merged as ``PATCH /settings`` merges (a partial object keeps the rest). A refusal is shown inline
with what was typed, and nothing changes."""

from __future__ import annotations

from typing import Any

from litestar import get, post
from litestar.response import Redirect, Template

from hub_app.operations import admin
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.hub import Unit
from hub_app.runtime.roles import ADMIN
from hub_app.web.acting import attempt, read, read_json
from hub_app.web.labels import pretty_json
from hub_app.web.render import flash, form_text, page
from reconcile.config import FormSection, Settings, as_typed, settings_form, settings_from_form, settings_to_json

__all__ = ["ROUTES"]


async def _current(unit: Unit) -> Settings:
    return await unit.db.admin.settings()


def _page(
    request: HubRequest,
    settings: Settings,
    *,
    status_code: int = 200,
    text: str | None = None,
    sections: tuple[FormSection, ...] | None = None,
    error: str | None = None,
    form_error: str | None = None,
) -> Template:
    return page(
        request,
        "settings.html",
        status_code=status_code,
        text=text if text is not None else pretty_json(settings_to_json(settings)),
        sections=sections if sections is not None else settings_form(settings),
        error=error,
        form_error=form_error,
    )


@get("/settings")
async def settings_view(request: HubRequest) -> Template:
    return _page(request, await read(request, _current))


@post("/settings", opt={"page_roles": ADMIN})
async def settings_change(request: HubRequest) -> Template | Redirect:
    """The JSON for experts, merged."""
    text = form_text(await request.form(), "settings")
    outcome = read_json(text.encode())
    if outcome.error is None:
        body = outcome.value
        outcome = await attempt(request, lambda u: admin.patch_settings(u, body))
    if outcome.error is not None:
        return _page(request, await read(request, _current), status_code=422, text=text, error=outcome.error)
    flash(request, "настройки сохранены")
    return Redirect("/settings", status_code=303)


@post("/settings/form", opt={"page_roles": ADMIN})
async def settings_form_change(request: HubRequest) -> Template | Redirect:
    """The form: every value as the person left it, validated as a whole."""
    submitted = await request.form()
    fields = {name: form_text(submitted, name) for name in submitted}

    async def change(unit: Unit) -> Any:
        return await admin.replace_settings(unit, settings_from_form(fields, await _current(unit)))

    outcome = await attempt(request, change)
    if outcome.error is not None:
        current = await read(request, _current)
        typed = as_typed(settings_form(current), fields)
        return _page(request, current, status_code=422, sections=typed, form_error=outcome.error)
    flash(request, "настройки сохранены")
    return Redirect("/settings", status_code=303)


ROUTES = [settings_view, settings_change, settings_form_change]
