"""Checks of sdlc-hub.

They run in the interpreter that runs nox (installed by the README's test command), so that CI and a
developer use exactly the packages `pip install -e '.[dev]'` put there.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import sys
import tempfile
import tomllib
from pathlib import Path

import nox

nox.options.sessions = ["lint", "typecheck", "tests", "e2e-postgresql", "fuzz"]

#: The end-to-end tests that also run with the hub on PostgreSQL: what storage decides under faults (kills,
#: restarts, lost answers, redeliveries). No test asserts a wall time: speed is measured in ``bench/``.
E2E_ON_POSTGRESQL = ("tests/e2e/test_recovery.py", "tests/e2e/test_faults.py", "tests/e2e/test_scenarios.py")
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
    args = session.posargs or list(E2E_ON_POSTGRESQL)
    session.run(
        sys.executable, "-m", "pytest", *WORKERS, "-m", "e2e", *args, env={"SDLC_HUB_E2E_DATABASES": "postgresql"}
    )


@nox.session
def quick(session: nox.Session) -> None:
    """The quick path: lint, types and the tests without a browser or real processes, on SQLite (minutes).

    The tests marked ``e2e`` (processes on loopback, Chromium) and the PostgreSQL runs are left to the default
    sessions; ``nox -s quick -- tests/hub`` narrows it further.
    """
    lint(session)
    typecheck(session)
    args = session.posargs or ["-m", "not e2e and not browser"]
    session.run(sys.executable, "-m", "pytest", *WORKERS, *args, env={"SDLC_HUB_TEST_SKIP_PG": "1"})


@nox.session(name="tests-sqlite")
def tests_sqlite(session: nox.Session) -> None:
    """The suite without PostgreSQL (for a machine that has none)."""
    session.run(sys.executable, "-m", "pytest", *WORKERS, *session.posargs, env={"SDLC_HUB_TEST_SKIP_PG": "1"})


@nox.session
def mutate(session: nox.Session) -> None:
    """Mutation testing of the pure core (src/reconcile) against its fast tests, not a default session.

    mutmut as configured in pyproject's [tool.mutmut], against tests/reconcile and tests/executors (about half an
    hour on two cores). Mutant-name globs narrow the run, e.g. ``nox -s mutate -- "reconcile.batches.validation*"``; the
    results stay in mutants/ for ``mutmut results`` and ``mutmut show``. Scores and the equivalent survivors:
    docs/mutation.md.
    """
    session.run(sys.executable, "-m", "mutmut", "run", *session.posargs)
    for line in mutation_scores(Path("mutants/src/reconcile")):
        session.log(line)


#: mutmut's exit codes of a mutant that the tests killed: a failure, a pytest error, a timeout (its own table),
#: and -9: a mutant that never ends, killed at the CPU-time limit mutmut sets (it shows it as «segfault»).
MUTANT_KILLED = {1, 3, 24, -24, 36, 152, 255, -9}


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


#: The image's base made from Debian's packages, for a machine that reaches no image registry: bookworm's python3
#: is 3.11, the interpreter the tests run on; python3-venv for the venv the image installs into; ca-certificates
#: for pip's TLS. The merged-usr hook keeps usrmerge (and the perl it pulls in) out; documentation is not kept.
IMAGE_BASE = "localhost/sdlc-hub-base:bookworm"
MMDEBSTRAP = (
    "--quiet",
    "--variant=minbase",
    "--include=python3,python3-venv,ca-certificates",
    "--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr",
    *(
        f"--dpkgopt=path-{rule}"
        for rule in (
            "exclude=/usr/share/man/*",
            "exclude=/usr/share/locale/*",
            "exclude=/usr/share/doc/*",
            "include=/usr/share/doc/*/copyright",
        )
    ),
)
DEBIAN_SOURCES = (
    "deb http://deb.debian.org/debian bookworm main",
    "deb http://deb.debian.org/debian bookworm-updates main",
    "deb http://deb.debian.org/debian-security bookworm-security main",
)
#: The program each step needs -> the Debian package that has it.
IMAGE_TOOLS = {"buildah": "buildah", "mmdebstrap": "mmdebstrap"}
#: The Docker format, not OCI: an OCI image has no HEALTHCHECK. Chroot isolation: no OCI runtime, no cgroups.
BUILDAH_BUD = ("buildah", "bud", "--isolation", "chroot", "--format", "docker")
BUILDAH_RUN = ("buildah", "run", "--isolation", "chroot")
DOCKERFILE = ("--ignorefile", "deploy/Dockerfile.dockerignore", "--file", "deploy/Dockerfile")
#: Run inside the image as its own user: start the hub, poll the image's HEALTHCHECK (about 30 s), print the status
#: of each of SMOKE_PATHS (readiness, a page rendered from the wheel's templates, a static file), stop the hub with
#: SIGTERM as `docker stop` would.
SMOKE_PATHS = ("/readyz", "/login", "/static/hub.css")
SERVE_SMOKE = """
echo "uid $(id -u)"
sdlc-hub serve & hub=$!
tries=0
until {healthcheck}; do
  tries=$((tries + 1))
  if [ $tries -ge 150 ] || ! kill -0 $hub 2>/dev/null; then kill $hub 2>/dev/null; echo "never ready"; exit 1; fi
  sleep 0.2
