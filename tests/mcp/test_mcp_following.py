"""MCP ``batch_status`` with ``wait_seconds``: a long poll on the hub's wake-up that answers at the first change."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from hub_app.operations import following
from tests.support import cmd

from .mcp_support import Served, batch, claim, tool_error, tool_json

pytestmark = pytest.mark.anyio

PLAN = batch(cmd("ensure_fields", key="AURORA-1533", duedate="2026-10-23"))


async def test_a_wait_returns_on_the_first_change(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    """batch_status waiting 55 s answers as soon as the agent claims the batch's first command, with its status,
    the progress and the pauses still ahead; no follower is left (the re-poll is an hour away: only the wake-up
    can answer early)."""
    monkeypatch.setattr(following, "WATCH_REPOLL_SECONDS", 3600.0)
    answer: dict[str, Any] = {}
    async with served.mcp() as client:
        created = tool_json(await client.call_tool("batch_create", PLAN))

        async def follow() -> None:
            result = await client.call_tool("batch_status", {"batch_id": created["id"], "wait_seconds": 55})
            answer.update(tool_json(result))

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                tg.start_soon(follow)
                while served.hub.wakeup.watchers() == 0:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
                delivery = await claim(served)
    assert delivery["id"] == created["commands"][0]["id"]
    assert [c["status"] for c in answer["commands"]] == ["claimed", "queued"]
    assert answer["state"] == "running"
    assert answer["progress"]["finished"] == 0
    assert answer["progress"]["remaining_seconds"] > 0
    assert served.hub.wakeup.watchers() == 0


async def test_without_a_wait_it_answers_at_once(served: Served) -> None:
    """wait_seconds 0 (or absent) is the batch now."""
    async with served.mcp() as client:
        created = tool_json(await client.call_tool("batch_create", PLAN))
        now = tool_json(await client.call_tool("batch_status", {"batch_id": created["id"]}))
        zero = tool_json(await client.call_tool("batch_status", {"batch_id": created["id"], "wait_seconds": 0}))
    assert now["commands"] == zero["commands"]
    assert now["state"] == "queued"


async def test_a_wait_over_55_seconds_is_refused(served: Served) -> None:
    """wait_seconds above 55: a tool error naming it."""
    async with served.mcp() as client:
        created = tool_json(await client.call_tool("batch_create", PLAN))
        refused = await client.call_tool("batch_status", {"batch_id": created["id"], "wait_seconds": 56})
    assert tool_error(refused) == "wait_seconds — ожидается число секунд от 0 до 55"
