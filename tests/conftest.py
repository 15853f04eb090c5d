"""Shared fixtures: the anyio backend, a machine in Moscow's zone, the database URLs (SQLite and PostgreSQL)
the hub's tests run on, and a clean slate for tests that configure the process's loggers.

PostgreSQL comes from ``SDLC_HUB_TEST_PG_URL`` (default: the local server with trust auth). A fresh database
``sdlc_hub_test_<random>`` is created once per test session and dropped at the end. An unreachable PostgreSQL
fails the tests unless ``SDLC_HUB_TEST_SKIP_PG=1``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import shutil
import threading
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from sqlalchemy.engine import make_url

from .pg_admin import PG_DEFAULT, admin_sql

# Hypothesis's 200 ms deadline times an example on whatever else the machine runs (xdist workers, a loaded CI
# host): the rules' speed is measured in bench/, so a slow example is never a failure here.
settings.register_profile("sdlc-hub", deadline=None)
settings.load_profile("sdlc-hub")


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def moscow(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's zone is Moscow (UTC+3): nothing the core or the agent answers may depend on it."""
    monkeypatch.setenv("TZ", "Europe/Moscow")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def logging_restored() -> Iterator[None]:
    """Undoes what the test configured on the process's loggers (``adapters.logs.configure_logging``)."""
    loggers = [logging.getLogger()]
    loggers += [lg for lg in logging.Logger.manager.loggerDict.values() if isinstance(lg, logging.Logger)]
    saved = [(lg, lg.handlers[:], lg.level, lg.propagate) for lg in loggers]
    yield
    for lg, handlers, level, propagate in saved:
        lg.handlers[:] = handlers
        lg.setLevel(level)
        lg.propagate = propagate


def run_in_thread(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` to completion on a fresh event loop in another thread (for session-scoped setup)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # handed back to the caller below
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this session (dropped afterwards)."""
    if os.environ.get("SDLC_HUB_TEST_SKIP_PG") == "1":
        pytest.skip("SDLC_HUB_TEST_SKIP_PG=1")
    base = os.environ.get("SDLC_HUB_TEST_PG_URL", PG_DEFAULT)
    name = f"sdlc_hub_test_{secrets.token_hex(4)}"
    try:
        run_in_thread(admin_sql(base, f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        pytest.fail(f"PostgreSQL at {base} is unreachable ({exc!r}); set SDLC_HUB_TEST_SKIP_PG=1 to skip")
    url = make_url(base).set(database=name).render_as_string(hide_password=False)
    yield url
    run_in_thread(admin_sql(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("sqlite") / "hub.sqlite3"
    return f"sqlite+aiosqlite:///{path}"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str:
    """Each storage and API test runs once on SQLite and once on PostgreSQL."""
    name = "sqlite_url" if request.param == "sqlite" else "pg_url"
    url: str = request.getfixturevalue(name)
    return url


_MIGRATED: set[str] = set()


def migrated(database_url: str) -> str:
    """``database_url`` with the hub's schema at head (migrated once per session, reused after)."""
    if database_url not in _MIGRATED:
        from adapters.storage.engine import make_engine, migrate

        async def go() -> None:
            engine = make_engine(database_url)
            try:
                await migrate(engine)
            finally:
                await engine.dispose()

        run_in_thread(go())
        _MIGRATED.add(database_url)
    return database_url


@pytest.fixture
def migrated_url(database_url: str) -> str:
    """``database_url`` with the hub's schema at head (migrated once per session, reused after)."""
    return migrated(database_url)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file with the hub's schema at head and nothing in it, migrated once per session (worker); its
    engine is disposed after, so the WAL is checkpointed into the file."""
    path: Path = tmp_path_factory.mktemp("template") / "hub.sqlite3"
    migrated(f"sqlite+aiosqlite:///{path}")
    return path


@pytest.fixture
def hub_url(database_url: str, tmp_path: Path, sqlite_template: Path) -> str:
    """The database of a test's hub, at head: on SQLite a copy of the template of its own (nothing to empty, no
    test sees another's rows), on PostgreSQL the session's database (the ``hub`` fixture empties it)."""
    if not database_url.startswith("sqlite"):
        return migrated(database_url)
    path = tmp_path / "hub-database" / "hub.sqlite3"  # beside, not in, a data dir a test may give tmp_path
    path.parent.mkdir()
    shutil.copyfile(sqlite_template, path)
    return f"sqlite+aiosqlite:///{path}"
