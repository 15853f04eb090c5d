"""The hub's MCP server (DESIGN.md section 7): ``tools/list`` and ``tools/call`` over the tools of
:mod:`hub_app.mcp.tools`, served at ``/mcp`` by :mod:`hub_app.mcp.endpoint`.

The low-level :class:`mcp.server.Server` of the official ``mcp`` SDK (2.x). Every call runs in one
:meth:`Hub.unit` (a failed call rolls back: nothing written); a refusal (:mod:`hub_app.runtime.refusals`) comes back as
a tool error (``isError: true``) with the seed's Russian message as the text.

The caller (the token the app's guard authenticated, the hub, its public URL) comes in the request's scope
under :data:`CALLER_SCOPE_KEY`, put there by the endpoint; a call without it does not run.
"""

from __future__ import annotations

import json
import logging
from typing import Any, cast

from mcp.server import Server, ServerRequestContext
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ContentBlock,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
)

from hub_app.answers.wire import to_json
from hub_app.mcp.tools import HubCall, McpCaller, McpTool, ToolCall, tools
from hub_app.runtime.refusals import INTERNAL_ERROR, refusal
from reconcile.vocabulary import TooDeep, check_request_json

__all__ = ["CALLER_SCOPE_KEY", "build_server"]

log = logging.getLogger(__name__)

#: The scope key the endpoint hands the caller to the tool handlers under.
CALLER_SCOPE_KEY = "sdlc_hub.mcp_caller"
SERVER_NAME = "sdlc-hub"
SERVER_INSTRUCTIONS = (
    "Хаб планирования Jira банка. Изменения Jira — пакеты команд желаемого состояния (batch_create); "
    "они выполняются асинхронно агентом внутри банка, ход и результаты — batch_status. Зеркало Jira — "
    "issues_list (разрез проекта) и issue_get."
)


def _answer(view: Any) -> CallToolResult:
    value = to_json(view)
    text = json.dumps(value, ensure_ascii=False)
    structured = value if isinstance(value, dict) else {"result": value}
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _refusal(message: str, errors: tuple[dict[str, Any], ...] = ()) -> CallToolResult:
    """A tool error: the message; a batch refused by its validation adds every error found, as the API's
    ``errors``, in a second text (``{"errors": [{command, param?, message}]}``)."""
    content: list[ContentBlock] = [TextContent(type="text", text=message)]
    if errors:
        content.append(TextContent(type="text", text=json.dumps({"errors": list(errors)}, ensure_ascii=False)))
    return CallToolResult(content=content, is_error=True)


def _caller(ctx: ServerRequestContext[Any, Any]) -> McpCaller:
    request = ctx.request
    caller = request.scope.get(CALLER_SCOPE_KEY) if request is not None else None
    if not isinstance(caller, McpCaller):
        # The endpoint puts the caller into every request it passes on; a call without one did not come
        # through it, and must not run.
        raise RuntimeError("MCP tool call without an authenticated caller")
    return caller


async def _run(tool: McpTool, caller: McpCaller, arguments: dict[str, Any]) -> Any:
    """The tool's answer: computed in one transaction, unless the tool opens its own (a long poll)."""
    if tool.own_units:
        return await cast("HubCall", tool.call)(caller, arguments)
    async with caller.hub.unit(actor=caller.token.name, door="mcp") as unit:
        return await cast("ToolCall", tool.call)(unit, caller, arguments)


def build_server(tool_set: tuple[McpTool, ...] | None = None) -> Server[Any]:
    """The low-level MCP server: ``tools/list`` and ``tools/call`` over ``tool_set`` (default :func:`tools`)."""
    table = {tool.name: tool for tool in (tool_set if tool_set is not None else tools())}

    async def list_tools(_: ServerRequestContext[Any, Any], __: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[tool.listing() for tool in table.values()])

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> CallToolResult:
        tool = table.get(params.name)
        if tool is None:
            return _refusal(f"инструмента {params.name} нет; есть {', '.join(table)}")
        caller = _caller(ctx)
        arguments = dict(params.arguments or {})
        try:
            check_request_json(arguments)
            value = await _run(tool, caller, arguments)
        except TooDeep as exc:
            return _refusal(str(exc))
        except Exception as exc:
            refused = refusal(exc)
            if refused is not None:
                return _refusal(refused.message, refused.errors)
            # As the HTTP API's 500: logged here, and the assistant is told no more than that it failed.
            log.exception("MCP tool %s failed", tool.name)
            return _refusal(INTERNAL_ERROR)
        return _answer(value)

    def input_schema(name: str) -> dict[str, Any] | None:
        tool = table.get(name)
        return tool.input_schema() if tool is not None else None

    return Server(
        SERVER_NAME,
        version="0.1.0",
        instructions=SERVER_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=input_schema,
    )
