"""Checks of sdlc-hub.

They run in the interpreter that runs nox (installed by the README's test command), so that CI and a
developer use exactly the packages `pip install -e '.[dev]'` put there.
"""

from __future__ import annotations

import os
import sys

import nox

nox.options.sessions = ["lint", "typecheck", "tests", "fuzz"]
nox.options.default_venv_backend = "none"


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint and formatting."""
    session.run(sys.executable, "-m", "ruff", "check", "src", "tests", "bench", "noxfile.py")
    session.run(sys.executable, "-m", "ruff", "format", "--check", "src", "tests", "bench", "noxfile.py")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy strict on all of src."""
    session.run(sys.executable, "-m", "mypy")


@nox.session
def tests(session: nox.Session) -> None:
    """The whole suite: storage and API tests run on SQLite and on PostgreSQL."""
    session.run(sys.executable, "-m", "pytest", *session.posargs)


@nox.session(name="tests-sqlite")
def tests_sqlite(session: nox.Session) -> None:
    """The suite without PostgreSQL (for a machine that has none)."""
    session.run(sys.executable, "-m", "pytest", *session.posargs, env={"SDLC_HUB_TEST_SKIP_PG": "1"})


@nox.session
def fuzz(session: nox.Session) -> None:
    """schemathesis against a live hub with an interface and an admin token: no 5xx, nothing the OpenAPI
    document does not say (SQLite, then PostgreSQL unless SDLC_HUB_TEST_SKIP_PG=1); budget per run in seconds:
    SDLC_HUB_FUZZ_SECONDS (default 25)."""
    session.run(sys.executable, "tests/fuzz/fuzz_hub.py", *session.posargs)
    if os.environ.get("SDLC_HUB_TEST_SKIP_PG") != "1":
        pg = os.environ.get("SDLC_HUB_TEST_PG_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
        session.run(sys.executable, "tests/fuzz/fuzz_hub.py", "--database-url", pg, *session.posargs)
