"""A private PostgreSQL server on loopback, for the tests and benchmarks that stop and restart one.

Its own data directory (a temporary one) and port: a shared server (5432) is never touched. Made with the
Debian binaries (``/usr/lib/postgresql/<version>/bin``), as the ``postgres`` user when run as root; trust
authentication, loopback only, the socket in its own directory. :func:`private_cluster` raises
:class:`PostgresUnavailable` where the binaries are absent (a test skips then).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import attrs

from loopback.processes import free_port

__all__ = ["Cluster", "PostgresUnavailable", "postgres_bin", "private_cluster"]


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL binaries here (or no way to run them as another user): the caller skips."""


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's ``bin`` directory holding ``initdb`` and ``pg_ctl``."""
    root = Path("/usr/lib/postgresql")
    versions = sorted((p for p in root.glob("*/bin") if (p / "initdb").exists()), key=lambda p: p.parent.name)
    return versions[-1] if versions else None


@attrs.define
class Cluster:
    """One private server: ``start``, ``stop`` and ``restart`` act on it alone."""

    bin: Path
    data: Path
    port: int
    user: str | None  # the OS user the server runs as (root may not run it)

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *argv: str) -> None:
        command = [str(self.bin / argv[0]), *argv[1:]]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.data / "server.log"), "-w", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            time.sleep(0.05)
        raise TimeoutError(f"the private PostgreSQL on port {self.port} did not come up")


@contextlib.contextmanager
def private_cluster() -> Iterator[Cluster]:
    """A fresh private server, started; stopped and removed afterwards."""
    binaries = postgres_bin()
    if binaries is None:
        raise PostgresUnavailable("no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql")
    user = None
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            raise PostgresUnavailable("running as root without runuser: initdb cannot run")
        user = "postgres"
    parent = Path(tempfile.mkdtemp(prefix="sdlc-hub-pg-"))
    data = parent / "data"
    if user is not None:
        shutil.chown(parent, user=user)
    cluster = Cluster(bin=binaries, data=data, port=free_port(), user=user)
    try:
        cluster._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        cluster.start()
        yield cluster
    finally:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            cluster.stop()
        shutil.rmtree(parent, ignore_errors=True)
