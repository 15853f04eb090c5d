"""Checks of sdlc-hub.

They run in the interpreter that runs nox (installed by the README's test command), so that CI and a
developer use exactly the packages `pip install -e '.[dev]'` put there.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nox

nox.options.sessions = ["lint", "typecheck", "tests", "e2e-postgresql", "fuzz"]

#: The end-to-end tests that also run with the hub on PostgreSQL: what storage decides under faults (kills,
#: restarts, lost answers, redeliveries). The timing tests (wall time, pacing gaps) measure the agent, not the
#: database, and run on SQLite only, in ``tests``.
E2E_ON_POSTGRESQL = ("tests/e2e/test_recovery.py", "tests/e2e/test_faults.py", "tests/e2e/test_scenarios.py")
E2E_TIMING = "not wall_time and not pacing_gaps"
PG_DEFAULT = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
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


#: pytest-xdist: the suite waits on processes, sockets and databases more than it computes, so two workers per
#: core keep both cores busy (SDLC_HUB_TEST_WORKERS overrides; 0 runs in one process).
WORKERS = ("-n", os.environ.get("SDLC_HUB_TEST_WORKERS", str(2 * (os.cpu_count() or 1))))


@nox.session
def tests(session: nox.Session) -> None:
    """The whole suite: storage and API tests run on SQLite and on PostgreSQL."""
    session.run(sys.executable, "-m", "pytest", *WORKERS, *session.posargs)


@nox.session(name="e2e-postgresql")
def e2e_postgresql(session: nox.Session) -> None:
    """The recovery, fault and seed-scenario end-to-end tests with the hub on PostgreSQL.

    A fresh database per test; skipped with SDLC_HUB_TEST_SKIP_PG=1. ``nox -s e2e-postgresql -- tests/e2e`` runs
    all of them.
    """
    if os.environ.get("SDLC_HUB_TEST_SKIP_PG") == "1":
        session.skip("SDLC_HUB_TEST_SKIP_PG=1")
    args = session.posargs or [*E2E_ON_POSTGRESQL, "-k", E2E_TIMING]
    session.run(
        sys.executable, "-m", "pytest", *WORKERS, "-m", "e2e", *args, env={"SDLC_HUB_E2E_DATABASES": "postgresql"}
    )


@nox.session(name="tests-sqlite")
def tests_sqlite(session: nox.Session) -> None:
    """The suite without PostgreSQL (for a machine that has none)."""
    session.run(sys.executable, "-m", "pytest", *WORKERS, *session.posargs, env={"SDLC_HUB_TEST_SKIP_PG": "1"})


@nox.session
def mutate(session: nox.Session) -> None:
    """Mutation testing of the pure core (src/reconcile) against its fast tests, not a default session.

    mutmut as configured in pyproject's [tool.mutmut], against tests/reconcile and tests/plans (about half an
    hour on two cores). Mutant-name globs narrow the run, e.g. ``nox -s mutate -- "reconcile.batch*"``; the
    results stay in mutants/ for ``mutmut results`` and ``mutmut show``. Scores and the equivalent survivors:
    docs/mutation.md.
    """
    session.run(sys.executable, "-m", "mutmut", "run", *session.posargs)
    for line in mutation_scores(Path("mutants/src/reconcile")):
        session.log(line)


#: mutmut's exit codes of a mutant that the tests killed: a failure, a pytest error, a timeout (its own table).
MUTANT_KILLED = {1, 3, 24, -24, 36, 152, 255}


def mutation_scores(mutated: Path) -> list[str]:
    """Killed / measured per module from mutmut's result files (a mutant not run to the end is not counted)."""
    lines, killed_all, measured_all = [], 0, 0
    for meta in sorted(mutated.rglob("*.py.meta")):
        # None: not run yet; 2: the run was interrupted while this mutant was being tested
        codes = [c for c in json.loads(meta.read_text())["exit_code_by_key"].values() if c not in (None, 2)]
        if codes:
            killed = sum(c in MUTANT_KILLED for c in codes)
            killed_all, measured_all = killed_all + killed, measured_all + len(codes)
            module = meta.relative_to(mutated).as_posix().removesuffix(".meta")
            lines.append(f"{module}: {killed}/{len(codes)} = {100 * killed / len(codes):.1f} %")
    if measured_all:
        lines.append(f"all: {killed_all}/{measured_all} = {100 * killed_all / measured_all:.1f} %")
    return lines


@nox.session
def bench(session: nox.Session) -> None:
    """Issue 11's measurements at 1k / 5k / 10k with their floors, not a default session.

    They take minutes, and the numbers only mean something next to each other; PostgreSQL too unless
    SDLC_HUB_TEST_SKIP_PG=1. Prints the Markdown tables of bench/RESULTS.md.
    """
    args = list(session.posargs)
    if os.environ.get("SDLC_HUB_TEST_SKIP_PG") != "1":
        args += ["--pg", os.environ.get("SDLC_HUB_TEST_PG_URL", PG_DEFAULT)]
    session.run(sys.executable, "bench/bench_scale.py", *args)
    session.run(sys.executable, "bench/bench_sim.py")


@nox.session
def fuzz(session: nox.Session) -> None:
    """schemathesis against a live hub: no 5xx, nothing the OpenAPI document does not say.

    With an interface and an admin token, on SQLite, then PostgreSQL unless SDLC_HUB_TEST_SKIP_PG=1; budget per
    run in seconds: SDLC_HUB_FUZZ_SECONDS (default 25).
    """
    session.run(sys.executable, "tests/fuzz/fuzz_hub.py", *session.posargs)
    if os.environ.get("SDLC_HUB_TEST_SKIP_PG") != "1":
        pg = os.environ.get("SDLC_HUB_TEST_PG_URL", PG_DEFAULT)
        session.run(sys.executable, "tests/fuzz/fuzz_hub.py", "--database-url", pg, *session.posargs)
