"""Child processes on loopback: our console scripts, a free port, start and wait for readiness, stop.

Used by the demo, the end-to-end tests and the benchmarks; nothing here knows what the processes are.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
import httpx

__all__ = ["Proc", "free_port", "script", "spawn", "wait_for"]


def script(name: str) -> list[str]:
    """The command line of one of our console scripts, preferring the one installed next to Python."""
    override = os.environ.get("SDLC_HUB_BIN_DIR")  # e.g. the scripts of another installation
    installed = Path(override) / name if override else Path(sys.executable).with_name(name)
    if installed.exists():
        return [str(installed)]
    module = {"sdlc-hub": "hub_app.cli", "sdlc-agent": "agent_app.cli", "jira-sim": "jira_sim.cli"}[name]
    return [sys.executable, "-c", f"import sys; from {module} import main; sys.exit(main())"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@attrs.define(kw_only=True)
class Proc:
    """A child process and the file its output goes to."""

    name: str
    popen: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 5.0) -> None:
        if self.popen.poll() is not None:
            return
        self.popen.send_signal(signal.SIGTERM)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(timeout)

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(5)


def spawn(
    name: str, argv: Sequence[str], log_dir: Path, *, detach: bool = False, env: dict[str, str] | None = None
) -> Proc:
    """Start ``argv`` with its output in ``log_dir/<name>.log``; ``detach`` puts it in a session of its own."""
    log_path = log_dir / f"{name}.log"
    with log_path.open("ab") as log_file:
        popen = subprocess.Popen(
            list(argv),
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=detach,
            env=env,
        )
    return Proc(name=name, popen=popen, log_path=log_path)


def wait_for(
    what: str, probe: Callable[[], bool], *, timeout: float, proc: Proc | None = None, every: float = 0.05
) -> None:
    """Poll ``probe`` until it is true; ``RuntimeError`` with the log's tail when ``proc`` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.popen.poll() is not None:
            raise RuntimeError(f"{what}: {proc.name} exited ({proc.popen.returncode}):\n{proc.log_tail()}")
        with contextlib.suppress(httpx.HTTPError, OSError, ValueError):
            if probe():
                return
        time.sleep(every)
    tail = f":\n{proc.log_tail()}" if proc is not None else ""
    raise RuntimeError(f"{what}: not ready after {timeout:.0f} s{tail}")
