"""A handler names its body once, as the type of its ``data``: the hub reads the body into it with the Russian
422s, an empty body counts as ``{}``, and the OpenAPI document still describes the body and its 400 and 413."""

from __future__ import annotations

import inspect
import typing

import pytest

from hub_app.app import ROUTES
from hub_app.bodies.parsing import is_body
from tests.support import cmd

from .conftest import Api
from .support import create_ok

pytestmark = pytest.mark.anyio

#: The routes whose body the core reads whole, every error in the seed's words (or whose refusal counts events).
WHOLE = {"create_batch", "patch_settings", "agent_events"}


def test_every_body_of_the_api_is_a_type_its_handler_names() -> None:
    """A route with a body takes it typed (``data: JSONBody[ClaimIn]``), but for the ones the core reads whole."""
    kinds = {}
    for handler in ROUTES:
        if "data" in inspect.signature(handler.fn).parameters:
            hint = typing.get_type_hints(handler.fn)["data"]
            kinds[handler.fn.__name__] = "typed" if is_body(hint) else "whole"
    assert {name for name, kind in kinds.items() if kind == "whole"} == WHOLE
    assert len(kinds) - len(WHOLE) >= 15


async def test_an_empty_body_is_judged_as_an_empty_object(api: Api) -> None:
    """No body at all is ``{}``: a claim lacks its agent (422 naming it), a cancel needs nothing, an approval is
    told where its digest comes from."""
    headers = {**api.auth("agent"), "Content-Type": "application/json"}
    claim = await api.client.post("/agent/claim", content=b"", headers=headers)
    assert (claim.status_code, claim.json()["detail"]) == (
        422,
        "нет agent_id; ожидаются agent_id; необязательные version, jira_user, jira_time_zone, jira_base_url, "
        "symmetric_link_types, wait, instance, policy",
    )
    created = create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    command_id = (await created)["commands"][0]["id"]
    cancel = await api.client.post(f"/commands/{command_id}/cancel", content=b"", headers=api.auth("interface"))
    assert (cancel.status_code, cancel.json()["status"]) == (200, "cancelled")


async def test_a_typed_body_keeps_the_words_of_its_refusals(api: Api) -> None:
    """Wrong fields and values are refused by the body type's words, not Litestar's."""
    assert (await api.post("/notes", {"key": "AURORA-1"})).json() == {
        "status_code": 422,
        "detail": "нет text; ожидаются key, text",
    }
    wrong = await api.post("/agent/claim", {"agent_id": "a", "wait": "long"}, role="agent")
    assert wrong.json() == {"status_code": 422, "detail": "wait — ожидается неотрицательное число"}
    extra = await api.post("/batches/1/cancel", {"force": True, "why": "x"})
    assert extra.json() == {"status_code": 422, "detail": "лишние поля why; ожидаются —; необязательные force"}


async def test_the_document_describes_each_typed_body(api: Api) -> None:
    """The OpenAPI document names the body type of a typed route and documents its 400 and 413."""
    document = (await api.client.get("/schema/openapi.json")).json()
    claim = document["paths"]["/agent/claim"]["post"]
    assert claim["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ClaimIn"}
    assert {"400", "413", "422"} <= set(claim["responses"])
    assert "agent_id" in document["components"]["schemas"]["ClaimIn"]["properties"]