done
url="http://127.0.0.1:$SDLC_HUB_PORT"
python -c "import urllib.request as u; print(*(u.urlopen('$url' + path).status for path in {paths}))"
kill -TERM $hub; wait $hub; echo "serve exited $?"
"""


@nox.session
def image(session: nox.Session) -> None:
    """The container image, built and smoke-tested without an image registry (a few minutes; .ci/run runs it).

    buildah builds deploy/Dockerfile on a bookworm base that mmdebstrap makes from Debian's packages
    (SDLC_HUB_IMAGE_BASE=IMAGE builds on that image instead); in the image, ``sdlc-hub --version`` names this
    version, and ``serve`` passes the image's HEALTHCHECK as user 10001 and answers 200. Installs buildah and
    mmdebstrap when missing (root, apt). ``-- --keep`` keeps localhost/sdlc-hub:VERSION (for ``buildah push``);
    else everything it made is removed."""
    install_image_tools(session)
    version = project_version()
    tag = f"localhost/sdlc-hub:{version}"
    base = os.environ.get("SDLC_HUB_IMAGE_BASE", "")
    made: list[str] = []
    try:
        if not base:
            base = IMAGE_BASE
            made.append(base)
            debian_base(session, base)
        made.append(tag)
        build_args = ("--build-arg", f"BASE={base}", *build_network_args())
        session.run(*BUILDAH_BUD, *build_args, *DOCKERFILE, "--tag", tag, ".", external=True)
        smoke_test(session, tag, version)
        if "--keep" in session.posargs:
            made.remove(tag)
            session.log(f"kept {tag}")
    finally:
        if made:
            session.run("buildah", "rmi", *made, external=True, success_codes=[0, 1])


def install_image_tools(session: nox.Session) -> None:
    missing = sorted({package for program, package in IMAGE_TOOLS.items() if shutil.which(program) is None})
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        session.error(f"install {' '.join(missing)} (Debian: apt-get install {' '.join(missing)})")
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    session.run("apt-get", "update", "-q", external=True, env=env)
    session.run("apt-get", "install", "-y", "-q", "--no-install-recommends", *missing, external=True, env=env)


def project_version() -> str:
    with Path("pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def debian_base(session: nox.Session, base: str) -> None:
    """mmdebstrap a bookworm root file system into a tarball and commit it as ``base``, with the PATH a
    registry's Debian image has."""
    with tempfile.TemporaryDirectory(prefix="sdlc-hub-base-") as tmp:
        tarball = str(Path(tmp) / "bookworm.tar")
        session.run("mmdebstrap", *MMDEBSTRAP, "--format=tar", "bookworm", tarball, *DEBIAN_SOURCES, external=True)
        container = f"sdlc-hub-base-{os.getpid()}"
        session.run("buildah", "from", "--name", container, "scratch", external=True, silent=True)
        try:
            session.run("buildah", "add", "--quiet", container, tarball, "/", external=True, silent=True)
            path = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
            config = ("--env", path, "--env", "LANG=C.UTF-8", "--cmd", "/bin/bash")
            session.run("buildah", "config", *config, container, external=True)
            session.run("buildah", "commit", "--quiet", container, base, external=True, silent=True)
        finally:
            session.run("buildah", "rm", container, external=True, silent=True)


def build_network_args() -> list[str]:
    """The first stage's way to PyPI: this host's trust store (for a proxy that re-signs TLS) and its index."""
    args = []
    bundle = Path(os.environ.get("PIP_CERT", "/etc/ssl/certs/ca-certificates.crt"))
    if bundle.is_file():
        args += ["--secret", f"id=ca-bundle,src={bundle}"]
    if os.environ.get("PIP_INDEX_URL"):
        args += ["--build-arg", f"PIP_INDEX_URL={os.environ['PIP_INDEX_URL']}"]
    return args


def smoke_test(session: nox.Session, tag: str, version: str) -> None:
    container = f"sdlc-hub-smoke-{os.getpid()}"
    session.run("buildah", "from", "--name", container, tag, external=True, silent=True)
    try:
        shown = str(session.run(*BUILDAH_RUN, container, "--", "sdlc-hub", "--version", external=True, silent=True))
        if shown.strip() != f"sdlc-hub {version}":
            session.error(f"sdlc-hub --version in the image printed {shown!r}")
        inspected = session.run("buildah", "inspect", "--type", "image", tag, external=True, silent=True, log=False)
        healthcheck = json.loads(str(inspected))["Docker"]["config"]["Healthcheck"]["Test"]
        script = SERVE_SMOKE.format(healthcheck=shlex.join(healthcheck[1:]), paths=SMOKE_PATHS)
        env = ("--env", "SDLC_HUB_HOST=127.0.0.1", "--env", f"SDLC_HUB_PORT={free_port()}")
        session.log(f"{' '.join(BUILDAH_RUN)} {container} -- sh -c SERVE_SMOKE (GET {' '.join(SMOKE_PATHS)})")
        run = (*BUILDAH_RUN, *env, container, "--", "sh", "-c", script)
        lines = str(session.run(*run, external=True, silent=True, log=False)).splitlines()
        exited = [line for line in lines if line.startswith("serve exited ")]
        stopped = exited in (["serve exited 0"], ["serve exited 143"])  # 143: SIGTERM, after a graceful shutdown
        if "uid 10001" not in lines or " ".join(["200"] * len(SMOKE_PATHS)) not in lines or not stopped:
            session.error("sdlc-hub serve in the image:\n" + "\n".join(lines))
        session.log(f"{tag}: {shown.strip()}; as uid 10001: HEALTHCHECK passed, 200 on each path, {exited[0]}")
    finally:
        session.run("buildah", "rm", container, external=True, silent=True)


def free_port() -> int:
    # chroot isolation shares this host's network: the hub in the image needs a port nobody here listens on
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
