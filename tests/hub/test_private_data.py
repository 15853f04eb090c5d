"""What the hub keeps private on disk and out of its log (issue 24 item 14): no SQL parameters at DEBUG, the
SQLite file, the session key and the data dir readable by the hub's user alone."""

from __future__ import annotations

import asyncio
import io
import logging
import stat
from pathlib import Path

import pytest

from adapters.logs import configure_logging
from adapters.storage.engine import SQLITE_FILE
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import open_hub
from hub_app.web import session_key
from hub_app.web.session import KEY_FILE

pytestmark = pytest.mark.usefixtures("logging_restored")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_debug_logs_no_sql_and_no_parameters(tmp_path: Path) -> None:
    """``--log-level DEBUG``: adding a token (its digest a parameter) and listing tokens log no SQL statement and
    no parameter, while DEBUG records of the hub itself still come out."""
    stream = io.StringIO()
    configure_logging("DEBUG", fmt="json", stream=stream)

    async def go() -> str:
        hub = await open_hub(data_dir=tmp_path)
        try:
            async with hub.unit() as unit:
                created = await admin.add_token(unit, TokenIn(name="planner", role="interface"))
                await admin.list_tokens(unit)
            return created.secret
        finally:
            await hub.close()

    secret = asyncio.run(go())
    logging.getLogger("hub_app.test").debug("still shown")
    out = stream.getvalue()
    assert "still shown" in out
    for words in ("SELECT", "INSERT", "planner", secret, "sqlalchemy", "aiosqlite"):
        assert words not in out


def test_the_data_dir_database_and_session_key_are_private(tmp_path: Path) -> None:
    """A new data dir is 0700, its SQLite file (and the WAL beside it) 0600, the page's session key 0600."""
    data = tmp_path / "hub"

    async def go() -> None:
        hub = await open_hub(data_dir=data)
        try:
            async with hub.unit() as unit:
                await admin.add_token(unit, TokenIn(name="planner", role="interface"))
        finally:
            await hub.close()

    asyncio.run(go())
    session_key(data)
    assert _mode(data) == 0o700
    assert _mode(data / SQLITE_FILE) == 0o600
    assert {_mode(p) for p in data.glob(f"{SQLITE_FILE}-*")} <= {0o600}
    assert _mode(data / KEY_FILE) == 0o600
