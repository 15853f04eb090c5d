"""A tiny loopback HTTP proxy that loses chosen requests or answers, for the end-to-end fault tests.

It serves one request per connection (answers carry ``Connection: close``) and forwards it with httpx to the
upstream. A :class:`Drop` closes the client's connection without an answer, either before forwarding
(``after=False``: the upstream never sees the request) or after the upstream answered (``after=True``: the
upstream did the work, the answer is lost) — what a dropped connection looks like to the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import attrs
import httpx

from loopback.processes import Proc
from loopback.stack import DEMO_PACING, Stack, wait_batch

E2E_PACING = dict(DEMO_PACING)

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "host"}


@attrs.define
class Drop:
    method: str
    path_regex: str
    after: bool = True
    times: int = 1
    on_drop: Callable[[], None] | None = None

    def matches(self, method: str, path: str) -> bool:
        return self.times > 0 and method == self.method and re.search(self.path_regex, path) is not None


class LoopbackProxy:
    """``with LoopbackProxy(upstream) as proxy:`` — ``proxy.url`` forwards to ``upstream``."""

    def __init__(self, upstream: str, drops: list[Drop] | None = None) -> None:
        self.upstream = upstream.rstrip("/")
        self.drops = drops or []
        self.seen: list[str] = []
        self.dropped: list[str] = []
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> LoopbackProxy:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("proxy did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._server is not None:
            self._loop.call_soon_threadsafe(self._server.close)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        async with httpx.AsyncClient(base_url=self.upstream, timeout=None) as client:
            self._client = client
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
            port = self._server.sockets[0].getsockname()[1]
            self.url = f"http://127.0.0.1:{port}"
            self._ready.set()
            with contextlib.suppress(asyncio.CancelledError):
                await self._server.serve_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers: list[tuple[str, str]] = []
            for line in lines[1:]:
                if line:
                    name, value = line.split(":", 1)
                    headers.append((name.strip(), value.strip()))
            length = next((int(v) for n, v in headers if n.lower() == "content-length"), 0)
            body = await reader.readexactly(length) if length else b""
            path = target.split("?", 1)[0]
            self.seen.append(f"{method} {path}")
            drop = next((d for d in self.drops if d.matches(method, path)), None)
            if drop is not None:
                drop.times -= 1
            if drop is not None and not drop.after:
                self._record_drop(drop, method, path)
                return
            response = await self._client.request(
                method,
                target,
                content=body,
                headers=[(n, v) for n, v in headers if n.lower() not in _HOP_BY_HOP],
            )
            if drop is not None:
                self._record_drop(drop, method, path)
                return
            out = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}"]
            out += [f"{n}: {v}" for n, v in response.headers.multi_items() if n.lower() not in _HOP_BY_HOP]
            out += [f"Content-Length: {len(response.content)}", "Connection: close", "", ""]
            writer.write("\r\n".join(out).encode("latin-1") + response.content)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, httpx.HTTPError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    def _record_drop(self, drop: Drop, method: str, path: str) -> None:
        self.dropped.append(f"{method} {path}")
        if drop.on_drop is not None:
            drop.on_drop()


def submit(stack: Stack, body: dict[str, Any]) -> dict[str, Any]:
    with stack.client() as client:
        response = client.post("/batches", json=body)
    assert response.status_code == 201, response.text
    batch: dict[str, Any] = response.json()
    return batch


def finish(stack: Stack, batch_id: int, timeout: float = 40.0) -> dict[str, Any]:
    """Wait until every command of the batch is finished; show the agent's log if it is not."""
    with stack.client() as client:
        try:
            return wait_batch(client, batch_id, out=io.StringIO(), timeout=timeout)
        except RuntimeError:
            agent_logs = "\n".join(p.log_tail() for n, p in stack.procs.items() if n.startswith("sdlc-agent"))
            raise AssertionError(f"batch {batch_id} did not finish; agent log:\n{agent_logs}") from None


def full_refresh(stack: Stack) -> dict[str, Any]:
    with stack.client() as client:
        response = client.post("/refresh", json={})
    # 200: the hub's automatic full refresh (made by the agent's first claim) is queued or running and answers
    assert response.status_code in (200, 201), response.text
    return finish(stack, response.json()["id"])


def hub_get(stack: Stack, path: str, **params: Any) -> Any:
    with stack.client() as client:
        response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def sim_issue(stack: Stack, key: str) -> dict[str, Any]:
    """The raw stored issue from the simulator's control API."""
    with stack.sim() as sim:
        response = sim.get(f"/_sim/state/issues/{key}")
    assert response.status_code == 200, response.text
    issue: dict[str, Any] = response.json()
    return issue


def sim_calls(stack: Stack) -> list[dict[str, Any]]:
    with stack.sim() as sim:
        calls: list[dict[str, Any]] = sim.get("/_sim/calls").json()
    return calls if isinstance(calls, list) else calls["items"]


def is_write(call: dict[str, Any]) -> bool:
    return call["method"] != "GET" and not call["path"].endswith("/search")


def at(call: dict[str, Any]) -> float:
    return datetime.fromisoformat(call["at"].replace("Z", "+00:00")).timestamp()


def wait_until(what: str, probe: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if probe():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what}: not after {timeout} s")


def by_seq(batch: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(batch["commands"], key=lambda c: c["seq"])


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def sim_fault(stack: Stack, **fault: Any) -> None:
    """``POST /_sim/faults``: the next ``times`` matching Jira calls fail as told."""
    with stack.sim() as sim:
        response = sim.post("/_sim/faults", json=fault)
    assert response.status_code == 201, response.text


def sim_clear_faults(stack: Stack) -> None:
    with stack.sim() as sim:
        response = sim.delete("/_sim/faults")
    assert response.status_code in (200, 204), response.text


def wait_in_claim(stack: Stack, after: str) -> None:
    """Wait until the agent's latest claim began after ``after`` (an ISO time): it is now in a long poll."""

    def claiming() -> bool:
        last = hub_get(stack, "/agent-status")["last_claim_at"]
        return last is not None and moment(last) > moment(after)

    wait_until("the agent claims again", claiming)


def agent_events(proc: Proc) -> list[dict[str, Any]]:
    """The agent's JSON log lines (anything else it printed is skipped)."""
    events = []
    for line in proc.log_path.read_text(encoding="utf-8").splitlines():
        if line.startswith("{"):
            events.append(json.loads(line))
    return events


def logs(stack: Stack, lines: int = 40) -> str:
    """The tails of every process's log, for an assertion message."""
    return "\n".join(f"--- {name} ---\n{proc.log_tail(lines)}" for name, proc in stack.procs.items())
