"""Which errors mean "the database cannot be reached right now", as opposed to a fault of the hub's own.

A PostgreSQL restart, a lost connection, a server still starting up, a full pool or an SQLite file that cannot
be opened or is locked past its busy timeout all pass: the same request succeeds once the database is back.
The hub answers them 503 with ``Retry-After`` (:data:`RETRY_AFTER_SECONDS`), which the agent and load balancers
already treat as «try again», instead of 500; an integrity or programming error stays a 500.
"""

from __future__ import annotations

import sqlite3

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import exc as sa_exc

__all__ = ["OUTAGE_TYPES", "RETRY_AFTER_SECONDS", "is_outage", "outage_reason"]

#: What a 503 for a database outage tells the caller to wait: PostgreSQL restarts in a few seconds.
RETRY_AFTER_SECONDS = 2

#: The exception types an outage can surface as (what a handler must catch to ask :func:`is_outage`).
OUTAGE_TYPES: tuple[type[Exception], ...] = (sa_exc.DBAPIError, sa_exc.TimeoutError, OSError, TimeoutError)

_DRIVER_OUTAGES: tuple[type[BaseException], ...] = (
    asyncpg.PostgresConnectionError,  # the connection is gone, or was refused
    asyncpg.exceptions.OperatorInterventionError,  # shutting down, starting up, terminated by the administrator
    asyncpg.exceptions.TooManyConnectionsError,
    asyncpg.InterfaceError,  # the driver's own connection state: closed, or in use by a broken operation
    OSError,
    TimeoutError,
)

#: SQLite's words for a file it cannot use now (not "no such table", which is a schema to migrate).
_SQLITE_OUTAGES = ("database is locked", "unable to open database file", "disk i/o error")


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 10:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` says the database is unreachable now (a retry later can succeed)."""
    if isinstance(exc, sa_exc.TimeoutError | OSError | TimeoutError):
        return True
    if not isinstance(exc, sa_exc.DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    if isinstance(exc.orig, sqlite3.OperationalError):
        return any(words in str(exc.orig).lower() for words in _SQLITE_OUTAGES)
    return any(isinstance(cause, _DRIVER_OUTAGES) for cause in _causes(exc)[1:])


def outage_reason(exc: BaseException) -> str:
    """The driver's words on one line, for the warning logged instead of a traceback."""
    cause = exc.orig if isinstance(exc, sa_exc.DBAPIError) and exc.orig is not None else exc
    text = " ".join(str(cause).split()) or type(cause).__name__
    return f"{type(cause).__name__}: {text}"[:300]
