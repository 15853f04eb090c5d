"""How a route is declared: who may call it, what body it takes, what it answers and which errors it gives.

``@post("/batches", **route(INTERFACE, body=BatchIn, answer=BatchCreated, status=201, errors_=(413, 422)))``
sets the guard's roles, the documented answers (success and errors, each ``{status_code, detail}``) and the bearer
scheme, in one place. A route's body is the type of its handler's ``data`` (:class:`~hub_app.api.json_body.TypedBodies`
reads it); ``body`` is only for a body the core reads whole (``data: JSONBody[Any]``, the DTO
:class:`~hub_app.api.json_body.CoreJson`): the type the document describes it by.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from litestar.openapi.datastructures import ResponseSpec

from hub_app.answers.wire import to_json
from hub_app.api.json_body import CoreJson
from hub_app.api.openapi import BEARER, errors
from hub_app.runtime.connection import HubRequest, caller_of, hub_of
from hub_app.runtime.hub import Unit
from hub_app.runtime.roles import Role
from reconcile.outlook import Door, Requester

__all__ = ["acting", "in_unit", "requester", "route", "token_name"]

T = TypeVar("T")


def route(
    roles: Sequence[Role] | None,
    *,
    body: type[Any] | None = None,
    answer: Any = None,
    status: int = 200,
    errors_: Sequence[int] = (),
    more: dict[int, ResponseSpec] | None = None,
) -> dict[str, Any]:
    """The keyword arguments of a Litestar route decorator (see the module docstring)."""
    codes = set(errors_)
    if roles is not None:
        codes |= {401, 403}
    if body is not None:
        codes |= {400, 413}
    responses = errors(*sorted(codes))
    if answer is not None:
        responses[status] = ResponseSpec(data_container=answer, description="ответ", generate_examples=False)
    responses.update(more or {})
    kwargs: dict[str, Any] = {"status_code": status, "responses": responses}
    if roles is not None:
        kwargs["opt"] = {"roles": tuple(roles)}
        kwargs["security"] = [{BEARER: []}]
    if body is not None:
        kwargs["dto"] = CoreJson[body]  # type: ignore[valid-type]
        kwargs["return_dto"] = None
    return kwargs


def acting(request: HubRequest) -> dict[str, str]:
    """Who acts through the API, as the audit names them: the token's name, door ``http`` (``agent`` for the agent's
    token, whose operations name the agent itself); the hub for a route without a token."""
    caller = getattr(request.state, "caller", None)
    if caller is None:
        return {"actor": "hub", "door": "hub"}
    return {"actor": caller.name, "door": "agent" if caller.role is Role.AGENT else "http"}


async def in_unit(request: HubRequest, operation: Callable[[Unit], Awaitable[Any]]) -> Any:
    """Run one operation in one transaction of the hub and answer its view as JSON."""
    async with hub_of(request).unit(**acting(request)) as unit:
        return to_json(await operation(unit))


def token_name(request: HubRequest) -> str:
    return caller_of(request).name


def requester(request: HubRequest) -> Requester:
    """The caller asking through the HTTP door (the API and the web page)."""
    return caller_of(request).through(Door.HTTP)
