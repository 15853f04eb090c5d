"""What the agent's webhook listener costs and holds (issue 31 findings 5, 6): signed deliveries per second
through its socket server, and the agent's open descriptors and memory while a flood holds connections at it.

Run: ``PYTHONPATH=src python bench/bench_listener.py [--deliveries N] [--idle N]``. The listener
(:class:`agent_app.listener.WebhookListener` on its :class:`agent_app.webhook_server.WebhookServer`) serves a
loopback socket in this process, with a relay that only counts (no hub). Prints: the mean milliseconds of one
signed ``jira:issue_updated`` delivery (a new connection each, as Jira sends them) and deliveries per second; then,
with ``--idle`` connections held open and as many unsigned 8 MiB bodies begun, the connections the listener
accepted, the process's open descriptors and its resident memory growth. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import resource
import time
from pathlib import Path

from adapters.clock import SystemClock
from agent_app.listener import MAX_BODY, WebhookListener, bind
from agent_app.webhook_server import WebhookServer
from reconcile.config.settings import Settings
from reconcile.guard.policy import AgentPolicy

SECRET = b"bench-secret"


def _descriptors() -> int:
    return sum(1 for _ in Path("/proc/self/fd").iterdir())


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _delivery(number: int) -> bytes:
    body = json.dumps(
        {
            "timestamp": 1_790_000_000_000 + number,
            "webhookEvent": "jira:issue_updated",
            "issue": {"id": str(10_000 + number), "key": "AURORA-1533", "fields": {"summary": f"v{number}"}},
            "changelog": {"id": str(90_000 + number), "items": []},
        }
    ).encode()
    signature = "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest()
    head = f"POST /jira/webhook HTTP/1.1\r\nHost: agent\r\nX-Hub-Signature: {signature}\r\nContent-Length: {len(body)}"
    return head.encode() + b"\r\n\r\n" + body


async def _deliver(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    answer = await reader.read()
    writer.close()
    return answer


async def main(deliveries: int, idle: int) -> None:
    stopping = asyncio.Event()
    listener = WebhookListener(
        hub=None,  # type: ignore[arg-type]  # no relay: the events stay queued
        secret=SECRET,
        policy=AgentPolicy(allow_projects=("AURORA",)),
        clock=SystemClock(),
        stopping=stopping,
        queue_size=deliveries + 10,
    )
    listener.follow(Settings().agent_context())
    sock = bind("127.0.0.1:0")
    port = sock.getsockname()[1]
    server = WebhookServer(listener.handle, listener.limits, clock=SystemClock(), stopping=stopping)
    serving = asyncio.create_task(server.serve(sock))
    requests = [_delivery(n) for n in range(deliveries)]
    start = time.perf_counter()
    for request in requests:
        assert (await _deliver(port, request)).startswith(b"HTTP/1.1 204 ")
    seconds = time.perf_counter() - start
    print(f"signed delivery, a connection each: {seconds / deliveries * 1000:.2f} ms ({deliveries / seconds:.0f}/s)")

    fds, rss = _descriptors(), _rss_mib()
    held = []
    head = b"POST /jira/webhook HTTP/1.1\r\nHost: agent\r\nContent-Length: " + str(MAX_BODY).encode() + b"\r\n\r\n"
    for number in range(idle):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        if number % 2:
            writer.write(head + b"x" * 65_536)  # an unsigned 8 MiB body, begun and never finished
        held.append((reader, writer))
    await asyncio.sleep(1.0)  # let the listener take what it will
    print(
        f"{idle} connections held ({idle // 2} with 8 MiB bodies begun): the listener accepted {server.open}, "
        f"descriptors +{_descriptors() - fds - idle} beyond the clients' own, memory +{_rss_mib() - rss:.1f} MiB"
    )
    for _, writer in held:
        writer.close()
    stopping.set()
    await serving
    sock.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--deliveries", type=int, default=500)
    parser.add_argument("--idle", type=int, default=400)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.idle + 100)), hard))
    asyncio.run(main(args.deliveries, args.idle))
