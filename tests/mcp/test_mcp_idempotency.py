"""MCP ``batch_create`` and ``refresh`` with ``idempotency_key`` (DESIGN.md 6.3), through the official client."""

from __future__ import annotations

import pytest

from tests.support import cmd

from .mcp_support import Served, batch, tool_error, tool_json

pytestmark = pytest.mark.anyio

PLAN = batch(cmd("ensure_fields", key="AURORA-1533", duedate="2026-10-23"))


async def test_a_reissued_batch_create_with_its_key_makes_one_batch(served: Served) -> None:
    """The call re-issued after a lost answer (a new client, a new request id) answers the first batch, replayed;
    the same key with other arguments is a tool error naming that batch; nothing more is stored."""
    async with served.mcp() as client:
        first = tool_json(await client.call_tool("batch_create", {**PLAN, "idempotency_key": "plan-7"}))
    async with served.mcp() as client:
        again = tool_json(await client.call_tool("batch_create", {**PLAN, "idempotency_key": "plan-7"}))
        other = await client.call_tool("batch_create", {**PLAN, "title": "другой", "idempotency_key": "plan-7"})
    assert "replayed" not in first
    assert again == {**first, "replayed": True}
    assert tool_error(other) == f"ключ идемпотентности уже использован для другого пакета: {first['id']}"
    assert await served.count() == (1, 0)


async def test_the_key_is_shared_with_the_http_door(served: Served) -> None:
    """A key is the token's: the batch MCP made with it answers the same body posted with Idempotency-Key."""
    async with served.mcp() as client:
        first = tool_json(await client.call_tool("batch_create", {**PLAN, "idempotency_key": "k"}))
    async with served.http() as http:
        posted = await http.post("/batches", json=PLAN, headers={**served.auth("interface"), "Idempotency-Key": "k"})
    assert (posted.status_code, posted.json()["id"]) == (200, first["id"])


async def test_a_refresh_takes_a_key(served: Served) -> None:
    """refresh with a key twice: one batch; batch_plan takes the key and ignores it."""
    async with served.mcp() as client:
        first = tool_json(await client.call_tool("refresh", {"keys": ["AURORA-1"], "idempotency_key": "r"}))
        again = tool_json(await client.call_tool("refresh", {"keys": ["AURORA-1"], "idempotency_key": "r"}))
        planned = await client.call_tool("batch_plan", {**PLAN, "idempotency_key": "r"})
    assert again["id"] == first["id"]
    assert planned.is_error is False
    assert await served.count() == (1, 0)


@pytest.mark.parametrize("key", ["", 17, "ключ"], ids=repr)
async def test_a_key_that_is_no_key_is_refused(served: Served, key: object) -> None:
    """A key that is not 1–255 printable ASCII characters: a tool error, nothing stored."""
    async with served.mcp() as client:
        refused = await client.call_tool("batch_create", {**PLAN, "idempotency_key": key})
    assert tool_error(refused) == "ключ идемпотентности — ожидается от 1 до 255 печатных символов ASCII"
    assert await served.count() == (0, 0)
