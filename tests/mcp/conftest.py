"""Fixtures of the MCP tests: a real hub served over HTTP on loopback, with a token per role.

The hub (SQLite in ``tmp_path``, migrated) runs under uvicorn in the test's event loop on a free port of
127.0.0.1: real HTTP, and a test can still change the process it serves (the command catalogue).

No ``__init__.py`` here on purpose: a package named ``mcp`` under ``tests/`` would shadow the SDK.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hub_app.runtime.hub import open_hub

from .mcp_support import Served, serving_with_tokens


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    hub = await open_hub(data_dir=tmp_path / "hub")
    async with serving_with_tokens(hub) as served:
        yield served
