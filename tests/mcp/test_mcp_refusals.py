"""MCP words refusals by the hub's one error table, through the official client: a subclass of each mapped error is
a tool error with its own message, as it is a refusal with its parent's status on the API and the page
(tests/hub/test_refusals.py); an error the table does not name is the hub's fault, told as nothing more."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from hub_app.app import create_app
from hub_app.bodies.admin import TokenIn
from hub_app.mcp.endpoint import McpEndpoint
from hub_app.mcp.tools import McpCaller, McpTool
from hub_app.operations import admin
from hub_app.runtime.hub import Unit, open_hub
from hub_app.runtime.refusals import INTERNAL_ERROR, STATUS_BY_ERROR
from reconcile.vocabulary.errors import ReconcileError

from .mcp_support import TOKEN_NAMES, Served, serving, tool_error

pytestmark = pytest.mark.anyio

SUBCLASSES: dict[str, type[Exception]] = {
    parent.__name__: type(f"Particular{parent.__name__}", (parent,), {}) for parent in STATUS_BY_ERROR
}
#: A core error no door maps (as Jira's unreadable answer): the hub's own fault if it ever reaches a door.
SUBCLASSES["ReconcileError"] = type("UnmappedError", (ReconcileError,), {})


async def _refuse(_: Unit, __: McpCaller, args: dict[str, Any]) -> Any:
    raise SUBCLASSES[args["error"]](f"отказ: {args['error']}")


REFUSE = McpTool(
    name="refuse",
    description=lambda: "отказывает ошибкой, названной в error",
    input_schema=lambda: {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]},
    call=_refuse,
)


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    """A hub served over HTTP whose MCP endpoint has the one tool ``refuse``."""
    hub = await open_hub(data_dir=tmp_path / "hub")
    try:
        async with hub.unit() as unit:
            secret = (await admin.add_token(unit, TokenIn(name=TOKEN_NAMES["interface"], role="interface"))).secret
        endpoint = McpEndpoint(tool_set=(REFUSE,))
        app = create_app(hub, mcp=False, extra_route_handlers=[endpoint.route_handler])
        async with serving(app, endpoint) as base_url:
            yield Served(base_url=base_url, hub=hub, tokens={"interface": secret})
    finally:
        await hub.close()


async def test_a_subclass_of_each_mapped_error_is_a_refusal_with_its_message(served: Served) -> None:
    """Every error of the table, raised as a subclass, comes back as a tool error worded by the error itself."""
    async with served.mcp() as client:
        for parent in STATUS_BY_ERROR:
            result = await client.call_tool("refuse", {"error": parent.__name__})
            assert tool_error(result) == f"отказ: {parent.__name__}"


async def test_an_error_the_table_does_not_name_is_told_as_the_hubs_fault(served: Served) -> None:
    """A core error no door maps is answered «внутренняя ошибка хаба», as the API's 500: its text stays in the log."""
    async with served.mcp() as client:
        result = await client.call_tool("refuse", {"error": "ReconcileError"})
    assert tool_error(result) == INTERNAL_ERROR
