"""End-to-end fixtures: real ``jira-sim``, ``sdlc-hub serve`` and ``sdlc-agent run`` processes on loopback.

The hub's database comes from ``SDLC_HUB_E2E_DATABASES`` (default ``sqlite``; ``postgresql``, or
``sqlite,postgresql`` to run each test on both): on PostgreSQL each test gets a fresh database on the server
of ``SDLC_HUB_TEST_PG_URL``, dropped afterwards.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from loopback.stack import Stack, start_stack
from tests.pg_admin import PG_DEFAULT, admin_sql

from .e2e_support import E2E_PACING

DATABASES = [name.strip() for name in os.environ.get("SDLC_HUB_E2E_DATABASES", "sqlite").split(",") if name.strip()]


@pytest.fixture(params=DATABASES)
def hub_database(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The hub's database URL for this test: ``None`` (SQLite in the data dir) or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield None
        return
    if request.param != "postgresql":
        pytest.fail(f"SDLC_HUB_E2E_DATABASES: unknown database {request.param!r}; sqlite or postgresql")
    base = os.environ.get("SDLC_HUB_TEST_PG_URL", PG_DEFAULT)
    name = f"sdlc_hub_e2e_{secrets.token_hex(4)}"
    asyncio.run(admin_sql(base, f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(admin_sql(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def stack(tmp_path: Path, hub_database: str | None) -> Iterator[Stack]:
    """Hub + simulator with the sample projects and scaled-down pacing; start the agent with ``stack.start_agent``
    (its webhook listener on and registered in the simulator)."""
    running = start_stack(tmp_path, pacing=E2E_PACING, claim_wait_seconds=1.0, database_url=hub_database)
    running.webhooks = True  # every agent listens for Jira's webhooks: the recovery and fault tests run with it
    try:
        yield running
    finally:
        running.stop()
