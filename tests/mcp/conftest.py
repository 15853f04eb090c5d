"""Fixtures of the MCP tests: a real hub served over HTTP on loopback, with a token per role.

The hub (SQLite in ``tmp_path``, migrated) runs under uvicorn in the test's event loop on a free port of
127.0.0.1: real HTTP, and a test can still change the process it serves (the command catalogue).

No ``__init__.py`` here on purpose: a package named ``mcp`` under ``tests/`` would shadow the SDK.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
import uvicorn
from mcp_support import TOKEN_NAMES, Served, hub_app_with_mcp

from hub_app import services
from hub_app.runtime import open_hub


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    hub = await open_hub(data_dir=tmp_path / "hub")
    tokens: dict[str, str] = {}
    async with hub.unit() as unit:
        for role, name in TOKEN_NAMES.items():
            tokens[role] = await services.add_token(unit, name, role)
    app, endpoint = hub_app_with_mcp(hub)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    # Listening before uvicorn starts: early connections wait in the backlog until the app is up.
    sock.listen(16)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning"))
    try:
        async with contextlib.AsyncExitStack() as stack:
            if endpoint is not None:
                await stack.enter_async_context(endpoint.lifespan())
            tg = await stack.enter_async_context(anyio.create_task_group())
            tg.start_soon(server.serve, [sock])
            try:
                yield Served(base_url=f"http://127.0.0.1:{port}", hub=hub, tokens=tokens)
            finally:
                server.should_exit = True
    finally:
        sock.close()
        await hub.close()
