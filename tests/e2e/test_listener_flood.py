"""A flood at the agent's webhook listener never stops its claim loop (DESIGN.md 5.7; issue 31 finding 5), end to
end: ``sdlc-agent run --webhook-listen`` with its soft limit of open files lowered to 256, and 1 100 idle
connections held open at its listener while the hub has work for it."""

from __future__ import annotations

import resource
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest

from loopback.stack import Stack, checked, wait_batch

from .test_webhooks import _Quiet, mirrored, person_edits, summary, until

pytestmark = pytest.mark.e2e

#: Runs the agent with its soft limit of open files at 256 (the hard limit as it was).
LOW_LIMIT = [
    sys.executable,
    "-c",
    "import os, resource, sys; hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]; "
    "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)); os.execvp(sys.argv[1], sys.argv[1:])",
]
IDLE = 1100


@contextmanager
def idle_connections(url: str, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections opened to ``url``'s listener (not waiting for the handshake) that send nothing."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 1000), hard))
    address = urlsplit(url)
    opened = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.connect_ex((address.hostname, address.port))
            opened.append(sock)
        yield opened
    finally:
        for sock in opened:
            sock.close()


def test_idle_connections_past_the_file_limit_never_stop_the_claim_loop(stack: Stack) -> None:
    """1 100 idle connections to an agent allowed 256 open files: it keeps claiming and finishes a batch, does not
    exit, logs no error; once they are gone its listener relays a person's edit again."""
    agent = stack.start_agent(prefix=LOW_LIMIT)
    mirrored(stack)
    with idle_connections(stack.listeners["sdlc-agent"], IDLE), stack.client() as hub:
        body = {
            "author": "planner",
            "title": "под наплывом",
            "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-11-30"}}],
        }
        batch = checked(hub.post("/batches", json=body))
        finished = wait_batch(hub, batch["id"], out=_Quiet(), timeout=120)
        assert [c["status"] for c in finished["commands"]] == ["done", "done"]
        assert agent.popen.poll() is None
    person_edits(stack, "AURORA-1533", "Сверка: после наплыва")
    until("the edit in the mirror", lambda: summary(stack, "AURORA-1533") == "Сверка: после наплыва", timeout=60)
    assert agent.popen.poll() is None
    log = agent.log_path.read_text(encoding="utf-8")
    assert '"level": "error"' not in log and '"level": "critical"' not in log
    assert "Traceback" not in log
