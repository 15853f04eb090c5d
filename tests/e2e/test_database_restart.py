"""PostgreSQL restarted under a running batch: the hub answers 503 with ``Retry-After`` meanwhile (never 500),
serves again once the database is back, and the batch completes, every command once.

The server restarted is a private one the test makes (``tests/pg_cluster.py``), never the shared one.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from loopback.stack import Stack, start_stack
from tests.pg_cluster import Cluster, private_cluster

from .e2e_support import E2E_PACING, by_seq, finish, full_refresh, logs, submit, wait_until

pytestmark = pytest.mark.e2e

#: Long enough gaps for the outage to fall inside the batch.
PACING = {**E2E_PACING, "ensure_comment": 0.5}
BATCH = {
    "author": "e2e",
    "title": "комментарии",
    "commands": [
        {"type": "ensure_comment", "params": {"key": key, "marker": f"[pg-{n}]", "body": f"[pg-{n}] перезапуск"}}
        for n, key in enumerate(["AURORA-1538", "AURORA-1542", "AURORA-1538", "AURORA-1542", "AURORA-1538"])
    ],
}
#: How long the database stays down: a PostgreSQL restart takes seconds in production.
OUTAGE_SECONDS = 2.0


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    with private_cluster() as made:
        yield made


@pytest.fixture
def stack(tmp_path: Path, cluster: Cluster) -> Iterator[Stack]:
    running = start_stack(tmp_path, pacing=PACING, claim_wait_seconds=1.0, database_url=cluster.url)
    try:
        yield running
    finally:
        running.stop()


class Prober(threading.Thread):
    """Asks the hub for the batch and its readiness every 50 ms, keeping every answer's status and Retry-After."""

    def __init__(self, stack: Stack, batch_id: int) -> None:
        super().__init__(daemon=True)
        self.stack, self.batch_id = stack, batch_id
        self.answers: list[tuple[str, int, str | None]] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        with self.stack.client() as client:
            while not self.stopping.is_set():
                for path in (f"/batches/{self.batch_id}", "/readyz"):
                    try:
                        response = client.get(path, timeout=10)
                    except httpx.TransportError:
                        continue
                    self.answers.append((path, response.status_code, response.headers.get("retry-after")))
                time.sleep(0.05)


def test_postgresql_restart_under_a_running_batch(stack: Stack, cluster: Cluster) -> None:
    """The database goes away for 2 s after the batch's first command: every answer meanwhile is 200 or 503 with
    Retry-After (never 500), the hub logs nothing at error level, and the batch ends done, one delivery each."""
    stack.start_agent(claim_wait=1.0)
    full_refresh(stack)
    batch = submit(stack, BATCH)
    prober = Prober(stack, batch["id"])
    prober.start()

    wait_until("the batch's first command is done", lambda: _first_status(stack, batch["id"]) == "done")
    cluster.stop()
    time.sleep(OUTAGE_SECONDS)  # the outage under test, not a wait for something
    cluster.start()
    final = by_seq(finish(stack, batch["id"], timeout=60))
    prober.stopping.set()
    prober.join(timeout=15)

    assert [(c["status"], c["deliveries"]) for c in final] == [("done", 1)] * 6, logs(stack)
    codes = {status for _, status, _ in prober.answers}
    assert codes == {200, 503}, prober.answers
    assert {after for _, status, after in prober.answers if status == 503} == {"2"}
    hub_log = stack.procs["sdlc-hub"].log_path.read_text(encoding="utf-8")
    events = [json.loads(line) for line in hub_log.splitlines() if line.startswith("{")]
    assert [e for e in events if e["level"] in ("error", "critical")] == []
    assert "Traceback" not in hub_log


def _first_status(stack: Stack, batch_id: int) -> str | None:
    try:
        with stack.client() as client:
            commands = client.get(f"/batches/{batch_id}", timeout=5).json()["commands"]
    except (httpx.TransportError, KeyError, ValueError):
        return None
    return str(min(commands, key=lambda c: c["seq"])["status"])
