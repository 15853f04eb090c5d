"""The webhook listener's socket server (DESIGN.md 5.7; issue 31 findings 5 and 6) over real loopback sockets:
a connection cap, the head's and the body's deadlines, ``Content-Length`` required and checked before the body is
read, bodies read together held to a budget, and trouble accepting backed off and logged once a minute."""

from __future__ import annotations

import asyncio
import errno
import logging
from collections.abc import AsyncIterator, Callable

import anyio
import attrs
import pytest

from adapters.clock import FakeClock, SystemClock
from agent_app.listener import bind
from agent_app.webhook_server import ACCEPT_BACKOFF_MAX, AcceptTrouble, Answer, Limits, WebhookServer

pytestmark = pytest.mark.anyio

HEAD = b"POST /jira/webhook HTTP/1.1\r\nHost: agent\r\n"


@attrs.define
class Served:
    server: WebhookServer
    port: int
    bodies: list[bytes] = attrs.field(factory=list)

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection("127.0.0.1", self.port)

    async def until(self, what: str, found: Callable[[], bool]) -> None:
        """Wait until ``found()`` is true — the server's state, not a time — failing ``what`` after 10 s."""
        try:
            with anyio.fail_after(10):
                while not found():  # noqa: ASYNC110 — the server's counters, polled under a deadline
                    await asyncio.sleep(0.01)
        except TimeoutError:
            pytest.fail(f"{what}: not within 10 s")


async def _served(limits: Limits) -> AsyncIterator[Served]:
    stopping = asyncio.Event()
    sock = bind("127.0.0.1:0")
    bodies: list[bytes] = []

    async def handler(method: str, path: str, signature: str | None, body: bytes) -> Answer:
        if body == b"boom":
            raise RuntimeError("the handler failed")
        bodies.append(body)
        return Answer(status=204)

    server = WebhookServer(handler, limits, clock=SystemClock(), stopping=stopping)
    task = asyncio.create_task(server.serve(sock))
    try:
        yield Served(server=server, port=sock.getsockname()[1], bodies=bodies)
    finally:
        stopping.set()
        await task
        sock.close()


