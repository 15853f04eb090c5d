"""Running the hub's operations for a view: a read in one transaction, or an action whose refusal is shown.

The views call the same operations as the API (:mod:`hub_app.operations.batches`, :mod:`hub_app.operations.mirror`, …);
a refused action (a refusal of :mod:`hub_app.runtime.refusals`: a 422, 409, 403 or 413) rolls its transaction back and
hands the message to the view to show inline; a 404 (what the action names does not exist) is the page's error page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import attrs
from litestar.exceptions import ClientException

from hub_app.answers.batches import BatchCreated
from hub_app.bodies.parsing import parse
from hub_app.runtime.connection import HubRequest, caller_of, hub_of
from hub_app.runtime.hub import Unit
from hub_app.runtime.refusals import refusal
from hub_app.runtime.request_text import decode_json
from reconcile.outlook import ApprovalState, Door, Requester
from reconcile.vocabulary import ValidationError, check_request_json

__all__ = [
    "WAITS",
    "Outcome",
    "acting",
    "attempt",
    "author",
    "checked",
    "form_body",
    "read",
    "read_json",
    "requester",
    "waits",
]

#: What the creator is told when a batch waits (the page's door, the person's token or a batch it brings back).
WAITS = "создан и ждёт одобрения: его команды не выдаются агенту, пока другой человек не одобрит его"

T = TypeVar("T")

#: The refusal an action does not show beside its form: what it names does not exist (the page's error page).
_NOT_FOUND = 404


def acting(request: HubRequest) -> dict[str, str]:
    """Who acts through the page, as the audit names them: the person's token and door ``web``."""
    caller = getattr(request.state, "caller", None)
    return {"actor": caller.name if caller is not None else "hub", "door": "web"}


async def read(request: HubRequest, operation: Callable[[Unit], Awaitable[T]]) -> T:
    """One operation in one transaction (its errors go to the page's error handlers)."""
    async with hub_of(request).unit(**acting(request)) as unit:
        return await operation(unit)


@attrs.frozen
class Outcome:
    """What an action gave, or the message (the seed's words) it was refused with."""

    value: Any = None
    error: str | None = None


async def attempt(request: HubRequest, operation: Callable[[Unit], Awaitable[Any]]) -> Outcome:
    """An action in one transaction; a refusal other than a 404 rolls it back and becomes :attr:`Outcome.error`."""
    try:
        return Outcome(value=await read(request, operation))
    except Exception as exc:
        refused = refusal(exc)
        if refused is None or refused.status == _NOT_FOUND:
            raise
        return Outcome(error=refused.message)


def author(request: HubRequest) -> str:
    """The name of the token the person logged in with (batches' ``token_name``, notes' author)."""
    return caller_of(request).name


def form_body(cls: type[T], fields: dict[str, Any]) -> T:
    """A form's fields as the API's body ``cls``, held to the API's rules: the text rule first («недопустимый
    символ в <поле>», the API's own check of a body, DESIGN.md 3), then the body's fields and kinds."""
    check_request_json(fields)
    return parse(cls, fields)


def checked(body: Outcome) -> Outcome:
    """A body read from a form (and completed by the page, e.g. with «Автор») held to the text rule again."""
    if body.error is not None:
        return body
    try:
        check_request_json(body.value)
    except ValidationError as exc:
        return Outcome(error=exc.message)
    return body


def requester(request: HubRequest) -> Requester:
    """The person asking through the page (the HTTP door): their token, and whether it requires approval."""
    return caller_of(request).through(Door.HTTP)


def waits(created: BatchCreated) -> str:
    """What a flash adds about a batch just created: that it waits for another person, or nothing."""
    pending = created.approval is not None and created.approval.state == ApprovalState.PENDING
    return f"; пакет {WAITS}" if pending else ""


def read_json(raw: bytes) -> Outcome:
    """JSON typed into a form, read as the API reads a body: the value, or the API's refusal in its words."""
    try:
        return Outcome(value=decode_json(raw))
    except ClientException as exc:
        return Outcome(error=str(exc.detail))
    except ValidationError as exc:
        return Outcome(error=exc.message)
