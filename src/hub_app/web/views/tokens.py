"""«Токены» (``/tokens``, issue 32): an admin's page of the hub's API tokens — list, add (with «нужно одобрение»:
``--needs-approval``), revoke after a confirmation. A new token's secret is shown once, in the answer to the form
(never kept in a message: those are stored with the session), as ``sdlc-hub token add`` prints it once.

The API's ``/tokens`` answers scripts as before: the dispatch gives a browser's request (no ``Authorization``) to
this page and a bearer token's to the API (``page.py``).
"""

from __future__ import annotations

from typing import Any

from litestar import get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template

from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.roles import ADMIN, Role
from hub_app.web.acting import attempt, author, form_body, read
from hub_app.web.render import flash, form_text, page, segment

__all__ = ["ROUTES", "SELF_REVOKE"]

_ADMIN = {"page_roles": ADMIN}

#: What the confirmation adds when the person revokes the token they are logged in with.
SELF_REVOKE = "Это токен, которым вы вошли: после отзыва страница попросит войти другим токеном."


async def _tokens_page(request: HubRequest, *, status_code: int = 200, **context: Any) -> Template:
    tokens = sorted(await read(request, admin.list_tokens), key=lambda token: token.name)
    fields = {"name": "", "role": Role.INTERFACE.value, "needs_approval": False, **context.pop("fields", {})}
    return page(
        request,
        "tokens.html",
        status_code=status_code,
        tokens=tokens,
        roles=[role.value for role in Role],
        fields=fields,
        created=context.pop("created", None),
        error=context.pop("error", None),
        me=author(request),
        **context,
    )


@get("/tokens", opt=_ADMIN)
async def tokens_view(request: HubRequest) -> Template:
    return await _tokens_page(request)


@post("/tokens", opt=_ADMIN)
async def token_add(request: HubRequest) -> Template:
    """«Добавить токен»: the secret shown once in this answer; a refusal inline with what was typed."""
    form = await request.form()
    fields = {
        "name": form_text(form, "name").strip(),
        "role": form_text(form, "role"),
        "needs_approval": form_text(form, "needs_approval") == "true",
    }
    outcome = await attempt(request, lambda u: admin.add_token(u, form_body(TokenIn, fields)))
    if outcome.error is not None:
        return await _tokens_page(request, status_code=422, fields=fields, error=outcome.error)
    return await _tokens_page(request, status_code=201, created=outcome.value)


@get("/tokens/{name:str}/revoke", opt=_ADMIN)
async def token_revoke_confirm(request: HubRequest, name: FromPath[str]) -> Template:
    tokens = {t.name: t for t in await read(request, admin.list_tokens)}
    if name not in tokens:
        return await _tokens_page(request, status_code=404, error=f"токена {name} нет")
    warning = "Программы и люди с этим токеном больше не войдут в хаб; его пакеты останутся."
    return page(
        request,
        "confirm_delete.html",
        title=f"Отозвать токен {name}",
        warning=warning + (" " + SELF_REVOKE if name == author(request) else ""),
        action=f"/tokens/{segment(name)}/revoke",
        back="/tokens",
        yes="Да, отозвать",
        no="Не отзывать",
    )


@post("/tokens/{name:str}/revoke", opt=_ADMIN)
async def token_revoke(request: HubRequest, name: FromPath[str]) -> Redirect:
    outcome = await attempt(request, lambda u: admin.revoke_token(u, name))
    flash(request, outcome.error or f"токен {name} отозван", error=outcome.error is not None)
    return Redirect("/tokens", status_code=303)


ROUTES = [tokens_view, token_add, token_revoke_confirm, token_revoke]
