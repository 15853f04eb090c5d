"""Bearer tokens: a route names the roles it admits (``opt={"roles": …}``); the guard checks the token once.

No token, or an unknown or revoked one → 401; a role the route does not admit → 403. The caller lands in
``connection.state.caller`` (a :class:`~hub_app.runtime.roles.Caller`), where handlers and the MCP endpoint read it.
"""

from __future__ import annotations

from collections.abc import Sequence

from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler

from hub_app.operations import admin
from hub_app.runtime.connection import HubConnection, hub_of
from hub_app.runtime.roles import Role

__all__ = ["NO_TOKEN", "guard"]

NO_TOKEN = "нужен заголовок Authorization: Bearer <токен>"


async def guard(connection: HubConnection, handler: BaseRouteHandler) -> None:
    roles: Sequence[Role] | None = handler.opt.get("roles")
    if roles is None:
        return
    header = connection.headers.get("authorization", "")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise NotAuthorizedException(NO_TOKEN)
    async with hub_of(connection).unit() as unit:
        caller = await admin.authenticate(unit, secret.strip())
    if caller is None:
        raise NotAuthorizedException("токен неизвестен или отозван")
    if caller.role not in roles:
        raise PermissionDeniedException(f"роли {caller.role} это не разрешено; нужна {' или '.join(roles)}")
    connection.state.caller = caller
