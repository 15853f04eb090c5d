"""MCP tool arguments obey the same text rules as the HTTP API: bad text or numbers are a tool error naming
where, and nothing is written."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .mcp_support import Served, tool_error

pytestmark = pytest.mark.anyio


def _comment(body: str) -> dict[str, Any]:
    return {
        "author": "claude",
        "title": "план",
        "commands": [{"type": "ensure_comment", "params": {"key": "AURORA-1", "marker": "[план]", "body": body}}],
    }


async def test_nul_in_batch_create(served: Served) -> None:
    """batch_create with a NUL in a parameter → «недопустимый символ в commands[0].params.body», no batch."""
    async with served.mcp() as client:
        result = await client.call_tool("batch_create", _comment("a\x00b"))
    assert tool_error(result) == "недопустимый символ в commands[0].params.body"
    assert await served.count() == (0, 0)


async def test_nul_in_note_add(served: Served) -> None:
    """note_add with a NUL in the text → a tool error, no note."""
    async with served.mcp() as client:
        result = await client.call_tool("note_add", {"key": "AURORA-1", "text": "a\x00"})
    assert tool_error(result) == "недопустимый символ в text"
    assert await served.count() == (0, 0)


async def _raw_call(served: Served, name: str, arguments_json: str) -> Any:
    """A ``tools/call`` sent as raw JSON-RPC text (as a client that escapes lone surrogates would)."""
    body = (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
        f'"params": {{"name": "{name}", "arguments": {arguments_json}}}}}'
    )
    headers = {
        **served.auth("interface"),
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    async with served.http() as http:
        return await http.post("/mcp", content=body.encode(), headers=headers)


async def test_lone_surrogate_in_batch_create(served: Served) -> None:
    """A lone surrogate escaped in the JSON-RPC text is a parse error of the SDK (400); nothing is written."""
    response = await _raw_call(served, "batch_create", json.dumps(_comment("\udfff")))
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == -32700
    assert error["message"].startswith("Parse error: lone leading surrogate")
    assert await served.count() == (0, 0)


async def test_non_finite_number_in_issues_list(served: Served) -> None:
    """issues_list with ``limit: NaN`` → a tool error «недопустимое число в limit»."""
    response = await _raw_call(served, "issues_list", '{"limit": NaN}')
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"] == "недопустимое число в limit"
