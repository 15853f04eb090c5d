"""Checks of sdlc-hub.

They run in the interpreter that runs nox (installed by the README's test command), so that CI and a
developer use exactly the packages `pip install -e '.[dev]'` put there.
"""

from __future__ import annotations

import sys

import nox

nox.options.sessions = ["lint", "typecheck", "tests"]
nox.options.default_venv_backend = "none"


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint and formatting."""
    session.run(sys.executable, "-m", "ruff", "check", "src", "tests", "bench", "noxfile.py")
    session.run(sys.executable, "-m", "ruff", "format", "--check", "src", "tests", "bench", "noxfile.py")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy strict on the pure core."""
    session.run(sys.executable, "-m", "mypy")


@nox.session
def tests(session: nox.Session) -> None:
    """The whole suite: storage and API tests run on SQLite and on PostgreSQL."""
    session.run(sys.executable, "-m", "pytest", *session.posargs)


@nox.session(name="tests-sqlite")
def tests_sqlite(session: nox.Session) -> None:
    """The suite without PostgreSQL (for a machine that has none)."""
    session.run(sys.executable, "-m", "pytest", *session.posargs, env={"SDLC_HUB_TEST_SKIP_PG": "1"})
