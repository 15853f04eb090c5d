"""The hub's request deadline on the loop's clock, set by the test: when it is armed and what moves it.

The served hub's own tests (``test_serve_lifecycle``) show that a slow client is cut; these show when, to the
millisecond, which two clocks on a busy machine cannot.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from uvicorn.server import ServerState

from hub_app.serving import FLOOR_BYTES, RequestDeadline, with_request_timeout

TIMEOUT = 0.5
HEAD = b"POST /agent/events HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\n"


class ClockedLoop(asyncio.SelectorEventLoop):
    """A loop that is never run: its time is what the test says; its timers are only looked at."""

    now = 100.0

    def time(self) -> float:
        return self.now


class Transport(asyncio.Transport):
    """One client's connection, as the protocol sees it."""

    def __init__(self) -> None:
        super().__init__()
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def write(self, data: bytes | bytearray | memoryview) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _app(scope: Any, receive: Any, send: Any) -> None:
    """Never run: the loop is not."""


async def _ended(tasks: set[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)


@pytest.fixture
def loop() -> Iterator[ClockedLoop]:
    clocked = ClockedLoop()
    yield clocked
    # A complete head hands its request to the app as a task, which this loop never runs: cancel it unstarted.
    pending = asyncio.all_tasks(clocked)
    for task in pending:
        task.cancel()
    clocked.run_until_complete(_ended(pending))
    clocked.close()


def _connected(loop: ClockedLoop) -> tuple[RequestDeadline, Transport]:
    protocol = with_request_timeout(TIMEOUT)(
        config=uvicorn.Config(_app, ws="none", lifespan="off"), server_state=ServerState(), app_state={}, _loop=loop
    )
    transport = Transport()
    protocol.connection_made(transport)
    return protocol, transport


def _deadline(protocol: RequestDeadline) -> float | None:
    handle = protocol._deadline
    return None if handle is None or handle.cancelled() else handle.when()


def test_a_connection_gets_the_deadline_when_it_opens(loop: ClockedLoop) -> None:
    protocol, _ = _connected(loop)
    assert _deadline(protocol) == 100.0 + TIMEOUT


def test_bytes_of_the_head_do_not_move_its_deadline(loop: ClockedLoop) -> None:
    """A head trickled in byte by byte (slowloris) keeps the deadline its connection got when it opened."""
    protocol, _ = _connected(loop)
    for at, byte in zip((100.1, 100.2, 100.4), b"GET", strict=True):
        loop.now = at
        protocol.data_received(bytes([byte]))
        assert _deadline(protocol) == 100.0 + TIMEOUT


def test_a_small_body_is_whole_within_the_timeout_of_its_head(loop: ClockedLoop) -> None:
    """Up to FLOOR_BYTES, the body has the timeout from the head's end, however steadily its bytes come."""
    protocol, _ = _connected(loop)
    protocol.data_received(HEAD + b"Content-Length: 100\r\n\r\n")
    for at in (100.2, 100.4):
        loop.now = at
        protocol.data_received(b"x")
        assert _deadline(protocol) == 100.0 + TIMEOUT


def test_a_large_body_gets_time_by_its_size(loop: ClockedLoop) -> None:
    """Past FLOOR_BYTES, the floor grows with what has come (twice the floor's bytes, twice the timeout), and a
    pause may last the timeout at most."""
    protocol, _ = _connected(loop)
    protocol.data_received(HEAD + f"Content-Length: {3 * FLOOR_BYTES}\r\n\r\n".encode())
    protocol.data_received(b"x")
    loop.now = 100.4
    protocol.data_received(b"x" * (2 * FLOOR_BYTES))
    assert _deadline(protocol) == pytest.approx(100.4 + TIMEOUT)
    loop.now = 100.9
    protocol.data_received(b"x")
    assert _deadline(protocol) == pytest.approx(100.0 + 2 * TIMEOUT)


def test_the_deadline_closes_the_connection_and_says_so(loop: ClockedLoop, caplog: pytest.LogCaptureFixture) -> None:
    protocol, transport = _connected(loop)
    caplog.set_level(logging.INFO, logger="hub_app.serving")
    loop.now = 100.0 + TIMEOUT
    protocol._expired()
    assert transport.closed
    assert [(r.msg, getattr(r, "timeout_s", None)) for r in caplog.records] == [("request_timeout", TIMEOUT)]
