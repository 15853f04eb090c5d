"""Fixtures of the MCP tests: a real hub served over HTTP on loopback, with a token per role.

The hub (SQLite in ``tmp_path``, migrated) runs under uvicorn in the test's event loop on a free port of
127.0.0.1: real HTTP, and a test can still change the process it serves (the command catalogue).

No ``__init__.py`` here on purpose: a package named ``mcp`` under ``tests/`` would shadow the SDK.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hub_app import admin
from hub_app.bodies.admin import TokenIn
from hub_app.runtime import open_hub

from .mcp_support import TOKEN_NAMES, Served, serving_hub


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    hub = await open_hub(data_dir=tmp_path / "hub")
    try:
        tokens: dict[str, str] = {}
        async with hub.unit() as unit:
            for role, name in TOKEN_NAMES.items():
                tokens[role] = (await admin.add_token(unit, TokenIn(name=name, role=role))).secret
        async with serving_hub(hub) as base_url:
            yield Served(base_url=base_url, hub=hub, tokens=tokens)
    finally:
        await hub.close()