@pytest.fixture
async def served(request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    """A server with ``Limits(**param)`` (a 100-byte body at most) and a handler that answers 204 (and fails on
    the body ``boom``)."""
    async for found in _served(Limits(max_body=100, **getattr(request, "param", {}))):
        yield found


async def _answer(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the connection."""
    with anyio.fail_after(10):
        return await reader.read()


@pytest.mark.parametrize("served", [{"max_connections": 2}], indirect=True)
async def test_connections_past_the_cap_wait_unaccepted(served: Served) -> None:
    """With a cap of 2, three idle clients: two are accepted, the third waits in the backlog holding none of the
    agent's descriptors, and is served once a slot frees."""
    first, second, third = [await served.connect() for _ in range(3)]
    await served.until("two accepted", lambda: served.server.open == 2)
    first[1].close()
    await served.until("the first gone", lambda: served.server.counts.get("gone") == 1)
    third[1].write(HEAD + b"Content-Length: 2\r\n\r\nok")
    assert (await _answer(third[0])).startswith(b"HTTP/1.1 204 ")
    assert served.server.open <= 2
    assert served.bodies == [b"ok"]
    second[1].close()


@pytest.mark.parametrize("served", [{"head_seconds": 0.2}], indirect=True)
async def test_a_silent_connection_is_closed_after_the_head_deadline(served: Served) -> None:
    """A client that connects and sends nothing, or half a head, is disconnected; nothing reaches the handler."""
    silent, half = await served.connect(), await served.connect()
    half[1].write(HEAD)
    assert (await _answer(silent[0]), await _answer(half[0])) == (b"", b"")
    assert (served.server.counts, served.bodies) == ({"timed_out": 2}, [])


@pytest.mark.parametrize("served", [{"body_seconds": 0.2}], indirect=True)
async def test_a_body_not_whole_by_its_deadline_is_dropped(served: Served) -> None:
    """A head then 10 of 100 bytes: the connection is closed at the body's deadline, the handler never called."""
    reader, writer = await served.connect()
    writer.write(HEAD + b"Content-Length: 100\r\n\r\n" + b"x" * 10)
    assert await _answer(reader) == b""
    assert (served.server.counts, served.bodies, served.server.buffered) == ({"timed_out": 1}, [], 0)


@pytest.mark.parametrize(
    ("request_head", "status"),
    [
        (HEAD + b"\r\n", b"411"),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n", b"411"),
        (HEAD + b"Content-Length: 101\r\n\r\n", b"413"),
        (b"POST /other HTTP/1.1\r\nHost: agent\r\nContent-Length: 1\r\n\r\n", b"404"),
        (b"GET /jira/webhook HTTP/1.1\r\nHost: agent\r\n\r\n", b"405"),
        (b"\x16\x03\x01 not http\r\n\r\n", b"400"),
    ],
)
async def test_a_head_alone_is_refused_before_any_body(served: Served, request_head: bytes, status: bytes) -> None:
    """No ``Content-Length`` (chunked included) → 411, one over the limit → 413, answered from the head alone
    (no byte of the body sent); another path 404, another method 405, no HTTP 400."""
    reader, writer = await served.connect()
    writer.write(request_head)
    answer = await _answer(reader)
    assert answer.split(b" ")[1] == status
    assert served.bodies == []


@pytest.mark.parametrize("served", [{"max_buffered": 100}], indirect=True)
async def test_bodies_read_together_stay_within_the_budget(served: Served) -> None:
    """With 100 bytes for bodies in flight: a second 80-byte body is not read while the first one's 80 are held,
    and is read, whole, once the first is done."""
    slow, quick = await served.connect(), await served.connect()
    slow[1].write(HEAD + b"Content-Length: 80\r\n\r\n" + b"a" * 10)
    await served.until("the first body under way", lambda: served.server.buffered == 80)
    quick[1].write(HEAD + b"Content-Length: 80\r\n\r\n" + b"b" * 80)
    await served.until("both heads read", lambda: served.server.open == 2)
    assert (served.server.buffered, served.bodies) == (80, [])
    slow[1].write(b"a" * 70)
    assert (await _answer(slow[0])).startswith(b"HTTP/1.1 204 ")
    assert (await _answer(quick[0])).startswith(b"HTTP/1.1 204 ")
    assert served.bodies == [b"a" * 80, b"b" * 80]
    assert served.server.buffered == 0


def test_accept_trouble_backs_off_and_is_logged_once_a_minute(caplog: pytest.LogCaptureFixture) -> None:
    """EMFILE again and again: the pause doubles from 0.1 s up to 5 s; one line a minute, naming the errors it
    did not log; an accepted connection starts the pause over."""
    clock = FakeClock()
    trouble = AcceptTrouble(clock)
    error = OSError(errno.EMFILE, "Too many open files")
    caplog.set_level(logging.WARNING, logger="agent_app.webhook_server")
    delays = []
    for _ in range(12):
        delays.append(trouble.failed(error))
        clock.advance(delays[-1])
    assert delays[:7] == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, ACCEPT_BACKOFF_MAX]
    assert set(delays[6:]) == {ACCEPT_BACKOFF_MAX}
    clock.advance(60)
    trouble.failed(error)
    lines = [r for r in caplog.records if r.getMessage() == "webhook_accept_failed"]
    assert [(r.error, r.not_logged) for r in lines] == [("EMFILE", 0), ("EMFILE", 11)]  # type: ignore[attr-defined]
    trouble.accepted()
    assert trouble.failed(error) == 0.1


async def test_a_body_longer_than_its_head_said_ends_only_its_connection(served: Served) -> None:
    """Bytes past the declared length (h11 refuses them) and a handler that fails: each ends its own connection,
    the server goes on serving the next one."""
    reader, writer = await served.connect()
    writer.write(HEAD + b"Content-Length: 2\r\n\r\nokEXTRA GARBAGE")
    await _answer(reader)
    reader, writer = await served.connect()
    writer.write(HEAD + b"Content-Length: 4\r\n\r\nboom")
    assert await _answer(reader) == b""
    assert served.server.counts["failed"] == 1
    reader, writer = await served.connect()
    writer.write(HEAD + b"Content-Length: 2\r\n\r\nok")
    assert (await _answer(reader)).startswith(b"HTTP/1.1 204 ")
